// Change request PDFs end to end: the REST route through the official client (validated against
// the spec) hands out a temporary URL; the URL serves a real PDF of the change request's content
// (whole, a page with its subpages, a page alone), refuses tampering (403) and expiry (410), and
// is the only thing needed (no token). The PDF's text is read back by inflating its page streams.
import { inflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
let reader: { userId: string; token: string };
let space: string;
let changeRequest: { id: string; number: number };
const pages: Record<"start" | "install" | "reference", string> = {} as never;

const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

const CREATE_PAGE = /* GraphQL */ `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

async function createPage(input: Record<string, unknown>): Promise<string> {
  return (await gql(CREATE_PAGE, { input: { space, ...input } })).createPage.page.id;
}

const START_MARKDOWN = `Welcome to the **handbook**, with *emphasis* and \`inline code\`.

## Heading inside

- First item
- Second item with a [link to the site](https://example.com/docs)
  1. Nested ordered

> A quoted remark

\`\`\`js
const answer = 42;
\`\`\`

---

![Architecture diagram](https://example.com/diagram.png)

Accents stay: Ünïcödé café. Others are replaced: ā → x, 🚀 launch, 漢字 done.
`;

/** 100 numbered lines of code: more than one PDF page. */
const LONG_CODE = "```\n" + Array.from({ length: 100 }, (_, i) => `line ${i + 1} of the listing`).join("\n") + "\n```\n";

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("PDF A");
  B = await server.bootstrap("PDF B");
  reader = await server.addMember(A.organizationId, "read");
  space = (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: A.organizationId, title: "Handbook" },
    })
  ).createSpace.space.id;
  changeRequest = (
    await gql(`mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { changeRequest { id number } } }`, {
      input: { space, subject: "Write the handbook" },
    })
  ).createChangeRequest.changeRequest;
  pages.start = await createPage({ changeRequest: changeRequest.id, title: "Getting started", markdown: START_MARKDOWN });
  pages.install = await createPage({
    changeRequest: changeRequest.id,
    title: "Installation",
    markdown: "Run the installer.\n",
    parent: pages.start,
  });
  pages.reference = await createPage({ changeRequest: changeRequest.id, title: "Reference", markdown: LONG_CODE });
  // Edited in the space, not in the change request: not in its PDF.
  await createPage({ title: "Space only", markdown: "Not proposed.\n" });
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const api = (token = A.token) => server.client(token).spaces;

async function pdfUrl(query: { page?: string; only?: boolean } = {}, id: string = changeRequest.id): Promise<string> {
  const response = await api().getChangeRequestPdf(space, id, query);
  return (response.data as { url: string }).url;
}

