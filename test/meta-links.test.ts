// A document page's meta links (its canonical and alternate versions, the published
// RevisionPageMetaLinks): set through GraphQL with the page's other fields, read on the space's
// head, a change request's head and any revision, through the official client (answers checked
// against the published schemas) and GraphQL. A link to a page the revision no longer holds is
// left out; bad input is refused naming the field with nothing changed; the alternates are
// bounded; another organization's caller gets 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);

const CREATE_PAGE = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } revision { id } } }`;
const UPDATE_PAGE = `mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`;

async function newSpace(): Promise<string> {
  const data = await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: A.organizationId, title: "Meta links" },
  });
  return data.createSpace.space.id;
}

async function createPage(space: string, input: Record<string, unknown>): Promise<string> {
  return (await gql(CREATE_PAGE, { input: { space, ...input } })).createPage.page.id;
}

async function headRevision(space: string): Promise<string> {
  return (await gql(`query($id: ID!) { space(id: $id) { revision } }`, { id: space })).space.revision;
}

let space: string;
let pages: { intro: string; french: string; old: string; section: string };
/** The head after the old page's meta links were set. */
let revisionWithLinks: string;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Meta links A");
  B = await server.bootstrap("Meta links B");
  reader = await server.addMember(A.organizationId, "read");
  space = await newSpace();
  const intro = await createPage(space, { title: "Intro", markdown: "# Intro" });
  const french = await createPage(space, { title: "Introduction", markdown: "# Introduction" });
  const section = await createPage(space, { title: "Section", kind: "GROUP" });
  const old = await createPage(space, {
    title: "Old intro",
    markdown: "# Old intro",
    metaLinks: { canonical: { page: intro }, alternates: [{ url: "https://example.com/fr/intro" }, { page: french }] },
  });
  pages = { intro, french, old, section };
  revisionWithLinks = await headRevision(space);
});

afterAll(async () => {
  await server?.close();
});

describe("listSpacePageMetaLinks", () => {
  it("answers the canonical page and the alternates in the order they were set", async () => {
    const { data } = await server.client(reader.token).spaces.listSpacePageMetaLinks(space, pages.old);
    expect(data).toEqual({
      canonical: { kind: "page", page: pages.intro },
      alternates: [
        { kind: "url", url: "https://example.com/fr/intro" },
        { kind: "page", page: pages.french },
      ],
    });
  });

  it("a page that declares none, and a group, answer no links", async () => {
    const api = server.client(A.token);
    expect((await api.spaces.listSpacePageMetaLinks(space, pages.intro)).data).toEqual({ alternates: [] });
    expect((await api.spaces.listSpacePageMetaLinks(space, pages.section)).data).toEqual({ alternates: [] });
  });

  it("GraphQL reads them on the page", async () => {
    const data = await gql(
      `query($space: ID!, $page: ID!) {
        contentTarget(space: $space) { page(id: $page) { metaLinks { canonical { kind page url } alternates { kind page url } } } }
      }`,
      { space, page: pages.old },
    );
    expect(data.contentTarget.page.metaLinks).toEqual({
      canonical: { kind: "page", page: pages.intro, url: null },
      alternates: [
        { kind: "url", page: null, url: "https://example.com/fr/intro" },
        { kind: "page", page: pages.french, url: null },
      ],
    });
  });

  it("an unknown page, another organization's caller and no token get 404", async () => {
    await expectRestError(server.client(A.token).spaces.listSpacePageMetaLinks(space, "page_unknown"), 404, "page_unknown");
    await expectRestError(server.client(B.token).spaces.listSpacePageMetaLinks(space, pages.old), 404);
    const anonymous = await server.rest(undefined, "GET", `/v1/spaces/${space}/content/page/${pages.old}/meta-links`);
    expect(anonymous.status).toBe(401);
  });
});

describe("setting meta links", () => {
  const links = (page: string) => server.client(A.token).spaces.listSpacePageMetaLinks(space, page);

  it("refuses bad targets naming the field, and changes nothing", async () => {
    const before = await headRevision(space);
    const cases: [Record<string, unknown>, string][] = [
      [{ canonical: { url: "javascript:alert(1)" } }, "metaLinks.canonical.url"],
      [{ canonical: { url: "https://example.com/\nSet-Cookie: a=b" } }, "metaLinks.canonical.url"],
      [{ alternates: [{ url: "https://example.com/ok" }, { page: "page_missing" }] }, "metaLinks.alternates[1].page"],
      [{ alternates: [{ url: `https://example.com/${"a".repeat(2100)}` }] }, "metaLinks.alternates[0].url"],
    ];
    for (const [metaLinks, field] of cases) {
      const response = await server.graphql(A.token, UPDATE_PAGE, { input: { space, page: pages.intro, metaLinks } });
      expectGraphQLError(response, "BAD_REQUEST", field);
    }
    const onGroup = await server.graphql(A.token, UPDATE_PAGE, {
      input: { space, page: pages.section, metaLinks: { canonical: { page: pages.intro } } },
    });
    expectGraphQLError(onGroup, "BAD_REQUEST", "metaLinks: only documents");
    const both = await server.graphql(A.token, UPDATE_PAGE, {
      input: { space, page: pages.intro, metaLinks: { canonical: { page: pages.old, url: "https://example.com" } } },
    });
    expectGraphQLError(both, "VALIDATION");
    expect(await headRevision(space)).toBe(before);
    expect((await links(pages.intro)).data).toEqual({ alternates: [] });
  });

  it("bounds the alternates at 20", async () => {
    const before = await headRevision(space);
    const alternates = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${i}` }));
    const over = await server.graphql(A.token, UPDATE_PAGE, {
      input: { space, page: pages.french, metaLinks: { alternates: alternates(21) } },
    });
    expectGraphQLError(over, "BAD_REQUEST", "metaLinks.alternates: at most 20");
    expect(await headRevision(space)).toBe(before);
    await gql(UPDATE_PAGE, { input: { space, page: pages.french, metaLinks: { alternates: alternates(20) } } });
    expect((await links(pages.french)).data.alternates).toHaveLength(20);
    await gql(UPDATE_PAGE, { input: { space, page: pages.french, metaLinks: null } });
    expect((await links(pages.french)).data).toEqual({ alternates: [] });
  });

  it("a reader cannot set them (403)", async () => {
    const response = await server.graphql(reader.token, UPDATE_PAGE, {
      input: { space, page: pages.intro, metaLinks: { canonical: { url: "https://example.com" } } },
    });
    expectGraphQLError(response, "FORBIDDEN");
  });
});

describe("listChangeRequestPageMetaLinks and listRevisionPageMetaLinks", () => {
  it("a change request's head has its own, the space's head is left as it was until the merge", async () => {
    const api = server.client(A.token);
    const changeRequest = (await api.spaces.createChangeRequest(space, { subject: "Canonical" })).data;
    await gql(UPDATE_PAGE, {
      input: {
        space,
        changeRequest: changeRequest.id,
        page: pages.intro,
        metaLinks: { canonical: { url: "https://docs.example.com/intro" } },
      },
    });
    const inChange = await api.spaces.listChangeRequestPageMetaLinks(space, changeRequest.id, pages.intro);
    expect(inChange.data).toEqual({ canonical: { kind: "url", url: "https://docs.example.com/intro" }, alternates: [] });
    expect((await api.spaces.listSpacePageMetaLinks(space, pages.intro)).data).toEqual({ alternates: [] });
    // By number too, and as the published schema has it.
    await publishedRest(
      server,
      reader.token,
      "GET",
      `/v1/spaces/${space}/change-requests/${changeRequest.number}/content/page/${pages.intro}/meta-links`,
    );
    await expectRestError(server.client(B.token).spaces.listChangeRequestPageMetaLinks(space, changeRequest.id, pages.intro), 404);
    // Merged, they become the space's.
    await api.spaces.mergeChangeRequest(space, changeRequest.id);
    expect((await api.spaces.listSpacePageMetaLinks(space, pages.intro)).data).toEqual(inChange.data);
  });

  it("a revision answers what it held; a link to a page deleted since is left out of the head", async () => {
    const api = server.client(A.token);
    await gql(`mutation($input: DeletePageInput!) { deletePage(input: $input) { revision { id } } }`, {
      input: { space, page: pages.french },
    });
    expect((await api.spaces.listSpacePageMetaLinks(space, pages.old)).data).toEqual({
      canonical: { kind: "page", page: pages.intro },
      alternates: [{ kind: "url", url: "https://example.com/fr/intro" }],
    });
    const { data } = await api.spaces.listRevisionPageMetaLinks(space, revisionWithLinks, pages.old);
    expect(data).toEqual({
      canonical: { kind: "page", page: pages.intro },
      alternates: [
        { kind: "url", url: "https://example.com/fr/intro" },
        { kind: "page", page: pages.french },
      ],
    });
    await expectRestError(api.spaces.listRevisionPageMetaLinks(space, "rev_unknown", pages.old), 404, "rev_unknown");
    await expectRestError(server.client(B.token).spaces.listRevisionPageMetaLinks(space, revisionWithLinks, pages.old), 404);
    // Another space's revision is unknown here.
    const other = await newSpace();
    await expectRestError(api.spaces.listRevisionPageMetaLinks(other, revisionWithLinks, pages.old), 404);
  });
});
