// Translations: the contract's TranslationSettings on REST (201/200/205, title 1–100, language
// codes, 400 naming the field and nothing changed), and in GraphQL a source space, one target
// space per language, which source pages changed since the last sync, and the run: it follows an
// added, a moved and a deleted page, leaves translated bodies alone, refreshes untranslated copies,
// and refuses (4xx) without changing anything. Statement counts stay flat over many translations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRawRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);
const path = (rest = "") => `/v1/orgs/${A.organizationId}/translations${rest}`;

/** A REST call whose response must satisfy the published schema as the contract corrects it. */
const rest = (method: string, url: string, body?: unknown, token = A.token) => publishedRest(server, token, method, url, body);

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Translators");
  B = await server.bootstrap("Others");
  reader = await server.addMember(A.organizationId, "read");
});

afterAll(async () => {
  await server?.close();
});

const CREATE_PAGE = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

async function newSpace(title: string): Promise<string> {
  const { data } = await server.client(A.token).orgs.createSpace(A.organizationId, { title });
  return data.id;
}

async function createPage(space: string, title: string, markdown: string, parent?: string): Promise<string> {
  const { createPage } = await gql(CREATE_PAGE, { input: { space, title, markdown, ...(parent ? { parent } : {}) } });
  return createPage.page.id;
}

/** The page tree of a space as `title[children]` lines, and each page's markdown by id. */
async function treeOf(space: string) {
  const { node } = await gql(
    `query($id: ID!) { node(id: $id) { ... on Space { content { id pages { id title markdown pages { id title markdown pages { id title markdown } } } } } } }`,
    { id: space },
  );
  const markdown = new Map<string, string>();
  const shape = (pages: any[]): string[] =>
    pages.map((page) => {
      markdown.set(page.id, page.markdown);
      return page.pages?.length ? `${page.title}[${shape(page.pages).join(",")}]` : page.title;
    });
  return { shape: shape(node.content.pages), markdown, revision: node.content.id as string };
}

const TRANSLATION = `
  query($id: ID!) { node(id: $id) { ... on TranslationSettings {
    id title languages source { id }
    targets { language space { id } syncedRevision { id } syncedAt changedPages { type pageId title path } untranslatedPages { id title path } }
  } } }`;

