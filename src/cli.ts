// Admin command line: `npm run cli -- <command> [options]`. Results go to stdout as one line of
// JSON; messages go to stderr.
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { bootstrapOrganization } from "./core/bootstrap/index.ts";
import { inviteByOperator } from "./core/members/index.ts";
import { openDatabase } from "./db/client.ts";

const USAGE = `Usage:
  npm run cli -- bootstrap --org "<title>" --email <email> [--name "<display name>"]
      Creates the user (or reuses it by e-mail), an organization with that user as admin,
      and an API token. Prints {"organizationId","userId","token"}.
  npm run cli -- invite --org <organizationId> --email <email> --role <role|guest>
      Adds the member to the organization (creating the user if new; an existing member keeps
      their role) and issues a new API token for that user. Prints {"userId","token"}.`;

const COMMANDS = {
  bootstrap: { options: ["org", "email", "name"], required: ["org", "email"] },
  invite: { options: ["org", "email", "role"], required: ["org", "email", "role"] },
} as const;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== "bootstrap" && command !== "invite") {
    console.error(command ? `Unknown command "${command}".\n${USAGE}` : USAGE);
    return 2;
  }
  const spec = COMMANDS[command];
  let values: { org?: string; email?: string; name?: string; role?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: Object.fromEntries(spec.options.map((name) => [name, { type: "string" as const }])),
      strict: true,
    }) as { values: typeof values });
  } catch (error) {
    // An unknown option, a missing value or a stray argument: say so, with the usage.
    console.error(`${(error as Error).message.replace(/\.?$/, ".")}\n${USAGE}`);
    return 2;
  }
  const missing = spec.required.filter((name) => !values[name]);
  if (missing.length > 0) {
    console.error(`${command} needs ${spec.required.map((name) => `--${name}`).join(", ").replace(/, ([^,]*)$/, " and $1")}.\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const result =
      command === "invite"
        ? await inviteByOperator(database.prisma, { organizationId: values.org!, email: values.email!, role: values.role! })
        : await bootstrapOrganization(database.prisma, {
            organizationTitle: values.org!,
            email: values.email!,
            displayName: values.name,
          });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
