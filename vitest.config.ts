import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { BaseSequencer, type TestSpecification } from "vitest/node";
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

/**
 * Tests that start the service's own processes and whose outcome depends on the database they
 * run on: the CLI and `npm start` (the embedded database's lock, the token while the server holds
 * it), migrations run by two processes, shutdown and kill -9, the CLI's `invite`.
 */
const PROCESS = ["cli", "db", "durability", "members"].map((name) => `test/${name}.test.ts`);

/**
 * Tests that drive other programs against the app: `git`, workerd, Chromium, the official CLI, a
 * second server for the stall vectors. They send the model queries every API test sends, so CI runs
 * them once, on PostgreSQL and Node 24 (docs/development.md).
 */
const TOOLS = [
  "git",
  "git-sync",
  "graphiql",
  "integration-blocks",
  "integration-endpoints",
  "integrations",
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

/**
 * The test files that take longest (measured in CI, on PGlite), started first so that none of them
 * is the last one running while the other workers are idle. Only the pass's wall time depends on it.
 */
const LONGEST_FIRST = ["cli", "git", "jobs", "durability", "git-sync", "db", "members", "openapi"].map((name) => `test/${name}.test.ts`);

/** Projects in the order they start: processes and tools, then the matrix shards, then the in-process rest. */
const PROJECT_ORDER = ["process", "tools", "matrix", "database", "api", "unit"];

/**
 * Vitest's own order runs the projects by name, which put the slowest files (the process project's)
 * last. Here they come first; the files of one project stay together, so that a worker of a
 * project without isolation takes its next file without being restarted.
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const path = spec.moduleId.slice(spec.moduleId.indexOf("/test/") + 1);
      const slow = LONGEST_FIRST.indexOf(path);
      return [PROJECT_ORDER.indexOf(spec.project.name), slow === -1 ? LONGEST_FIRST.length : slow];
    };
    // Array.prototype.sort is stable: within a rank, the base sequencer's order (longest cached first).
    return sorted.sort((a, b) => {
      const [pa, sa] = rank(a);
      const [pb, sb] = rank(b);
      return pa - pb || sa - sb;
    });
  }
}

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
    sequence: { sequencer: LongestFirstSequencer },
    // The in-process projects share a worker's modules from one file to the next (`isolate: false`):
    // importing the app took 5-7 s per file, more than most files' tests. Their files keep no
    // state between them (no module-level collections: test/architecture.test.ts), each opens and
    // closes its own database and app. The process and tools projects keep isolation: their files
    // spawn children with their own environment.
    projects: [
      { extends: true, test: { name: "unit", include: UNIT } },
      { extends: true, test: { name: "matrix", include: MATRIX, isolate: false } },
      { extends: true, test: { name: "process", include: PROCESS } },
      { extends: true, test: { name: "tools", include: TOOLS } },
      { extends: true, test: { name: "database", include: DATABASE, isolate: false } },
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/**/*.test.ts"],
          exclude: [...UNIT, ...PROCESS, ...TOOLS, ...DATABASE, ...MATRIX],
          isolate: false,
        },
      },
    ],
  },
});
