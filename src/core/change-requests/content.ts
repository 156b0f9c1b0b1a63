// A batch of content changes to a change request (the published updateChangeRequestContent): up
// to 50 changes (insert, update or move, delete and revert a page; upload files), in order, made
// one revision by the content editor (src/core/content: `applyEdits`, `editContent`), all or
// nothing.
//
// The batch is planned on the change request's head first: each change becomes content edits,
// applied to a working copy so that every next change sees the tree as it will be, and a refused
// change names itself (`changes[i]`). Then the links of the markdown the batch brings are
// resolved against the final tree (`/pages/<id>`, `/pages/<slug path>`, `.md` paths, the refs of
// pages and files of the batch become the stored path links), and the edits are applied again,
// under the head's lock, by `editContent`. Files given by URL are fetched before anything is
// written, through the import's public-hosts-only fetch.
import { parse as parseYaml } from "yaml";
import type { ChangeRequest } from "../../generated/prisma/client.ts";
import { contentOf, editContent, markdownOf, readRevision, sha256 } from "../content/index.ts";
import { fileEntries, MAX_FILES_PER_UPLOAD, type Upload } from "../content/files.ts";
import { headRevision, requireEditableTarget } from "../content/target.ts";
import {
  applyEdits,
  type Content,
  type ContentEdit,
  type FileEntry,
  findPage,
  flatten,
  type PageFields,
  type PagePosition,
} from "../content/tree.ts";
import type { CoreContext } from "../context.ts";
import { badInput, DomainError, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { FetchFailure, fetchBounded } from "../import/index.ts";
import { rewriteDestinations } from "../links/refs.ts";
import { baseRevisionIdOf } from "../reviews/changes.ts";

/** Changes in one batch (the published maxItems). */
export const CHANGES_MAX = 50;
/** Files one batch may upload (each `insert_files` change has at most 20 as well). */
export const BATCH_FILES_MAX = MAX_FILES_PER_UPLOAD;
/** Bytes of one file given inline (`base64`), decoded. */
export const INLINE_FILE_MAX_BYTES = 1024 * 1024;
const FILE_NAME_MAX = 256;
const FILE_URL_MAX = 2048;
const DEFAULT_TITLE = "Untitled";

const OPERATIONS = ["insert_page", "update_page", "delete_page", "revert_page", "insert_files"] as const;

export type PageOutcome = { object: "created_page" | "updated_page" | "deleted_page"; page: string; ref?: string; location?: string };

export interface ContentBatchResult {
  changeRequest: ChangeRequest;
  changes: PageOutcome[];
  insertedFiles: FileEntry[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A change's refusal, naming it. */
class ChangeError extends DomainError {}
const refuse = (at: string, message: string) => new ChangeError("BAD_REQUEST", `${at}: ${message}`);

/** The markdown of a change's `document` (the published Document: markdown, a JSON document or empty). */
function markdownOfDocument(at: string, document: unknown): string | undefined {
  if (document === undefined) return undefined;
  if (!isObject(document)) throw refuse(`${at}.document`, "must be an object { markdown }");
  if (typeof document.markdown === "string") return document.markdown;
  if (document.document !== undefined) throw refuse(`${at}.document.document`, "a page's body is markdown here: give it as { markdown }");
  if (Object.keys(document).length === 0) return "";
  throw refuse(`${at}.document.markdown`, "must be a string");
}

interface Matter {
  fields: PageFields;
  title?: string;
  body: string;
}

/** The front matter of a markdown body (title, description, icon, emoji, hidden) and the body without it. */
function readMatter(at: string, markdown: string): Matter {
  const match = markdown.match(/^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/);
  if (!match) return { fields: {}, body: markdown };
  let data: unknown;
  try {
    data = parseYaml(match[1]!, { maxAliasCount: 10 });
  } catch {
    throw refuse(`${at}.document.markdown`, "its front matter is not YAML");
  }
  if (!isObject(data)) return { fields: {}, body: markdown };
  const fields: PageFields = {};
  const text = (key: string) => {
    const value = data[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw refuse(`${at}.document.markdown`, `front matter ${key} must be a string`);
    return value;
  };
  const description = text("description");
  if (description !== undefined) fields.description = description;
  const icon = text("icon");
  if (icon !== undefined) fields.icon = icon || null;
  const emoji = text("emoji");
  if (emoji !== undefined) fields.emoji = emoji || null;
  if (data.hidden !== undefined) {
    if (typeof data.hidden !== "boolean") throw refuse(`${at}.document.markdown`, "front matter hidden must be true or false");
    fields.hidden = data.hidden;
  }
  return { fields, title: text("title"), body: markdown.slice(match[0].length) };
}

/** A leading `# heading` (the page's title, as Git Sync reads it) and the body without it. */
function leadingHeading(markdown: string): { title?: string; body: string } {
  const match = markdown.match(/^\s*#[ \t]+(.+?)[ \t]*#*[ \t]*(?:\r?\n|$)/);
  return match ? { title: match[1]!.trim(), body: markdown.slice(match[0].length).replace(/^\s*\n/, "") } : { body: markdown };
}

/** The page fields a change sets (`RevisionPageUpdate`); front matter goes over them. */
function fieldsOf(at: string, change: Record<string, unknown>): PageFields {
  const fields: PageFields = {};
  const optionalText = (key: "title" | "slug" | "description") => {
    const value = change[key];
    if (value === undefined) return;
    if (typeof value !== "string") throw refuse(`${at}.${key}`, "must be a string");
    fields[key] = value;
  };
  optionalText("title");
  optionalText("slug");
  optionalText("description");
  for (const key of ["emoji", "icon"] as const) {
    const value = change[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw refuse(`${at}.${key}`, "must be a string (empty removes it)");
    fields[key] = value || null;
  }
  for (const key of ["hidden", "noIndex", "noRobotsIndex"] as const) {
    const value = change[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw refuse(`${at}.${key}`, "must be true or false");
    fields[key] = value;
  }
  if (change.condition !== undefined && change.condition !== "")
    throw refuse(`${at}.condition`, "pages have no adaptive-content conditions here (an empty string, no condition, is accepted)");
  return fields;
}

function checkIndex(at: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw refuse(`${at}.at`, "must be a whole number from 0");
  return value;
}

/** The position that puts a page at index `at` among the children of `parent` (without `self`); absent: last. */
function positionAt(content: Content, parent: string | null, at: number | undefined, self?: string): PagePosition {
  const siblings = (parent === null ? content.pages : (findPage(content.pages, parent)?.page.pages ?? [])).filter(
    (page) => page.id !== self,
  );
  const before = at !== undefined ? siblings[at] : undefined;
  return { parent, before: before?.id ?? null, after: null };
}

/** Bytes of the files of one `insert_files` change: inline ones decoded, the others fetched. */
async function uploadsOf(
  ctx: CoreContext,
  at: string,
  change: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ upload: Upload; ref?: string }[]> {
  const files = change.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_FILES_PER_UPLOAD)
    throw refuse(`${at}.files`, `1 to ${MAX_FILES_PER_UPLOAD} files`);
  const out: { upload: Upload; ref?: string }[] = [];
  for (const [index, file] of files.entries()) {
    const where = `${at}.files[${index}]`;
    if (!isObject(file)) throw refuse(where, "must be an object { name, url | base64 }");
    const { name, contentType, url, base64, ref } = file;
    if (typeof name !== "string" || name.trim() === "" || name.length > FILE_NAME_MAX)
      throw refuse(`${where}.name`, `1 to ${FILE_NAME_MAX} characters`);
    if (contentType !== undefined && typeof contentType !== "string") throw refuse(`${where}.contentType`, "must be a string");
    if (ref !== undefined && (typeof ref !== "string" || ref === "")) throw refuse(`${where}.ref`, "must be a non-empty string");
    if ((url === undefined) === (base64 === undefined)) throw refuse(where, "give exactly one of url and base64");
    let bytes: Uint8Array;
    if (base64 !== undefined) {
      if (typeof base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw refuse(`${where}.base64`, "must be base64");
      if (contentType === undefined) throw refuse(`${where}.contentType`, "is required with base64");
      if (base64.length > Math.ceil(INLINE_FILE_MAX_BYTES / 3) * 4)
        throw new DomainError("PAYLOAD_TOO_LARGE", `${where}.base64: at most ${INLINE_FILE_MAX_BYTES} bytes`);
      bytes = Buffer.from(base64, "base64");
    } else {
      if (typeof url !== "string" || url.length > FILE_URL_MAX || !/^https?:\/\//i.test(url))
        throw refuse(`${where}.url`, `must be an http(s) URL of at most ${FILE_URL_MAX} characters`);
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw refuse(`${where}.url`, "is not a URL");
      }
      try {
        const fetched = await fetchBounded(parsed, ctx.importLimits, ctx.importLimits.maxFileBytes, signal, () => true);
        bytes = fetched.bytes;
        if (contentType === undefined && fetched.contentType) file.contentType = fetched.contentType;
      } catch (error) {
        if (error instanceof FetchFailure) throw refuse(`${where}.url`, error.message);
        throw error;
      }
    }
    out.push({
      upload: { name, contentType: (file.contentType as string | undefined) ?? null, bytes },
      ...(typeof ref === "string" ? { ref } : {}),
    });
  }
  return out;
}

/**
 * Applies `changes` to the change request as one revision (all or nothing). Needs `edit` on the
 * space; the change request must be open.
 */
export async function updateChangeRequestContent(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  changes: unknown,
): Promise<ContentBatchResult> {
  const target = { spaceId, changeRequest: changeRequestId };
  const head = await requireEditableTarget(ctx, target);
  const changeRequest = head.changeRequest!;
  if (!Array.isArray(changes) || changes.length === 0 || changes.length > CHANGES_MAX)
    throw badInput(`changes: 1 to ${CHANGES_MAX} changes (got ${Array.isArray(changes) ? changes.length : "none"})`);
  changes.forEach((change, index) => {
    if (!isObject(change) || !(OPERATIONS as readonly string[]).includes(change.operation as string))
      throw badInput(`changes[${index}].operation must be one of ${OPERATIONS.join(", ")}`);
  });
  const list = changes as Record<string, unknown>[];

  // Refs of the batch first: pages and files may name each other whatever their order.
  const pageRefs = new Map<string, string>();
  const fileRefs = new Map<string, string>();
  const newPageIds = list.map((change, index) => {
    if (change.operation !== "insert_page") return null;
    const id = newId("Page");
    if (change.ref !== undefined) {
      if (typeof change.ref !== "string" || change.ref === "") throw badInput(`changes[${index}].ref must be a non-empty string`);
      if (pageRefs.has(change.ref)) throw badInput(`changes[${index}].ref: ${quote(change.ref)} is used twice in the batch`);
      pageRefs.set(change.ref, id);
    }
    return id;
  });

  const uploads: { upload: Upload; ref?: string }[][] = [];
  const signal = AbortSignal.timeout(ctx.importLimits.totalTimeoutMs);
  for (const [index, change] of list.entries()) {
    uploads.push(change.operation === "insert_files" ? await uploadsOf(ctx, `changes[${index}]`, change, signal) : []);
  }
  const allUploads = uploads.flat();
  if (allUploads.length > BATCH_FILES_MAX)
    throw badInput(`changes: at most ${BATCH_FILES_MAX} files in one batch (got ${allUploads.length})`);
  const entries = allUploads.length ? fileEntries(allUploads.map((item) => item.upload)) : [];
  allUploads.forEach((item, index) => {
    if (!item.ref) return;
    if (fileRefs.has(item.ref) || pageRefs.has(item.ref))
      throw badInput(`changes: the file ref ${quote(item.ref)} is used twice in the batch`);
    fileRefs.set(item.ref, entries[index]!.id);
  });

  const start = contentOf(await headRevision(ctx, head));
  const pathsAtStart = new Set(flatten(start.pages).map((located) => located.path));
  for (const ref of [...pageRefs.keys(), ...fileRefs.keys()])
    if (pathsAtStart.has(ref.replace(/\.md$/, "")))
      throw badInput(`changes: the ref ${quote(ref)} is the path of a page of the change request`);

  const now = ctx.clock.now().toISOString();
  const hash = (markdown: string) => sha256(Buffer.from(markdown, "utf8"));
  let working = start;
  const edits: ContentEdit[] = [];
  /** Edits whose body holds links to resolve once the tree is final. */
  const withLinks: { edit: Extract<ContentEdit, { op: "createPage" | "updatePage" }>; pageId: string }[] = [];
  const outcomes = new Map<string, PageOutcome>();
  const touch = (page: string, object: PageOutcome["object"], ref?: string) => {
    const known = outcomes.get(page);
    // A page the batch created stays created (until deleted); first touch decides the order.
    const next: PageOutcome["object"] = object === "deleted_page" ? object : known?.object === "created_page" ? "created_page" : object;
    if (known) {
      if (next === "deleted_page" && known.object === "created_page") outcomes.delete(page);
      else known.object = next;
    } else outcomes.set(page, { object, page, ...(ref ? { ref } : {}) });
  };
  const apply = (at: string, operation: string, edit: ContentEdit) => {
    try {
      working = applyEdits(working, [edit], hash, now);
    } catch (error) {
      if (error instanceof DomainError && !(error instanceof ChangeError))
        throw new DomainError(error.code, `${at} (${operation}): ${error.message}`);
      throw error;
    }
    edits.push(edit);
  };
  const checkSlug = (at: string, pageId: string, wanted: string | undefined) => {
    if (wanted === undefined) return;
    const placed = findPage(working.pages, pageId)?.page.slug;
    if (placed !== wanted) throw refuse(`${at}.slug`, `${quote(wanted)} is taken among the page's siblings`);
  };

  let fileIndex = 0;
  for (const [index, change] of list.entries()) {
    const at = `changes[${index}]`;
    const operation = change.operation as (typeof OPERATIONS)[number];
    switch (operation) {
      case "insert_page": {
        const markdown = markdownOfDocument(at, change.document);
        if (markdown === undefined) throw refuse(`${at}.document`, "is required");
        const fields = fieldsOf(at, change);
        const matter = readMatter(at, markdown);
        const heading = leadingHeading(matter.body);
        const title = matter.title ?? heading.title ?? fields.title ?? DEFAULT_TITLE;
        if (change.into !== undefined && typeof change.into !== "string") throw refuse(`${at}.into`, "must be a page id");
        const parent = (change.into as string | undefined) ?? null;
        if (parent !== null && !findPage(working.pages, parent))
          throw refuse(`${at}.into`, `no page ${quote(parent)} in the change request`);
        const id = newPageIds[index]!;
        const edit: ContentEdit = {
          op: "createPage",
          id,
          kind: "document",
          fields: { ...fields, ...matter.fields, title },
          body: heading.body,
          position: positionAt(working, parent, checkIndex(at, change.at)),
        };
        apply(at, operation, edit);
        checkSlug(at, id, fields.slug);
        withLinks.push({ edit, pageId: id });
        touch(id, "created_page", change.ref as string | undefined);
        break;
      }
      case "update_page": {
        if (typeof change.page !== "string") throw refuse(`${at}.page`, "is required (a page id)");
        const pageId = change.page;
        const markdown = markdownOfDocument(at, change.document);
        const matter = markdown !== undefined ? readMatter(at, markdown) : undefined;
        const fields = { ...fieldsOf(at, change), ...matter?.fields, ...(matter?.title ? { title: matter.title } : {}) };
        const edit: ContentEdit = { op: "updatePage", id: pageId, fields, ...(matter ? { body: matter.body } : {}) };
        apply(at, operation, edit);
        checkSlug(at, pageId, fields.slug);
        if (matter) withLinks.push({ edit, pageId });
        if (change.into !== undefined || change.at !== undefined) {
          if (change.into !== undefined && change.into !== null && typeof change.into !== "string")
            throw refuse(`${at}.into`, "must be a page id or null");
          const located = findPage(working.pages, pageId)!;
          const parent = change.into === undefined ? located.parentId : (change.into as string | null);
          if (parent !== null && !findPage(working.pages, parent))
            throw refuse(`${at}.into`, `no page ${quote(parent)} in the change request`);
          apply(at, operation, { op: "movePage", id: pageId, position: positionAt(working, parent, checkIndex(at, change.at), pageId) });
        }
        touch(pageId, "updated_page");
        break;
      }
      case "delete_page": {
        if (typeof change.page !== "string") throw refuse(`${at}.page`, "is required (a page id)");
        apply(at, operation, { op: "deletePage", id: change.page });
        touch(change.page, "deleted_page");
        break;
      }
      case "revert_page": {
        if (typeof change.page !== "string") throw refuse(`${at}.page`, "is required (a page id)");
        if (change.block !== undefined)
          throw refuse(`${at}.block`, "single blocks are not reverted here: omit block to revert the whole page");
        if (change.revision !== undefined && typeof change.revision !== "string") throw refuse(`${at}.revision`, "must be a revision id");
        const revisionId = (change.revision as string | undefined) ?? baseRevisionIdOf(changeRequest);
        const old = contentOf(await readRevision(ctx, spaceId, revisionId));
        const then = findPage(old.pages, change.page);
        const now_ = findPage(working.pages, change.page);
        if (!then && !now_) throw refuse(`${at}.page`, `no page ${quote(change.page)} in the change request or the revision`);
        if (!then) {
          apply(at, operation, { op: "deletePage", id: change.page });
          touch(change.page, "deleted_page");
          break;
        }
        const { page } = then;
        const fields: PageFields = {
          title: page.title,
          emoji: page.emoji ?? null,
          icon: page.icon ?? null,
          description: page.description ?? null,
          hidden: page.hidden,
          noIndex: page.noIndex,
          noRobotsIndex: page.noRobotsIndex,
          ...(page.kind === "link" ? { href: page.href ?? null } : {}),
        };
        const body = page.kind === "document" ? ((await markdownOf(ctx, page)) ?? "") : undefined;
        if (now_) {
          apply(at, operation, { op: "updatePage", id: page.id, fields, ...(body !== undefined ? { body } : {}) });
          touch(page.id, "updated_page");
        } else {
          // Restored where it was, or at the top level when its parent is gone too.
          const parent = then.parentId !== null && findPage(working.pages, then.parentId) ? then.parentId : null;
          apply(at, operation, {
            op: "createPage",
            id: page.id,
            kind: page.kind,
            fields: { ...fields, slug: page.slug },
            body,
            position: { parent, before: null, after: null },
          });
          touch(page.id, "created_page");
        }
        break;
      }
      case "insert_files": {
        for (const _item of uploads[index]!) apply(at, operation, { op: "addFile", file: entries[fileIndex++]! });
        break;
      }
    }
  }

  // Links of the batch's markdown, against the final tree: the stored form is the page's path.
  const located = flatten(working.pages);
  const pathOf = new Map(located.map((entry) => [entry.page.id, entry.path]));
  const documentsByPath = new Map(located.filter((entry) => entry.page.kind === "document").map((entry) => [entry.path, entry.page.id]));
  const root = located.find((entry) => entry.page.kind === "document");
  const rewrite = (url: string): string | undefined => {
    const hashAt = url.indexOf("#");
    const anchor = hashAt >= 0 ? url.slice(hashAt) : "";
    const path = hashAt >= 0 ? url.slice(0, hashAt) : url;
    const bare = path.replace(/^\.\//, "");
    const refPage = pageRefs.get(bare) ?? pageRefs.get(bare.replace(/\.md$/, ""));
    if (refPage) return `/${pathOf.get(refPage)}${anchor}`;
    const refFile = fileRefs.get(bare);
    if (refFile) return `/files/${refFile}`;
    const pages = path.match(/^\/pages\/(.+)$/);
    if (!pages) return undefined;
    const rest = pages[1]!;
    if (pathOf.has(rest)) return `/${pathOf.get(rest)}${anchor}`;
    if (rest === "README.md") return root ? `/${root.path}${anchor}` : undefined;
    const slugPath = rest.replace(/\/README\.md$/i, "").replace(/\.md$/i, "");
    return documentsByPath.has(slugPath) ? `/${slugPath}${anchor}` : undefined;
  };
  for (const { edit } of withLinks) if (edit.body !== undefined) edit.body = rewriteDestinations(edit.body, rewrite);

  await editContent(ctx, { target, edits, blobs: { markdown: [], files: allUploads.map((item) => item.upload.bytes) } });
  const updated = await ctx.prisma.changeRequest.findUniqueOrThrow({ where: { id: changeRequest.id } });
  const location = (page: string) => ctx.urls.api(`/spaces/${spaceId}/change-requests/${changeRequest.id}/content/page/${page}`);
  const outcomeList = [...outcomes.values()].map((outcome) =>
    outcome.object === "deleted_page" ? outcome : { ...outcome, location: location(outcome.page) },
  );
  return { changeRequest: updated, changes: outcomeList, insertedFiles: entries };
}
