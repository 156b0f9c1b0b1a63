// Reading space content on both surfaces: the current revision, the page tree, a page by id and
// by path (markdown or document), files; what callers who cannot read the space get; and SQL
// statements for a 500-page tree equal to those for a 5-page tree. Content is written straight
// into the database (a revision row and its blobs), so these tests depend on no editing code.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileEntry, PageNode } from "../src/core/content/tree.ts";
import { newId } from "../src/core/ids.ts";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { expectRawRestError, expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: BootstrapResult;
let B: BootstrapResult;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Content A");
  B = await server.bootstrap("Content B");
});

afterAll(async () => {
  await server?.close();
});

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const NOW = "2026-01-15T10:00:00.000Z";

interface PageSpec {
  title: string;
  slug: string;
  kind?: PageNode["kind"];
  markdown?: string;
  href?: string;
  pages?: PageSpec[];
  extra?: Partial<PageNode>;
}

/** Page nodes of `specs`, collecting the bodies they point at. */
function nodes(specs: PageSpec[], bodies: Buffer[]): PageNode[] {
  return specs.map((spec) => {
    const kind = spec.kind ?? "document";
    const body = kind === "document" ? Buffer.from(spec.markdown ?? "", "utf8") : undefined;
    if (body) bodies.push(body);
    return {
      id: newId("Page"),
      kind,
      title: spec.title,
      slug: spec.slug,
      hidden: false,
      noIndex: false,
      noRobotsIndex: false,
      variables: {},
      createdAt: NOW,
      updatedAt: NOW,
      pages: nodes(spec.pages ?? [], bodies),
      ...(body ? { body: sha256(body) } : {}),
      ...(spec.href ? { href: spec.href } : {}),
      ...spec.extra,
    };
  });
}

/** A new revision of `spaceId` holding `specs` and `files` (bytes given), made the head. */
async function seed(
  spaceId: string,
  specs: PageSpec[],
  files: { name: string; contentType: string; bytes: Buffer; width?: number; height?: number }[] = [],
) {
  const prisma = server.database.prisma;
  const bodies: Buffer[] = [];
  const pages = nodes(specs, bodies);
  const entries: FileEntry[] = files.map((file) => ({
    id: newId("File"),
    name: file.name,
    contentType: file.contentType,
    size: file.bytes.length,
    blob: sha256(file.bytes),
    ...(file.width ? { width: file.width, height: file.height } : {}),
  }));
  const blobs = [...bodies, ...files.map((file) => file.bytes)].map((data) => ({
    hash: sha256(data),
    data: new Uint8Array(data),
    size: data.length,
  }));
  await prisma.blob.createMany({ data: blobs, skipDuplicates: true });
  const space = await prisma.space.findUniqueOrThrow({ where: { id: spaceId } });
  const id = newId("Revision");
  await prisma.revision.create({
    data: { id, spaceId, parentIds: [space.revisionId], type: "edits", pages: pages as never, files: entries as never },
  });
  await prisma.space.update({ where: { id: spaceId }, data: { revisionId: id } });
  return { revisionId: id, previous: space.revisionId, pages, files: entries };
}

async function newSpace(org: BootstrapResult, title = "Docs"): Promise<string> {
  const { data } = await server.client(org.token).orgs.createSpace(org.organizationId, { title });
  return data.id;
}

const RICH = `# Welcome

Some **bold**, *italic*, \`code\` and a [link](https://example.com "t").

![An image](https://example.com/a.png)

- one
- two
  1. nested

3. three
4. four

> A quote with [a link][ref]
>
> \`\`\`
> quoted code
> \`\`\`

\`\`\`ts
const x = 1;
const y = 2;
\`\`\`

---

<div>html</div>

[ref]: https://example.com/ref
`;

