// Custom fonts (issue 31): the published custom-fonts operations through the official client
// (PUT creates 201, POST updates 201, DELETE 205; answers checked against the published schemas),
// the same fonts in GraphQL, who may read and write them, bad input refused with 400 naming the
// field and nothing changed, the per-organization bound under concurrent writers, the
// organization-fonts channel, and a published site that names a custom font in its customization:
// the page declares the font's faces (escaped) and uses the family, its policy allows the files'
// origin, and a deleted font leaves the default. In Chromium the font's file is fetched and used.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { launchBrowser } from "./support/browser.ts";
import { expectGraphQLError, expectRawRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { CHANNEL_QUERY, type EventStream, subscribeSse } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };
let guest: { token: string };

const fonts = (rest = "", organizationId = A.organizationId) => `/v1/orgs/${organizationId}/fonts${rest}`;
const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);

/** A REST call whose answer must satisfy the published schema of its operation. */
const rest = (method: string, url: string, body?: unknown, token = A.token) => publishedRest(server, token, method, url, body);

const REGULAR = "https://fonts.example.com/brand/brand-400.woff2";
const BOLD = "https://fonts.example.com/brand/brand-700.woff";

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Typefaces");
  B = await server.bootstrap("Other typefaces");
  reader = await server.addMember(A.organizationId, "read");
  guest = await server.addMember(A.organizationId, null);
});

afterAll(async () => {
  await server?.close();
});

