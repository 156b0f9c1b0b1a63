// Ask through the published API (issue 33): a question over an organization's content the caller
// may read, or over a site's published content, answered with the passages that best answer it,
// quoted with links to their pages, as the published SearchAIAnswer (streamed as
// SearchAIAnswerStream events); recommended questions from headings, pages and readers' searches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { expectGraphQLError, expectRestError, publishedRest } from "./support/expect.ts";
import { validateComponent } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; token: string };
const api = (token = A.token) => server.client(token);

async function spaceWith(title: string, pages: Record<string, string>) {
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
  const ids: Record<string, string> = {};
  for (const [pageTitle, markdown] of Object.entries(pages)) {
    const created = await server.graphql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: pageTitle, markdown },
    });
    expect(created.errors).toBeUndefined();
    ids[pageTitle] = created.data.createPage.page.id;
  }
  return { id: space.id, pages: ids };
}

/** Every event of a stream, each checked against the published schema `schema`. */
async function eventsOf<T>(stream: AsyncIterable<T>, schema: string): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) {
    expect(validateComponent(schema, event)).toEqual([]);
    events.push(event);
  }
  return events;
}

let handbook: Awaited<ReturnType<typeof spaceWith>>;
let payroll: Awaited<ReturnType<typeof spaceWith>>;
let site: { id: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Askers");
  B = await server.bootstrap("Others");
  handbook = await spaceWith("Handbook", {
    Quickstart: "Create an account and publish your first page.\n\n## How do I invite my team?\n\nOpen Members and send invitations.",
    Webhooks: "Receive a callback when content changes.\n\n## Signature\n\nVerify the signature of each delivery with the shared secret.",
  });
  payroll = await spaceWith("Payroll", { Salaries: "Salaries are paid on the last Friday of each month." });
  const { data } = await api().orgs.createSite(A.organizationId, { title: "Agent docs", spaces: [handbook.id] });
  await api().orgs.publishSite(A.organizationId, data.id);
  site = data;
});

afterAll(async () => {
  await server?.close();
});

describe("asking an organization", () => {
  it("streams the passages that best answer, quoted with links to their pages, as published events", async () => {
    const events = await eventsOf(
      api().orgs.streamAskInOrganization(A.organizationId, { query: "How do I verify a webhook signature?", format: "markdown" }),
      "SearchAIAnswerStream",
    );
    expect(events.length).toBeGreaterThan(0);
    const { answer } = events.at(-1)!;
    const markdown = (answer.answer as { markdown: string }).markdown;
    expect(markdown).toContain(
      `1. [Webhooks › Signature](${server.url}/app/s/${handbook.id}/webhooks#signature)\n\n   > Verify the signature of each delivery with the shared secret.`,
    );
    expect(answer.sources[0]).toEqual({
      type: "page",
      space: handbook.id,
      page: handbook.pages.Webhooks,
      revision: expect.any(String),
      sections: ["signature"],
    });
    expect(answer.followupQuestions).toEqual([]);
    // Each event is the answer so far: the first quotes one passage, the last all of them.
    expect((events[0].answer.answer as { markdown: string }).markdown.match(/^\d+\. /gm)).toHaveLength(1);
  });

  it("answers whole with askInOrganization, as a document tree unless markdown is asked", async () => {
    const { body } = await publishedRest(server, A.token, "POST", `/v1/orgs/${A.organizationId}/ask`, { query: "salaries paid when" });
    expect(body.answer.answer.document.object).toBe("document");
    expect(body.answer.sources.map((source: { page: string }) => source.page)).toEqual([payroll.pages.Salaries]);
    const { data } = await api().orgs.askInOrganization(A.organizationId, { query: "nothing matches zzzqqq" }, { format: "markdown" });
    expect(data.answer).toEqual({ answer: { markdown: "No page of Askers answers this question.\n" }, sources: [], followupQuestions: [] });
  });

  it("quotes no passage from a space the caller cannot read", async () => {
    const guest = await server.addMember(A.organizationId, null);
    await server.database.prisma.permissionGrant.create({
      data: { id: newId("PermissionGrant"), organizationId: A.organizationId, spaceId: handbook.id, userId: guest.userId, role: "read" },
    });
    const { data } = await api(guest.token).orgs.askInOrganization(
      A.organizationId,
      { query: "When are salaries paid?" },
      { format: "markdown" },
    );
    expect(data.answer!.sources.map((source) => (source as { space: string }).space)).not.toContain(payroll.id);
    expect(JSON.stringify(data.answer)).not.toContain("Friday");
    // The admin reads it.
    const { data: admin } = await api().orgs.askInOrganization(
      A.organizationId,
      { query: "When are salaries paid?" },
      { format: "markdown" },
    );
    expect(JSON.stringify(admin.answer)).toContain("last Friday");
  });

  it("refuses a missing, empty or too long question naming the field, and another organization as unknown", async () => {
    await expectRestError(api().orgs.askInOrganization(A.organizationId, {} as never), 400, "query");
    await expectRestError(api().orgs.askInOrganization(A.organizationId, { query: "  " }), 400, "query");
    await expectRestError(api().orgs.askInOrganization(A.organizationId, { query: "x".repeat(513) }), 400, "512");
    await expectRestError(
      api().orgs.askInOrganization(A.organizationId, { query: "salaries" }, { format: "html" as never }),
      400,
      "format",
    );
    const stream = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/ask/stream`);
    expect(stream.status).toBe(400);
    expect(stream.body.error.message).toContain("query");
    await expectRestError(api(B.token).orgs.askInOrganization(A.organizationId, { query: "salaries" }), 404);
    const gql = await server.graphql(
      A.token,
      `subscription { askInOrganization(organization: "${A.organizationId}", query: "") { markdown } }`,
    );
    expectGraphQLError(gql, "BAD_REQUEST", "query");
  });
});

describe("asking through GraphQL", () => {
  it("streams the askInSite subscription over Server-Sent Events, each event the answer so far", async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${A.token}` },
      body: JSON.stringify({
        query: `subscription($org: ID!, $site: ID!) {
          askInSite(organization: $org, site: $site, question: "webhook signature", scope: { mode: "all" }) { markdown sources { page sections } }
        }`,
        variables: { org: A.organizationId, site: site.id },
      }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const answers = [...text.matchAll(/^event: next\ndata: (.*)$/gm)].map((match) => JSON.parse(match[1]).data.askInSite);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.at(-1).markdown).toContain(`[Webhooks › Signature](${server.url}/sites/${site.id}/webhooks#signature)`);
    expect(answers.at(-1).sources[0]).toEqual({ page: handbook.pages.Webhooks, sections: ["signature"] });
    expect(text).toContain("event: complete");
  });
});

