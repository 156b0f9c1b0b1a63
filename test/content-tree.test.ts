// Unit tests of the pure page-tree operations (src/core/content/tree.ts): paths, slugs, moves,
// deletes, limits. No database.
import { describe, expect, it } from "vitest";
import { DomainError } from "../src/core/errors.ts";
import {
  applyEdits,
  findPage,
  findPageByPath,
  flatten,
  slugify,
  PAGE_MARKDOWN_MAX_BYTES,
  type Content,
  type ContentEdit,
  type PageKind,
  type PagePosition,
} from "../src/core/content/tree.ts";

const NOW = "2026-01-15T10:00:00.000Z";
const hash = (markdown: string) => `h:${markdown}`;
const empty: Content = { pages: [], files: [] };

const create = (
  id: string,
  title: string,
  position: PagePosition = {},
  extra: Partial<{ kind: PageKind; slug: string; body: string; href: string }> = {},
): ContentEdit => ({
  op: "createPage",
  id,
  kind: extra.kind ?? "document",
  fields: { title, ...(extra.slug ? { slug: extra.slug } : {}), ...(extra.href ? { href: extra.href } : {}) },
  body: extra.body,
  position,
});

const apply = (content: Content, ...edits: ContentEdit[]) => applyEdits(content, edits, hash, NOW);

/** id → path of every page. */
const paths = (content: Content) => Object.fromEntries(flatten(content.pages).map((located) => [located.page.id, located.path]));
/** The tree as nested ids. */
const shape = (pages: Content["pages"]): unknown[] => pages.map((page) => (page.pages.length ? { [page.id]: shape(page.pages) } : page.id));

function refused(call: () => unknown, status: number, mentions: string) {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status, (error as Error).message).toBe(status);
    expect((error as Error).message).toContain(mentions);
    return;
  }
  throw new Error("expected the edit to be refused");
}

/**
 *   a  "Getting started"
 *   ├ b  "Install"
 *   └ c  "Configure"
 *   g  group "Guides"
 *   ├ d  "Deploy"
 *   └ e  "Upgrade"
 */
function sample(): Content {
  return apply(
    empty,
    create("a", "Getting started"),
    create("b", "Install", { parent: "a" }, { body: "# Install" }),
    create("c", "Configure", { parent: "a" }),
    create("g", "Guides", {}, { kind: "group" }),
    create("d", "Deploy", { parent: "g" }),
    create("e", "Upgrade", { parent: "g" }),
  );
}

describe("slugify", () => {
  it("lowercases, strips accents and joins words with single hyphens", () => {
    expect(slugify("Getting Started!")).toBe("getting-started");
    expect(slugify("  Café  &  Crème ")).toBe("cafe-creme");
    expect(slugify("!!!")).toBe("page");
    expect(slugify("x".repeat(150))).toHaveLength(100);
  });
});

describe("paths", () => {
  it("joins slugs from the root; groups add no path segment", () => {
    const content = sample();
    expect(paths(content)).toEqual({
      a: "getting-started",
      b: "getting-started/install",
      c: "getting-started/configure",
      g: "",
      d: "deploy",
      e: "upgrade",
    });
    expect(findPageByPath(content.pages, "/getting-started/install/")!.page.id).toBe("b");
    expect(findPageByPath(content.pages, "deploy")).toMatchObject({ page: { id: "d" }, parentId: "g" });
    expect(findPageByPath(content.pages, "")).toBeUndefined();
  });

  it("keeps the body hash of documents only, and stamps created pages", () => {
    const content = sample();
    expect(findPage(content.pages, "b")!.page).toMatchObject({ body: "h:# Install", createdAt: NOW, updatedAt: NOW, hidden: false });
    expect(findPage(content.pages, "c")!.page.body).toBe("h:");
    expect(findPage(content.pages, "g")!.page.body).toBeUndefined();
  });

  it("does not change the content it was given (revisions are immutable)", () => {
    const before = sample();
    const frozen = JSON.stringify(before);
    apply(
      before,
      { op: "updatePage", id: "b", fields: { title: "Setup" }, body: "new" },
      { op: "movePage", id: "d", position: { parent: "a" } },
      { op: "deletePage", id: "a" },
    );
    expect(JSON.stringify(before)).toBe(frozen);
  });
});