describe("the published custom-fonts operations", () => {
  it("create (PUT, 201), read, list, update (POST, 201) and delete (205) with the official client", async () => {
    const api = server.client(A.token);
    const created = await api.orgs.createCustomFont(A.organizationId, {
      fontFamily: "Brand Sans",
      fontFaces: [
        { weight: 700, storageKey: BOLD },
        { weight: 400, storageKey: REGULAR },
      ],
    });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(created.headers.get("location")).toBe(`${server.url}${fonts(`/${id}`)}`);
    expect(created.data).toEqual({
      id: expect.stringMatching(/^font_/),
      custom: true,
      fontFamily: "Brand Sans",
      fontFaces: [
        {
          weight: 400,
          sources: [
            {
              url: "https://fonts.example.com/brand/brand-400.woff2",
              format: "woff2",
            },
          ],
        },
        {
          weight: 700,
          sources: [
            {
              url: "https://fonts.example.com/brand/brand-700.woff",
              format: "woff",
            },
          ],
        },
      ],
      permissions: { edit: true },
    });

    expect((await api.orgs.getCustomFont(A.organizationId, id)).data).toEqual(created.data);
    const list = await api.orgs.listCustomFonts(A.organizationId);
    expect(list.data.items.map((font) => font.id)).toContain(id);
    expect(list.data.count).toBe(list.data.items.length);

    // A face with a null key removes its weight; one with a URL adds (or replaces) its weight.
    const updated = await api.orgs.updateCustomFont(A.organizationId, id, {
      fontFamily: "Brand Serif",
      fontFaces: [
        { weight: 700, storageKey: null },
        {
          weight: 300,
          storageKey: "https://cdn.example.org/f/light?v=2&subset=latin",
        },
      ],
    });
    expect(updated.status).toBe(201);
    expect(updated.data).toEqual({
      id,
      custom: true,
      fontFamily: "Brand Serif",
      fontFaces: [
        {
          weight: 300,
          sources: [{ url: "https://cdn.example.org/f/light?v=2&subset=latin" }],
        },
        {
          weight: 400,
          sources: [
            {
              url: "https://fonts.example.com/brand/brand-400.woff2",
              format: "woff2",
            },
          ],
        },
      ],
      permissions: { edit: true },
    });
    // Left out of the body: kept.
    expect((await rest("POST", fonts(`/${id}`), {})).body).toEqual(updated.data);

    const asReader = await rest("GET", fonts(`/${id}`), undefined, reader.token);
    expect(asReader.status).toBe(200);
    expect(asReader.body.permissions).toEqual({ edit: false });

    const deleted = await rest("DELETE", fonts(`/${id}`));
    expect(deleted.status).toBe(205);
    expect((await rest("GET", fonts(`/${id}`))).status).toBe(404);
    expect((await rest("DELETE", fonts(`/${id}`))).status).toBe(404);
  });

  it("lets members with a role read and only admins write; another organization's font answers as an unknown one", async () => {
    const { body: font } = await rest("PUT", fonts(), {
      fontFamily: "Guarded",
      fontFaces: [{ weight: 400, storageKey: REGULAR }],
    });
    const body = {
      fontFamily: "Renamed",
      fontFaces: [{ weight: 400, storageKey: REGULAR }],
    };
    for (const [method, url, payload] of [
      ["PUT", fonts(), body],
      ["POST", fonts(`/${font.id}`), body],
      ["DELETE", fonts(`/${font.id}`), undefined],
    ] as const) {
      const refused = await rest(method, url, payload, reader.token);
      expect(refused.status, `${method} ${url}`).toBe(403);
    }
    expect((await rest("GET", fonts(), undefined, guest.token)).status).toBe(403);

    // B's admin: A's organization is not theirs (404); through B's own path, A's font id answers
    // exactly as an id no font has.
    const unknown = newId("CustomFont");
    for (const method of ["GET", "POST", "DELETE"] as const) {
      const payload = method === "POST" ? body : undefined;
      expect((await rest(method, fonts(`/${font.id}`), payload, B.token)).status).toBe(404);
      const other = await rest(method, fonts(`/${font.id}`, B.organizationId), payload, B.token);
      const none = await rest(method, fonts(`/${unknown}`, B.organizationId), payload, B.token);
      expect(other.status).toBe(404);
      expect(other.body.error.message.replace(font.id, "ID")).toBe(none.body.error.message.replace(unknown, "ID"));
    }
    expect((await rest("GET", fonts("", B.organizationId), undefined, B.token)).body.items).toEqual([]);
    // Nothing changed.
    expect((await rest("GET", fonts(`/${font.id}`))).body).toEqual(font);
  });

  it("refuses bad input with 400 naming the field, and changes nothing", async () => {
    const { body: kept } = await rest("PUT", fonts(), {
      fontFamily: "Kept",
      fontFaces: [
        { weight: 400, storageKey: REGULAR },
        { weight: 700, storageKey: BOLD },
      ],
    });
    const before = (await rest("GET", fonts())).body;
    const face = (storageKey: unknown, weight: unknown = 400) => ({
      fontFamily: "Ok",
      fontFaces: [{ weight, storageKey }],
    });
    const url = (storageKey: unknown) => [face(storageKey), "fontFaces[0].storageKey"] as const;
    const both: (readonly [unknown, string])[] = [
      [{ fontFamily: "", fontFaces: [{ weight: 400, storageKey: REGULAR }] }, "fontFamily"],
      [
        {
          fontFamily: "x".repeat(51),
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [
        {
          fontFamily: 'Evil"; } body { color: red',
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [
        {
          fontFamily: "Paren(thesis)",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [
        {
          fontFamily: "Line\nBreak",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [
        {
          fontFamily: " Padded",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [
        {
          fontFamily: "</style>",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        "fontFamily",
      ],
      [{ fontFamily: 7, fontFaces: [{ weight: 400, storageKey: REGULAR }] }, "fontFamily"],
      [{ fontFamily: "Ok", fontFaces: "regular.woff2" }, "fontFaces"],
      [{ fontFamily: "Ok", fontFaces: ["x"] }, "fontFaces[0]"],
      [face(REGULAR, 0), "fontFaces[0].weight"],
      [face(REGULAR, 1001), "fontFaces[0].weight"],
      [face(REGULAR, 400.5), "fontFaces[0].weight"],
      [face(REGULAR, "400"), "fontFaces[0].weight"],
      [face(REGULAR, 2 ** 40), "fontFaces[0].weight"],
      [
        {
          fontFamily: "Ok",
          fontFaces: [
            { weight: 400, storageKey: REGULAR },
            { weight: 400, storageKey: BOLD },
          ],
        },
        "fontFaces[1].weight",
      ],
      [
        {
          fontFamily: "Ok",
          fontFaces: Array.from({ length: 21 }, (_, i) => ({
            weight: 100 + i,
            storageKey: REGULAR,
          })),
        },
        "fontFaces",
      ],
      url("javascript:alert(1)"),
      url("ftp://fonts.example.com/a.woff2"),
      url("data:font/woff2;base64,d09GMgABAAAAAA"),
      url("https://user:secret@fonts.example.com/a.woff2"),
      url("https://fonts.example.com/a b.woff2"),
      url("https://fonts.example.com/a\n.woff2"),
      url("https://fonts.example.com/a\u0000.woff2"),
      url('https://fonts.example.com/a").woff2'),
      url("https://fonts.example.com/a'.woff2"),
      url("https://fonts.example.com/a(1).woff2"),
      url("https://fonts.example.com/a\\b.woff2"),
      url("https://fonts.example.com/</style>.woff2"),
      url("https://fonts;example.com/a.woff2"),
      url("/fonts/relative.woff2"),
      url(`https://fonts.example.com/${"a".repeat(500)}.woff2`),
      url(7),
    ];
    const createOnly: (readonly [unknown, string])[] = [
      [{}, "fontFamily"],
      [{ fontFamily: "Ok" }, "fontFaces"],
      [{ fontFamily: "Ok", fontFaces: [] }, "fontFaces"],
      [{ fontFamily: "Ok", fontFaces: [{ weight: 700, storageKey: BOLD }] }, "regular weight (400)"],
      [face(null), "fontFaces[0].storageKey"],
    ];
    const updateOnly: (readonly [unknown, string])[] = [[{ fontFaces: [{ weight: 400, storageKey: null }] }, "regular weight (400)"]];
    for (const [body, field] of [...both, ...createOnly]) await expectRawRestError(server, A.token, "PUT", fonts(), body, 400, field);
    for (const [body, field] of [...both, ...updateOnly])
      await expectRawRestError(server, A.token, "POST", fonts(`/${kept.id}`), body, 400, field);
    expect((await rest("GET", fonts())).body).toEqual(before);
    expect((await rest("GET", fonts(`/${kept.id}`))).body).toEqual(kept);
  });

  it("holds at most 50 fonts per organization, also when writers race for the last places", async () => {
    const C = await server.bootstrap("Many typefaces");
    const now = new Date();
    await server.database.prisma.customFont.createMany({
      data: Array.from({ length: 48 }, (_, i) => ({
        id: newId("CustomFont"),
        organizationId: C.organizationId,
        fontFamily: `Family ${i}`,
        faces: [{ weight: 400, url: REGULAR }],
        createdAt: now,
        updatedAt: now,
      })),
    });
    const body = {
      fontFamily: "Late",
      fontFaces: [{ weight: 400, storageKey: REGULAR }],
    };
    const results = await Promise.all([1, 2, 3].map(() => server.rest(C.token, "PUT", fonts("", C.organizationId), body)));
    expect(results.map((result) => result.status).sort()).toEqual([201, 201, 400]);
    expect(results.find((result) => result.status === 400)!.body.error.message).toContain("at most 50");
    expect(
      await server.database.prisma.customFont.count({
        where: { organizationId: C.organizationId },
      }),
    ).toBe(50);
    // A read meanwhile still answers, and the list pages.
    const page = await rest("GET", `${fonts("", C.organizationId)}?limit=20`, undefined, C.token);
    expect(page.body.items).toHaveLength(20);
    expect(page.body.count).toBe(50);
    expect(page.body.next.page).toEqual(expect.any(String));
  });
});

describe("custom fonts in GraphQL", () => {
  it("creates, reads (node, organization), updates and deletes them; refusals as in REST", async () => {
    const { createCustomFont } = await gql(
      `mutation($input: CreateCustomFontInput!) { createCustomFont(input: $input) { font { id fontFamily custom fontFaces { weight sources { url format } } permissions { edit } } } }`,
      {
        input: {
          organization: A.organizationId,
          fontFamily: "Graph Sans",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
      },
    );
    const font = createCustomFont.font;
    expect(font).toEqual({
      id: expect.stringMatching(/^font_/),
      fontFamily: "Graph Sans",
      custom: true,
      fontFaces: [{ weight: 400, sources: [{ url: REGULAR, format: "WOFF2" }] }],
      permissions: { edit: true },
    });
    const read = await gql(
      `query($id: ID!, $org: ID!) {
        node(id: $id) { ... on CustomFont { fontFamily organization { id } } }
        organization(id: $org) { customFonts(first: 100) { totalCount nodes { id } } customFont(id: $id) { id } }
      }`,
      { id: font.id, org: A.organizationId },
    );
    expect(read.node).toEqual({
      fontFamily: "Graph Sans",
      organization: { id: A.organizationId },
    });
    expect(read.organization.customFonts.nodes.map((node: { id: string }) => node.id)).toContain(font.id);
    expect(read.organization.customFont).toEqual({ id: font.id });

    const { updateCustomFont } = await gql(
      `mutation($input: UpdateCustomFontInput!) { updateCustomFont(input: $input) { font { fontFamily fontFaces { weight } } } }`,
      {
        input: { id: font.id, fontFaces: [{ weight: 700, storageKey: BOLD }] },
      },
    );
    expect(updateCustomFont.font).toEqual({
      fontFamily: "Graph Sans",
      fontFaces: [{ weight: 400 }, { weight: 700 }],
    });

    // The same refusal, word for word, on both surfaces.
    const badUrl = "https://user:secret@fonts.example.com/a.woff2";
    const graph = await server.graphql(
      A.token,
      `mutation($input: UpdateCustomFontInput!) { updateCustomFont(input: $input) { font { id } } }`,
      {
        input: {
          id: font.id,
          fontFaces: [{ weight: 400, storageKey: badUrl }],
        },
      },
    );
    expectGraphQLError(graph, "BAD_REQUEST", "fontFaces[0].storageKey");
    const restAnswer = await server.rest(A.token, "POST", fonts(`/${font.id}`), { fontFaces: [{ weight: 400, storageKey: badUrl }] });
    expect(restAnswer.body.error.message).toBe(graph.errors![0].message);

    // Others: a reader may not write; another organization's admin does not see it.
    const refused = await server.graphql(
      reader.token,
      `mutation($input: DeleteCustomFontInput!) { deleteCustomFont(input: $input) { deletedId } }`,
      {
        input: { id: font.id },
      },
    );
    expectGraphQLError(refused, "FORBIDDEN");
    const hidden = await server.graphql(B.token, `query($id: ID!) { node(id: $id) { id } }`, { id: font.id });
    expect(hidden.data?.node ?? null).toBeNull();

    const { deleteCustomFont } = await gql(`mutation($input: DeleteCustomFontInput!) { deleteCustomFont(input: $input) { deletedId } }`, {
      input: { id: font.id, organization: A.organizationId },
    });
    expect(deleteCustomFont.deletedId).toBe(font.id);
  });
});

describe("the organization-fonts channel", () => {
  it("sends one event per write of the organization's fonts, none for another organization's", async () => {
    const streams: EventStream[] = [];
    try {
      const before = server.app.services.realtime.openSubscriptions;
      const mine = await subscribeSse(server.url, A.token, CHANNEL_QUERY, {
        channel: {
          channel: "organization-fonts",
          organization: A.organizationId,
        },
      });
      streams.push(mine);
      await expect.poll(() => server.app.services.realtime.openSubscriptions).toBe(before + 1);
      const created = await rest("PUT", fonts(), {
        fontFamily: "Live",
        fontFaces: [{ weight: 400, storageKey: REGULAR }],
      });
      const message = await mine.next(3000);
      expect(message?.event).toBe("next");
      expect(JSON.parse(message!.data).data.channel).toMatchObject({
        channel: "organization-fonts",
        ids: { organization: A.organizationId },
        changes: [{ object: "CustomFont", id: created.body.id, change: "created" }],
      });
      await rest(
        "PUT",
        fonts("", B.organizationId),
        {
          fontFamily: "Elsewhere",
          fontFaces: [{ weight: 400, storageKey: REGULAR }],
        },
        B.token,
      );
      expect(await mine.next(300)).toBeNull();
      // Another organization's admin cannot open it: as for an organization they cannot see.
      const refused = await server.graphql(B.token, CHANNEL_QUERY, {
        channel: {
          channel: "organization-fonts",
          organization: A.organizationId,
        },
      });
      expect(refused.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Published sites

const createPage = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

/** A published site of one page ("Intro", with a heading and code) whose styling gets `styling`. */
async function siteStyled(title: string, styling: Record<string, unknown>) {
  const api = server.client(A.token);
  const { data: space } = await api.orgs.createSpace(A.organizationId, {
    title,
  });
  await gql(createPage, {
    input: {
      space: space.id,
      title: "Intro",
      markdown: "## Part\n\nSome `code`.",
    },
  });
  const { data: site } = await api.orgs.createSite(A.organizationId, {
    title,
    spaces: [space.id],
  });
  await api.orgs.publishSite(A.organizationId, site.id);
  const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/customization`;
  const settings = (await server.rest(A.token, "GET", path)).body;
  const put = await server.rest(A.token, "PUT", path, {
    ...settings,
    styling: { ...settings.styling, ...styling },
  });
  return {
    site,
    put,
    path,
    settings,
    url: `${server.url}/sites/${site.id}/intro`,
  };
}

/** A custom font as `styling.font` names it: the published CustomizationFontDefinitionInput. */
const definition = (font: { id: string; fontFamily: string; fontFaces: unknown }) => ({
  id: font.id,
  custom: true,
  fontFamily: font.fontFamily,
  fontFaces: font.fontFaces,
});

async function view(url: string) {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const html = await response.text();
  const style = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
  const fontSrc = response.headers.get("content-security-policy")?.match(/font-src ([^;]*)/)?.[1];
  return { html, style, fontSrc };
}

describe("a site using a custom font", () => {
  it("declares the font's faces in the page and uses its family for text, code and headings", async () => {
    const { body: text } = await rest("PUT", fonts(), {
      fontFamily: "Brand Sans",
      fontFaces: [
        { weight: 400, storageKey: REGULAR },
        {
          weight: 700,
          storageKey: "https://fonts.example.com/brand/brand-700.woff2?v=2&x=1",
        },
      ],
    });
    const { body: mono } = await rest("PUT", fonts(), {
      fontFamily: "Brand Mono",
      fontFaces: [
        {
          weight: 400,
          storageKey: "http://127.0.0.1:8123/mono%20regular.woff",
        },
      ],
    });
    const { body: heading } = await rest("PUT", fonts(), {
      fontFamily: "Überschrift",
      fontFaces: [{ weight: 400, storageKey: "https://type.example.net/u" }],
    });
    const { put, url } = await siteStyled("Branded", {
      font: definition(text),
      monospaceFont: definition(mono),
      headingFont: definition(heading),
    });
    expect(put.status).toBe(200);
    const { style, fontSrc, html } = await view(url);
    // Written by hand: the rules as a reader's browser must get them.
    expect(style).toContain(
      '@font-face{font-family:"Brand Sans";font-style:normal;font-display:swap;font-weight:400;src:url("https://fonts.example.com/brand/brand-400.woff2") format("woff2")}' +
        '@font-face{font-family:"Brand Sans";font-style:normal;font-display:swap;font-weight:700;src:url("https://fonts.example.com/brand/brand-700.woff2?v=2&x=1") format("woff2")}' +
        '@font-face{font-family:"Brand Mono";font-style:normal;font-display:swap;font-weight:400;src:url("http://127.0.0.1:8123/mono%20regular.woff") format("woff")}' +
        '@font-face{font-family:"\\dc berschrift";font-style:normal;font-display:swap;font-weight:400;src:url("https://type.example.net/u")}' +
        ':root{--font:"Brand Sans";--mono:"Brand Mono";}' +
        'h1,h2,h3,h4,h5,h6{font-family:"\\dc berschrift",var(--font),system-ui,sans-serif}',
    );
    expect(fontSrc).toBe("'self' https://fonts.example.com http://127.0.0.1:8123 https://type.example.net");
    // The published names' stylesheets are not loaded for these settings.
    expect(html).not.toMatch(/~assets\/(?:text|mono|heading)-/);
  });

  it("refuses a customization naming a font the organization does not have (400 naming the setting), and keeps the page", async () => {
    const { body: theirs } = await rest(
      "PUT",
      fonts("", B.organizationId),
      {
        fontFamily: "Theirs",
        fontFaces: [{ weight: 400, storageKey: REGULAR }],
      },
      B.token,
    );
    const { site, put, path, settings, url } = await siteStyled("Borrowing", {
      font: definition(theirs),
    });
    expect(put.status).toBe(400);
    expect(put.body.error.message).toContain("styling.font");
    const unknown = await server.rest(A.token, "PUT", path, {
      ...settings,
      styling: {
        ...settings.styling,
        headingFont: definition({ ...theirs, id: newId("CustomFont") }),
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("styling.headingFont");
    // A site space's override is checked the same way.
    const { data: siteSpaces } = await server.client(A.token).orgs.listSiteSpaces(A.organizationId, site.id);
    const override = await server.rest(
      A.token,
      "PATCH",
      `/v1/orgs/${A.organizationId}/sites/${site.id}/site-spaces/${siteSpaces.items[0].id}/customization`,
      { styling: { font: definition(theirs) } },
    );
    expect(override.status).toBe(400);
    expect(override.body.error.message).toContain("styling.font");
    expect((await server.rest(A.token, "GET", path)).body.styling.font).toBe("Inter");
    expect((await view(url)).fontSrc).toBe("'self'");
  });

  it("follows the font: a change shows on the next view; once deleted, the default font", async () => {
    const { body: font } = await rest("PUT", fonts(), {
      fontFamily: "Passing",
      fontFaces: [{ weight: 400, storageKey: REGULAR }],
    });
    const { put, url } = await siteStyled("Passing", {
      font: definition(font),
    });
    expect(put.status).toBe(200);
    expect((await view(url)).style).toContain(':root{--font:"Passing";}');

    await rest("POST", fonts(`/${font.id}`), { fontFamily: "Passed" });
    expect((await view(url)).style).toContain(':root{--font:"Passed";}');

    await rest("DELETE", fonts(`/${font.id}`));
    const after = await view(url);
    expect(after.style).not.toContain("@font-face");
    expect(after.style).not.toContain("--font");
    expect(after.fontSrc).toBe("'self'");
    // The site stylesheet's default (Inter) is what the page uses again.
    const sheet = after.html.match(/<link rel="stylesheet" href="([^"]+)">/)![1];
    expect(await (await fetch(new URL(sheet, server.url))).text()).toContain(':root{--font:"Inter Variable"}');
  });

  it("never lets a stored value out of its CSS string or into the policy, even one written past the checks", async () => {
    const { body: font } = await rest("PUT", fonts(), {
      fontFamily: "Tampered",
      fontFaces: [{ weight: 400, storageKey: REGULAR }],
    });
    const { url } = await siteStyled("Tampered", { font: definition(font) });
    // As if a bug or an old row had stored what the write checks refuse.
    await server.database.prisma.customFont.update({
      where: { id: font.id },
      data: {
        fontFamily: 'X"}</style><script>alert(1)</script>',
        faces: [
          {
            weight: 400,
            url: 'https://fonts.example.com/a");}</style><script>alert(2)</script>',
          },
          {
            weight: 500,
            url: "https://evil.example.com;script-src *;/a.woff2",
          },
          { weight: 600, url: "javascript:alert(3)" },
          { weight: 700, url: "https://fonts.example.com/ok\\\n.woff2" },
        ],
      },
    });
    const { html, style, fontSrc } = await view(url);
    expect(html).not.toContain("<script>alert");
    expect(html.match(/<\/style>/g)).toHaveLength(1);
    expect(style).toContain('font-family:"X\\22 \\7d \\3c /style\\3e \\3c script\\3e alert\\28 1\\29 \\3c /script\\3e "');
    expect(style).not.toContain("javascript");
    expect(style).not.toContain("evil");
    expect(style).not.toMatch(/\n/);
    expect(fontSrc).toBe("'self' https://fonts.example.com");
  });
});

describe("a custom font in Chromium", () => {
  let fontServer: Server;
  const requested: string[] = [];

  beforeAll(async () => {
    // A font host of its own origin, as a CDN would be: Lato's regular face (OFL), with CORS.
    const require = createRequire(import.meta.url);
    const file = join(dirname(require.resolve("@fontsource/lato/package.json")), "files", "lato-latin-400-normal.woff2");
    const bytes = readFileSync(file);
    fontServer = createServer((req, res) => {
      requested.push(req.url ?? "");
      res
        .writeHead(200, {
          "content-type": "font/woff2",
          "access-control-allow-origin": "*",
        })
        .end(bytes);
    });
    await new Promise<void>((resolve) => fontServer.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => fontServer?.close(resolve));
  });

  it("fetches the font's file from its host and shows the page's text in it", async () => {
    const origin = `http://127.0.0.1:${(fontServer.address() as AddressInfo).port}`;
    const { body: font } = await rest("PUT", fonts(), {
      fontFamily: "Reader Face",
      fontFaces: [{ weight: 400, storageKey: `${origin}/files/reader-400.woff2` }],
    });
    const { url } = await siteStyled("In the browser", {
      font: definition(font),
    });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(url);
      const result = await page.evaluate(async () => {
        await document.fonts.ready;
        const paragraph = document.querySelector("main p")!;
        return {
          family: getComputedStyle(paragraph).fontFamily,
          loaded: [...document.fonts].filter((face) => face.family.replace(/"/g, "") === "Reader Face").map((face) => face.status),
          check: document.fonts.check('16px "Reader Face"'),
        };
      });
      expect(result.family.startsWith('"Reader Face"')).toBe(true);
      expect(result.loaded).toEqual(["loaded"]);
      expect(result.check).toBe(true);
      expect(requested).toContain("/files/reader-400.woff2");
      expect(violations).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