describe("REST translation settings (the contract's shape)", () => {
  it("creates (201), reads, lists, replaces (200) and deletes (205)", async () => {
    const created = await rest("POST", path(), { title: "Docs in French", languages: ["fr", "PT-BR"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "translation-settings",
      title: "Docs in French",
      languages: ["fr", "pt-br"],
      permissions: { view: true, edit: true },
    });
    expect(created.body.urls.location).toBe(`${server.url}${path(`/${created.body.id}`)}`);
    const id = created.body.id;

    expect((await rest("GET", path(`/${id}`))).body).toEqual(created.body);
    const list = await rest("GET", path());
    expect(list.body.items.map((item: any) => item.id)).toContain(id);

    server.clock.advance(1000);
    const replaced = await rest("PUT", path(`/${id}`), { title: "Docs", languages: ["de"] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ title: "Docs", languages: ["de"] });
    expect(replaced.body.updatedAt > created.body.updatedAt).toBe(true);
    // PUT without languages keeps them.
    expect((await rest("PUT", path(`/${id}`), { title: "Docs again" })).body.languages).toEqual(["de"]);

    const readerView = await rest("GET", path(`/${id}`), undefined, reader.token);
    expect(readerView.body.permissions).toEqual({ view: true, edit: false });

    expect((await rest("DELETE", path(`/${id}`))).status).toBe(205);
    expect((await rest("GET", path(`/${id}`))).status).toBe(404);
  });

  it("refuses bad titles and languages with 400 naming the field, and changes nothing", async () => {
    const { body: kept } = await rest("POST", path(), { title: "Kept", languages: ["fr"] });
    const before = (await rest("GET", path())).body;
    const cases: [unknown, string][] = [
      [{}, "title"],
      [{ title: "" }, "title"],
      [{ title: "   " }, "title"],
      [{ title: "x".repeat(101) }, "title"],
      [{ title: 7 }, "title"],
      [{ title: "Ok", languages: "fr" }, "languages"],
      [{ title: "Ok", languages: ["french!"] }, "languages[0]"],
      [{ title: "Ok", languages: ["fr", "FR"] }, "languages[1]"],
      [{ title: "Ok", languages: [3] }, "languages"],
    ];
    for (const [body, field] of cases) {
      await expectRawRestError(server, A.token, "POST", path(), body, 400, field);
      await expectRawRestError(server, A.token, "PUT", path(`/${kept.id}`), body, 400, field);
    }
    expect((await rest("GET", path())).body).toEqual(before);
    expect((await rest("GET", path(`/${kept.id}`))).body).toEqual(kept);

    // Another organization's translation is not found; a reader cannot create one.
    await expectRawRestError(server, B.token, "GET", path(`/${kept.id}`), undefined, 404);
    await expectRawRestError(server, B.token, "PUT", `/v1/orgs/${B.organizationId}/translations/${kept.id}`, { title: "Stolen" }, 404);
    await expectRawRestError(server, reader.token, "POST", path(), { title: "No" }, 403);
    expect((await rest("GET", path())).body).toEqual(before);
  });
});

describe("a translation run", () => {
  it("follows an added, a moved and a deleted page without touching translated bodies", async () => {
    const source = await newSpace("Guide");
    const intro = await createPage(source, "Intro", "Hello");
    const setup = await createPage(source, "Setup", "Install it");
    const old = await createPage(source, "Old", "To be removed");
    const advanced = await createPage(source, "Advanced", "Deep");
    const french = await newSpace("Guide (fr)");

    const { createTranslation } = await gql(
      `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
      {
        input: { organization: A.organizationId, title: "Guide", languages: ["fr"], source },
      },
    );
    const id = createTranslation.translation.id;
    const { setTranslationTarget } = await gql(
      `mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { language space { id } syncedRevision { id } } } }`,
      {
        input: { translation: id, language: "fr", space: french },
      },
    );
    expect(setTranslationTarget.target).toEqual({ language: "fr", space: { id: french }, syncedRevision: null });

    // Never run: every source page is to translate.
    let view = (await gql(TRANSLATION, { id })).node;
    expect(view.targets[0].changedPages.map((change: any) => `${change.type.toLowerCase()}:${change.title}`)).toEqual([
      "created:Intro",
      "created:Setup",
      "created:Old",
      "created:Advanced",
    ]);

    // First run: the target gets the source's tree, every page untranslated.
    const run = `mutation($input: RunTranslationInput!) { runTranslation(input: $input) { runs { target { language } added moved deleted refreshed } } }`;
    const first = await gql(run, { input: { translation: id } });
    expect(first.runTranslation.runs).toEqual([
      { target: { language: "fr" }, added: [intro, setup, old, advanced], moved: [], deleted: [], refreshed: [] },
    ]);
    let target = await treeOf(french);
    expect(target.shape).toEqual(["Intro", "Setup", "Old", "Advanced"]);
    expect(target.markdown.get(setup)).toBe("Install it");
    const sourceHead = (await treeOf(source)).revision;
    view = (await gql(TRANSLATION, { id })).node;
    expect(view.targets[0].syncedRevision).toEqual({ id: sourceHead });
    expect(view.targets[0].changedPages).toEqual([]);
    expect(view.targets[0].untranslatedPages.map((page: any) => page.title)).toEqual(["Intro", "Setup", "Old", "Advanced"]);

    // A translator translates Setup and Advanced (body and title).
    const update = `mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`;
    await gql(update, { input: { space: french, page: setup, title: "Installation", markdown: "Installez-le" } });
    await gql(update, { input: { space: french, page: advanced, title: "Avancé", markdown: "Profond" } });

    // The source adds a page, moves Advanced under Setup, deletes Old, edits Setup and Intro.
    const faq = await createPage(source, "FAQ", "Questions", intro);
    await gql(`mutation($input: MovePageInput!) { movePage(input: $input) { page { id } } }`, {
      input: { space: source, page: advanced, parent: setup },
    });
    await gql(`mutation($input: DeletePageInput!) { deletePage(input: $input) { deletedPageId } }`, {
      input: { space: source, page: old },
    });
    await gql(update, { input: { space: source, page: setup, markdown: "Install it now" } });
    await gql(update, { input: { space: source, page: intro, markdown: "Hello there" } });

    view = (await gql(TRANSLATION, { id })).node;
    expect(view.targets[0].changedPages.map((change: any) => `${change.type.toLowerCase()}:${change.title}`).sort()).toEqual(
      ["created:FAQ", "edited:Intro", "edited:Setup", "moved:Advanced", "deleted:Old"].sort(),
    );

    const second = await gql(run, { input: { translation: id } });
    expect(second.runTranslation.runs[0]).toMatchObject({ added: [faq], moved: [advanced], deleted: [old], refreshed: [intro] });
    target = await treeOf(french);
    expect(target.shape).toEqual(["Intro[FAQ]", "Installation[Avancé]"]);
    // Translated bodies untouched; the untranslated copy follows the source; the new page is a copy.
    expect(target.markdown.get(setup)).toBe("Installez-le");
    expect(target.markdown.get(advanced)).toBe("Profond");
    expect(target.markdown.get(intro)).toBe("Hello there");
    expect(target.markdown.get(faq)).toBe("Questions");
    view = (await gql(TRANSLATION, { id })).node;
    expect(view.targets[0].changedPages).toEqual([]);
    expect(view.targets[0].untranslatedPages.map((page: any) => page.title).sort()).toEqual(["FAQ", "Intro"]);

    // Nothing changed since: a run makes no revision. REST run answers 204.
    const head = target.revision;
    const response = await server.rest(A.token, "POST", path(`/${id}/run`));
    expect(response.status).toBe(204);
    expect(validateResponse("POST", path(`/${id}/run`), 204, response.body)).toEqual([]);
    expect((await treeOf(french)).revision).toBe(head);
  });

  it("refuses bad inputs with 4xx and changes nothing", async () => {
    const source = await newSpace("Source");
    await createPage(source, "One", "1");
    const german = await newSpace("German");
    const spanish = await newSpace("Spanish");
    const { createTranslation } = await gql(
      `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
      {
        input: { organization: A.organizationId, title: "Two languages", languages: ["de", "es"] },
      },
    );
    const id = createTranslation.translation.id;
    const setTarget = (language: string, space: string, token = A.token) =>
      server.graphql(token, `mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { id } } }`, {
        input: { translation: id, language, space },
      });
    const run = (token = A.token) =>
      server.graphql(token, `mutation($input: RunTranslationInput!) { runTranslation(input: $input) { runs { added } } }`, {
        input: { translation: id },
      });

    // No source yet: 409.
    expectGraphQLError(await run(), "CONFLICT", "source");
    await expectRawRestError(server, A.token, "POST", path(`/${id}/run`), undefined, 409, "source");
    await gql(`mutation($input: UpdateTranslationInput!) { updateTranslation(input: $input) { translation { id } } }`, {
      input: { id, source },
    });

    expectGraphQLError(await setTarget("fr", german), "BAD_REQUEST", "language");
    expectGraphQLError(await setTarget("de", source), "BAD_REQUEST", "source");
    expectGraphQLError(await setTarget("de", "spc_nothere"), "NOT_FOUND");
    const { data: otherSpace } = await server.client(B.token).orgs.createSpace(B.organizationId, { title: "Elsewhere" });
    expectGraphQLError(await setTarget("de", otherSpace.id), "NOT_FOUND");
    expectGraphQLError(await setTarget("de", german, reader.token), "FORBIDDEN");
    expect((await gql(TRANSLATION, { id })).node.targets).toEqual([]);

    await gql(`mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { id } } }`, {
      input: { translation: id, language: "de", space: german },
    });
    expectGraphQLError(await setTarget("es", german), "CONFLICT", "de");
    await gql(`mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { id } } }`, {
      input: { translation: id, language: "es", space: spanish },
    });

    // A locked target refuses the run before any target changes; a reader may not run; another organization does not see it.
    await gql(`mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: spanish, editMode: "LOCKED" },
    });
    const before = [await treeOf(german), await treeOf(spanish)].map((tree) => tree.revision);
    expectGraphQLError(await run(), "CONFLICT", "locked");
    expectGraphQLError(await run(reader.token), "FORBIDDEN");
    await expectRawRestError(server, B.token, "POST", path(`/${id}/run`), undefined, 404);
    await expectRawRestError(server, A.token, "POST", path("/trs_nothere/run"), undefined, 404);
    expect([await treeOf(german), await treeOf(spanish)].map((tree) => tree.revision)).toEqual(before);
    const view = (await gql(TRANSLATION, { id })).node;
    expect(view.targets.map((target: any) => target.syncedRevision)).toEqual([null, null]);

    // Unlocked, the run goes through; removing a language drops its target.
    await gql(`mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: spanish, editMode: "LIVE" },
    });
    expect((await run()).data.runTranslation.runs.map((r: any) => r.added.length)).toEqual([1, 1]);
    await rest("PUT", path(`/${id}`), { title: "German only", languages: ["de"] });
    expect((await gql(TRANSLATION, { id })).node.targets.map((target: any) => target.language)).toEqual(["de"]);
  });
});

