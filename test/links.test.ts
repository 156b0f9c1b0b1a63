// Links and backlinks of a space's current content, on both surfaces: statuses of page, anchor,
// file, space, in-app and external links; stats; the status filter; pagination; page links; file
// and page backlinks; links follow the head; another organization gets 404.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCoreContext } from "../src/core/context.ts";
import { editContent } from "../src/core/content/index.ts";
import type { ContentEdit } from "../src/core/content/tree.ts";
import { newId } from "../src/core/ids.ts";
import { createSpace, deleteSpace } from "../src/core/spaces/index.ts";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: BootstrapResult;
let B: BootstrapResult;
let spaceId: string;
let otherSpaceId: string;
let deletedSpaceId: string;
const ids = { guide: newId("Page"), install: newId("Page"), setup: newId("Page"), about: newId("Page") };
const fileId = newId("File");

const ctxOf = () => createCoreContext(server.app.services, { userId: A.userId, tokenId: "test" });
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

const doc = (id: string, title: string, slug: string, body: string, parent: string | null = null): ContentEdit => ({
  op: "createPage",
  id,
  kind: "document",
  fields: { title, slug },
  body,
  position: { parent },
});

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Links A");
  B = await server.bootstrap("Links B");
  const ctx = ctxOf();
  spaceId = (await createSpace(ctx, { organizationId: A.organizationId, title: "Docs" })).id;
  otherSpaceId = (await createSpace(ctx, { organizationId: A.organizationId, title: "Other" })).id;
  deletedSpaceId = (await createSpace(ctx, { organizationId: A.organizationId, title: "Gone" })).id;
  await deleteSpace(ctx, deletedSpaceId);
  const bytes = Buffer.from("a picture");
  const url = server.url;
  await editContent(ctx, {
    target: { spaceId },
    edits: [
      { op: "addFile", file: { id: fileId, name: "pic.png", contentType: "image/png", size: bytes.length, blob: sha(bytes) } },
      doc(
        ids.guide,
        "Guide",
        "guide",
        [
          "# Guide",
          "See [install](guide/install) and [setup](/guide/setup#first-step).",
          "Broken: [missing](missing-page) and [bad anchor](guide/install#nowhere).",
          `![pic](files/${fileId}) and ![gone](files/fil_missing).`,
          `Other space: [other](space://${otherSpaceId}), [gone](${url}/app/s/${deletedSpaceId}), [unknown](space://spc_unknown).`,
          `Settings: [settings](${url}/app/settings). External: [ext](https://example.com/x).`,
          "Local: [top](#guide).",
        ].join("\n\n"),
      ),
      doc(ids.install, "Install", "install", "# Install\n\nBack to [guide](../guide) and [ref link][s].\n\n[s]: setup", ids.guide),
      doc(ids.setup, "Setup", "setup", "# Setup\n\n## First step\n\n[ext](https://example.com/x)", ids.guide),
      doc(ids.about, "About", "about", `Nothing links here. ![pic](files/${fileId})`),
    ],
    blobs: { markdown: [], files: [bytes] },
  });
});

afterAll(async () => {
  await server?.close();
});

const sorted = (ref: object) => JSON.stringify(Object.entries(ref).sort());
const linksPath = (query = "") => `/v1/spaces/${spaceId}/links${query}`;

