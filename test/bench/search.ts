// `npx tsx test/bench/search.ts`: the search and Ask rows of the bench (issue 33). A published site
// of one space of 1,000 pages (a vocabulary of about 3,000 words) answers, one request at a time:
// the site search (`POST /v1/orgs/{id}/sites/{siteId}/search`) for words, typos, prefixes and
// several words; and the extractive Ask (the site's MCP `ask` tool, as an agent calls it). Prints
// p50/p99 of each next to its target. In-process server on in-memory PGlite, or PostgreSQL with
// DATABASE_URL. The machine is shared and noisy: compare rows of one run.
import { graphqlData } from "../support/expect.ts";
import { startTestServer } from "../support/server.ts";

const PAGES = 1000;
const SEARCHES = 200;
const ASKS = 50;
const TARGETS = { searchP99Ms: 50, askP99Ms: 300 };

/** A deterministic vocabulary: syllables combined into ~3,000 distinct words. */
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "de", "pa", "xi", "zu", "fe", "go", "hu"];
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => `${a}${b}${c}`))).slice(0, 3000);
const word = (n: number) => WORDS[n % WORDS.length]!;
const sentence = (seed: number, length: number) => Array.from({ length }, (_, i) => word(seed * 7 + i * 13)).join(" ");

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
};

const server = await startTestServer();
try {
  const org = await server.bootstrap("Search bench");
  const gql = (query: string, variables: Record<string, unknown>) => graphqlData(server, org.token, query, variables);
  const space = (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: org.organizationId, title: "Search bench" },
    })
  ).createSpace.space.id;
  const EDIT = `mutation($input: EditContentInput!) { editContent(input: $input) { createdPages { id } } }`;
  const started = performance.now();
  for (let batch = 0; batch < PAGES / 100; batch++) {
    const edits = Array.from({ length: 100 }, (_, n) => {
      const page = batch * 100 + n;
      return {
        createPage: {
          title: `${word(page * 3)} ${word(page * 3 + 1)}`,
          markdown: `${sentence(page, 60)}\n\n## ${word(page * 5 + 2)} ${word(page * 5 + 3)}\n\n${sentence(page + 1, 80)}\n`,
        },
      };
    });
    await gql(EDIT, { input: { space, edits } });
  }
  const client = server.client(org.token);
  const { data: site } = await client.orgs.createSite(org.organizationId, { title: "Search bench site", spaces: [space] });
  await client.orgs.publishSite(org.organizationId, site.id);
  process.stderr.write(`search bench: ${PAGES} pages indexed and published in ${Math.round(performance.now() - started)} ms\n`);

  // Exact words, typos (a letter changed), prefixes, several words: a quarter each.
  const typo = (w: string) => `${w.slice(0, 2)}${w[2] === "a" ? "e" : "a"}${w.slice(3)}`;
  const queries = Array.from({ length: SEARCHES }, (_, i) => {
    const w = word(i * 31);
    return [w, typo(w), w.slice(0, 4), `${w} ${word(i * 31 + 13)}`][i % 4]!;
  });
  const KINDS = ["word", "typo", "prefix", "two words"] as const;
  const searchMs: number[] = [];
  const byKind = new Map<string, { ms: number[]; sections: number[] }>(KINDS.map((kind) => [kind, { ms: [], sections: [] }]));
  let found = 0;
  for (const [i, query] of queries.entries()) {
    const t0 = performance.now();
    const { data } = await client.orgs.searchSiteContent(org.organizationId, site.id, { query, scope: { mode: "all" } });
    const ms = performance.now() - t0;
    searchMs.push(ms);
    const kind = byKind.get(KINDS[i % 4]!)!;
    kind.ms.push(ms);
    kind.sections.push(
      data.items.reduce(
        (sum, item) => sum + ("pages" in item ? (item.pages ?? []).reduce((n, page) => n + (page.sections?.length ?? 0), 0) : 0),
        0,
      ),
    );
    if (data.items.length) found++;
  }

  const mcp = `${server.url}/sites/${site.id}/~gitbook/mcp`;
  const askMs: number[] = [];
  for (let i = 0; i < ASKS; i++) {
    const question = `How do I use ${word(i * 17)} with ${word(i * 17 + 13)}?`;
    const t0 = performance.now();
    const response = await fetch(mcp, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "ask", arguments: { question } } }),
    });
    const body = (await response.json()) as { result?: unknown };
    askMs.push(performance.now() - t0);
    if (response.status !== 200 || !body.result) throw new Error(`ask answered ${response.status}: ${JSON.stringify(body)}`);
  }

  const line = (name: string, values: number[], target: number) => {
    const p99 = quantile(values, 0.99);
    return `${p99 <= target ? "PASS" : "FAIL"}  ${name.padEnd(44)} p50 ${quantile(values, 0.5).toFixed(1)} ms  p99 ${p99.toFixed(1)} ms (target p99 ≤ ${target} ms)`;
  };
  console.log(`Search rows (${server.database.kind}; ${PAGES} pages; one request at a time; shared machine, noisy):`);
  console.log(`  ${line(`site search, ${SEARCHES} queries (${found} found pages)`, searchMs, TARGETS.searchP99Ms)}`);
  for (const [kind, { ms, sections }] of byKind) {
    const mean = sections.reduce((a, b) => a + b, 0) / sections.length;
    console.log(
      `        ${`${kind} (${mean.toFixed(0)} sections answered on average)`.padEnd(44)} p50 ${quantile(ms, 0.5).toFixed(1)} ms  p99 ${quantile(ms, 0.99).toFixed(1)} ms`,
    );
  }
  console.log(`  ${line(`extractive Ask (MCP ask tool), ${ASKS} questions`, askMs, TARGETS.askP99Ms)}`);
} finally {
  await server.close();
}
