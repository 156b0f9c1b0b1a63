#!/usr/bin/env node
// The schema engine Prisma's CLI runs (PRISMA_SCHEMA_ENGINE_BINARY, set in prisma.config.ts).
// Prisma 7's CLI wants a native `schema-engine` binary, which it downloads from Prisma's CDN at
// run time: impossible on machines without network beyond the npm registry. This stands in for
// it, over the same protocol (JSON-RPC lines on stdin/stdout), with Prisma's own WebAssembly
// build of that engine (@prisma/schema-engine-wasm, pinned to the CLI's engine commit).
// It serves what works without a database server: `prisma generate` and `prisma validate`/`format`
// (which only check that the engine exists) and `prisma migrate diff` between schema files
// (`--from-schema A --to-schema B --script`, or `--from-empty`), the engine working on an empty
// in-memory PGlite. Everything else (migrate dev/deploy, db push, introspection) fails with a
// message saying so: the service applies prisma/migrations itself (src/db/migrate.ts).
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const ENGINE_COMMIT = "0edf323efd1d98336f3f0a68684b56f689b900d3";

if (process.argv.includes("--version")) {
  process.stdout.write(`schema-engine-cli ${ENGINE_COMMIT} (WebAssembly, offline)\n`);
  process.exit(0);
}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const fail = (id, message) => send({ jsonrpc: "2.0", id, error: { code: -32000, message, data: { message } } });

let engine;
async function loadEngine() {
  const glueUrl = import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const glue = await import(glueUrl);
  const module = new WebAssembly.Module(readFileSync(new URL("./schema_engine_bg.wasm", glueUrl)));
  const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();
  // The engine wants a connection even to compare two schema files: an empty in-memory PGlite
  // (as the embedded database), never a real database.
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const { bindMigrationAwareSqlAdapterFactory } = await import("@prisma/driver-adapter-utils");
  // Bound as Prisma's CLI binds a configured adapter: the engine takes results as { ok, value }.
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(new PGlite()));
  return glue.SchemaEngine.new({ datamodels: undefined }, () => {}, adapter);
}

async function handle(request) {
  const { id, method, params } = request;
  if (method !== "diff") {
    fail(id, `\`${method}\` needs a database or a native schema engine; offline, only \`prisma migrate diff\` between schema files works`);
    return;
  }
  try {
    engine ??= await loadEngine();
    const { shadowDatabaseUrl: _unused, ...diffParams } = params;
    const { exitCode, stdout } = await engine.diff(diffParams);
    // The native engine prints through the CLI: a "print" request it answers, then the result.
    if (stdout) send({ jsonrpc: "2.0", id: `print-${id}`, method: "print", params: { content: stdout } });
    send({ jsonrpc: "2.0", id, result: { exitCode } });
  } catch (error) {
    fail(id, error instanceof Error ? error.message : String(error));
  }
}

let queue = Promise.resolve();
createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  // Answers of the CLI (to "print") carry no method.
  if (typeof message.method !== "string") return;
  queue = queue.then(() => handle(message));
});
