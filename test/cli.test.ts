// The operator's entry points as real processes: `npm run cli -- bootstrap` and `npm start`
// (src/main.ts), each on a fresh database (a PGlite DATA_DIR, or a fresh PostgreSQL database when
// DATABASE_URL is set), checked through the app afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { openDatabase, type Database } from "../src/db/client.ts";
import { createScratchDatabase } from "./support/database.ts";
import { validateResponse } from "./support/openapi.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const serverUrl = process.env.DATABASE_URL;
const kind = serverUrl ? "PostgreSQL" : "PGlite";

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: ours, without any database setting, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of ["DATABASE_URL", "DATA_DIR", "PORT", "PUBLIC_URL", "SEED_DEMO"]) delete base[key];
  return { ...base, ...env };
}

/** Spawns `node --import tsx <script>` (what `tsx <script>` does) in the project. */
function spawnScript(script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

const children = new Set<ChildProcess>();

function runCli(args: string[], env: Record<string, string>): Promise<RunResult> {
  const child = spawnScript("src/cli.ts", args, env);
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

afterAll(() => {
  // Only if a test failed half-way: stop what we started.
  for (const child of children) child.kill("SIGKILL");
});

/** An empty database of the kind under test, as the environment a process needs to use it. */
async function freshTarget() {
  const dataDir = mkdtempSync(join(tmpdir(), "cli-test-"));
  const scratch = serverUrl ? await createScratchDatabase(serverUrl) : undefined;
  return {
    dataDir,
    env: { DATA_DIR: dataDir, ...(scratch ? { DATABASE_URL: scratch.url } : {}) },
    open: () => openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir }),
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A request to the app in this process, without a listening server. */
async function call(database: Database, token: string | undefined, path: string) {
  const { yoga, close } = createApp({ database, config: { publicUrl: "http://localhost:4000" } });
  try {
    const response = await yoga.fetch(`http://localhost:4000${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, body: (await response.json()) as any };
  } finally {
    // Its job worker would otherwise poll the database on after the test closes it.
    await close();
  }
}

const USAGE = /Usage:[\s\S]*bootstrap --org/;

describe.concurrent(`cli (${kind})`, () => {
  it("bootstrap prints one line of JSON whose token works on the app, on the same database", { timeout: 120_000 }, async ({ expect }) => {
    const target = await freshTarget();
    let database: Database | undefined;
    try {
      // A bad e-mail first: a clear message, nothing on stdout, nothing created.
      const refused = await runCli(["bootstrap", "--org", "Acme Docs", "--email", "not-an-email"], target.env);
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(/email/);
      expect(refused.stderr).toMatch(/not-an-email/);

      const result = await runCli(["bootstrap", "--org", "Acme Docs", "--email", "a@b.co", "--name", "Ann"], target.env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      const printed = JSON.parse(result.stdout);
      expect(Object.keys(printed).sort()).toEqual(["organizationId", "token", "userId"]);
      expect(printed.organizationId).toMatch(/^org_/);
      expect(printed.userId).toMatch(/^usr_/);
      expect(printed.token).toMatch(/^dps_/);

      // The app, started on that same database, accepts the token.
      database = await target.open();
      const organization = await call(database, printed.token, `/v1/orgs/${printed.organizationId}`);
      expect(organization.status).toBe(200);
      expect(organization.body).toMatchObject({ object: "organization", id: printed.organizationId, title: "Acme Docs" });
      expect(organization.body.permissions.admin).toBe(true);
      expect(validateResponse("GET", `/v1/orgs/${printed.organizationId}`, 200, organization.body)).toEqual([]);

      // One organization only: the refused run created nothing.
      const list = await call(database, printed.token, "/v1/orgs");
      expect(list.body.count).toBe(1);
      expect(await database.prisma.organization.count()).toBe(1);
      const user = await database.prisma.user.findUniqueOrThrow({ where: { id: printed.userId } });
      expect(user).toMatchObject({ email: "a@b.co", displayName: "Ann" });

      const anonymous = await call(database, "dps_not-a-token", `/v1/orgs/${printed.organizationId}`);
      expect(anonymous.status).toBe(401);
    } finally {
      await database?.close();
      await target.dispose();
    }
  });

  it("refuses bad arguments with the usage on stderr, nothing on stdout, and a non-zero exit", { timeout: 60_000 }, async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), "cli-test-"));
    try {
      const cases = [
        [],
        ["frob"],
        ["bootstrap"],
        ["bootstrap", "--org", "Acme Docs"],
        ["bootstrap", "--email", "a@b.co"],
        ["bootstrap", "--org"],
        ["bootstrap", "--org", "Acme Docs", "--email", "a@b.co", "--bogus"],
        ["bootstrap", "--org", "Acme Docs", "--email", "a@b.co", "stray"],
      ];
      // The data directory would be used only past the argument check: point there, not at a server.
      const results = await Promise.all(cases.map((args) => runCli(args, { DATA_DIR: dataDir })));
      results.forEach((result, index) => {
        const label = JSON.stringify(cases[index]);
        expect({ label, code: result.code }).not.toEqual({ label, code: 0 });
        expect({ label, code: result.code }).toEqual({ label, code: 2 });
        expect({ label, stdout: result.stdout }).toEqual({ label, stdout: "" });
        expect(result.stderr, label).toMatch(USAGE);
      });
      expect(results[1].stderr).toMatch(/Unknown command "frob"/);
      expect(results[6].stderr).toMatch(/--bogus/);
      expect(results[7].stderr).toMatch(/stray/);
      // Nothing was opened or created.
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // The DATA_DIR lock is the embedded database's own: it is tested on PGlite whatever the pass.
  it("refuses a PGlite DATA_DIR held by another process with a clear 'in use' message", { timeout: 120_000 }, async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), "cli-test-"));
    let holder: Database | undefined;
    try {
      holder = await openDatabase({ dataDir });
      const result = await runCli(["bootstrap", "--org", "Acme Docs", "--email", "a@b.co"], { DATA_DIR: dataDir });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/in use/);
      expect(result.stderr).toContain(dataDir);
      expect(result.stderr).toContain(`pid ${process.pid}`);
      // It did not touch the database: still empty, and still ours.
      expect(await holder.prisma.organization.count()).toBe(0);
      expect(existsSync(join(dataDir, ".lock"))).toBe(true);
    } finally {
      await holder?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * The server as a child process (src/main.ts through tsx, or `spawn` given), with its output and
 * a way to wait for a line of it.
 */
function startMain(env: Record<string, string>, spawnServer = () => spawnScript("src/main.ts", [], env)) {
  const child = spawnServer();
  children.add(child);
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((wake) => wake());
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => ((stderr += chunk), notify()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // "close": exited and its output fully read.
    child.on("close", (code, signal) => {
      children.delete(child);
      notify();
      resolve({ code, signal });
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    /** JSON log lines. */
    get stdout() {
      return stdout;
    },
    /** The human banner: URLs, the demo token. */
    get stderr() {
      return stderr;
    },
    /** Resolves once stderr (the banner) matches; rejects if the process ends first or after `ms`. */
    async waitFor(pattern: RegExp, ms = 60_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = stderr.match(pattern);
        if (match) return match;
        if (done) throw new Error(`main exited before printing ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`main did not print ${pattern} in ${ms} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 200);
        });
      }
    },
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
    /** The process spawned (for `npm start`: npm itself). */
    pid: child.pid,
  };
}

describe(`npm start (${kind})`, () => {
  it(
    "seeds a demo organization on first start, prints its token and the GraphiQL URL, and does not seed again",
    { timeout: 180_000 },
    async () => {
      const target = await freshTarget();
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = { ...target.env, PORT: String(port) };
      const get = async (token: string, path: string) => {
        const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: (await response.json()) as any };
      };
      try {
        const first = startMain(env);
        let token: string;
        try {
          [, token] = await first.waitFor(/API token:\s*\n\s*(dps_\S+)\s*\n/);
          await first.waitFor(/Or open .*\n/);
          // The banner names the demo user, so `cli token --email` can be typed at once.
          expect(first.stderr).toMatch(/its user demo@example\.com/);
          expect(first.stderr).toContain(`http://localhost:${port}/graphql`);
          expect(first.stderr).toMatch(/GraphiQL: http:\/\/localhost:\d+\/graphql/);
          // Logs are JSON lines, and the token is not in them.
          const logs = first.stdout
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line));
          expect(logs.find((entry) => entry.msg === "listening")).toMatchObject({ level: "info", port });
          expect(first.stdout).not.toContain(token);

          const graphiql = await fetch(`${base}/graphql`, { headers: { accept: "text/html" } });
          expect(graphiql.status).toBe(200);
          expect(graphiql.headers.get("content-type")).toMatch(/^text\/html/);
          await graphiql.text();

          // The demo organization and its sample space, through REST with the printed token.
          const organizations = await get(token, "/v1/orgs");
          expect(organizations.status).toBe(200);
          expect(organizations.body.count).toBe(1);
          const [organization] = organizations.body.items;
          expect(organization).toMatchObject({ object: "organization", title: "Demo organization" });
          expect(first.stderr).toContain(organization.id);
          const spaces = await get(token, `/v1/orgs/${organization.id}/spaces`);
          expect(spaces.status).toBe(200);
          expect(validateResponse("GET", `/v1/orgs/${organization.id}/spaces`, 200, spaces.body)).toEqual([]);
          expect(spaces.body.count).toBe(1);
          const [space] = spaces.body.items;
          expect(space).toMatchObject({ object: "space", title: "Getting started", organization: organization.id });
          const read = await get(token, `/v1/spaces/${space.id}`);
          expect(read.status).toBe(200);
          expect(read.body.urls.location).toBe(`http://localhost:${port}/v1/spaces/${space.id}`);
          expect(validateResponse("GET", `/v1/spaces/${space.id}`, 200, read.body)).toEqual([]);
        } finally {
          const exit = await first.stop();
          expect(exit).toEqual({ code: 0, signal: null });
        }
        if (!serverUrl) expect(existsSync(join(target.dataDir, ".lock"))).toBe(false);

        // Second start on the same database: no new demo, the first token still works, and a fresh
        // token for this start is printed and prefilled in GraphiQL.
        const second = startMain(env);
        try {
          const [, fresh] = await second.waitFor(/Demo user demo@example\.com; an API token for this start.*\n\s*(dps_\S+)\s*\n/);
          await second.waitFor(/Another token, while the server runs: npm run -s cli -- token --email demo@example\.com\n/);
          expect(fresh).not.toBe(token);
          const organizations = await get(token, "/v1/orgs");
          expect(organizations.status).toBe(200);
          expect(organizations.body.count).toBe(1);
          expect((await get(fresh!, "/v1/orgs")).body.count).toBe(1);
          const graphiql = await fetch(`${base}/graphql`, { headers: { accept: "text/html" } });
          expect(await graphiql.text()).toContain(fresh);

          // The command the banner gives works while this server holds the database.
          const issued = await runCli(["token", "--email", "demo@example.com", "--label", "second terminal"], target.env);
          expect(issued.code, issued.stderr).toBe(0);
          const printed = JSON.parse(issued.stdout);
          expect(Object.keys(printed).sort()).toEqual(["expiresAt", "token", "userId"]);
          expect((await get(printed.token, "/v1/orgs")).body.count).toBe(1);
          const unknown = await runCli(["token", "--email", "nobody@example.com"], target.env);
          expect(unknown.code).toBe(1);
          expect(unknown.stderr).toMatch(/No user has the e-mail "nobody@example.com"/);
        } finally {
          const exit = await second.stop();
          expect(exit).toEqual({ code: 0, signal: null });
        }
        expect(second.stderr).toMatch(/Serving on http:\/\/localhost:\d+/);
        expect(second.stderr).not.toMatch(/Created a demo organization/);
        expect(second.stderr).toMatch(/createApiToken/);
        expect(existsSync(join(target.dataDir, "operator.json"))).toBe(false);
        const database = await target.open();
        try {
          expect(await database.prisma.organization.count()).toBe(1);
          expect(await database.prisma.space.count()).toBe(1);
        } finally {
          await database.close();
        }
      } finally {
        await target.dispose();
      }
    },
  );
});

