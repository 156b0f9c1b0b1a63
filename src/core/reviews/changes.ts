// What a change request changes: its head revision against the space revision it is based on
// (the one it was last updated from, else the one it was opened from), so that content the
// space gained meanwhile and brought in by an update is not counted as the change request's.
// Computed on read from the two revisions' trees; bodies are compared by hash, never loaded.
import type { ChangeRequest } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { contentOf, readRevision } from "../content/index.ts";
import { flatten, type Content, type FileEntry, type LocatedPage, type PageNode, type ReusableContentEntry } from "../content/tree.ts";
import { badInput, notFound } from "../errors.ts";
import { readSpace } from "../spaces/index.ts";
import { readChangeRequest } from "../change-requests/index.ts";

export const CHANGES_DEFAULT_LIMIT = 10;
export const CHANGES_MAX_LIMIT = 1000;

export interface ChangedPage {
  id: string;
  kind: PageNode["kind"];
  title: string;
  path: string;
}

export interface ChangedReusableContent {
  id: string;
  title: string;
  /** The body's id (its hash), as reusable contents' `document` is in REST. */
  document: string;
}

/** A value before and after; a side is absent when the value was. */
export type AttributeChanges = Record<string, { before?: unknown; after?: unknown }>;

export type SemanticChange =
  | { type: "page_created" | "page_deleted"; page: ChangedPage }
  | { type: "page_edited"; page: ChangedPage; attributes: AttributeChanges }
  | { type: "page_moved"; page: ChangedPage; parent: { before?: ChangedPage; after?: ChangedPage } }
  | { type: "file_created" | "file_deleted"; file: FileEntry }
  | { type: "file_edited"; file: FileEntry; attributes: AttributeChanges }
  | { type: "variables_edited"; variables: AttributeChanges }
  | { type: "reusable_content_created" | "reusable_content_deleted"; reusableContent: ChangedReusableContent }
  | { type: "reusable_content_edited"; reusableContent: ChangedReusableContent; attributes: AttributeChanges };

export const CHANGE_TYPES = [
  "page_created",
  "page_edited",
  "page_deleted",
  "page_moved",
  "file_created",
  "file_edited",
  "file_deleted",
  "variables_edited",
  "reusable_content_created",
  "reusable_content_edited",
  "reusable_content_deleted",
] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields of `after` that differ from `before`, as before/after pairs (absent sides left out). */
function attributeChanges<T extends object>(
  before: T,
  after: T,
  fields: (keyof T & string)[],
  as: (value: unknown, field: string) => unknown = (v) => v,
): AttributeChanges {
  const changes: AttributeChanges = {};
  for (const field of fields) {
    if (same(before[field], after[field])) continue;
    changes[field] = {
      ...(before[field] !== undefined ? { before: as(before[field], field) } : {}),
      ...(after[field] !== undefined ? { after: as(after[field], field) } : {}),
    };
  }
  return changes;
}

const PAGE_FIELDS: Record<PageNode["kind"], (keyof PageNode & string)[]> = {
  document: ["title", "description", "slug", "body", "emoji", "cover", "layout", "variables"],
  group: ["title", "emoji", "slug"],
  link: ["title", "emoji", "href"],
};
/** Published attribute names: a document's body is `document`, a link's href its `target`. */
const PUBLISHED_NAME: Record<string, string> = { body: "document", href: "target" };

function pageAttributes(before: PageNode, after: PageNode): AttributeChanges {
  const changes = attributeChanges(before, after, PAGE_FIELDS[after.kind], (value, field) =>
    field === "href" ? { kind: "url", url: value } : value,
  );
  return Object.fromEntries(Object.entries(changes).map(([field, change]) => [PUBLISHED_NAME[field] ?? field, change]));
}

const changedPage = ({ page, path }: LocatedPage): ChangedPage => ({ id: page.id, kind: page.kind, title: page.title, path });
const changedReusable = (entry: ReusableContentEntry): ChangedReusableContent => ({
  id: entry.id,
  title: entry.title,
  document: entry.body,
});

/**
 * Every change from `base` to `head`: pages in the head's tree order (then those deleted, in
 * the base's), files, reusable contents, variables. A page both moved and edited has both.
 */
