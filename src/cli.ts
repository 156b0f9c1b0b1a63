// Admin command line: `npm run cli -- <command> [options]`. Results go to stdout as one line of
// JSON; messages go to stderr.
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { bootstrapOrganization } from "./core/bootstrap/index.ts";
import { openDatabase } from "./db/client.ts";

const USAGE = `Usage:
  npm run cli -- bootstrap --org "<title>" --email <email> [--name "<display name>"]
      Creates the user (or reuses it by e-mail), an organization with that user as admin,
      and an API token. Prints {"organizationId","userId","token"}.`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== "bootstrap") {
    console.error(command ? `Unknown command "${command}".\n${USAGE}` : USAGE);
    return 2;
  }
  let values: { org?: string; email?: string; name?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { org: { type: "string" }, email: { type: "string" }, name: { type: "string" } },
      strict: true,
    }));
  } catch (error) {
    // An unknown option, a missing value or a stray argument: say so, with the usage.
    console.error(`${(error as Error).message.replace(/\.?$/, ".")}\n${USAGE}`);
    return 2;
  }
  if (!values.org || !values.email) {
    console.error(`bootstrap needs --org and --email.\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const result = await bootstrapOrganization(database.prisma, {
      organizationTitle: values.org,
      email: values.email,
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