/** `npm run -s cli -- …` itself, as the README tells users to run it. */
function runNpmCli(args: string[], env: Record<string, string>): Promise<RunResult> {
  const child = spawn("npm", ["run", "-s", "cli", "--", ...args], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe(`cli token and help (${kind})`, () => {
  it("--help and -h print the usage on stdout and exit 0", { timeout: 60_000 }, async ({ expect }) => {
    for (const args of [["--help"], ["-h"], ["token", "--help"]]) {
      const result = await runCli(args, {});
      expect({ args, code: result.code }).toEqual({ args, code: 0 });
      expect(result.stdout).toMatch(USAGE);
      expect(result.stdout).toMatch(/token --email/);
    }
  });

  it("refuses a bad --email before anything is created", { timeout: 60_000 }, async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), "cli-test-"));
    try {
      for (const args of [
        ["bootstrap", "--org", "Acme", "--email", "nope"],
        ["token", "--email", "nope@"],
        ["token", "--email", "a@b.co", "--expires-in-days", "soon"],
      ]) {
        const result = await runCli(args, { DATA_DIR: dataDir });
        expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" });
        expect(result.stderr).toMatch(/--email|--expires-in-days/);
      }
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it(
    "token issues a working token for a user by e-mail; through npm run -s the output is one JSON line",
    { timeout: 180_000 },
    async ({ expect }) => {
      const target = await freshTarget();
      let database: Database | undefined;
      try {
        const boot = await runNpmCli(["bootstrap", "--org", "Token org", "--email", "owner@token.test"], target.env);
        expect(boot.code, boot.stderr).toBe(0);
        expect(boot.stdout).toMatch(/^\{[^\n]+\}\n$/);
        const { organizationId } = JSON.parse(boot.stdout);

        const unknown = await runCli(["token", "--email", "nobody@token.test"], target.env);
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toMatch(/No user has the e-mail "nobody@token.test"/);

        const issued = await runCli(["token", "--email", "Owner@token.test", "--label", "ci", "--expires-in-days", "3"], target.env);
        expect(issued.code, issued.stderr).toBe(0);
        expect(issued.stdout).toMatch(/^[^\n]+\n$/);
        const printed = JSON.parse(issued.stdout);
        expect(Object.keys(printed).sort()).toEqual(["expiresAt", "token", "userId"]);
        const days = (Date.parse(printed.expiresAt) - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(2.9);
        expect(days).toBeLessThanOrEqual(3);

        // While another process (the server) has the database open.
        database = await target.open();
        const organization = await call(database, printed.token, `/v1/orgs/${organizationId}`);
        expect(organization.status).toBe(200);
        const whileOpen = await runCli(["token", "--email", "owner@token.test"], target.env);
        if (serverUrl) {
          // PostgreSQL: many processes share it.
          expect(whileOpen.code, whileOpen.stderr).toBe(0);
          expect((await call(database, JSON.parse(whileOpen.stdout).token, "/v1/orgs")).status).toBe(200);
        } else {
          // Held by a process that is not a server (no operator.json): the message says so.
          expect(whileOpen.code).toBe(1);
          expect(whileOpen.stderr).toMatch(/in use/);
          expect(whileOpen.stderr).toMatch(/not a running server of this version .*: stop it/);
        }
      } finally {
        await database?.close();
        await target.dispose();
      }
    },
  );
});

/** Runs `npm run -s <script>` in the project; resolves with its output, rejects on failure. */
function runNpm(args: string[]): Promise<RunResult> {
  const child = spawn("npm", args, { cwd: ROOT, env: childEnv({}), stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      children.delete(child);
      if (code !== 0) reject(new Error(`npm ${args.join(" ")} failed (${code ?? signal}):\n${stdout}\n${stderr}`));
      else resolve({ code, signal, stdout, stderr });
    });
  });
}

