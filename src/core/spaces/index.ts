// Spaces: reading needs `read`; title and emoji need `edit`; edit mode, default level, delete,
// restore, move and transfer need `admin`. Deletion is soft: a deleted space keeps its
// `deletedAt`, leaves every list, can be restored for 7 days and is then removed by the sweep.
import { WRITE_TRANSACTION } from "../../db/transaction.ts";
import type { Prisma, Space } from "../../generated/prisma/client.ts";
import { checkMergeRules } from "../reviews/merge-rules.ts";
import type { CoreContext, Services } from "../context.ts";
import { DAY_MS } from "../clock.ts";
import { badInput, conflict, gone, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { rawSpacePages } from "../loaders.ts";
import { checkDefaultLevel, checkLength, checkOneOf } from "../validate.ts";
import { readableContentFilter, resolveMoveParent, sortKeyAt, withTreeLock, type Position } from "../content-tree/index.ts";
import { getOrganization, requireOrganization } from "../organizations/read.ts";
import { requireCreateIn } from "../collections/index.ts";
import { contentColumns, contentOf } from "../content/index.ts";
import type { Content } from "../content/tree.ts";
import { reindexSpace } from "../search/index.ts";

export * from "./read.ts";
import { requireSpace } from "./read.ts";
import { recordAuditEvent } from "../audit/index.ts";

export const SPACE_TITLE_MAX = 50;
export const SPACE_EMOJI_MAX = 50;
export const RESTORE_WINDOW_DAYS = 7;
export const SPACE_VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth", "in-collection", "private"] as const;
export const SPACE_EDIT_MODES = ["live", "locked"] as const;

// An emoji character sequence, or its code points in hex ("1f389", "1f468-200d-1f4bb"). Digits,
// "#" and "*" are emoji components but no emoji on their own: a sequence needs a pictograph, a
// flag letter, a skin tone or a keycap.
const EMOJI_SEQUENCE = /^[\p{Extended_Pictographic}\p{Emoji_Component}\u200d\ufe0f\u20e3]+$/u;
const EMOJI_PICTURE = /[\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\u20e3]/u;
const CODE_POINTS = /^[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*$/i;

export function isEmoji(value: string): boolean {
  let characters = value;
  if (CODE_POINTS.test(value)) {
    const points = value.split("-").map((hex) => parseInt(hex, 16));
    if (points.some((point) => point > 0x10ffff)) return false;
    characters = String.fromCodePoint(...points);
  }
  return EMOJI_SEQUENCE.test(characters) && EMOJI_PICTURE.test(characters);
}

function checkEmoji(value: string): string {
  checkLength("emoji", value, { max: SPACE_EMOJI_MAX });
  if (value !== "" && !isEmoji(value)) throw badInput(`emoji must be an emoji or its Unicode code point (got ${quote(value)})`);
  return value;
}

const listed = { deletedAt: null } satisfies Prisma.SpaceWhereInput;

/**
 * What a list reads with its page, in the same statement (issue 15): the items' counters
 * (`counters` of the result, by item) and their parent collections (into that loader).
 */
export interface SpaceListExtras {
  counters?: boolean;
  parents?: boolean;
}

async function listSpaces(
  ctx: CoreContext,
  page: PageArgs,
  where: Prisma.SpaceWhereInput,
  sortField: "createdAt" | "sortKey",
  extras: SpaceListExtras,
) {
  const rows = rawSpacePages(ctx.prisma, { counters: extras.counters, parents: extras.parents ? ctx.loaders.collection : undefined });
  const result = await paginate<Space, Prisma.SpaceWhereInput>(page, {
    sortField,
    sortKind: sortField === "sortKey" ? "text" : "date",
    where,
    rows,
  });
  // Object.assign: properties after a spread are slow on Node 20 (issue 15); the same object.
  return Object.assign({}, result, { counters: extras.counters ? result.items.map((item) => rows.countersOf.get(item)!) : undefined });
}

export async function listOrganizationSpaces(ctx: CoreContext, organizationId: string, page: PageArgs, extras: SpaceListExtras = {}) {
  await getOrganization(ctx, organizationId);
  const readable = await readableContentFilter(ctx, organizationId);
  return listSpaces(ctx, page, { organizationId, ...listed, AND: [readable.spaces] }, "createdAt", extras);
}

export async function listCollectionSpaces(
  ctx: CoreContext,
  collection: { id: string; organizationId: string },
  page: PageArgs,
  extras: SpaceListExtras = {},
) {
  const readable = await readableContentFilter(ctx, collection.organizationId);
  return listSpaces(ctx, page, { parentId: collection.id, ...listed, AND: [readable.spaces] }, "sortKey", extras);
}

/** A new space with its first revision: empty, or a copy of `content` (blobs are shared by hash). */
async function insertSpace(
  tx: Prisma.TransactionClient,
  data: Omit<Prisma.SpaceUncheckedCreateInput, "id" | "revisionId">,
  content?: Content,
): Promise<Space> {
  const id = newId("Space");
  const revisionId = newId("Revision");
  const space = await tx.space.create({ data: { ...data, id, revisionId } });
  await tx.revision.create({
    data: {
      id: revisionId,
      spaceId: id,
      ...(content ? contentColumns(content) : {}),
    },
  });
  return space;
}

export async function createSpace(
  ctx: CoreContext,
  input: { organizationId: string; title?: string | null; emoji?: string | null; parent?: string | null; editMode?: string | null },
) {
  await getOrganization(ctx, input.organizationId);
  const title = checkLength("title", input.title ?? "Untitled", { max: SPACE_TITLE_MAX });
  const emoji = checkEmoji(input.emoji ?? "");
  const editMode = checkOneOf("editMode", input.editMode ?? "live", SPACE_EDIT_MODES);
  const parentId = input.parent ?? null;
  await requireCreateIn(ctx, input.organizationId, parentId);
  return withTreeLock(ctx, [input.organizationId], async (tx) => {
    const space = await insertSpace(tx, {
      organizationId: input.organizationId,
      parentId,
      title,
      emoji,
      editMode,
      sortKey: await sortKeyAt(tx, input.organizationId, parentId, null),
    });
    await recordAuditEvent(ctx, tx, { organizationId: space.organizationId, action: "space.created", target: spaceTarget(space) });
    return space;
  });
}

/** A space as the target of an audit event. */
const spaceTarget = (space: Pick<Space, "id" | "title">) => ({ type: "space", id: space.id, label: space.title });

export async function updateSpace(
  ctx: CoreContext,
  id: string,
  patch: { title?: string; emoji?: string | null; editMode?: string; defaultLevel?: string | null; mergeRules?: unknown },
) {
  const data: Prisma.SpaceUpdateInput = {};
  if (patch.title !== undefined) data.title = checkLength("title", patch.title, { max: SPACE_TITLE_MAX });
  if (patch.emoji !== undefined) data.emoji = checkEmoji(patch.emoji ?? "");
  if (patch.editMode !== undefined) data.editMode = checkOneOf("editMode", patch.editMode, SPACE_EDIT_MODES);
  if (patch.defaultLevel !== undefined) data.defaultLevel = checkDefaultLevel(patch.defaultLevel);
  if (patch.mergeRules !== undefined) data.mergeRules = checkMergeRules(patch.mergeRules, true) as Prisma.InputJsonValue;
  const needsAdmin = patch.editMode !== undefined || patch.defaultLevel !== undefined || patch.mergeRules !== undefined;
  await requireSpace(ctx, id, needsAdmin ? "space.configure" : "space.rename");
  return ctx.prisma.$transaction(async (tx) => {
    const space = await tx.space.update({ where: { id }, data: { ...data, updatedAt: ctx.clock.now() } });
    await recordAuditEvent(ctx, tx, {
      organizationId: space.organizationId,
      action: "space.updated",
      target: spaceTarget(space),
      payload: { fields: Object.keys(patch).filter((key) => patch[key as keyof typeof patch] !== undefined) },
    });
    return space;
  }, WRITE_TRANSACTION);
}

/** Soft delete; deleting a deleted space changes nothing. */
export async function deleteSpace(ctx: CoreContext, id: string) {
  const space = await requireSpace(ctx, id, "space.delete", { allowDeleted: true });
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.space.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: ctx.clock.now() } });
    if (count > 0)
      await recordAuditEvent(ctx, tx, { organizationId: space.organizationId, action: "space.deleted", target: spaceTarget(space) });
  }, WRITE_TRANSACTION);
}

