// Admin command line: `npm run -s cli -- <command> [options]` (`-s` keeps npm's own banner off
// stdout). Results go to stdout as one line of JSON; messages go to stderr. Arguments, e-mail
// included, are checked before the database is opened, so a refused command creates nothing.
//
// Only what checks the arguments is imported up front; the database and the domains are loaded
// once a command is accepted, so that `--help` or a refused argument answers at once.
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { isEmail } from "./core/email.ts";
import { OPERATOR_TOKEN_PATH, readOperatorFile } from "./operator-file.ts";

const USAGE = `Usage: (npm run -s keeps npm's banner off stdout, so it holds the JSON line only)
  npm run -s cli -- bootstrap --org "<title>" --email <email> [--name "<display name>"]
      Creates the user (or reuses it by e-mail), an organization with that user as admin,
      and an API token. Prints {"organizationId","userId","token"}.
  npm run -s cli -- invite --org <organizationId> --email <email> --role <role|guest>
      Adds the member to the organization (creating the user if new; an existing member keeps
      their role) and issues a new API token for that user. Prints {"userId","token"}.
  npm run -s cli -- token --email <email> [--label "<what it is for>"] [--expires-in-days <n>]
      Issues a new API token for an existing user. Prints {"userId","token","expiresAt"}.
      Works while the server runs: on the embedded database (one process only) the running
      server issues it, asked over loopback with the secret it keeps in DATA_DIR.
  npm run -s cli -- --help`;

const COMMANDS = {
  bootstrap: { options: ["org", "email", "name"], required: ["org", "email"] },
  invite: { options: ["org", "email", "role"], required: ["org", "email", "role"] },
  token: { options: ["email", "label", "expires-in-days"], required: ["email"] },
} as const;
type Command = keyof typeof COMMANDS;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!command || !(command in COMMANDS)) {
    console.error(command ? `Unknown command "${command}".\n${USAGE}` : USAGE);
    return 2;
  }
  const spec = COMMANDS[command as Command];
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(spec.options.map((name) => [name, { type: "string" as const }])),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    // An unknown option, a missing value or a stray argument: say so, with the usage.
    console.error(`${(error as Error).message.replace(/\.?$/, ".")}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const text = (name: string) => values[name] as string | undefined;
  const missing = spec.required.filter((name) => !text(name));
  if (missing.length > 0) {
    console.error(
      `${command} needs ${spec.required
        .map((name) => `--${name}`)
        .join(", ")
        .replace(/, ([^,]*)$/, " and $1")}.\n${USAGE}`,
    );
    return 2;
  }
  if (!isEmail(text("email")!)) {
    console.error(`--email "${text("email")}" is not an e-mail address.`);
    return 2;
  }
  const days = text("expires-in-days");
  if (days !== undefined && !/^\d+$/.test(days)) {
    console.error(`--expires-in-days must be a whole number of days (got "${days}").`);
    return 2;
  }
  const config = loadConfig();
  const { openDatabase } = await import("./db/client.ts");
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
    });
  } catch (error) {
    const message = (error as Error).message;
    if (!/is in use/.test(message)) throw error;
    const server = readOperatorFile(config.dataDir);
    if (command !== "token") throw new Error(`${message} Stop the server for "${command}" ("token" works while it runs).`);
    if (!server) throw new Error(`${message} It is not a running server of this version (no operator.json beside the database): stop it.`);
    return tokenFromServer(server, { email: text("email")!, label: text("label"), expiresInDays: days });
  }
  try {
    const [{ inviteByOperator }, { issueTokenForEmail }, { bootstrapOrganization }, { systemClock }] = await Promise.all([
      import("./core/members/index.ts"),
      import("./core/tokens/index.ts"),
      import("./core/bootstrap/index.ts"),
      import("./core/clock.ts"),
    ]);
    const result =
      command === "invite"
        ? await inviteByOperator(database.prisma, { organizationId: text("org")!, email: text("email")!, role: text("role")! })
        : command === "token"
          ? await issueTokenForEmail(database.prisma, systemClock, {
              email: text("email")!,
              label: text("label"),
              expiresInDays: days === undefined ? undefined : Number(days),
            })
          : await bootstrapOrganization(database.prisma, {
              organizationTitle: text("org")!,
              email: text("email")!,
              displayName: text("name"),
            });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

/** The running server issues the token (it holds the embedded database); its answer is printed as is. */
async function tokenFromServer(
  server: { url: string; secret: string },
  input: { email: string; label?: string; expiresInDays?: string },
): Promise<number> {
  let response: Response;
  try {
    response = await fetch(`${server.url}${OPERATOR_TOKEN_PATH}`, {
      method: "POST",
      headers: { authorization: `Operator ${server.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ ...input, expiresInDays: input.expiresInDays === undefined ? undefined : Number(input.expiresInDays) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new Error(`The server holding the embedded database did not answer at ${server.url} (${(error as Error).message}).`);
  }
  const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!response.ok) throw new Error(body?.error?.message ?? `The server answered ${response.status}.`);
  process.stdout.write(`${JSON.stringify(body)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
