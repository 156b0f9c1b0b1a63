// The translation glossary: the three published operations through the official client and the
// published schemas (insert, update, delete in one batch, order by a language, one entry), bad
// input naming the field with nothing changed, another organization's ids unknown, a reader who
// cannot write, and a translation run whose copied pages say the target language's terms.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Glossary");
  B = await server.bootstrap("Others");
  reader = await server.addMember(A.organizationId, "read");
});

afterAll(async () => {
  await server?.close();
});

const path = (rest = "", org = A.organizationId) => `/v1/orgs/${org}/translations-glossary${rest}`;
const termsOf = (body: { items: { translations: Record<string, string> }[] }) => body.items.map((item) => item.translations);

describe("the glossary", () => {
  it("inserts, updates and deletes in one batch, lists (ordered by a language) and reads one entry", async () => {
    const client = server.client(A.token);
    const put = await client.orgs.updateGlossaryEntries(A.organizationId, {
      operations: [
        { type: "insert", translations: { en: "workspace", fr: "espace de travail" } },
        { type: "insert", translations: { en: "change request", fr: "demande de modification" } },
        { type: "insert", translations: { en: "Space", de: "Bereich" } },
      ],
    });
    expect(put.status).toBe(204);
    const listed = await publishedRest(server, A.token, "GET", path());
    expect(listed.status).toBe(200);
    expect(termsOf(listed.body)).toEqual([
      { en: "workspace", fr: "espace de travail" },
      { en: "change request", fr: "demande de modification" },
      { en: "Space", de: "Bereich" },
    ]);
    const [workspace, change, space] = listed.body.items.map((item: { id: string }) => item.id);
    expect(listed.body.items[0]).toMatchObject({ object: "glossary-entry", id: workspace });
    expect(listed.body.items[0].urls.location).toMatch(new RegExp(`/v1/orgs/${A.organizationId}/translations-glossary/${workspace}$`));

    const byFrench = await publishedRest(server, A.token, "GET", path("?orderBy=fr"));
    expect(byFrench.body.items.map((item: { id: string }) => item.id)).toEqual([change, workspace, space]);
    const paged = await publishedRest(server, A.token, "GET", path("?orderBy=fr&limit=2"));
    expect(paged.body.items).toHaveLength(2);
    const rest = await publishedRest(server, A.token, "GET", path(`?orderBy=fr&limit=2&page=${paged.body.next.page}`));
    expect(rest.body.items.map((item: { id: string }) => item.id)).toEqual([space]);

    await client.orgs.updateGlossaryEntries(A.organizationId, {
      operations: [
        { type: "update", id: workspace, translations: { en: "workspace", fr: "espace", de: "Arbeitsbereich" } },
        { type: "delete", id: change },
      ],
    });
    const { data: one } = await client.orgs.getGlossaryEntry(A.organizationId, workspace);
    expect(one).toMatchObject({
      object: "glossary-entry",
      id: workspace,
      translations: { en: "workspace", fr: "espace", de: "Arbeitsbereich" },
    });
    expect((await publishedRest(server, A.token, "GET", path(`/${workspace}`))).status).toBe(200);
    expect((await server.rest(A.token, "GET", path(`/${change}`))).status).toBe(404);

    // GraphQL: the same entries.
    const data = await graphqlData<any>(
      server,
      A.token,
      `query($org: ID!) { organization(id: $org) { translationGlossary(first: 10) { totalCount nodes { id translations } } } }`,
      { org: A.organizationId },
    );
    expect(data.organization.translationGlossary.totalCount).toBe(2);

    // Another organization's entry is unknown; a reader reads but does not write.
    expect((await server.rest(B.token, "GET", path(`/${workspace}`, B.organizationId))).status).toBe(404);
    expect((await server.rest(B.token, "GET", path(`/${workspace}`))).status).toBe(404);
    const other = await server.rest(B.token, "PUT", path("", B.organizationId), { operations: [{ type: "delete", id: workspace }] });
    expect(other.status).toBe(404);
    expect((await server.rest(reader.token, "GET", path())).status).toBe(200);
    expect((await server.rest(reader.token, "PUT", path(), { operations: [{ type: "delete", id: workspace }] })).status).toBe(403);
    expect((await server.rest(A.token, "GET", path(`/${workspace}`))).status).toBe(200);
  });

  it("refuses bad input with 400 naming the field and changes nothing", async () => {
    const before = (await server.rest(A.token, "GET", path("?limit=100"))).body;
    const known = before.items[0].id;
    const cases: [unknown, string][] = [
      [{}, "operations"],
      [{ operations: "x" }, "operations"],
      [{ operations: [{ type: "upsert", translations: { en: "x" } }] }, "operations[0].type"],
      [{ operations: [{ type: "insert" }] }, "operations[0].translations"],
      [{ operations: [{ type: "insert", translations: {} }] }, "operations[0].translations"],
      [{ operations: [{ type: "insert", translations: { en: "" } }] }, "operations[0].translations.en"],
      [{ operations: [{ type: "insert", translations: { en: "a".repeat(256) } }] }, "operations[0].translations.en"],
      [{ operations: [{ type: "insert", translations: { en: "two\nlines" } }] }, "operations[0].translations.en"],
      [{ operations: [{ type: "insert", translations: { "not a language": "x" } }] }, "operations[0].translations"],
      [
        {
          operations: [
            { type: "insert", translations: { en: "ok" } },
            { type: "update", translations: { en: "x" } },
          ],
        },
        "operations[1].id",
      ],
      [{ operations: Array.from({ length: 101 }, () => ({ type: "insert", translations: { en: "x" } })) }, "operations"],
      [
        {
          operations: [
            { type: "delete", id: known },
            { type: "update", id: known, translations: { en: "x" } },
          ],
        },
        "operations[1].id",
      ],
    ];
    for (const [body, field] of cases) {
      const response = await server.rest(A.token, "PUT", path(), body);
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expect(response.body.error.message).toContain(field);
    }
    // An unknown id anywhere in the batch: 404 and the inserts before it are not made.
    const unknown = await server.rest(A.token, "PUT", path(), {
      operations: [
        { type: "insert", translations: { en: "ghost" } },
        { type: "delete", id: "gle_unknown" },
      ],
    });
    expect(unknown.status).toBe(404);
    expect((await server.rest(A.token, "GET", path("?orderBy=not%20a%20language"))).status).toBe(400);
    const gql = await server.graphql(
      A.token,
      `mutation($org: ID!) { updateTranslationGlossary(organization: $org, operations: [{ type: "insert", translations: { en: "" } }]) { organizationId } }`,
      { org: A.organizationId },
    );
    expect(gql.errors?.[0]?.message).toContain("operations[0].translations.en");
    expect((await server.rest(A.token, "GET", path("?limit=100"))).body).toEqual(before);
  });
});

