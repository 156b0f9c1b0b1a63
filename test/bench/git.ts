// `npx tsx test/bench/git.ts`: the Git rows of the bench (issue 32). A space of 1,000 pages with
// 100 revisions is cloned with the real `git`, then 100 changed pages are pushed (to a branch: a
// change request; then to main: a merge), each while a canary (`GET /v1/user`, one at a time)
// keeps asking the same server: its latencies show whether the work held the event loop.
// In-process server on in-memory PGlite, or PostgreSQL with DATABASE_URL. The machine is shared
// and noisy: compare rows of one run, not runs of different days.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_GIT_LIMITS, GitRepositories } from "../../src/core/git/repository.ts";
import { withCanary } from "../support/canary.ts";
import { graphqlData } from "../support/expect.ts";
import { startTestServer } from "../support/server.ts";

const PAGES = 1000;
const REVISIONS = 100;
const CHANGED = 100;

const work = await mkdtemp(join(tmpdir(), "git-bench-"));
const git = (cwd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      "git",
      ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "protocol.version=0", ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: work, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args[0]}: ${stderr}`)) : resolve(stdout)),
    ),
  );

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
};

const server = await startTestServer();
try {
  const org = await server.bootstrap("Git bench");
  const gql = (query: string, variables: Record<string, unknown>) => graphqlData(server, org.token, query, variables);
  const space = (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: org.organizationId, title: "Git bench" },
    })
  ).createSpace.space.id;
  const EDIT = `mutation($input: EditContentInput!) { editContent(input: $input) { createdPages { id } } }`;
  const ids: string[] = [];
  const setupStarted = performance.now();
  // 10 revisions of 100 new pages, then 90 revisions each changing 10 pages: 100 revisions.
  for (let batch = 0; batch < 10; batch++) {
    const edits = Array.from({ length: PAGES / 10 }, (_, n) => ({
      createPage: { title: `Page ${batch * 100 + n}`, markdown: `# Page ${batch * 100 + n}\n\n${"Some text of the page. ".repeat(40)}\n` },
    }));
    const created = (await gql(EDIT, { input: { space, edits } })).editContent.createdPages;
    ids.push(...created.map((page: { id: string }) => page.id));
  }
  for (let revision = 10; revision < REVISIONS; revision++) {
    const edits = Array.from({ length: 10 }, (_, n) => ({
      updatePage: { page: ids[(revision * 10 + n) % PAGES], markdown: `Revised in revision ${revision}.\n\n${"More text. ".repeat(40)}\n` },
    }));
    await gql(EDIT, { input: { space, edits } });
  }
  process.stderr.write(
    `git bench: space of ${PAGES} pages, ${REVISIONS} revisions made in ${Math.round(performance.now() - setupStarted)} ms\n`,
  );
  const canary = { url: `${server.url}/v1/user`, headers: { authorization: `Bearer ${org.token}` } };
  const remote = `${server.url.replace("http://", `http://bench:${org.token}@`)}/git/${space}.git`;
  const rows: string[] = [];
  const row = (name: string, result: { elapsedMs: number; latencies: number[]; max: number }) =>
    rows.push(
      `${name.padEnd(44)} ${String(Math.round(result.elapsedMs)).padStart(7)} ms   canary n=${result.latencies.length} p50 ${quantile(result.latencies, 0.5).toFixed(1)} ms p99 ${quantile(result.latencies, 0.99).toFixed(1)} ms max ${result.max.toFixed(1)} ms`,
    );

  // The first build as it was before contents were kept between revisions (buildCacheBytes 0),
  // in a directory of its own, with a deadline long enough to finish: the number to compare with.
  const uncached = new GitRepositories(server.database.prisma, {
    ...DEFAULT_GIT_LIMITS,
    dataDir: join(work, "uncached"),
    buildCacheBytes: 0,
    timeoutMs: 1_800_000,
  });
  row("first build without the content cache", await withCanary(canary.url, canary.headers, () => uncached.sync(space), 20));
  rows[rows.length - 1] += ` (${uncached.reads.blobs} contents read)`;
  const dir = join(work, "clone");
  row("clone, first (repository built)", await withCanary(canary.url, canary.headers, () => git(work, ["clone", "-q", remote, dir]), 20));
  row(
    "clone, again (repository kept)",
    await withCanary(canary.url, canary.headers, () => git(work, ["clone", "-q", remote, join(work, "again")]), 20),
  );
  const commits = (await git(dir, ["rev-list", "--count", "HEAD"])).trim();
  const summary = (await readFile(join(dir, "SUMMARY.md"), "utf8")).split("\n").filter((line) => line.startsWith("* [")).length;
  for (let n = 0; n < CHANGED; n++) {
    const file = join(dir, `page-${n * 7}.md`);
    await writeFile(file, `${await readFile(file, "utf8")}\nChanged from git.\n`);
  }
  await git(dir, ["commit", "-qam", `Change ${CHANGED} pages`]);
  row(
    `push of ${CHANGED} changed pages to a branch`,
    await withCanary(canary.url, canary.headers, () => git(dir, ["push", "-q", "origin", "HEAD:bench"]), 20),
  );
  row(
    `push of ${CHANGED} changed pages to main (merge)`,
    await withCanary(canary.url, canary.headers, () => git(dir, ["push", "-q", "origin", "HEAD:main"]), 20),
  );
  rows.push(`contents read by the server's builds (first clone with the cache): ${server.app.services.git.reads.blobs}`);
  console.log(`Git rows (${server.database.kind}; ${commits} commits, ${summary} pages in SUMMARY.md; shared machine, noisy):`);
  for (const line of rows) console.log(`  ${line}`);
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