describe("statement counts", () => {
  it("listing translations with their targets and spaces costs the same for 2 and for 12", async () => {
    const organization = await server.bootstrap("Counting");
    const make = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const source = (await server.client(organization.token).orgs.createSpace(organization.organizationId, { title: `S${i}` })).data.id;
        const target = (await server.client(organization.token).orgs.createSpace(organization.organizationId, { title: `T${i}` })).data.id;
        const { createTranslation } = await gql(
          `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
          { input: { organization: organization.organizationId, title: `T${i}`, languages: ["fr"], source } },
          organization.token,
        );
        await gql(
          `mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { id } } }`,
          { input: { translation: createTranslation.translation.id, language: "fr", space: target } },
          organization.token,
        );
      }
    };
    const count = async () => {
      const start = server.database.statementCount;
      const { organization: o } = await gql(
        `query($id: ID!) { organization(id: $id) { translations(first: 50) { nodes { id title source { id title } targets { language syncedAt space { id title } } } } } }`,
        { id: organization.organizationId },
        organization.token,
      );
      expect(o.translations.nodes.every((node: any) => node.targets.length === 1 && node.source)).toBe(true);
      return server.database.statementCount - start;
    };
    await make(2);
    const few = await count();
    await make(10);
    const many = await count();
    expect(many).toBe(few);
  });
});
