import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

/**
 * Tests that need no HTTP server, no database, no child process and no browser: `npm run test:unit`,
 * the inner loop (under a minute).
 */
const UNIT = [
  "architecture",
  "blocks",
  "body-scan",
  "config",
  "containers",
  "content-tree",
  "contentkit-html",
  "conventions",
  "known-loader",
  "merge",
  "openapi-support",
  "permissions",
  "quote",
  "rest-variables",
  "schema-descriptions",
].map((name) => `test/${name}.test.ts`);

/** Tests that start other processes (the CLI, workerd, Chromium, git, a second server process). */
const PROCESS = [
  "cli",
  "db",
  "durability",
  "git",
  "git-sync",
  "graphiql",
  "integration-blocks",
  "integration-endpoints",
  "integrations",
  "members",
  "openapi",
  "site-feedback",
  "site-pages",
  "sites-reader",
  "stall-vectors",
].map((name) => `test/${name}.test.ts`);

/**
 * API tests whose outcome depends on the database itself, beyond the model queries every route
 * sends: raw SQL, locks and concurrency, LISTEN/NOTIFY, statement timeouts, constraints and
 * indexes, full-text search, and what text the database can store (NUL, lone surrogates). With the
 * process tests and the matrix sample they are the PostgreSQL pass (.ci/run, docs/development.md).
 */
const DATABASE = [
  "change-requests",
  "content-editing",
  "execution-deadline",
  "hostile-input",
  "http-hygiene",
  "import",
  "input-boundary",
  "integrity",
  "jobs",
  "raw-query",
  "raw-rows",
  "realtime-instances",
  "search",
  "search-relevance",
  "site-freshness",
  "spaces",
].map((name) => `test/${name}.test.ts`);

/** The permission matrix in shards (test/support/permission-matrix.ts), one per worker. */
const MATRIX = ["test/permission-matrix-*.test.ts"];

export default defineConfig({
  resolve: {
    // graphql ships ESM and CJS builds; the libraries load the CJS one through Node, so the
    // code vitest transforms must use the same one, or schema objects come from "another realm".
    alias: { graphql: require.resolve("graphql") },
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Explicit workers: one more than the cores, since most test files wait on sockets, child
    // processes or PostgreSQL part of the time (one worker on 2 cores measured 15:29 for a pass,
    // three 10:11). VITEST_MAX_WORKERS overrides it.
    maxWorkers: Math.max(2, availableParallelism() + 1),
    projects: [
      { extends: true, test: { name: "unit", include: UNIT } },
      { extends: true, test: { name: "matrix", include: MATRIX } },
      { extends: true, test: { name: "process", include: PROCESS } },
      { extends: true, test: { name: "database", include: DATABASE } },
      { extends: true, test: { name: "api", include: ["test/**/*.test.ts"], exclude: [...UNIT, ...PROCESS, ...DATABASE, ...MATRIX] } },
    ],
  },
});