describe("slug uniqueness", () => {
  it("numbers a repeated slug among siblings", () => {
    const content = apply(empty, create("x", "Intro"), create("y", "Intro"), create("z", "intro", {}, { slug: "intro" }));
    expect(paths(content)).toEqual({ x: "intro", y: "intro-2", z: "intro-3" });
  });

  it("allows the same slug under different parents", () => {
    const content = apply(sample(), create("x", "Install", { parent: "g" }));
    expect(paths(content).x).toBe("install");
    expect(paths(content).b).toBe("getting-started/install");
  });

  it("treats pages in groups under one parent as one scope, so no two pages share a path", () => {
    const content = apply(
      sample(),
      create("h", "Reference", {}, { kind: "group" }),
      create("x", "Deploy", { parent: "h" }),
      create("y", "Getting started", { parent: "h" }),
    );
    expect(paths(content)).toMatchObject({ d: "deploy", x: "deploy-2", y: "getting-started-2" });
    const all = flatten(content.pages)
      .filter((located) => located.page.kind !== "group")
      .map((located) => located.path);
    expect(new Set(all).size).toBe(all.length);
  });

  it("keeps a page's own slug when it is updated to the same slug, and numbers a taken one", () => {
    let content = apply(sample(), { op: "updatePage", id: "b", fields: { slug: "install" } });
    expect(paths(content).b).toBe("getting-started/install");
    content = apply(content, { op: "updatePage", id: "c", fields: { slug: "install" } });
    expect(paths(content).c).toBe("getting-started/install-2");
  });

  it("renumbers a moved page, and the pages of a moved group, that would collide in their new scope", () => {
    let content = apply(sample(), create("x", "Deploy", { parent: "a" }));
    content = apply(content, { op: "movePage", id: "x", position: { parent: null } });
    expect(paths(content).x).toBe("deploy-2");
    // Moving group g (deploy, upgrade) under a, which has install, configure: no collision.
    content = apply(sample(), create("u", "Upgrade", { parent: "a" }), { op: "movePage", id: "g", position: { parent: "a" } });
    expect(paths(content)).toMatchObject({ u: "getting-started/upgrade", d: "getting-started/deploy", e: "getting-started/upgrade-2" });
  });

  it("does not rename pages when their title changes (paths stay stable)", () => {
    const content = apply(sample(), { op: "updatePage", id: "b", fields: { title: "Installation" } });
    expect(paths(content).b).toBe("getting-started/install");
  });
});

describe("move", () => {
  it("detaches the page with its subtree and attaches it under the new parent, last by default", () => {
    const content = apply(sample(), { op: "movePage", id: "a", position: { parent: "g" } });
    expect(shape(content.pages)).toEqual([{ g: ["d", "e", { a: ["b", "c"] }] }]);
    expect(paths(content).b).toBe("getting-started/install");
    expect(findPage(content.pages, "a")!.page.updatedAt).toBe(NOW);
  });

  it("places before or after a sibling, and keeps the parent when none is given", () => {
    let content = apply(sample(), { op: "movePage", id: "c", position: { before: "b" } });
    expect(shape(content.pages)[0]).toEqual({ a: ["c", "b"] });
    content = apply(content, { op: "movePage", id: "c", position: { after: "b" } });
    expect(shape(content.pages)[0]).toEqual({ a: ["b", "c"] });
    content = apply(content, { op: "movePage", id: "g", position: { parent: null, before: "a" } });
    expect(shape(content.pages).map((entry) => (typeof entry === "string" ? entry : Object.keys(entry as object)[0]))).toEqual(["g", "a"]);
  });

  it("refuses a move under the page itself or a descendant, an unknown parent or sibling, a link parent", () => {
    const content = apply(sample(), create("l", "Elsewhere", {}, { kind: "link", href: "https://example.com" }));
    refused(() => apply(content, { op: "movePage", id: "a", position: { parent: "a" } }), 400, "parent");
    refused(() => apply(content, { op: "movePage", id: "a", position: { parent: "b" } }), 400, "descendants");
    refused(() => apply(content, { op: "movePage", id: "a", position: { parent: "nope" } }), 400, 'parent: no page "nope"');
    refused(() => apply(content, { op: "movePage", id: "b", position: { before: "d" } }), 400, "position.before");
    refused(() => apply(content, { op: "movePage", id: "b", position: { parent: "l" } }), 400, "link");
    refused(() => apply(content, { op: "movePage", id: "b", position: { before: "c", after: "c" } }), 400, "before and after");
    refused(() => apply(content, { op: "movePage", id: "nope", position: { parent: null } }), 404, "nope");
  });
});

