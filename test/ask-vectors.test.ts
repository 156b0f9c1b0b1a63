// Ask's hybrid retrieval (issue 33): a site's LSA model, trained in the background on its published
// content, finds passages by related words a question shares none of; a section the reader may not
// see never comes from it; a change of content trains it again; training is bounded (sections,
// time) and requests are answered while it runs. Through real HTTP: the REST ask route, the site's
// MCP ask tool with visitor tokens, and the job queue as the worker runs it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASK_VECTOR_LIMITS } from "../src/core/ask/vector-models.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA } from "./support/sites.ts";

const QUESTION = "What about billing?";

/** The finance docs: "billing" goes with "invoices"; the archive speaks of invoices only. */
const FINANCE = {
  Billing: "Billing sends invoices to every customer each month.\n\n## Billing address\n\nBilling prints the address on invoices.",
  Plans: "Plans decide what billing charges on the invoices.",
  Archive: "## Past invoices\n\nPast invoices stay downloadable as PDF for seven years.",
  Webhooks: "Webhooks deliver events to your endpoint.\n\n## Retries\n\nWebhooks retry a failed event three times.",
  Members: "Members join by invitation.\n\n## Roles\n\nMembers have roles: admin, editor or reader.",
};
/** Shown only to visitors on the pro plan: about invoices too, so the model ranks it for billing. */
const ENTERPRISE = { Enterprise: "Enterprise invoices are reviewed by the finance team each month." };

async function spaceWith(server: TestServer, token: string, organizationId: string, title: string, pages: Record<string, string>) {
  const { data: space } = await server.client(token).orgs.createSpace(organizationId, { title });
  for (const [pageTitle, markdown] of Object.entries(pages)) await addPage(server, token, space.id, pageTitle, markdown);
  return space;
}

async function addPage(server: TestServer, token: string, spaceId: string, title: string, markdown: string) {
  const created = await server.graphql(token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: spaceId, title, markdown },
  });
  expect(created.errors).toBeUndefined();
}

/** The titles of the passages the REST ask route quotes (a visitor with no claims), in order. */
async function passagesOf(server: TestServer, token: string, organizationId: string, siteId: string, question = QUESTION) {
  const response = await server.rest(token, "POST", `/v1/orgs/${organizationId}/sites/${siteId}/ask?format=markdown`, {
    question,
    scope: { mode: "all" },
  });
  expect(response.status).toBe(200);
  const events = (response.body as string).split("\n\n").filter((event) => event.startsWith('data: {"type"'));
  const markdown: string = JSON.parse(events.at(-1)!.slice("data: ".length)).answer.answer.markdown;
  return [...markdown.matchAll(/^\d+\. \[([^\]]+)\]/gm)].map((match) => match[1]);
}

/** Runs the training jobs that are due once their delay has passed. */
async function trainDue(server: TestServer) {
  server.clock.advance(DEFAULT_ASK_VECTOR_LIMITS.delayMs);
  return server.app.jobs.runDue();
}

/**
 * Counts the statements that ask for a site's training (each INSERT … ON CONFLICT into "Job"
 * fires the trigger, a new row or not): the job's row is one either way.
 */