export async function restoreSpace(ctx: CoreContext, id: string) {
  const space = await requireSpace(ctx, id, "space.restore", { allowDeleted: true });
  if (!space.deletedAt) return space;
  if (ctx.clock.now().getTime() - space.deletedAt.getTime() > RESTORE_WINDOW_DAYS * DAY_MS) {
    throw gone(`Space ${quote(id)} was deleted more than ${RESTORE_WINDOW_DAYS} days ago and can no longer be restored`);
  }
  return withTreeLock(ctx, [space.organizationId], async (tx) => {
    // Its collection may have been deleted meanwhile: then it comes back at the top level.
    const parentId = space.parentId && (await tx.collection.findUnique({ where: { id: space.parentId } })) ? space.parentId : null;
    const restored = await tx.space.update({ where: { id }, data: { deletedAt: null, parentId } });
    await recordAuditEvent(ctx, tx, { organizationId: restored.organizationId, action: "space.restored", target: spaceTarget(restored) });
    return restored;
  });
}

/** Removes spaces deleted more than 7 days ago; returns how many. */
export async function sweepDeletedSpaces(services: Services): Promise<number> {
  const cutoff = new Date(services.clock.now().getTime() - RESTORE_WINDOW_DAYS * DAY_MS);
  const { count } = await services.prisma.space.deleteMany({ where: { deletedAt: { lt: cutoff } } });
  return count;
}