describe("a space with content", () => {
  let spaceId: string;
  let seeded: Awaited<ReturnType<typeof seed>>;
  let ids: { welcome: string; guide: string; install: string; group: string; inGroup: string; link: string };
  const PNG = Buffer.from("89504e470d0a1a0a", "hex");

  beforeAll(async () => {
    spaceId = await newSpace(A);
    seeded = await seed(
      spaceId,
      [
        {
          title: "Welcome",
          slug: "welcome",
          markdown: RICH,
          extra: { emoji: "1f44b", description: "Start here", layout: { cover: false } },
        },
        {
          title: "Guide",
          slug: "guide",
          markdown: "Guide body",
          pages: [{ title: "Install", slug: "install", markdown: "# Install\n\nRun it." }],
        },
        { title: "Reference", slug: "reference", kind: "group", pages: [{ title: "API", slug: "api", markdown: "API body" }] },
        { title: "Elsewhere", slug: "elsewhere", kind: "link", href: "https://example.com/elsewhere" },
      ],
      [
        { name: "logo.png", contentType: "image/png", bytes: PNG, width: 16, height: 8 },
        { name: "notes.txt", contentType: "text/plain", bytes: Buffer.from("notes") },
        { name: "data.csv", contentType: "text/csv", bytes: Buffer.from("a,b") },
      ],
    );
    const [welcome, guide, group, link] = seeded.pages;
    ids = { welcome: welcome.id, guide: guide.id, install: guide.pages[0].id, group: group.id, inGroup: group.pages[0].id, link: link.id };
  });

  it("REST: the current revision, with its tree, files and urls; metadata=false is accepted", async () => {
    const api = server.client(A.token);
    const { data } = await api.spaces.getCurrentRevision(spaceId);
    const revision = data as any;
    expect(revision).toMatchObject({
      object: "revision",
      id: seeded.revisionId,
      parents: [seeded.previous],
      type: "edits",
      reusableContents: [],
      variables: {},
    });
    expect(revision.urls.app).toMatch(/^http/);
    expect(revision.pages.map((page: any) => page.title)).toEqual(["Welcome", "Guide", "Reference", "Elsewhere"]);
    expect(revision.pages[1].pages[0]).toMatchObject({
      id: ids.install,
      path: "guide/install",
      type: "document",
      markdown: "# Install\n\nRun it.",
    });
    expect(revision.pages[2]).toMatchObject({ type: "group", kind: "group", pages: [{ id: ids.inGroup, path: "api" }] });
    expect(revision.pages[3]).toMatchObject({ type: "link", target: { kind: "url", url: "https://example.com/elsewhere" } });
    expect(revision.files.map((file: any) => file.name)).toEqual(["logo.png", "notes.txt", "data.csv"]);
    expect(revision.files[0]).toMatchObject({ size: PNG.length, contentType: "image/png", dimensions: { width: 16, height: 8 } });
    expect(revision.git).toBeUndefined();
    const { data: lean } = await api.spaces.getCurrentRevision(spaceId, { metadata: false, computed: false });
    expect(lean.id).toBe(seeded.revisionId);
  });

  it("REST: the page tree", async () => {
    const { data } = await server.client(A.token).spaces.listPages(spaceId);
    const [welcome, guide] = data.pages as any[];
    expect(welcome).toMatchObject({
      id: ids.welcome,
      emoji: "1f44b",
      description: "Start here",
      slug: "welcome",
      path: "welcome",
      markdown: RICH,
    });
    expect(welcome.layout).toMatchObject({ cover: false, title: true, width: "default" });
    expect(welcome.urls.app).toMatch(new RegExp(`/s/${spaceId}/welcome$`));
    expect(guide.pages.map((page: any) => page.title)).toEqual(["Install"]);
  });

  it("REST: a page by id, as a document (default) or markdown", async () => {
    const api = server.client(A.token);
    const { data: asDocument } = await api.spaces.getPageById(spaceId, ids.welcome);
    const document = (asDocument as any).document;
    expect((asDocument as any).markdown).toBeUndefined();
    expect(document.object).toBe("document");
    expect(document.nodes.map((node: any) => node.type)).toEqual([
      "heading-1",
      "paragraph",
      "paragraph",
      "list-unordered",
      "list-ordered",
      "blockquote",
      "code",
      "divider",
      "paragraph",
    ]);
    expect(document.nodes[4].data).toEqual({ start: 3 });
    expect(document.nodes[6]).toMatchObject({ data: { syntax: "ts" }, nodes: [{ type: "code-line" }, { type: "code-line" }] });
    const leaves = document.nodes[1].nodes.flatMap((node: any) => node.leaves ?? []);
    expect(leaves.find((leaf: any) => leaf.text === "bold").marks).toEqual([{ object: "mark", type: "bold" }]);
    const link = document.nodes[1].nodes.find((node: any) => node.type === "link");
    expect(link.data.ref).toEqual({ kind: "url", url: "https://example.com" });

    const { data: asMarkdown } = await api.spaces.getPageById(spaceId, ids.welcome, { format: "markdown", evaluated: true });
    expect((asMarkdown as any).markdown).toBe(RICH);
    expect((asMarkdown as any).document).toBeUndefined();

    const { data: guide } = await api.spaces.getPageById(spaceId, ids.guide, { format: "markdown" });
    expect((guide as any).pages).toMatchObject([{ id: ids.install, markdown: "# Install\n\nRun it." }]);

    await expectRawRestError(
      server,
      A.token,
      "GET",
      `/v1/spaces/${spaceId}/content/page/${ids.welcome}?format=html`,
      undefined,
      400,
      "format",
    );
  });

  it("REST: a page by path (beyond the contract: getPageByPath)", async () => {
    const api = server.client(A.token);
    const { data } = await api.spaces.getPageByPath(spaceId, "guide/install", { format: "markdown" });
    expect(data).toMatchObject({ id: ids.install, path: "guide/install", markdown: "# Install\n\nRun it." });
    // Groups add no path segment.
    const { data: inGroup } = await api.spaces.getPageByPath(spaceId, "api");
    expect(inGroup.id).toBe(ids.inGroup);
    const raw = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/content/path/guide/install?format=markdown`);
    expect(raw.body.id).toBe(ids.install);
    await expectRestError(api.spaces.getPageByPath(spaceId, "guide/missing"), 404);
  });

  it("REST: files, listed in pages and one by one", async () => {
    const api = server.client(A.token);
    const first = await api.spaces.listFiles(spaceId, { limit: 2 });
    expect(first.data.count).toBe(3);
    expect(first.data.items.map((file) => file.name)).toEqual(["logo.png", "notes.txt"]);
    expect(first.data.next?.page).toBeTruthy();
    const second = await api.spaces.listFiles(spaceId, { limit: 2, page: first.data.next!.page });
    expect(second.data.items.map((file) => file.name)).toEqual(["data.csv"]);
    expect(second.data.next).toBeUndefined();
    const { data: file } = await api.spaces.getFileById(spaceId, seeded.files[1].id);
    expect(file).toMatchObject({ id: seeded.files[1].id, name: "notes.txt", size: 5, contentType: "text/plain" });
    expect(file.downloadURL).toMatch(/^http/);
    await expectRawRestError(server, A.token, "GET", `/v1/spaces/${spaceId}/content/files?page=bogus`, undefined, 400, "cursor");
  });

  it("404 for an unknown page or file, and for a space of another organization or a guest", async () => {
    const api = server.client(A.token);
    await expectRestError(api.spaces.getPageById(spaceId, "pg_missing"), 404);
    await expectRestError(api.spaces.getFileById(spaceId, "file_missing"), 404);
    const stranger = server.client(B.token);
    await expectRestError(stranger.spaces.getCurrentRevision(spaceId), 404);
    await expectRestError(stranger.spaces.listPages(spaceId), 404);
    await expectRestError(stranger.spaces.getPageById(spaceId, ids.welcome), 404);
    await expectRestError(stranger.spaces.listFiles(spaceId), 404);
    const guest = await server.addMember(A.organizationId, null);
    await expectRestError(server.client(guest.token).spaces.getCurrentRevision(spaceId), 404);
    await expectRestError(server.client(guest.token).spaces.getPageById(spaceId, ids.welcome), 404);
    const reader = await server.addMember(A.organizationId, "read");
    const { data } = await server.client(reader.token).spaces.getPageById(spaceId, ids.install);
    expect(data.id).toBe(ids.install);
  });

  it("GraphQL: content, pages by id and path, files, revisions as nodes", async () => {
    const data = await graphqlData(
      server,
      A.token,
      /* GraphQL */ `
      query ($id: ID!, $page: ID!, $revision: ID!, $old: ID!) {
        space(id: $id) {
          content {
            id parents type
            pages { id title type path pages { id title path markdown } }
            files { id name size dimensions { width height } downloadURL }
            variables
          }
          byId: page(id: $page) { title markdown document layout { cover coverSize } }
          byPath: page(path: "guide/install") { id parentId }
          files(first: 1) { totalCount pageInfo { hasNextPage } nodes { name } }
          revisionById(id: $old) { id pages { id } }
        }
        node(id: $revision) { id ... on Revision { space { id } } }
      }`,
      { id: spaceId, page: ids.welcome, revision: seeded.revisionId, old: seeded.previous },
    );
    const content = data.space.content;
    expect(content).toMatchObject({ id: seeded.revisionId, parents: [seeded.previous], type: "edits", variables: {} });
    expect(content.pages[1]).toMatchObject({
      type: "DOCUMENT",
      path: "guide",
      pages: [{ path: "guide/install", markdown: "# Install\n\nRun it." }],
    });
    expect(content.pages[2].type).toBe("GROUP");
    expect(content.files[0].dimensions).toEqual({ width: 16, height: 8 });
    expect(data.space.byId.markdown).toBe(RICH);
    expect(data.space.byId.document.nodes[0].type).toBe("heading-1");
    expect(data.space.byId.layout).toEqual({ cover: false, coverSize: "hero" });
    expect(data.space.byPath).toEqual({ id: ids.install, parentId: ids.guide });
    expect(data.space.files).toEqual({ totalCount: 3, pageInfo: { hasNextPage: true }, nodes: [{ name: "logo.png" }] });
    // The revision before the content still reads the same: empty.
    expect(data.space.revisionById).toEqual({ id: seeded.previous, pages: [] });
    expect(data.node).toEqual({ id: seeded.revisionId, space: { id: spaceId } });
  });

  it("GraphQL: not found for an unknown page, a missing id/path, another space's revision, another organization", async () => {
    const otherSpace = await newSpace(A, "Other");
    const other = await server.graphql(A.token, `query ($id: ID!, $rev: ID!) { space(id: $id) { revisionById(id: $rev) { id } } }`, {
      id: otherSpace,
      rev: seeded.revisionId,
    });
    expect(other.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    const missing = await server.graphql(A.token, `query ($id: ID!) { space(id: $id) { page(id: "pg_nope") { id } } }`, { id: spaceId });
    expect(missing.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    const neither = await server.graphql(A.token, `query ($id: ID!) { space(id: $id) { page { id } } }`, { id: spaceId });
    expect(neither.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
    const node = await server.graphql(B.token, `query ($id: ID!) { node(id: $id) { id } }`, { id: seeded.revisionId });
    expect(node.errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });
});

describe("SQL statements for a page tree do not grow with its size", () => {
  const spaces: Record<"small" | "large", string> = { small: "", large: "" };

  /** `tops` documents at the top, each with `children` documents: both trees are two levels deep. */
  const tree = (tops: number, children: number): PageSpec[] =>
    Array.from({ length: tops }, (_, i) => ({
      title: `Top ${i}`,
      slug: `top-${i}`,
      markdown: `# Top ${i}\n\nBody ${i}`,
      pages: Array.from({ length: children }, (_, j) => ({
        title: `Child ${i}.${j}`,
        slug: `child-${j}`,
        markdown: `Child ${i}.${j} body`,
      })),
    }));

  beforeAll(async () => {
    spaces.small = await newSpace(A, "Small");
    spaces.large = await newSpace(A, "Large");
    await seed(spaces.small, tree(1, 4)); // 5 pages
    await seed(spaces.large, tree(50, 9)); // 500 pages
  });

  async function measure(read: () => Promise<number>) {
    const before = server.database.statementCount;
    const pages = await read();
    return { statements: server.database.statementCount - before, pages };
  }

  const countPages = (pages: any[]): number => pages.reduce((sum, page) => sum + 1 + countPages(page.pages ?? []), 0);

  const READS: [string, (spaceId: string) => Promise<number>][] = [
    ["GET content/pages", async (spaceId) => countPages((await server.client(A.token).spaces.listPages(spaceId)).data.pages)],
    ["GET content", async (spaceId) => countPages((await server.client(A.token).spaces.getCurrentRevision(spaceId)).data.pages)],
    [
      "GraphQL tree",
      async (spaceId) =>
        countPages(
          (
            await graphqlData(
              server,
              A.token,
              `query ($id: ID!) { space(id: $id) { content { pages { id title pages { id title } } } } }`,
              { id: spaceId },
            )
          ).space.content.pages,
        ),
    ],
    [
      "GraphQL tree with markdown",
      async (spaceId) =>
        countPages(
          (
            await graphqlData(
              server,
              A.token,
              `query ($id: ID!) { space(id: $id) { content { pages { id title markdown pages { id title markdown } } } } }`,
              { id: spaceId },
            )
          ).space.content.pages,
        ),
    ],
  ];

  it.each(READS)("%s", async (label, read) => {
    await measure(() => read(spaces.small));
    await measure(() => read(spaces.large));
    const small = await measure(() => read(spaces.small));
    const large = await measure(() => read(spaces.large));
    console.log(`content statements (${label}, ${server.database.kind}): 5 pages → ${small.statements}, 500 pages → ${large.statements}`);
    expect(small.pages).toBe(5);
    expect(large.pages).toBe(500);
    expect(large.statements).toBe(small.statements);
    expect(small.statements).toBeLessThanOrEqual(10);
  });
});
