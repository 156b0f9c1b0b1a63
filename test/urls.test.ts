// URL resolution and embeds (issue 30): `GET /urls/content` resolves URLs of this service's app
// to what they name, for a caller who can read it. Through the official client (answers checked
// against the published schemas) and GraphQL, on both databases; another organization's URLs and
// what the caller cannot read answer 404, as unknown; a bad `url` answers 400 naming it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let guest: { token: string };
let spaceId: string;
let guideId: string;
let installId: string;
let collectionId: string;
let changeRequestId: string;

const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);
const createPage = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Resolving");
  B = await server.bootstrap("Other resolving");
  guest = await server.addMember(A.organizationId, null);
  const api = server.client(A.token);
  collectionId = (await api.orgs.createCollection(A.organizationId, { title: "Handbooks" })).data.id;
  spaceId = (await api.orgs.createSpace(A.organizationId, { title: "Manual", parent: collectionId })).data.id;
  guideId = (await gql(createPage, { input: { space: spaceId, title: "Guide", markdown: "Read me." } })).createPage.page.id;
  installId = (await gql(createPage, { input: { space: spaceId, title: "Install", parent: guideId, markdown: "Run it." } })).createPage.page
    .id;
  changeRequestId = (await api.spaces.createChangeRequest(spaceId, { subject: "Rework" })).data.id;
});

afterAll(async () => {
  await server?.close();
});

describe("GET /urls/content", () => {
  const resolve = (url: string, token = A.token) => server.client(token).urls.getContentByUrl({ url });

  it("resolves a space's app URL to the space", async () => {
    const { data } = await resolve(`${server.url}/app/s/${spaceId}`);
    expect(Object.keys(data).sort()).toEqual(["space"]);
    expect(data).toMatchObject({ space: { object: "space", id: spaceId, title: "Manual", parent: collectionId } });
  });

  it("resolves a page's app URL (its urls.app) to the space and the page, with its subpages", async () => {
    const { data: page } = (await server.client(A.token).spaces.getPageById(spaceId, installId)) as { data: any };
    expect(page.urls?.app).toBe(`${server.url}/app/s/${spaceId}/guide/install`);
    const { data } = (await resolve(page.urls!.app!)) as { data: any };
    expect(data.space.id).toBe(spaceId);
    expect(data.page).toMatchObject({ id: installId, title: "Install", path: "guide/install", type: "document", markdown: "Run it." });
    const { data: parent } = (await resolve(`${server.url}/app/s/${spaceId}/guide`)) as { data: any };
    expect(parent.page.id).toBe(guideId);
    expect(parent.page.pages.map((p: { id: string }) => p.id)).toEqual([installId]);
  });

  it("resolves a change request's app URL to the space and the change request, and a page of it", async () => {
    const { data: changeRequest } = await server.client(A.token).spaces.getChangeRequestById(spaceId, changeRequestId);
    const { data } = (await resolve(changeRequest.urls.app)) as { data: any };
    expect(data.space.id).toBe(spaceId);
    expect(data.changeRequest).toMatchObject({ object: "change-request", id: changeRequestId, subject: "Rework", number: 1 });
    expect(data.page).toBeUndefined();
    const { data: page } = (await resolve(`${changeRequest.urls.app}/guide`)) as { data: any };
    expect(page.page.id).toBe(guideId);
  });

  it("resolves a collection's app URL to the collection", async () => {
    const { data } = await resolve(`${server.url}/app/o/${A.organizationId}/c/${collectionId}`);
    expect(data).toEqual({ collection: expect.objectContaining({ object: "collection", id: collectionId, title: "Handbooks" }) });
  });

  it("answers the same in GraphQL", async () => {
    const data = await gql(
      `query($url: String!) { contentByUrl(url: $url) { collection { id } space { id } changeRequest { id } page { id path } } }`,
      { url: `${server.url}/app/s/${spaceId}/~/changes/1/guide/install` },
    );
    expect(data.contentByUrl).toEqual({
      collection: null,
      space: { id: spaceId },
      changeRequest: { id: changeRequestId },
      page: { id: installId, path: "guide/install" },
    });
  });

  it("answers 404, as unknown, for another organization's URLs and what the caller cannot read", async () => {
    for (const url of [
      `${server.url}/app/s/${spaceId}`,
      `${server.url}/app/s/${spaceId}/guide`,
      `${server.url}/app/o/${A.organizationId}/c/${collectionId}`,
      `${server.url}/app/s/${spaceId}/~/changes/1`,
    ]) {
      await expectRestError(resolve(url, B.token), 404, "No content found at url");
      await expectRestError(resolve(url, guest.token), 404, "No content found at url");
    }
    // The same answer as a URL that names nothing.
    await expectRestError(resolve(`${server.url}/app/s/spc_unknown`), 404, "No content found at url");
    await expectRestError(resolve(`${server.url}/app/o/${B.organizationId}/c/${collectionId}`), 404, "No content found at url");
  });

  it("answers 404 for URLs that name no content: another host, the organization, a missing page", async () => {
    for (const url of [
      `https://example.com/app/s/${spaceId}`,
      `${server.url}/app/o/${A.organizationId}`,
      `${server.url}/app/s/${spaceId}/nowhere`,
      `${server.url}/v1/spaces/${spaceId}`,
    ])
      await expectRestError(resolve(url), 404, "No content found at url");
  });

  it("answers 400 naming url for a missing, relative, non-http or oversized url, on both surfaces", async () => {
    await expectRestError(resolve(""), 400, "url is required");
    await expectRestError(resolve("/app/s/x"), 400, "url must be an absolute http or https URL");
    await expectRestError(resolve("javascript:alert(1)"), 400, "url must be an http or https URL");
    await expectRestError(resolve(`${server.url}/app/s/${"x".repeat(2100)}`), 400, "url must be at most 2048 characters");
    expectGraphQLError(
      await server.graphql(A.token, `{ contentByUrl(url: "ftp://x/y") { space { id } } }`),
      "BAD_REQUEST",
      "url must be an http",
    );
  });
});