describe("links of a space (REST)", () => {
  it("finds every link with its status, target, locations and stats", async () => {
    const { status, body } = await server.rest(A.token, "GET", linksPath());
    expect(status).toBe(200);
    const find = (predicate: (item: any) => boolean) => body.items.filter(predicate);
    const byTarget = (ref: object) => find((item) => sorted(item.targetReference) === sorted(ref));
    expect(byTarget({ kind: "page", page: ids.install })[0].status).toBe("ok");
    expect(byTarget({ kind: "anchor", anchor: "first-step", page: ids.setup })[0].status).toBe("ok");
    expect(byTarget({ kind: "page", page: "missing-page" })[0].status).toBe("broken");
    expect(byTarget({ kind: "anchor", anchor: "nowhere", page: ids.install })[0].status).toBe("broken");
    expect(byTarget({ kind: "anchor", anchor: "guide", page: ids.guide })[0].status).toBe("ok");
    const pictures = byTarget({ kind: "file", file: fileId });
    expect(pictures[0]).toMatchObject({ status: "ok", relation: "image" });
    expect(pictures[0].locationReferences).toEqual([
      { kind: "page", page: ids.guide },
      { kind: "page", page: ids.about },
    ]);
    expect(byTarget({ kind: "file", file: "fil_missing" })[0].status).toBe("broken");
    expect(byTarget({ kind: "space", space: otherSpaceId })[0].status).toBe("ok");
    expect(byTarget({ kind: "space", space: deletedSpaceId })[0].status).toBe("broken");
    expect(byTarget({ kind: "space", space: "spc_unknown" })[0].status).toBe("broken");
    expect(byTarget({ kind: "url", url: `${server.url}/app/settings` })[0].status).toBe("in-app");
    const external = byTarget({ kind: "url", url: "https://example.com/x" });
    expect(external[0].status).toBe("ok");
    expect(external[0].locationReferences).toEqual([
      { kind: "page", page: ids.guide },
      { kind: "page", page: ids.setup },
    ]);
    // install → ../guide and the reference-style link to setup
    expect(byTarget({ kind: "page", page: ids.guide })[0].locationReferences).toEqual([{ kind: "page", page: ids.install }]);
    expect(byTarget({ kind: "page", page: ids.setup })[0].status).toBe("ok");

    expect(body.count).toBe(body.items.length);
    expect(body.stats).toEqual({ total: body.items.length, broken: { total: 5, changeRequest: 0 } });
  });

  it("status=broken returns exactly the broken ones; stats still count all", async () => {
    const all = (await server.rest(A.token, "GET", linksPath())).body;
    const { status, body } = await server.rest(A.token, "GET", linksPath("?status=broken"));
    expect(status).toBe(200);
    expect(body.items).toEqual(all.items.filter((item: any) => item.status === "broken"));
    expect(body.count).toBe(5);
    expect(body.stats).toEqual(all.stats);
    const inApp = (await server.rest(A.token, "GET", linksPath("?status=in-app"))).body;
    expect(inApp.items.map((item: any) => item.targetReference.url)).toEqual([`${server.url}/app/settings`]);
    const bad = await server.rest(A.token, "GET", linksPath("?status=nope"));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("status must be one of ok, broken, in-app");
  });

  it("pages through the list without skipping or repeating", async () => {
    const all = (await server.rest(A.token, "GET", linksPath())).body.items;
    const seen: any[] = [];
    let page: string | undefined;
    do {
      const { body } = await server.rest(A.token, "GET", linksPath(`?limit=4${page ? `&page=${page}` : ""}`));
      expect(body.items.length).toBeLessThanOrEqual(4);
      seen.push(...body.items);
      page = body.next?.page;
    } while (page);
    expect(seen).toEqual(all);
    expect((await server.rest(A.token, "GET", linksPath("?page=garbage"))).status).toBe(400);
  });

  it("lists the links of one page", async () => {
    const { status, body } = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/page/${ids.install}/links`);
    expect(status).toBe(200);
    expect(body.items.map((item: any) => item.targetReference)).toEqual([
      { kind: "page", page: ids.guide },
      { kind: "page", page: ids.setup },
    ]);
    expect(body.stats).toEqual({ total: 2, broken: { total: 0, changeRequest: 0 } });
    expect((await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/page/pg_nope/links`)).status).toBe(404);
  });

  it("lists file and page backlinks", async () => {
    const files = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`);
    expect(files.status).toBe(200);
    expect(files.body.items.map((item: any) => item.page.id)).toEqual([ids.guide, ids.about]);
    expect(files.body.items[0]).toMatchObject({ kind: "page", organization: { id: A.organizationId }, space: { id: spaceId } });
    const pages = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/page/${ids.setup}/backlinks`);
    expect(pages.body.items.map((item: any) => item.page.id)).toEqual([ids.guide, ids.install]);
    const none = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/page/${ids.about}/backlinks`);
    expect(none.body).toEqual({ items: [], count: 0 });
    expect((await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/files/fil_nope/backlinks`)).status).toBe(404);
  });

  it("another organization gets 404 on every route", async () => {
    for (const path of [
      linksPath(),
      `/v1/spaces/${spaceId}/content/page/${ids.guide}/links`,
      `/v1/spaces/${spaceId}/content/page/${ids.guide}/backlinks`,
      `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`,
    ]) {
      expect((await server.rest(B.token, "GET", path)).status).toBe(404);
    }
  });
});

describe("links in GraphQL", () => {
  it("Space.links, Page.links, Page.backlinks and File.backlinks, with stats and the filter", async () => {
    const data = await graphqlData(
      server,
      A.token,
      /* GraphQL */ `
        query ($id: ID!, $page: ID!, $file: ID!) {
          space(id: $id) {
            links(status: BROKEN, first: 100) { totalCount stats { total broken { total changeRequest } } nodes { status targetReference { kind page file space anchor } locations { id } } }
            page(id: $page) { links { totalCount nodes { relation targetReference { kind page } } } backlinks { nodes { id title } } }
            file(id: $file) { backlinks { totalCount nodes { id } } }
          }
        }`,
      { id: spaceId, page: ids.setup, file: fileId },
    );
    expect(data.space.links.totalCount).toBe(5);
    expect(data.space.links.stats.broken).toEqual({ total: 5, changeRequest: 0 });
    expect(data.space.links.nodes.every((node: any) => node.status === "BROKEN" && node.locations[0].id === ids.guide)).toBe(true);
    expect(data.space.page.links.nodes).toEqual([{ relation: "link", targetReference: { kind: "url", page: null } }]);
    expect(data.space.page.backlinks.nodes.map((node: any) => node.id)).toEqual([ids.guide, ids.install]);
    expect(data.space.file.backlinks).toEqual({ totalCount: 2, nodes: [{ id: ids.guide }, { id: ids.about }] });
  });
});