/** A copy next to the original, with the original's content (its bodies and files are shared). */
export async function duplicateSpace(ctx: CoreContext, id: string) {
  const source = await requireSpace(ctx, id, "space.duplicate");
  await requireCreateIn(ctx, source.organizationId, source.parentId);
  const title = [...`${source.title} (copy)`].slice(0, SPACE_TITLE_MAX).join("");
  return withTreeLock(ctx, [source.organizationId], async (tx) => {
    const { revisionId } = await tx.space.findUniqueOrThrow({ where: { id: source.id } });
    const content = contentOf(await tx.revision.findUniqueOrThrow({ where: { id: revisionId } }));
    const copy = await insertSpace(
      tx,
      {
        organizationId: source.organizationId,
        parentId: source.parentId,
        title,
        emoji: source.emoji,
        visibility: source.visibility,
        editMode: source.editMode,
        defaultLevel: source.defaultLevel,
        sortKey: await sortKeyAt(tx, source.organizationId, source.parentId, { after: source.id }),
      },
      content,
    );
    await reindexSpace(tx, copy.id, content.pages);
    await recordAuditEvent(ctx, tx, {
      organizationId: copy.organizationId,
      action: "space.created",
      target: spaceTarget(copy),
      payload: { duplicatedFrom: source.id },
    });
    return copy;
  });
}

export async function moveSpace(ctx: CoreContext, id: string, input: { parent?: string | null; position?: Position | null }) {
  if (input.parent === undefined && !input.position?.before && !input.position?.after) {
    throw badInput("parent or position is required");
  }
  const space = await requireSpace(ctx, id, "space.move");
  // The create check reads through the loaders, outside the transaction, so it runs before the
  // tree lock: inside it, PGlite's single connection would wait for the open transaction until
  // it timed out. Under the lock, a parent that changed meanwhile is refused.
  const checkedParentId = await resolveMoveParent(ctx.prisma, space.organizationId, space.parentId, input.parent, input.position);
  if (checkedParentId !== space.parentId) await requireCreateIn(ctx, space.organizationId, checkedParentId);
  return withTreeLock(ctx, [space.organizationId], async (tx) => {
    const current = await tx.space.findUniqueOrThrow({ where: { id } });
    const parentId = await resolveMoveParent(tx, current.organizationId, current.parentId, input.parent, input.position);
    if (parentId !== null && !(await tx.collection.findFirst({ where: { id: parentId, organizationId: current.organizationId } }))) {
      throw badInput(`parent: no collection ${quote(parentId)} in this organization`);
    }
    if (parentId !== current.parentId && parentId !== checkedParentId) {
      throw conflict("The space or the position's reference moved meanwhile: retry the request");
    }
    const sortKey = await sortKeyAt(tx, current.organizationId, parentId, input.position, id);
    const moved = await tx.space.update({ where: { id }, data: { parentId, sortKey } });
    await recordAuditEvent(ctx, tx, {
      organizationId: moved.organizationId,
      action: "space.moved",
      target: spaceTarget(moved),
      payload: { from: current.parentId, to: parentId },
    });
    return moved;
  });
}

/** Moves the space to the top level of another organization; needs admin in both. */
export async function transferSpace(ctx: CoreContext, id: string, targetOrganizationId: string) {
  const space = await requireSpace(ctx, id, "space.transfer");
  await requireOrganization(ctx, space.organizationId, "organization.transferContent");
  if (targetOrganizationId === space.organizationId) throw conflict("The space already belongs to this organization");
  await requireOrganization(ctx, targetOrganizationId, "organization.transferContent");
  return withTreeLock(ctx, [space.organizationId, targetOrganizationId], async (tx) => {
    await tx.permissionGrant.deleteMany({ where: { spaceId: id } });
    const sortKey = await sortKeyAt(tx, targetOrganizationId, null, null, id);
    const transferred = await tx.space.update({
      where: { id },
      data: { organizationId: targetOrganizationId, parentId: null, sortKey },
    });
    // Both organizations' logs say it: one lost the space, the other gained it.
    const event = {
      action: "space.transferred",
      target: spaceTarget(transferred),
      payload: { from: space.organizationId, to: targetOrganizationId },
    } as const;
    await recordAuditEvent(ctx, tx, { organizationId: space.organizationId, ...event }, { organizationId: targetOrganizationId, ...event });
    return transferred;
  });
}
