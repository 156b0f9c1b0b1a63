// Test-only: how `npm run bench` talks to its child processes (the service and the bare handler).
import { fork, type ChildProcess } from "node:child_process";
import { cpSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const SPACES = 1000;
export const COLLECTIONS = 20;
/** Pages of the space whose page read is measured (the issue measured a 330-page revision). */
export const CONTENT_PAGES = 330;

/** One SQL statement as pg received it. */
export interface Statement {
  text: string;
  values?: unknown[];
  rowMode?: string;
  /**
   * Set when the service sent it as a named prepared statement (its reads on PostgreSQL, planned
   * once with a generic plan: `preparedReads` in src/db/client.ts): the bare handler sends it the
   * same way (bare.ts), so that "same SQL" also means the same work for the database.
   */
  name?: string;
}

/** What the bare handler answers at one path: the statements to run, then the body to send. */
export interface BareRoute {
  method: string;
  path: string;
  /** SHA-256 (hex) of the bearer token the request must carry. */
  tokenHash: string;
  /** "same", "cold": the service's statements (of a warm, an uncached read) in its stages; "one": one hand-written statement. */
  stages: Statement[][];
  body: string;
}

export interface Child {
  process: ChildProcess;
  /** Sends a message and resolves with the child's next message. */
  ask<T = any>(message: object): Promise<T>;
  next<T = any>(): Promise<T>;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where the children's JavaScript is compiled to (gitignored, like the production build's `dist/`). */
const BUILD_DIR = join(ROOT, "dist", "bench");
/** BENCH_TSX=1: the children run from the TypeScript sources under tsx, without NODE_ENV (as before). */
const TSX = process.env.BENCH_TSX === "1";
let built: Promise<void> | undefined;

/**
 * Compiles the service, the REST adapter and the bench's children file by file (esbuild, what tsx
 * itself does per file, without its `__name` helper), each relative import pointing at the
 * compiled file and packages left to node_modules as in production's `dist/`; copies what the
 * code reads beside itself (the migrations, the worker scripts) and package.json (the ESM
 * scope). About a second; once per process.
 */
function build(): Promise<void> {
  built ??= (async () => {
    const esbuild = await import("esbuild");
    const sources = (dir: string) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
        .map((file) => join(ROOT, dir, file));
    await esbuild.build({
      entryPoints: [
        ...sources("src"),
        ...sources("rest-adapter"),
        ...["service", "bare", "static", "protocol", "postgraphile"].map((name) => join(ROOT, `test/bench/${name}.ts`)),
      ],
      outdir: BUILD_DIR,
      outbase: ROOT,
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "warning",
      plugins: [
        {
          name: "relative-imports",
          setup(build) {
            // JSON (package.json) is inlined: esbuild would drop the import's `with { type: "json" }`.
            build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) =>
              args.kind === "entry-point" ? undefined : { path: args.path.replace(/\.ts$/, ".js"), external: true },
            );
          },
        },
      ],
    });
    cpSync(join(ROOT, "prisma", "migrations"), join(BUILD_DIR, "prisma", "migrations"), { recursive: true });
    for (const dir of ["src", "rest-adapter"])
      for (const file of readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }))
        if (file.endsWith(".mjs")) cpSync(join(ROOT, dir, file), join(BUILD_DIR, dir, file));
    cpSync(join(ROOT, "package.json"), join(BUILD_DIR, "package.json"));
  })();
  return built;
}

/**
 * Starts a child (service.ts, bare.ts) the way production runs the service (Dockerfile: `node
 * dist/src/main.js` with NODE_ENV=production): compiled JavaScript under plain `node`, with
 * NODE_ENV=production (graphql-js then skips its development checks). BENCH_TSX=1: under tsx.
 */
export async function startChild(file: string, env: Record<string, string | undefined>, execArgv: string[] = []): Promise<Child> {
  if (!TSX) await build();
  const child = fork(TSX ? file : join(BUILD_DIR, relative(ROOT, file)).replace(/\.ts$/, ".js"), [], {
    env: { ...process.env, ...(TSX ? {} : { NODE_ENV: "production" }), ...env },
    execArgv: [...(TSX ? ["--import", "tsx"] : []), "--expose-gc", ...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // Structured clone: recorded statement values (Buffers, arrays) reach the bare handler intact.
    serialization: "advanced",
    // BENCH_NODE: another Node binary for the children (service and bare handler alike), to
    // measure the service on another runtime than the one running the bench (docs/performance.md).
    execPath: process.env.BENCH_NODE || process.execPath,
  });
  const waiting: ((message: any) => void)[] = [];
  const queued: any[] = [];
  child.on("message", (message) => {
    const resolve = waiting.shift();
    if (resolve) resolve(message);
    else queued.push(message);
  });
  child.on("exit", (code) => {
    if (code) {
      console.error(`${file} exited with ${code}`);
      process.exit(1);
    }
    // Asked to exit, the child answers by exiting: whoever waits for its answer goes on.
    for (const resolve of waiting.splice(0)) resolve({ type: "exited" });
  });
  const next = <T>() => (queued.length ? Promise.resolve(queued.shift() as T) : new Promise<T>((resolve) => waiting.push(resolve)));
  return {
    process: child,
    next,
    ask(message) {
      const reply = next<any>();
      child.send(message);
      return reply;
    },
  };
}