describe(`npm start on the compiled JavaScript (${kind})`, () => {
  it("SIGTERM to npm itself drains, stops the server and releases the database", { timeout: 300_000 }, async () => {
    // Built once here; `--ignore-scripts` then skips the prestart build (npm still runs `start`),
    // `-s` leaves out npm's banner so that stdout holds only the JSON log lines.
    await runNpm(["run", "-s", "build"]);
    expect(existsSync(join(ROOT, "dist/src/main.js"))).toBe(true);
    const target = await freshTarget();
    const port = await freePort();
    const env = { ...target.env, PORT: String(port), SEED_DEMO: "false" };
    try {
      const server = startMain(env, () =>
        spawn("npm", ["start", "-s", "--ignore-scripts"], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] }),
      );
      await server.waitFor(/REST: .*\n/);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      // The signal goes to npm's process, as a service manager or `docker stop` would send it;
      // `exec` in the start script makes the server npm's direct child, which npm forwards it to.
      // npm waits for its child, then exits 0 or ends itself by the signal it got (it depends on
      // npm's log level); what matters is below: the server drained and stopped.
      const exit = await server.stop();
      expect([exit.code === 0, exit.signal === "SIGTERM"]).toContain(true);
      const logs = server.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(
        logs.find((entry) => entry.msg === "shutting down: draining requests under way"),
        server.stdout + server.stderr,
      ).toMatchObject({
        signal: "SIGTERM",
      });
      expect(logs.at(-1)).toMatchObject({ msg: "stopped" });
      // Nothing listens any more, and the embedded database's lock is released.
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
      if (!serverUrl) expect(existsSync(join(target.dataDir, ".lock"))).toBe(false);
    } finally {
      await target.dispose();
    }
  });
});