export function semanticChanges(base: Content, head: Content): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const basePages = new Map(flatten(base.pages).map((located) => [located.page.id, located]));
  const headPages = flatten(head.pages);
  const headById = new Map(headPages.map((located) => [located.page.id, located]));
  for (const located of headPages) {
    const before = basePages.get(located.page.id);
    if (!before) {
      changes.push({ type: "page_created", page: changedPage(located) });
      continue;
    }
    if (before.parentId !== located.parentId) {
      const parentBefore = before.parentId ? basePages.get(before.parentId) : undefined;
      const parentAfter = located.parentId ? headById.get(located.parentId) : undefined;
      changes.push({
        type: "page_moved",
        page: changedPage(located),
        parent: {
          ...(parentBefore ? { before: changedPage(parentBefore) } : {}),
          ...(parentAfter ? { after: changedPage(parentAfter) } : {}),
        },
      });
    }
    const attributes =
      before.page.kind === located.page.kind
        ? pageAttributes(before.page, located.page)
        : { title: { before: before.page.title, after: located.page.title } };
    if (Object.keys(attributes).length) changes.push({ type: "page_edited", page: changedPage(located), attributes });
  }
  for (const [id, located] of basePages) if (!headById.has(id)) changes.push({ type: "page_deleted", page: changedPage(located) });

  const baseFiles = new Map(base.files.map((file) => [file.id, file]));
  const headFiles = new Set(head.files.map((file) => file.id));
  for (const file of head.files) {
    const before = baseFiles.get(file.id);
    if (!before) changes.push({ type: "file_created", file });
    else {
      const attributes = attributeChanges(before, file, ["name", "contentType", "size", "blob"]);
      // New bytes are a new download URL: named as the published attribute.
      if (attributes.blob) {
        delete attributes.blob;
        attributes.downloadURL = {};
      }
      if (Object.keys(attributes).length) changes.push({ type: "file_edited", file, attributes });
    }
  }
  for (const file of base.files) if (!headFiles.has(file.id)) changes.push({ type: "file_deleted", file });

  const baseReusable = new Map((base.reusableContents ?? []).map((entry) => [entry.id, entry]));
  const headReusable = new Set((head.reusableContents ?? []).map((entry) => entry.id));
  for (const entry of head.reusableContents ?? []) {
    const before = baseReusable.get(entry.id);
    if (!before) changes.push({ type: "reusable_content_created", reusableContent: changedReusable(entry) });
    else {
      const attributes = attributeChanges({ title: before.title, document: before.body }, { title: entry.title, document: entry.body }, [
        "title",
        "document",
      ]);
      if (Object.keys(attributes).length)
        changes.push({ type: "reusable_content_edited", reusableContent: changedReusable(entry), attributes });
    }
  }
  for (const entry of base.reusableContents ?? []) {
    if (!headReusable.has(entry.id)) changes.push({ type: "reusable_content_deleted", reusableContent: changedReusable(entry) });
  }

  const baseVariables = base.variables ?? {};
  const headVariables = head.variables ?? {};
  const names = [...new Set([...Object.keys(baseVariables), ...Object.keys(headVariables)])].sort();
  const variables = attributeChanges(baseVariables, headVariables, names);
  if (Object.keys(variables).length) changes.push({ type: "variables_edited", variables });
  return changes;
}

/** The space revision a change request's changes are counted from. */
export const baseRevisionIdOf = (changeRequest: ChangeRequest) => changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId;

/** The first `limit` changes of a change request, and how many more there are. */
export async function changeRequestChanges(ctx: CoreContext, changeRequest: ChangeRequest, limit: number | null | undefined) {
  const take = limit ?? CHANGES_DEFAULT_LIMIT;
  if (!Number.isInteger(take) || take < 1 || take > CHANGES_MAX_LIMIT)
    throw badInput(`limit must be an integer between 1 and ${CHANGES_MAX_LIMIT} (got ${take})`);
  await readChangeRequest(ctx, changeRequest.spaceId, changeRequest.id);
  const [base, head] = await Promise.all([
    ctx.loaders.revision.load(baseRevisionIdOf(changeRequest)),
    ctx.loaders.revision.load(changeRequest.revisionId),
  ]);
  if (!base || !head) throw new Error(`Change request ${changeRequest.id} lacks its base or head revision`);
  const changes = semanticChanges(contentOf(base), contentOf(head));
  return { changes: changes.slice(0, take), more: Math.max(0, changes.length - take) };
}

/**
 * The first `limit` changes of a space's content from revision `fromId` to revision `toId` (both
 * of the space, which the caller must be able to read), and how many more there are: what a
 * realtime event of the space's content carries (the pages created, edited, moved or deleted
 * since the last event). `fromId` null: every page of `toId` counts as created.
 */
export async function revisionChanges(
  ctx: CoreContext,
  spaceId: string,
  fromId: string | null,
  toId: string,
  limit: number | null | undefined,
) {
  const take = limit ?? CHANGES_DEFAULT_LIMIT;
  if (!Number.isInteger(take) || take < 1 || take > CHANGES_MAX_LIMIT)
    throw badInput(`limit must be an integer between 1 and ${CHANGES_MAX_LIMIT} (got ${take})`);
  await readSpace(ctx, spaceId);
  const [from, to] = await Promise.all([fromId ? ctx.loaders.revision.load(fromId) : null, ctx.loaders.revision.load(toId)]);
  if (!to || to.spaceId !== spaceId || (from && from.spaceId !== spaceId)) throw notFound("revision", to ? fromId! : toId);
  const base: Content = from ? contentOf(from) : { pages: [], files: [] };
  const changes = fromId === toId ? [] : semanticChanges(base, contentOf(to));
  return { changes: changes.slice(0, take), more: Math.max(0, changes.length - take) };
}

/**
 * What a revision changed: its changes against its first parent (for a merge, the space's head
 * before the merge; for an update of a change request, the change request's head before it), the
 * first `limit` and how many more. A space's first revision has no parent: every page it holds
 * counts as created. A revision of another space, or of a space the caller cannot read, is 404.
 */
export async function revisionSemanticChanges(ctx: CoreContext, spaceId: string, revisionId: string, limit: number | null | undefined) {
  const revision = await readRevision(ctx, spaceId, revisionId);
  return revisionChanges(ctx, spaceId, revision.parentIds[0] ?? null, revision.id, limit);
}