describe("asking a site", () => {
  it("streams passages of the site's published content only, linked to the published pages", async () => {
    const events = await eventsOf(
      api().orgs.streamAskInSite(
        A.organizationId,
        site.id,
        { question: "webhook signature", scope: { mode: "default" } },
        { format: "markdown" },
      ),
      "SearchAIAnswerStream",
    );
    const markdown = (events.at(-1)!.answer.answer as { markdown: string }).markdown;
    expect(markdown).toContain(`[Webhooks › Signature](${server.url}/sites/${site.id}/webhooks#signature)`);
    // Payroll is no space of the site: its answer is not found there.
    const none = await eventsOf(
      api().orgs.streamAskInSite(
        A.organizationId,
        site.id,
        { question: "When are salaries paid?", scope: { mode: "all" } },
        { format: "markdown" },
      ),
      "SearchAIAnswerStream",
    );
    expect(none.at(-1)!.answer).toEqual({
      answer: { markdown: "No page of Agent docs answers this question.\n" },
      sources: [],
      followupQuestions: [],
    });
  });

  it("finds nothing on an unpublished site, and refuses bad input naming the field", async () => {
    const { data: draft } = await api().orgs.createSite(A.organizationId, { title: "Draft docs", spaces: [handbook.id] });
    const events = await eventsOf(
      api().orgs.streamAskInSite(A.organizationId, draft.id, { question: "webhook signature", scope: { mode: "all" } }),
      "SearchAIAnswerStream",
    );
    expect(events.at(-1)!.answer.sources).toEqual([]);
    const ask = (body: unknown) => server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites/${site.id}/ask`, body);
    for (const [body, field] of [
      [{ scope: { mode: "all" } }, "question"],
      [{ question: "webhooks" }, "scope"],
      [{ question: "webhooks", scope: { mode: "everything" } }, "scope.mode"],
      [{ question: "webhooks", scope: { mode: "specific", siteSpaceIds: ["sitesp_nope"] } }, "scope.siteSpaceIds"],
    ] as const) {
      const answer = await ask(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(field);
    }
    const other = await server.rest(B.token, "POST", `/v1/orgs/${B.organizationId}/sites/${site.id}/ask`, {
      question: "x",
      scope: { mode: "all" },
    });
    expect(other.status).toBe(404);
  });
});

describe("recommended questions", () => {
  it("come from the organization's headings and pages the caller may read", async () => {
    const { body } = await publishedRest(server, A.token, "GET", `/v1/orgs/${A.organizationId}/ask/questions`);
    // Headings that are questions first, then a question per page (spaces in id order).
    expect(body.questions[0]).toBe("How do I invite my team?");
    expect([...body.questions].sort()).toEqual([
      "How do I invite my team?",
      "Tell me about Quickstart",
      "Tell me about Salaries",
      "Tell me about Webhooks",
    ]);
    const streamed = await eventsOf(
      api().orgs.streamRecommendedQuestionsInOrganization(A.organizationId),
      "SearchAIRecommendedQuestionStream",
    );
    expect(streamed.map((event) => event.question)).toEqual(body.questions);
  });

  it("of a site start with its readers' most frequent searches that found something", async () => {
    const event = (query: string, found: boolean) => ({
      siteId: site.id,
      type: "search_type_query",
      timestamp: new Date(),
      visitorId: "v",
      sessionId: "s",
      url: "/",
      urlPath: "/",
      data: { query, found },
    });
    await server.database.prisma.insightEvent.createMany({
      data: [event("webhook retries", true), event("webhook retries", true), event("invoices", false), event("publishing", true)],
    });
    const questions = await eventsOf(
      api().orgs.streamRecommendedQuestionsInSite(A.organizationId, site.id),
      "SearchAIRecommendedQuestionStream",
    );
    expect(questions.map((q) => q.question)).toEqual([
      "webhook retries",
      "publishing",
      "How do I invite my team?",
      "Tell me about Quickstart",
      "Tell me about Webhooks",
    ]);
    const bad = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/sites/${site.id}/ask/questions?siteSpaceId=sitesp_nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("siteSpaceId");
  });
});
