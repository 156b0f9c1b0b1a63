// `ASK_PAGES=1000 npx tsx test/bench/ask-training.ts`: the training of a site's vector model
// (issue 33, docs/ask.md "Vector retrieval"). A published site of one space of ASK_PAGES pages of
// 5 sections (60 words each, 200 topics over 30,000 made-up words: test/support/lexicon.ts); its
// model trained by the job queue as the worker runs it, while the event loop's delay is
// monitored and a canary request (an authenticated GET that reads the database) is sent again
// and again. Prints the training's time, the longest event-loop delay and the canary's longest
// wait. In-process server on in-memory PGlite, or PostgreSQL with DATABASE_URL.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { DEFAULT_GRAPHQL_LIMITS } from "../../src/config.ts";
import { DEFAULT_ASK_VECTOR_LIMITS } from "../../src/core/ask/vector-models.ts";
import { withCanary } from "../support/canary.ts";
import { DEFAULT_LEXICON, lexiconPages } from "../support/lexicon.ts";
import { startTestServer } from "../support/server.ts";

const PAGES = Number(process.env.ASK_PAGES ?? 1000);
const EDIT = `mutation($input: EditContentInput!) { editContent(input: $input) { revision { id } } }`;

const server = await startTestServer({ graphqlLimits: { ...DEFAULT_GRAPHQL_LIMITS, executionTimeoutMs: 600_000 } });
try {
  const org = await server.bootstrap("Training bench");
  const api = server.client(org.token);
  const spaceId = (await api.orgs.createSpace(org.organizationId, { title: "Lexicon" })).data.id;
  const pages = lexiconPages({ ...DEFAULT_LEXICON, pages: PAGES });
  for (let start = 0; start < pages.length; start += 500) {
    const edits = pages.slice(start, start + 500).map((page) => ({ createPage: page }));
    const edited = await server.graphql(org.token, EDIT, { input: { space: spaceId, edits } });
    if (edited.errors) throw new Error(JSON.stringify(edited.errors));
  }
  const site = (await api.orgs.createSite(org.organizationId, { title: "Lexicon docs", spaces: [spaceId] })).data;
  await api.orgs.publishSite(org.organizationId, site.id);
  await server.rest(org.token, "POST", `/v1/orgs/${org.organizationId}/sites/${site.id}/ask`, {
    question: "Which page?",
    scope: { mode: "all" },
  });
  server.clock.advance(DEFAULT_ASK_VECTOR_LIMITS.delayMs);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const run = await withCanary(
    `${server.url}/v1/orgs/${org.organizationId}`,
    { authorization: `Bearer ${org.token}` },
    () => server.app.jobs.runDue(),
    20,
  );
  delay.disable();
  const model = await server.database.prisma.askVectorModel.findUniqueOrThrow({
    where: { siteId: site.id },
    select: { sectionsTotal: true, dimensions: true, trainingMs: true },
  });
  console.log(
    `${server.database.kind}, ${PAGES} pages (${model.sectionsTotal} sections, ${model.dimensions} dimensions): ` +
      `training ${(run.elapsedMs / 1000).toFixed(1)} s; event loop held at most ${Math.round(delay.max / 1e6)} ms ` +
      `(p99 ${Math.round(delay.percentile(99) / 1e6)} ms); canary at most ${Math.round(run.max)} ms over ${run.latencies.length}`,
  );
} finally {
  await server.close();
}