/** The PDF behind a URL, fetched without a token. */
async function fetchPdf(url: string) {
  const response = await fetch(url);
  expect(response.status, await response.clone().text()).toBe(200);
  return { headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** WinAnsi bytes as text: Latin-1, and the bullet, the one character beyond it these pages use. */
const winAnsi = (bytes: Buffer) => bytes.toString("latin1").replace(/\x95/g, "•");

/**
 * The page count and the text of each page. pdfkit writes each page's content as one deflated
 * stream, in page order, and text as `[<hex> kerning <hex> …] TJ` in the font's single-byte
 * encoding (WinAnsi).
 */
function readPdf(bytes: Buffer): { pageCount: number; texts: string[] } {
  const raw = bytes.toString("latin1");
  const pageCount = raw.match(/\/Type \/Page(?!s)/g)?.length ?? 0;
  const texts: string[] = [];
  const streamStart = /\/Length (\d+)\n\/Filter \/FlateDecode\n>>\nstream\n/g;
  for (let match; (match = streamStart.exec(raw)); ) {
    const start = match.index + match[0].length;
    const content = inflateSync(bytes.subarray(start, start + Number(match[1]))).toString("latin1");
    const shown = [...content.matchAll(/\[([^\]]*)\] TJ/g)].map(([, array]) =>
      [...array.matchAll(/<([0-9a-f]*)>/g)].map(([, hex]) => winAnsi(Buffer.from(hex, "hex"))).join(""),
    );
    texts.push(shown.join(""));
  }
  return { pageCount, texts };
}

// ---------------------------------------------------------------------------------------------

describe("GET /v1/spaces/:spaceId/change-requests/:changeRequestId/pdf", () => {
  it("gives a URL that serves the whole content as a PDF, one page after the other in tree order", async () => {
    const url = await pdfUrl();
    expect(url.startsWith(`${server.url}/pdf/`)).toBe(true);
    const { headers, bytes } = await fetchPdf(url);
    expect(headers.get("content-type")).toBe("application/pdf");
    expect(headers.get("content-disposition")).toBe(`inline; filename="change-request-${changeRequest.number}.pdf"`);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(bytes.toString("latin1").trimEnd().endsWith("%%EOF")).toBe(true);

    const { pageCount, texts } = readPdf(bytes);
    // Getting started, Installation, then Reference, whose 100 lines of code take two pages.
    expect(pageCount).toBe(4);
    expect(texts).toHaveLength(4);
    expect(texts[0].startsWith("Getting started")).toBe(true);
    expect(texts[1].startsWith("Installation")).toBe(true);
    expect(texts[1]).toContain("Run the installer.");
    expect(texts[2].startsWith("Reference")).toBe(true);
    expect(texts[2]).toContain("line 1 of the listing");
    expect(texts[3]).toContain("line 100 of the listing");
    expect(texts.join("")).not.toContain("Space only");
  });

  it("renders the markdown: headings, lists, links as text, quotes, code, images by name, unencodable characters replaced", async () => {
    const [first] = readPdf((await fetchPdf(await pdfUrl({ page: pages.start, only: true }))).bytes).texts;
    for (const text of [
      "Welcome to the handbook, with emphasis and inline code.",
      "Heading inside",
      "First item",
      "Second item with a link to the site",
      "1.Nested ordered",
      "A quoted remark",
      "const answer = 42;",
      "[Image: Architecture diagram]",
      "Accents stay: Ünïcödé café. Others are replaced: a ? x, ? launch, ?? done.",
    ]) {
      expect(first).toContain(text);
    }
    expect(first).toContain("•First item");
  });

  it("with page: that page and its subpages; with only: that page alone", async () => {
    const subtree = await fetchPdf(await pdfUrl({ page: pages.start }));
    expect(subtree.headers.get("content-disposition")).toBe(
      `inline; filename="change-request-${changeRequest.number}-getting-started.pdf"`,
    );
    const { pageCount, texts } = readPdf(subtree.bytes);
    expect(pageCount).toBe(2);
    expect(texts[0].startsWith("Getting started")).toBe(true);
    expect(texts[1].startsWith("Installation")).toBe(true);

    const alone = readPdf((await fetchPdf(await pdfUrl({ page: pages.start, only: true }))).bytes);
    expect(alone.pageCount).toBe(1);
    expect(alone.texts[0].startsWith("Getting started")).toBe(true);
    expect(alone.texts[0]).not.toContain("Installation");

    const leaf = readPdf((await fetchPdf(await pdfUrl({ page: pages.install }))).bytes);
    expect(leaf.pageCount).toBe(1);
  });

  it("gives one page saying so for content without pages", async () => {
    const empty = (
      await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: A.organizationId, title: "Empty" },
      })
    ).createSpace.space.id;
    const opened = await api().createChangeRequest(empty, {});
    const url = (await api().getChangeRequestPdf(empty, opened.data.id)).data.url;
    const { pageCount, texts } = readPdf((await fetchPdf(url)).bytes);
    expect(pageCount).toBe(1);
    expect(texts[0]).toBe("This content has no pages.");
  });

  it("addresses the change request by number too", async () => {
    const { texts } = readPdf((await fetchPdf(await pdfUrl({ page: pages.install }, String(changeRequest.number)))).bytes);
    expect(texts[0].startsWith("Installation")).toBe(true);
  });

  it("refuses only without page (400 naming page) and a page the content does not have (404)", async () => {
    await expectRestError(api().getChangeRequestPdf(space, changeRequest.id, { only: true }), 400, "page");
    await expectRestError(api().getChangeRequestPdf(space, changeRequest.id, { page: "Page_missing" }), 404, "Page_missing");
    // A page of the space that the change request does not have.
    const spacePage = (
      await gql(`query($id: ID!) { space(id: $id) { content { pages { id title } } } }`, { id: space })
    ).space.content.pages.find((page: { title: string }) => page.title === "Space only").id;
    await expectRestError(api().getChangeRequestPdf(space, changeRequest.id, { page: spacePage }), 404);
  });

  it("is as visible as the change request: a reader gets it, another organization gets 404", async () => {
    const url = await pdfUrl();
    const readerUrl = (await api(reader.token).getChangeRequestPdf(space, changeRequest.id)).data.url;
    expect(readPdf((await fetchPdf(readerUrl)).bytes).pageCount).toBe(4);
    await expectRestError(api(B.token).getChangeRequestPdf(space, changeRequest.id), 404);
    expect(url).not.toContain(A.token);
  });

  it("is a field of the change request in GraphQL", async () => {
    const query = `query($space: ID!, $cr: ID!, $page: ID, $only: Boolean) { space(id: $space) { changeRequest(id: $cr) { pdf(page: $page, only: $only) { url } } } }`;
    const data = await gql(query, { space, cr: changeRequest.id, page: pages.install });
    expect(readPdf((await fetchPdf(data.space.changeRequest.pdf.url)).bytes).texts[0].startsWith("Installation")).toBe(true);
    expectGraphQLError(await server.graphql(A.token, query, { space, cr: changeRequest.id, only: true }), "BAD_REQUEST", "page");
  });

  it("names the revision: a URL keeps serving the same bytes after the change request moves on", async () => {
    const before = await pdfUrl();
    const first = (await fetchPdf(before)).bytes;
    const page = await createPage({ changeRequest: changeRequest.id, title: "Appendix", markdown: "Added later.\n" });
    expect((await fetchPdf(before)).bytes.equals(first)).toBe(true);
    const after = readPdf((await fetchPdf(await pdfUrl())).bytes);
    expect(after.texts.at(-1)!.startsWith("Appendix")).toBe(true);
    await gql(`mutation($input: DeletePageInput!) { deletePage(input: $input) { revision { id } } }`, {
      input: { space, changeRequest: changeRequest.id, page },
    });
  });
});

