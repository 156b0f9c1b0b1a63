// Prisma CLI configuration (Prisma 7). The CLI only generates the client and diffs schemas here:
// the service connects through driver adapters (src/db/client.ts) and applies
// prisma/migrations with its own runner (src/db/migrate.ts).
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

// Prisma 7's CLI downloads a native schema engine from Prisma's CDN unless one is given; these
// machines reach no network beyond the npm registry. prisma/schema-engine.mjs stands in for it
// with Prisma's WebAssembly build of the engine (enough for `generate` and `migrate diff`).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(new URL("./prisma/schema-engine.mjs", import.meta.url));

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  // Only commands that connect (none of our workflow) read it.
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