async function countTrainingRequests(server: TestServer) {
  await server.database.exec(`
    CREATE TABLE test_training_requests (key text);
    CREATE FUNCTION test_count_training_request() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_training_requests VALUES (NEW.key); RETURN NEW; END $$;
    CREATE TRIGGER test_count_training_request BEFORE INSERT ON "Job" FOR EACH ROW EXECUTE FUNCTION test_count_training_request();`);
  return async (siteId: string) => {
    const [{ count }] = await server.database.prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM test_training_requests WHERE key = ${`ask-vectors:${siteId}`}`;
    return count;
  };
}

const modelOf = (server: TestServer, siteId: string) => server.database.prisma.askVectorModel.findUnique({ where: { siteId } });
const trainingJobs = (server: TestServer, siteId: string) =>
  server.database.prisma.job.findMany({ where: { kind: "ask.vectors.train", payload: { equals: { siteId } } } });

describe("a site's vector model", () => {
  let server: TestServer;
  let A: { organizationId: string; token: string };
  let finance: { id: string };
  let site: { id: string };
  let visitorToken: (plan: string) => Promise<string>;
  let trainingRequests: (siteId: string) => Promise<number>;

  beforeAll(async () => {
    server = await startTestServer();
    A = await server.bootstrap("Finance team");
    const api = server.client(A.token);
    finance = await spaceWith(server, A.token, A.organizationId, "Finance", FINANCE);
    const enterprise = await spaceWith(server, A.token, A.organizationId, "Enterprise finance", ENTERPRISE);
    site = (
      await api.orgs.createSite(A.organizationId, {
        title: "Finance docs",
        spaces: [finance.id, enterprise.id],
        visibility: "visitor-auth" as never,
      })
    ).data;
    await api.orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const hidden = (await api.orgs.listSiteSpaces(A.organizationId, site.id)).data.items.find((s) => s.space.id === enterprise.id)!;
    await api.orgs.updateSiteSpaceById(A.organizationId, site.id, hidden.id, { condition: 'visitor.claims.plan == "pro"' });
    await api.orgs.publishSite(A.organizationId, site.id);
    const key = (await server.database.prisma.site.findUniqueOrThrow({ where: { id: site.id } })).authPrivateKey;
    const now = Math.floor(server.clock.now().getTime() / 1000);
    visitorToken = (plan) =>
      new SignJWT({ plan })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now)
        .setExpirationTime(now + 24 * 3600)
        .sign(new TextEncoder().encode(key));
    trainingRequests = await countTrainingRequests(server);
  });

  afterAll(async () => {
    await server?.close();
  });

  /** The passages the site's MCP ask tool quotes for a visitor on `plan`. */
  async function mcpAsk(plan: string, question = QUESTION) {
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/sites/${site.id}/~gitbook/mcp?jwt_token=${await visitorToken(plan)}`)),
    );
    try {
      const result = await client.callTool({ name: "ask", arguments: { question } });
      const text = (result.content as { text: string }[]).map((part) => part.text).join("\n");
      return [...text.matchAll(/^\d+\. \[([^\]]+)\]/gm)].map((match) => match[1]);
    } finally {
      await client.close();
    }
  }

  it("is not there at first: Ask is lexical only, and a training is asked for once, not once per question", async () => {
    expect(await passagesOf(server, A.token, A.organizationId, site.id)).toEqual(["Billing", "Billing › Billing address", "Plans"]);
    expect(await modelOf(server, site.id)).toBeNull();
    expect(await trainingJobs(server, site.id)).toHaveLength(1);
    // A burst of questions, at once and one after another, on the same heads: no other statement.
    await Promise.all(Array.from({ length: 5 }, () => passagesOf(server, A.token, A.organizationId, site.id)));
    await mcpAsk("free");
    await passagesOf(server, A.token, A.organizationId, site.id, "Which webhooks?");
    expect(await trainingRequests(site.id)).toBe(1);
    // A visitor who reads one more space (its head not asked for yet) asks once more.
    await mcpAsk("pro");
    await mcpAsk("pro");
    expect(await trainingRequests(site.id)).toBe(2);
    expect(await trainingJobs(server, site.id)).toHaveLength(1);
  });

  it("once trained in the background, finds a passage by words related to the question's, which it shares none of", async () => {
    expect(await trainDue(server)).toBe(1);
    const model = await modelOf(server, site.id);
    expect(model).toMatchObject({ dimensions: 3, reason: null, sectionsTotal: 10 });
    expect(model!.sectionIds.split("\n")).toHaveLength(10);
    expect(model!.terms.split("\n")).toEqual(expect.arrayContaining(["bill", "invoic"]));
    const passages = await passagesOf(server, A.token, A.organizationId, site.id);
    // The archive never says "billing": only the vectors link it to the question.
    expect(passages).toContain("Archive › Past invoices");
    expect(passages).toEqual(expect.arrayContaining(["Billing", "Billing › Billing address", "Plans"]));
    expect(await trainingJobs(server, site.id)).toHaveLength(0);
  });

  it("never returns a section the reader may not see: the hidden site space's passage comes only to visitors who see it", async () => {
    const pro = await mcpAsk("pro");
    expect(pro).toContain("Enterprise");
    expect(pro).toContain("Archive › Past invoices");
    const free = await mcpAsk("free");
    expect(free).toContain("Archive › Past invoices");
    expect(free).not.toContain("Enterprise");
    expect(await passagesOf(server, A.token, A.organizationId, site.id)).not.toContain("Enterprise");
  });

  it("is trained again when a change of the published content lands; changes in a row coalesce into one training", async () => {
    const before = await modelOf(server, site.id);
    await addPage(server, A.token, finance.id, "Refunds", "Refunds are credited on the next invoices.");
    await addPage(server, A.token, finance.id, "Taxes", "Taxes are added to invoices.");
    const jobs = await trainingJobs(server, site.id);
    expect(jobs).toHaveLength(1);
    // Until it runs, the model in use is the previous one.
    expect((await modelOf(server, site.id))!.trainedAt).toEqual(before!.trainedAt);
    expect(await trainDue(server)).toBe(1);
    const after = await modelOf(server, site.id);
    const head = await server.database.prisma.space.findUniqueOrThrow({ where: { id: finance.id } });
    expect((after!.revisions as Record<string, string>)[finance.id]).toBe(head.revisionId);
    expect(after!.sectionsTotal).toBe(12);
    expect(after!.sectionIds.split("\n")).toHaveLength(12);
    // Nothing changed since: a training asked for again does nothing.
    await trainDue(server);
    expect((await modelOf(server, site.id))!.trainedAt).toEqual(after!.trainedAt);
  });

  it("answers a question while a large site's model trains", async () => {
    const headings = Array.from(
      { length: 1500 },
      (_, index) =>
        `## Topic ${index}\n\nBilling topic ${index % 7} sends invoices in cycle ${index % 11} with ledger ${index % 13} and account ${index % 17}.`,
    );
    const large = await spaceWith(server, A.token, A.organizationId, "Ledger", { Ledger: headings.join("\n\n") });
    const api = server.client(A.token);
    const { data: largeSite } = await api.orgs.createSite(A.organizationId, { title: "Ledger docs", spaces: [large.id] });
    await api.orgs.publishSite(A.organizationId, largeSite.id);
    await passagesOf(server, A.token, A.organizationId, largeSite.id, "ledger");
    server.clock.advance(DEFAULT_ASK_VECTOR_LIMITS.delayMs);
    let trained = false;
    const training = server.app.jobs.runDue().then(() => {
      trained = true;
    });
    const passages = await passagesOf(server, A.token, A.organizationId, largeSite.id, "Which ledger?");
    expect(passages).toHaveLength(5);
    expect(trained).toBe(false);
    await training;
    const model = await modelOf(server, largeSite.id);
    expect(model!.sectionIds.split("\n")).toHaveLength(1501);
    expect(model!.dimensions).toBeGreaterThan(3);
  });
});