describe("the PDF URL", () => {
  /** A refusal in the REST error envelope. */
  async function expectRefused(url: string, status: number, mentions: string, init?: RequestInit) {
    const response = await fetch(url, init);
    expect(response.status).toBe(status);
    const body = await response.json();
    expect(body.error.code).toBe(status);
    expect(body.error.message).toContain(mentions);
  }

  it("refuses a tampered URL with 403", async () => {
    const url = new URL(await pdfUrl({ page: pages.start, only: true }));
    const variants = [
      (u: URL) => u.searchParams.set("page", pages.reference),
      (u: URL) => u.searchParams.delete("only"),
      (u: URL) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600)),
      (u: URL) => u.searchParams.set("sig", `${u.searchParams.get("sig")!.slice(0, -2)}AA`),
      (u: URL) => u.searchParams.delete("sig"),
      (u: URL) => (u.pathname = u.pathname.replace(/\/[^/]+$/, "/Revision_other")),
    ];
    for (const tamper of variants) {
      const tampered = new URL(url);
      tamper(tampered);
      await expectRefused(tampered.href, 403, "signature");
    }
    await expectRefused(`${server.url}/pdf/nothing`, 404, "No such PDF");
    await expectRefused(url.href, 405, "use GET", { method: "POST" });
  });

  it("expires after one hour: 410", async () => {
    const url = await pdfUrl();
    server.clock.advance(59 * 60 * 1000);
    await fetchPdf(url);
    server.clock.advance(60 * 1000);
    await expectRefused(url, 410, "expired");
    // A new URL works again.
    await fetchPdf(await pdfUrl());
  });
});

describe("GET /v1/spaces/:spaceId/pdf (issue 30)", () => {
  it("gives a URL that serves the space's own content, not the change request's", async () => {
    const { data } = await api(reader.token).getSpacePdf(space);
    const url = (data as { url: string }).url;
    expect(url.startsWith(`${server.url}/pdf/${space}/`)).toBe(true);
    const { headers, bytes } = await fetchPdf(url);
    expect(headers.get("content-disposition")).toBe('inline; filename="space.pdf"');
    const { pageCount, texts } = readPdf(bytes);
    expect(pageCount).toBe(1);
    expect(texts[0].startsWith("Space only")).toBe(true);
    expect(texts[0]).toContain("Not proposed.");
  });

  it("one page alone; GraphQL Space.pdf; refusals name the field, other organizations get 404", async () => {
    const spacePage = (
      await gql(`query($id: ID!) { space(id: $id) { content { allPages { id title } } } }`, { id: space })
    ).space.content.allPages.find((p: { title: string }) => p.title === "Space only").id;
    const { data } = await api().getSpacePdf(space, { page: spacePage, only: true });
    const { headers } = await fetchPdf((data as { url: string }).url);
    expect(headers.get("content-disposition")).toBe('inline; filename="space-space-only.pdf"');
    const viaGraphql = await gql(`query($id: ID!) { space(id: $id) { pdf { url } } }`, { id: space });
    expect(readPdf((await fetchPdf(viaGraphql.space.pdf.url)).bytes).texts[0].startsWith("Space only")).toBe(true);

    await expectRestError(api().getSpacePdf(space, { only: true }), 400, "page");
    // A page of the change request only is not in the space's content.
    await expectRestError(api().getSpacePdf(space, { page: pages.start }), 404, pages.start);
    await expectRestError(api(B.token).getSpacePdf(space), 404);
    expectGraphQLError(
      await server.graphql(A.token, `query($id: ID!) { space(id: $id) { pdf(only: true) { url } } }`, { id: space }),
      "BAD_REQUEST",
      "page",
    );
  });
});