describe("a translation run", () => {
  it("writes the target language's glossary terms in the pages it copies, not in code or links, and keeps translated pages", async () => {
    const org = await server.bootstrap("Run");
    const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, org.token, query, variables);
    const client = server.client(org.token);
    await client.orgs.updateGlossaryEntries(org.organizationId, {
      operations: [
        { type: "insert", translations: { en: "workspace", fr: "espace de travail", de: "Arbeitsbereich" } },
        { type: "insert", translations: { en: "change request", fr: "demande de modification" } },
        { type: "insert", translations: { en: "change", fr: "modification" } },
      ],
    });
    const newSpace = async (title: string) => (await client.orgs.createSpace(org.organizationId, { title })).data.id;
    const source = await newSpace("Guide");
    const french = await newSpace("Guide (fr)");
    const markdown =
      "Open a workspace, then a change request.\n\nA workspaces page and `workspace` in code; see [workspace](https://example.com/workspace).\n";
    const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: source, title: "Intro", markdown },
    });
    const page = createPage.page.id;
    const { createTranslation } = await gql(
      `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
      { input: { organization: org.organizationId, title: "Guide", languages: ["fr"], source } },
    );
    const id = createTranslation.translation.id;
    await gql(`mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { language } } }`, {
      input: { translation: id, language: "fr", space: french },
    });
    const run = `mutation($input: RunTranslationInput!) { runTranslation(input: $input) { runs { added refreshed } } }`;
    const markdownOf = async () =>
      (await gql(`query($id: ID!) { node(id: $id) { ... on Space { content { pages { id markdown } } } } }`, { id: french })).node.content
        .pages[0].markdown as string;
    expect((await gql(run, { input: { translation: id } })).runTranslation.runs).toEqual([{ added: [page], refreshed: [] }]);
    const expected =
      "Open a espace de travail, then a demande de modification.\n\nA workspaces page and `workspace` in code; see [espace de travail](https://example.com/workspace).\n";
    expect(await markdownOf()).toBe(expected);
    // Run again with nothing changed: the copy stays as it is, not refreshed.
    expect((await gql(run, { input: { translation: id } })).runTranslation.runs).toEqual([{ added: [], refreshed: [] }]);
    // The source changes: the untranslated copy is refreshed, with the glossary.
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space: source, page, markdown: "Every change is reviewed." },
    });
    expect((await gql(run, { input: { translation: id } })).runTranslation.runs).toEqual([{ added: [], refreshed: [page] }]);
    expect((await markdownOf()).trim()).toBe("Every modification is reviewed.");
  });
});
