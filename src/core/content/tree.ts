// The page tree of a revision and the edits that make the next one. Pure functions over plain
// data: a revision stores `PageNode[]` and `FileEntry[]` as JSON; bodies and file bytes are blobs
// named by their SHA-256 (`body`, `blob`).
import { DomainError, badInput, notFound, quote, characterCount } from "../errors.ts";
import { checkMetaLinks, type PageMetaLinks } from "./meta-links.ts";

export const PAGE_KINDS = ["document", "group", "link"] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface PageLayout {
  cover?: boolean;
  coverSize?: "hero" | "full";
  title?: boolean;
  description?: boolean;
  tableOfContents?: boolean;
  outline?: boolean;
  pagination?: boolean;
}

export interface PageCover {
  /** Id of a file of the revision. */
  file?: string;
  fileDark?: string;
  yPos?: number;
}

export interface PageNode {
  id: string;
  kind: PageKind;
  title: string;
  emoji?: string;
  icon?: string;
  description?: string;
  slug: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout?: PageLayout;
  cover?: PageCover;
  variables: Record<string, string>;
  /** Canonical and alternate versions of the page (documents only). Absent: none. */
  metaLinks?: PageMetaLinks;
  /** SHA-256 of the markdown body (documents only). */
  body?: string;
  /** Target URL (links only). */
  href?: string;
  createdAt: string;
  updatedAt: string;
  pages: PageNode[];
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  blob: string;
  width?: number;
  height?: number;
}