describe("links follow the head revision", () => {
  it("an edit that fixes a broken link updates the list; other revisions keep theirs", async () => {
    const before = (await server.rest(A.token, "GET", linksPath())).body;
    const old = await graphqlData(server, A.token, `query ($id: ID!) { space(id: $id) { content { id } } }`, { id: spaceId });
    await editContent(ctxOf(), { target: { spaceId }, edits: [doc(newId("Page"), "Missing", "missing-page", "Now it [exists](guide).")] });
    const after = (await server.rest(A.token, "GET", linksPath())).body;
    expect(after.stats.broken.total).toBe(before.stats.broken.total - 1);
    expect(
      after.items.find((item: any) => item.targetReference.kind === "page" && item.targetReference.page === "missing-page"),
    ).toBeUndefined();
    const oldLinks = await graphqlData(
      server,
      A.token,
      `query ($id: ID!) { node(id: $id) { ... on Revision { links { stats { broken { total } } } } } }`,
      { id: old.space.content.id },
    );
    expect(oldLinks.node.links.stats.broken.total).toBe(before.stats.broken.total);
    // The old page now has a backlink from the new one.
    const backlinks = (await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/page/${ids.guide}/backlinks`)).body;
    expect(backlinks.items.map((item: any) => item.page.title)).toEqual(["Install", "Missing"]);
  });
});

describe("statements", () => {
  it("reading the links of a space does not query per page", async () => {
    const count = async (pages: number) => {
      const id = (await createSpace(ctxOf(), { organizationId: A.organizationId, title: `S${pages}` })).id;
      const edits = Array.from({ length: pages }, (_, n) =>
        doc(newId("Page"), `P${n}`, `p${n}`, `[next](p${n + 1}) [ext](https://e.com/${n})`),
      );
      await editContent(ctxOf(), { target: { spaceId: id }, edits });
      const before = server.database.statementCount;
      const { status } = await server.rest(A.token, "GET", `/v1/spaces/${id}/links?limit=1000`);
      expect(status).toBe(200);
      return server.database.statementCount - before;
    };
    const small = await count(3);
    const large = await count(150);
    expect(large).toBe(small);
  });
});