describe("training's bounds", () => {
  let server: TestServer;
  let A: { organizationId: string; token: string };
  let site: { id: string };
  let finance: { id: string };

  beforeAll(async () => {
    server = await startTestServer({ askVectors: { sectionsMax: 7 } });
    A = await server.bootstrap("Bounded");
    finance = await spaceWith(server, A.token, A.organizationId, "Finance", FINANCE);
    const api = server.client(A.token);
    site = (await api.orgs.createSite(A.organizationId, { title: "Finance docs", spaces: [finance.id] })).data;
    await api.orgs.publishSite(A.organizationId, site.id);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("trains on at most sectionsMax sections of a larger site", async () => {
    await passagesOf(server, A.token, A.organizationId, site.id);
    expect(await trainDue(server)).toBe(1);
    const model = await modelOf(server, site.id);
    // Seven of nine: at least two pages whole, so at least two terms that link sections.
    expect(model!.sectionIds.split("\n")).toHaveLength(7);
    expect(model!.sectionsTotal).toBe(9);
  });

  it("ends a training that passes its time bound: no model until the content changes, and Ask answers lexically", async () => {
    server.app.services.askVectors.limits.timeoutMs = 0;
    await addPage(server, A.token, finance.id, "Refunds", "Refunds are credited on the next invoices.");
    expect(await trainDue(server)).toBe(1);
    expect(await trainingJobs(server, site.id)).toHaveLength(0);
    const model = await modelOf(server, site.id);
    expect(model).toMatchObject({ dimensions: 0, reason: "training passed its time bound (0 ms)", sectionIds: "" });
    expect(await passagesOf(server, A.token, A.organizationId, site.id)).toEqual(["Billing", "Billing › Billing address", "Plans"]);
    // The same heads are not trained again on every question.
    expect(await trainingJobs(server, site.id)).toHaveLength(0);
  });
});