/** A block of markdown shared by pages of the space (its body is a blob, like a page's). */
export interface ReusableContentEntry {
  id: string;
  title: string;
  /** SHA-256 of the markdown body. */
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface Content {
  pages: PageNode[];
  files: FileEntry[];
  /** Absent: none. */
  reusableContents?: ReusableContentEntry[];
  /** Revision-level variables, name → value. Absent: none. */
  variables?: Record<string, string>;
}

/** A page with where it stands: its path in the revision and its parent. */
export interface LocatedPage {
  page: PageNode;
  path: string;
  parentId: string | null;
}

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const PAGE_TITLE_MAX = 100;
export const PAGE_DESCRIPTION_MAX = 1000;
/** Markdown of one page, in UTF-8 bytes (413 above). */
export const PAGE_MARKDOWN_MAX_BYTES = 1024 * 1024;
/** Markdown of all the pages of one batch, in UTF-8 bytes (413 above). */
export const BATCH_MARKDOWN_MAX_BYTES = 10 * 1024 * 1024;
/** Edits in one batch (one revision). */
export const EDITS_MAX = 1000;
export const REUSABLE_CONTENT_TITLE_MAX = 100;
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const VARIABLE_VALUE_MAX = 10_000;
export const VARIABLES_MAX = 100;

export function slugify(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
  return slug || "page";
}

/** Every page, depth first in tree order, with its path (slugs from the root, joined by "/"). */
export function flatten(pages: PageNode[], parentPath = "", parentId: string | null = null): LocatedPage[] {
  return pages.flatMap((page) => {
    // Groups are sections of the navigation, not path segments.
    const path = page.kind === "group" ? parentPath : parentPath ? `${parentPath}/${page.slug}` : page.slug;
    return [{ page, path, parentId }, ...flatten(page.pages, path, page.id)];
  });
}

export function findPage(pages: PageNode[], id: string): LocatedPage | undefined {
  return flatten(pages).find((located) => located.page.id === id);
}

export function findPageByPath(pages: PageNode[], path: string): LocatedPage | undefined {
  const wanted = path.replace(/^\/+|\/+$/g, "");
  return flatten(pages).find((located) => located.page.kind === "document" && located.path === wanted);
}

/** The tree without page `id`, and the removed page (with its children). */
function detach(pages: PageNode[], id: string): { pages: PageNode[]; removed?: PageNode } {
  let removed: PageNode | undefined;
  const walk = (list: PageNode[]): PageNode[] =>
    list.flatMap((page) => {
      if (page.id === id) {
        removed = page;
        return [];
      }
      return [{ ...page, pages: walk(page.pages) }];
    });
  const result = walk(pages);
  return { pages: result, removed };
}

export interface PagePosition {
  /** Parent page id; null for the top level; undefined keeps the current parent. */
  parent?: string | null;
  before?: string | null;
  after?: string | null;
}

/** Inserts `node` under `parent` (null: the top level), before/after a sibling, else last. */
function attach(pages: PageNode[], node: PageNode, parent: string | null, position: PagePosition): PageNode[] {
  const place = (siblings: PageNode[]): PageNode[] => {
    const reference = position.before ?? position.after;
    if (!reference) return [...siblings, node];
    const index = siblings.findIndex((sibling) => sibling.id === reference);
    const field = position.before ? "position.before" : "position.after";
    if (index < 0) throw badInput(`${field}: page ${quote(reference)} is not a sibling in the target parent`);
    const at = position.before ? index : index + 1;
    return [...siblings.slice(0, at), node, ...siblings.slice(at)];
  };
  if (parent === null) return place(pages);
  let found = false;
  const walk = (list: PageNode[]): PageNode[] =>
    list.map((page) => {
      if (page.id === parent) {
        found = true;
        if (page.kind === "link") throw badInput(`parent: page ${quote(parent)} is a link and cannot hold pages`);
        return { ...page, pages: place(page.pages) };
      }
      return { ...page, pages: walk(page.pages) };
    });
  const result = walk(pages);
  if (!found) throw badInput(`parent: no page ${quote(parent)} in this content`);
  return result;
}

function replacePage(pages: PageNode[], id: string, update: (page: PageNode) => PageNode): PageNode[] {
  return pages.map((page) => (page.id === id ? update(page) : { ...page, pages: replacePage(page.pages, id, update) }));
}

/**
 * Slugs are unique among the pages that share a path prefix: "intro", "intro-2", … Groups add no
 * path segment, so the pages inside the groups under one parent share one scope (two groups
 * each holding an "intro" would otherwise give two pages one path). Groups only need a slug
 * unique among the groups of that scope. `taken` is the scope without the page itself.
 */
function uniqueSlug(taken: PageNode[], node: Pick<PageNode, "kind" | "slug">): string {
  const isGroup = node.kind === "group";
  const slugs = new Set(taken.filter((page) => (page.kind === "group") === isGroup).map((page) => page.slug));
  if (!slugs.has(node.slug)) return node.slug;
  for (let n = 2; ; n++) if (!slugs.has(`${node.slug}-${n}`)) return `${node.slug}-${n}`;
}

/** The pages of a list and, recursively, the pages inside its groups; without page `skip` and its subtree. */
function throughGroups(list: PageNode[], skip?: string): PageNode[] {
  return list.flatMap((page) => (page.id === skip ? [] : page.kind === "group" ? [page, ...throughGroups(page.pages, skip)] : [page]));
}

/** The slug scope of a new child of `parent` (null: the top level), without page `selfId` and its subtree. */
function slugScope(pages: PageNode[], parent: string | null, selfId?: string): PageNode[] {
  let owner = parent;
  // Climb out of groups: the scope belongs to the nearest ancestor that is a path segment.
  while (owner !== null) {
    const located = findPage(pages, owner);
    if (!located || located.page.kind !== "group") break;
    owner = located.parentId;
  }
  const list = owner === null ? pages : (findPage(pages, owner)?.page.pages ?? []);
  return throughGroups(list, selfId);
}

/**
 * Gives `node` and, when it is a group, the pages inside it that share its parent's path scope
 * slugs that do not collide with `taken` (the scope it is being placed in, without itself).
 */
function withUniqueSlugs(node: PageNode, taken: PageNode[]): PageNode {
  const placed = { ...node, slug: uniqueSlug(taken, node) };
  if (placed.kind !== "group") return placed;
  const scope = [...taken];
  const renamed = (list: PageNode[]): PageNode[] =>
    list.map((child) => {
      const next = { ...child, slug: uniqueSlug(scope, child) };
      scope.push(next);
      return next.kind === "group" ? { ...next, pages: renamed(next.pages) } : next;
    });
  return { ...placed, pages: renamed(placed.pages) };
}

export interface PageFields {
  title?: string;
  emoji?: string | null;
  icon?: string | null;
  description?: string | null;
  slug?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: PageLayout | null;
  cover?: PageCover | null;
  variables?: Record<string, string>;
  href?: string | null;
  metaLinks?: PageMetaLinks | null;
}

function checkBody(markdown: string | undefined) {
  if (markdown === undefined) return;
  const bytes = Buffer.byteLength(markdown, "utf8");
  if (bytes > PAGE_MARKDOWN_MAX_BYTES) {
    throw new DomainError("PAYLOAD_TOO_LARGE", `markdown must be at most ${PAGE_MARKDOWN_MAX_BYTES} bytes (1 MiB) per page (got ${bytes})`);
  }
}

function checkPosition(position: PagePosition) {
  if (position.before && position.after) throw badInput("before and after cannot both be given");
}

function checkFields(fields: PageFields, { pages, files }: Pick<Content, "pages" | "files">, kind: PageKind) {
  if (fields.title !== undefined && (fields.title.trim() === "" || characterCount(fields.title) > PAGE_TITLE_MAX)) {
    throw badInput(`title must be 1 to ${PAGE_TITLE_MAX} characters`);
  }
  if (fields.slug !== undefined && (!SLUG.test(fields.slug) || fields.slug.length > 100)) {
    throw badInput(
      `slug must be lowercase letters and digits separated by single hyphens, at most 100 characters (got ${quote(fields.slug)})`,
    );
  }
  if (fields.description != null && characterCount(fields.description) > PAGE_DESCRIPTION_MAX) {
    throw badInput(`description must be at most ${PAGE_DESCRIPTION_MAX} characters`);
  }
  for (const key of ["file", "fileDark"] as const) {
    const file = fields.cover?.[key];
    if (file && !files.some((entry) => entry.id === file)) throw badInput(`cover.${key}: no file ${quote(file)} in this content`);
  }
  if (fields.metaLinks != null) {
    if (kind !== "document") throw badInput(`metaLinks: only documents have meta links (this is a ${kind})`);
    checkMetaLinks(fields.metaLinks, (id) => findPage(pages, id) !== undefined);
  }
}

/** Applies optional fields: undefined leaves a field, null removes an optional one. */
function withFields(page: PageNode, fields: PageFields): PageNode {
  const next: PageNode = { ...page };
  for (const key of ["title", "slug", "hidden", "noIndex", "noRobotsIndex", "variables"] as const) {
    if (fields[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = fields[key];
  }
  for (const key of ["emoji", "icon", "description", "layout", "cover", "href", "metaLinks"] as const) {
    if (fields[key] === null) delete next[key];
    else if (fields[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = fields[key];
  }
  return next;
}

/** One edit of a batch; all edits of a batch make one revision. */
export type ContentEdit =
  | { op: "createPage"; id: string; kind: PageKind; fields: PageFields; body?: string; position: PagePosition }
  | { op: "updatePage"; id: string; fields: PageFields; body?: string }
  | { op: "movePage"; id: string; position: PagePosition }
  | { op: "deletePage"; id: string }
  | { op: "addFile"; file: FileEntry }
  | { op: "deleteFile"; id: string }
  | { op: "createReusableContent"; id: string; title: string; body: string }
  | { op: "updateReusableContent"; id: string; title?: string; body?: string }
  | { op: "deleteReusableContent"; id: string }
  | { op: "setVariables"; variables: Record<string, string> };

function checkReusableTitle(title: string | undefined) {
  if (title !== undefined && (title.trim() === "" || characterCount(title) > REUSABLE_CONTENT_TITLE_MAX)) {
    throw badInput(`title must be 1 to ${REUSABLE_CONTENT_TITLE_MAX} characters`);
  }
}

function checkVariables(variables: Record<string, string>) {
  const names = Object.keys(variables);
  if (names.length > VARIABLES_MAX) throw badInput(`variables: at most ${VARIABLES_MAX} variables (got ${names.length})`);
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) {
      throw badInput(`variables: name ${quote(name)} must be letters, digits and underscores, not starting with a digit`);
    }
    const value = variables[name];
    if (typeof value !== "string") throw badInput(`variables.${name}: the value must be a string`);
    if (characterCount(value) > VARIABLE_VALUE_MAX)
      throw badInput(`variables.${name}: the value must be at most ${VARIABLE_VALUE_MAX} characters`);
  }
}

/**
 * The content after `edits`, given the hash of each new body (`bodyHash`). `now` stamps created
 * and updated pages. Refuses (400/404) an edit that does not fit the content it applies to.
 */
export function applyEdits(content: Content, edits: ContentEdit[], bodyHash: (markdown: string) => string, now: string): Content {
  if (edits.length === 0) throw badInput("edits: at least one edit is needed");
  if (edits.length > EDITS_MAX) throw badInput(`edits: at most ${EDITS_MAX} edits in one batch (got ${edits.length})`);
  const markdownBytes = edits.reduce((sum, edit) => sum + ("body" in edit && edit.body ? Buffer.byteLength(edit.body, "utf8") : 0), 0);
  if (markdownBytes > BATCH_MARKDOWN_MAX_BYTES) {
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `markdown: one batch carries at most ${BATCH_MARKDOWN_MAX_BYTES} bytes (10 MiB) of markdown (got ${markdownBytes})`,
    );
  }
  let result = content;
  edits.forEach((edit, index) => {
    try {
      result = applyEdit(result, edit, bodyHash, now);
    } catch (error) {
      // In a batch, say which edit was refused.
      if (edits.length > 1 && error instanceof DomainError) {
        throw new DomainError(error.code, `edits[${index}] (${edit.op}): ${error.message}`);
      }
      throw error;
    }
  });
  return result;
}

function applyEdit(content: Content, edit: ContentEdit, bodyHash: (markdown: string) => string, now: string): Content {
  let { pages, files } = content;
  let reusableContents = content.reusableContents ?? [];
  let variables = content.variables ?? {};
  switch (edit.op) {
    case "createPage": {
      checkFields(edit.fields, content, edit.kind);
      checkPosition(edit.position);
      if (!edit.fields.title) throw badInput("title is required to create a page");
      if (edit.kind === "link" && !edit.fields.href) throw badInput("href is required to create a link page");
      if (edit.kind !== "link" && edit.fields.href != null) throw badInput(`href: only link pages have one (this is a ${edit.kind})`);
      if (edit.kind !== "document" && edit.body !== undefined)
        throw badInput(`markdown: only documents have markdown (this is a ${edit.kind})`);
      checkBody(edit.body);
      if (findPage(pages, edit.id)) throw badInput(`id: a page ${quote(edit.id)} already exists`);
      const parent = edit.position.parent ?? null;
      const node = withFields(
        {
          id: edit.id,
          kind: edit.kind,
          title: edit.fields.title,
          slug: "",
          hidden: false,
          noIndex: false,
          noRobotsIndex: false,
          variables: {},
          createdAt: now,
          updatedAt: now,
          pages: [],
          ...(edit.kind === "document" ? { body: bodyHash(edit.body ?? "") } : {}),
        },
        edit.fields,
      );
      node.slug = edit.fields.slug ?? slugify(node.title);
      pages = attach(pages, withUniqueSlugs(node, slugScope(pages, parent)), parent, edit.position);
      break;
    }
    case "updatePage": {
      const located = findPage(pages, edit.id);
      if (!located) throw notFound("page", edit.id);
      checkFields(edit.fields, content, located.page.kind);
      if (edit.body !== undefined && located.page.kind !== "document")
        throw badInput(`markdown: page ${quote(edit.id)} is a ${located.page.kind}: only documents have markdown`);
      if (edit.fields.href != null && located.page.kind !== "link")
        throw badInput(`href: page ${quote(edit.id)} is a ${located.page.kind}: only links have one`);
      if (edit.fields.href === null && located.page.kind === "link") throw badInput("href: a link page needs one");
      checkBody(edit.body);
      const scope = slugScope(pages, located.parentId, edit.id);
      pages = replacePage(pages, edit.id, (page) => {
        const next = withFields(page, edit.fields);
        if (edit.fields.slug !== undefined) next.slug = uniqueSlug(scope, next);
        if (edit.body !== undefined) next.body = bodyHash(edit.body);
        next.updatedAt = now;
        return next;
      });
      break;
    }
    case "movePage": {
      const located = findPage(pages, edit.id);
      if (!located) throw notFound("page", edit.id);
      checkPosition(edit.position);
      const parent = edit.position.parent === undefined ? located.parentId : edit.position.parent;
      if (parent !== null && (parent === edit.id || findPage(located.page.pages, parent))) {
        throw badInput("parent: a page cannot be moved under itself or one of its descendants");
      }
      if (parent !== null && !findPage(pages, parent)) throw badInput(`parent: no page ${quote(parent)} in this content`);
      const { pages: without, removed } = detach(pages, edit.id);
      const moved = withUniqueSlugs({ ...removed!, updatedAt: now }, slugScope(without, parent));
      pages = attach(without, moved, parent, edit.position);
      break;
    }
    case "deletePage": {
      const { pages: without, removed } = detach(pages, edit.id);
      if (!removed) throw notFound("page", edit.id);
      pages = without;
      break;
    }
    case "addFile":
      files = [...files, edit.file];
      break;
    case "deleteFile": {
      if (!files.some((file) => file.id === edit.id)) throw notFound("file", edit.id);
      files = files.filter((file) => file.id !== edit.id);
      break;
    }
    case "createReusableContent": {
      if (!edit.title) throw badInput("title is required to create a reusable content");
      checkReusableTitle(edit.title);
      checkBody(edit.body);
      if (reusableContents.some((entry) => entry.id === edit.id)) throw badInput(`id: a reusable content ${quote(edit.id)} already exists`);
      reusableContents = [
        ...reusableContents,
        { id: edit.id, title: edit.title, body: bodyHash(edit.body), createdAt: now, updatedAt: now },
      ];
      break;
    }
    case "updateReusableContent": {
      if (!reusableContents.some((entry) => entry.id === edit.id)) throw notFound("reusable content", edit.id);
      checkReusableTitle(edit.title);
      checkBody(edit.body);
      reusableContents = reusableContents.map((entry) =>
        entry.id === edit.id
          ? {
              ...entry,
              ...(edit.title !== undefined ? { title: edit.title } : {}),
              ...(edit.body !== undefined ? { body: bodyHash(edit.body) } : {}),
              updatedAt: now,
            }
          : entry,
      );
      break;
    }
    case "deleteReusableContent": {
      if (!reusableContents.some((entry) => entry.id === edit.id)) throw notFound("reusable content", edit.id);
      reusableContents = reusableContents.filter((entry) => entry.id !== edit.id);
      break;
    }
    case "setVariables":
      checkVariables(edit.variables);
      variables = { ...edit.variables };
      break;
  }
  return { pages, files, reusableContents, variables };
}