describe("references in a page's markdown (format.markdown.refs)", () => {
  const p = { guide: newId("Page"), install: newId("Page"), setup: newId("Page") };
  const file = newId("File");
  let space: string;
  let other: string;
  const GUIDE = (url: string) =>
    [
      "# Guide",
      'See [install](guide/install), [setup](/guide/setup#first-step) and [setup again](</guide/setup> "Setup").',
      "Broken: [missing](missing-page), [abs missing](/nowhere). Local: [top](#guide).",
      `![pic](files/${file}) ![gone](files/fil_missing) [other](space://${other}) [app](${url}/app/s/${other}) [ext](https://example.com/x).`,
      "`[code](/guide/setup)` stays code.",
    ].join("\n\n");
  const INSTALL = "# Install\n\nBack to [guide](../guide), [abs](/guide) and [ref link][s].\n\n[s]: /guide/setup";

  beforeAll(async () => {
    const ctx = ctxOf();
    space = (await createSpace(ctx, { organizationId: A.organizationId, title: "Refs" })).id;
    other = (await createSpace(ctx, { organizationId: A.organizationId, title: "Refs other" })).id;
    const bytes = Buffer.from("another picture");
    await editContent(ctx, {
      target: { spaceId: space },
      edits: [
        { op: "addFile", file: { id: file, name: "pic.png", contentType: "image/png", size: bytes.length, blob: sha(bytes) } },
        doc(p.guide, "Guide", "guide", GUIDE(server.url)),
        doc(p.install, "Install", "install", INSTALL, p.guide),
        doc(p.setup, "Setup", "setup", "# Setup\n\n## First step", p.guide),
      ],
      blobs: { markdown: [], files: [bytes] },
    });
  });

  const markdownOf = async (path: string) => {
    const response = await server.rest(A.token, "GET", path);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.markdown as string;
  };

  it("relative (the default) writes root-absolute page links relative to the page and keeps everything else as stored", async () => {
    const page = (id: string, query = "") => `/v1/spaces/${space}/content/page/${id}?format=markdown${query}`;
    const guide = GUIDE(server.url)
      .replace("(/guide/setup#first-step)", "(guide/setup#first-step)")
      .replace('(</guide/setup> "Setup")', '(guide/setup "Setup")');
    expect(await markdownOf(page(p.guide))).toBe(guide);
    expect(await markdownOf(page(p.guide, "&format.markdown.refs=relative"))).toBe(guide);
    expect(await markdownOf(page(p.install))).toBe(
      INSTALL.replace("[abs](/guide)", "[abs](../guide)").replace("[s]: /guide/setup", "[s]: setup"),
    );
    // By path, and through the official client.
    expect(await markdownOf(`/v1/spaces/${space}/content/path/guide/install?format=markdown`)).toBe(await markdownOf(page(p.install)));
    const { data } = await server.client(A.token).spaces.getPageById(space, p.guide, { format: "markdown" });
    expect((data as { markdown: string }).markdown).toBe(guide);
  });

  it("stable names pages, anchors, files and spaces by id; on the change request's content too; GraphQL the same", async () => {
    const stableGuide = GUIDE(server.url)
      .replace("(guide/install)", `(page://${p.install})`)
      .replace("(/guide/setup#first-step)", `(page://${p.setup}#first-step)`)
      .replace('(</guide/setup> "Setup")', `(page://${p.setup} "Setup")`)
      .replace(`(files/${file})`, `(file://${file})`)
      .replace(`(${server.url}/app/s/${other})`, `(space://${other})`);
    const stableInstall = INSTALL.replace("(../guide)", `(page://${p.guide})`)
      .replace("(/guide)", `(page://${p.guide})`)
      .replace("[s]: /guide/setup", `[s]: page://${p.setup}`);
    const query = "?format=markdown&format.markdown.refs=stable";
    expect(await markdownOf(`/v1/spaces/${space}/content/page/${p.guide}${query}`)).toBe(stableGuide);
    expect(await markdownOf(`/v1/spaces/${space}/content/path/guide/install${query}`)).toBe(stableInstall);

    const { data: changeRequest } = await server.client(A.token).spaces.createChangeRequest(space, { subject: "Refs" });
    expect(await markdownOf(`/v1/spaces/${space}/change-requests/${changeRequest.id}/content/page/${p.install}${query}`)).toBe(
      stableInstall,
    );
    expect(await markdownOf(`/v1/spaces/${space}/change-requests/${changeRequest.number}/content/path/guide${query}`)).toBe(stableGuide);

    const data = await graphqlData(
      server,
      A.token,
      `query($space: ID!, $page: ID!) { contentTarget(space: $space) {
        stable: page(id: $page) { markdown(refs: STABLE) } relative: page(id: $page) { markdown(refs: RELATIVE) } stored: page(id: $page) { markdown }
      } }`,
      { space, page: p.install },
    );
    expect(data.contentTarget).toEqual({
      stable: { markdown: stableInstall },
      relative: { markdown: INSTALL.replace("[abs](/guide)", "[abs](../guide)").replace("[s]: /guide/setup", "[s]: setup") },
      stored: { markdown: INSTALL },
    });
  });

  it("accepts dereferenced and evaluated (nothing in a body to expand or evaluate) and ignores refs for documents", async () => {
    const base = `/v1/spaces/${space}/content/page/${p.guide}?format=markdown`;
    const plain = await markdownOf(base);
    for (const query of ["&dereferenced=true", "&dereferenced=reusable-contents", "&dereferenced=false", "&evaluated=deterministic-only"]) {
      expect(await markdownOf(base + query)).toBe(plain);
    }
    const documentRead = await server.rest(A.token, "GET", `/v1/spaces/${space}/content/page/${p.guide}?format.markdown.refs=stable`);
    expect(documentRead.status).toBe(200);
    expect(documentRead.body.document).toBeTruthy();
    expect(documentRead.body.markdown).toBeUndefined();
  });

  it("refuses bad values with 400 naming the parameter (GraphQL: extensions.code)", async () => {
    for (const [query, name] of [
      ["format.markdown.refs=absolute", "format.markdown.refs"],
      ["format=markdown&format.markdown.refs=", "format.markdown.refs"],
      ["dereferenced=yes", "dereferenced"],
      ["evaluated=maybe", "evaluated"],
      ["format=html", "format"],
    ]) {
      const response = await server.rest(A.token, "GET", `/v1/spaces/${space}/content/page/${p.guide}?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body.error.message).toContain(name);
    }
    const result = await server.graphql(
      A.token,
      `query($space: ID!, $page: ID!, $refs: MarkdownRefs) { contentTarget(space: $space) { page(id: $page) { markdown(refs: $refs) } } }`,
      { space, page: p.guide, refs: "ABSOLUTE" },
    );
    expect(result.status).toBe(400);
    expect(result.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
    expect(result.errors?.[0].message).toContain("ABSOLUTE");
  });
});