describe("delete", () => {
  it("removes the page and its whole subtree", () => {
    const content = apply(sample(), { op: "deletePage", id: "a" });
    expect(flatten(content.pages).map((located) => located.page.id)).toEqual(["g", "d", "e"]);
    refused(() => apply(content, { op: "deletePage", id: "b" }), 404, '"b"');
  });
});

describe("create and update", () => {
  it("applies fields, removes optional ones with null, and stamps updatedAt", () => {
    let content = apply(sample(), {
      op: "updatePage",
      id: "b",
      fields: { emoji: "1f680", description: "How to", hidden: true, layout: { outline: false } },
    });
    expect(findPage(content.pages, "b")!.page).toMatchObject({
      emoji: "1f680",
      description: "How to",
      hidden: true,
      layout: { outline: false },
    });
    content = apply(content, { op: "updatePage", id: "b", fields: { emoji: null, layout: null }, body: "changed" });
    const page = findPage(content.pages, "b")!.page;
    expect(page.emoji).toBeUndefined();
    expect(page.layout).toBeUndefined();
    expect(page.body).toBe("h:changed");
    expect(page.description).toBe("How to");
  });

  it("refuses bad fields naming them", () => {
    const content = sample();
    refused(() => apply(content, create("x", "")), 400, "title");
    refused(() => apply(content, create("x", "t".repeat(101))), 400, "title");
    expect(() => apply(content, create("x", "é".repeat(100)))).not.toThrow();
    refused(() => apply(content, create("x", "Ok", {}, { slug: "Not A Slug" })), 400, "slug");
    refused(() => apply(content, create("x", "Ok", {}, { slug: "a--b" })), 400, "slug");
    refused(() => apply(content, { op: "updatePage", id: "b", fields: { description: "d".repeat(1001) } }), 400, "description");
    refused(() => apply(content, { op: "updatePage", id: "b", fields: { cover: { file: "file_nope" } } }), 400, "cover.file");
    refused(() => apply(content, create("x", "Link", {}, { kind: "link" })), 400, "href");
    refused(() => apply(content, create("x", "Doc", {}, { href: "https://example.com" })), 400, "href");
    refused(() => apply(content, create("x", "Group", {}, { kind: "group", body: "text" })), 400, "markdown");
    refused(() => apply(content, { op: "updatePage", id: "g", fields: {}, body: "text" }), 400, "markdown");
    refused(() => apply(content, create("a", "Again")), 400, "already exists");
    refused(() => apply(content, create("x", "Orphan", { parent: "nope" })), 400, "parent");
    refused(() => apply(content, { op: "updatePage", id: "nope", fields: { title: "x" } }), 404, "nope");
  });

  it("refuses markdown over 1 MiB with 413, and takes exactly 1 MiB", () => {
    const limit = "a".repeat(PAGE_MARKDOWN_MAX_BYTES);
    expect(() => apply(sample(), { op: "updatePage", id: "b", fields: {}, body: limit })).not.toThrow();
    refused(() => apply(sample(), { op: "updatePage", id: "b", fields: {}, body: `${limit}a` }), 413, "markdown");
    refused(() => apply(sample(), create("x", "Big", {}, { body: "é".repeat(PAGE_MARKDOWN_MAX_BYTES / 2 + 1) })), 413, "markdown");
  });

  it("refuses a batch carrying more than 10 MiB of markdown with 413", () => {
    const page = "a".repeat(PAGE_MARKDOWN_MAX_BYTES);
    const edits = Array.from({ length: 11 }, (_, index) => create(`p${index}`, `Page ${index}`, {}, { body: page }));
    refused(() => apply(empty, ...edits), 413, "10 MiB");
    expect(() => apply(empty, ...edits.slice(0, 10))).not.toThrow();
  });

  it("names the refused edit of a batch, and refuses empty batches", () => {
    refused(() => apply(sample(), create("x", "Fine"), { op: "deletePage", id: "nope" }), 404, "edits[1] (deletePage)");
    refused(() => applyEdits(sample(), [], hash, NOW), 400, "edits");
  });

  it("lets later edits of a batch act on pages created earlier in it", () => {
    const content = apply(empty, create("x", "One"), create("y", "Two", { parent: "x" }), {
      op: "updatePage",
      id: "y",
      fields: { title: "Deux" },
    });
    expect(shape(content.pages)).toEqual([{ x: ["y"] }]);
    expect(findPage(content.pages, "y")!.page.title).toBe("Deux");
  });
});
