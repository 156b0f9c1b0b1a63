// Collections: nested folders of spaces. Reading needs `read` on the collection, changing it
// `admin`, creating inside it `create`.
import { WRITE_TRANSACTION } from "../../db/transaction.ts";
import type { Collection, Prisma } from "../../generated/prisma/client.ts";
import { atLeast, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { authorize, type Action } from "../auth/policy.ts";
import { conflict, notFound, badInput, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { checkDefaultLevel, checkLength } from "../validate.ts";
import {
  collectionSubtree,
  readableContentFilter,
  resolveMoveParent,
  sortKeyAt,
  withTreeLock,
  type Position,
} from "../content-tree/index.ts";
import { getOrganization, requireOrganization } from "../organizations/read.ts";
import { recordAuditEvent } from "../audit/index.ts";

/** A collection as the target of an audit event. */
const collectionTarget = (collection: Pick<Collection, "id" | "title">) => ({
  type: "collection",
  id: collection.id,
  label: collection.title,
});

export const COLLECTION_TITLE_MAX = 50;
export const COLLECTION_DESCRIPTION_MAX = 100;

/** The collection and the caller's role on it, if the caller can read it; 404 otherwise. */
export async function readCollection(ctx: CoreContext, id: string): Promise<{ collection: Collection; role: Role }> {
  const collection = await ctx.loaders.collection.load(id);
  const role = collection ? await ctx.access.roleOnCollection(collection) : null;
  if (!collection || !atLeast(role, "read")) throw notFound("collection", id);
  return { collection, role: role! };
}

/**
 * A collection the caller can read, from what the request already holds, without a promise: the
 * collection, null when readCollection would answer 404, undefined when something is still to load.
 */
export function visibleCollectionNow(ctx: CoreContext, id: string): Collection | null | undefined {
  const collection = ctx.loaders.collection.peek(id);
  if (!collection) return collection;
  const role = ctx.access.roleOnCollectionNow(collection);
  if (role === undefined) return undefined;
  return atLeast(role, "read") ? collection : null;
}

export async function loadVisibleCollections(ctx: CoreContext, ids: readonly string[]) {
  return Promise.all(
    ids.map((id) =>
      readCollection(ctx, id).then(
        (r) => r.collection,
        () => null,
      ),
    ),
  );
}

/** The collection (404 unless readable), if the caller may do `action` on it (else 403). */
async function requireCollection(ctx: CoreContext, id: string, action: Action) {
  const { collection } = await readCollection(ctx, id);
  await authorize(ctx, action, { collection });
  return collection;
}

/** Creating under `parentId` (or at the root) needs `create` there. */
export async function requireCreateIn(ctx: CoreContext, organizationId: string, parentId: string | null, field = "parent") {
  if (parentId === null) {
    await requireOrganization(ctx, organizationId, "organization.createContent");
    return;
  }
  const parent = await ctx.loaders.collection.load(parentId);
  const role = parent ? await ctx.access.roleOnCollection(parent) : null;
  if (!parent || parent.organizationId !== organizationId || !atLeast(role, "read")) {
    throw badInput(`${field}: no collection ${quote(parentId)} in this organization`);
  }
  await authorize(ctx, "collection.createInside", { collection: parent });
}

export async function listOrganizationCollections(
  ctx: CoreContext,
  organizationId: string,
  options: PageArgs & { nested?: boolean | null },
) {
  await getOrganization(ctx, organizationId);
  const readable = await readableContentFilter(ctx, organizationId);
  const where: Prisma.CollectionWhereInput = {
    organizationId,
    ...(options.nested === false ? { parentId: null } : {}),
    AND: [readable.collections],
  };
  return paginate<Collection, Prisma.CollectionWhereInput>(options, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.collection,
  });
}

export async function listChildCollections(ctx: CoreContext, parent: Collection, page: PageArgs) {
  const readable = await readableContentFilter(ctx, parent.organizationId);
  const where: Prisma.CollectionWhereInput = { parentId: parent.id, AND: [readable.collections] };
  return paginate<Collection, Prisma.CollectionWhereInput>(page, {
    sortField: "sortKey",
    sortKind: "text",
    where,
    rows: ctx.prisma.collection,
  });
}

export async function createCollection(ctx: CoreContext, input: { organizationId: string; title?: string | null; parent?: string | null }) {
  await getOrganization(ctx, input.organizationId);
  const title = checkLength("title", input.title ?? "Untitled", { max: COLLECTION_TITLE_MAX });
  const parentId = input.parent ?? null;
  await requireCreateIn(ctx, input.organizationId, parentId);
  return withTreeLock(ctx, [input.organizationId], async (tx) => {
    const collection = await tx.collection.create({
      data: {
        id: newId("Collection"),
        organizationId: input.organizationId,
        parentId,
        title,
        sortKey: await sortKeyAt(tx, input.organizationId, parentId, null),
      },
    });
    await recordAuditEvent(ctx, tx, {
      organizationId: collection.organizationId,
      action: "collection.created",
      target: collectionTarget(collection),
    });
    return collection;
  });
}

export async function updateCollection(
  ctx: CoreContext,
  id: string,
  patch: { title?: string; description?: string | null; defaultLevel?: string | null },
) {
  const data: Prisma.CollectionUpdateInput = {};
  if (patch.title !== undefined) data.title = checkLength("title", patch.title, { max: COLLECTION_TITLE_MAX });
  if (patch.description !== undefined) {
    data.description =
      patch.description === null ? null : checkLength("description", patch.description, { max: COLLECTION_DESCRIPTION_MAX });
  }
  if (patch.defaultLevel !== undefined) data.defaultLevel = checkDefaultLevel(patch.defaultLevel);
  await requireCollection(ctx, id, "collection.update");
  return ctx.prisma.$transaction(async (tx) => {
    const collection = await tx.collection.update({ where: { id }, data });
    await recordAuditEvent(ctx, tx, {
      organizationId: collection.organizationId,
      action: "collection.updated",
      target: collectionTarget(collection),
      payload: { fields: Object.keys(data) },
    });
    return collection;
  }, WRITE_TRANSACTION);
}

/**
 * Deletes the collection and the collections beneath it. Their spaces are soft-deleted (and
 * restorable for 7 days, at the top level) rather than lost with the folder.
 */
export async function deleteCollection(ctx: CoreContext, id: string) {
  const collection = await requireCollection(ctx, id, "collection.delete");
  await withTreeLock(ctx, [collection.organizationId], async (tx) => {
    const subtree = await collectionSubtree(tx, id);
    await tx.space.updateMany({
      where: { parentId: { in: subtree }, deletedAt: null },
      data: { deletedAt: ctx.clock.now() },
    });
    await tx.collection.deleteMany({ where: { id: { in: subtree } } });
    await recordAuditEvent(ctx, tx, {
      organizationId: collection.organizationId,
      action: "collection.deleted",
      target: collectionTarget(collection),
      payload: { collections: subtree },
    });
  });
}

export async function moveCollection(ctx: CoreContext, id: string, input: { parent?: string | null; position?: Position | null }) {
  if (input.parent === undefined && !input.position?.before && !input.position?.after) {
    throw badInput("parent or position is required");
  }
  const collection = await requireCollection(ctx, id, "collection.move");
  const organizationId = collection.organizationId;
  // The create check reads through the loaders, outside the transaction, so it runs before the
  // tree lock (as in moveSpace): inside it, PGlite's single connection would wait for the open
  // transaction until it timed out. Under the lock, a parent that changed meanwhile is refused.
  const checkedParentId = await resolveMoveParent(ctx.prisma, organizationId, collection.parentId, input.parent, input.position);
  if (checkedParentId !== collection.parentId) await requireCreateIn(ctx, organizationId, checkedParentId);
  return withTreeLock(ctx, [organizationId], async (tx) => {
    const current = await tx.collection.findUniqueOrThrow({ where: { id } });
    const parentId = await resolveMoveParent(tx, organizationId, current.parentId, input.parent, input.position);
    if (parentId !== null) {
      if (!(await tx.collection.findFirst({ where: { id: parentId, organizationId } }))) {
        throw badInput(`parent: no collection ${quote(parentId)} in this organization`);
      }
      if ((await collectionSubtree(tx, id)).includes(parentId)) {
        throw badInput("parent: a collection cannot be moved into itself or one of its descendants");
      }
    }
    if (parentId !== current.parentId && parentId !== checkedParentId) {
      throw conflict("The collection or the position's reference moved meanwhile: retry the request");
    }
    const sortKey = await sortKeyAt(tx, organizationId, parentId, input.position, id);
    const moved = await tx.collection.update({ where: { id }, data: { parentId, sortKey } });
    await recordAuditEvent(ctx, tx, {
      organizationId,
      action: "collection.moved",
      target: collectionTarget(moved),
      payload: { from: current.parentId, to: parentId },
    });
    return moved;
  });
}

/** Moves the collection, with everything beneath it, to the top level of another organization. */
export async function transferCollection(ctx: CoreContext, id: string, targetOrganizationId: string) {
  const collection = await requireCollection(ctx, id, "collection.transfer");
  await requireOrganization(ctx, collection.organizationId, "organization.transferContent");
  if (targetOrganizationId === collection.organizationId) {
    throw conflict("The collection already belongs to this organization");
  }
  await requireOrganization(ctx, targetOrganizationId, "organization.transferContent");
  return withTreeLock(ctx, [collection.organizationId, targetOrganizationId], async (tx) => {
    const subtree = await collectionSubtree(tx, id);
    // Grants name teams and members of the old organization: they do not carry over.
    await tx.permissionGrant.deleteMany({
      where: { OR: [{ collectionId: { in: subtree } }, { space: { parentId: { in: subtree } } }] },
    });
    await tx.space.updateMany({ where: { parentId: { in: subtree } }, data: { organizationId: targetOrganizationId } });
    await tx.collection.updateMany({ where: { id: { in: subtree } }, data: { organizationId: targetOrganizationId } });
    const sortKey = await sortKeyAt(tx, targetOrganizationId, null, null, id);
    const transferred = await tx.collection.update({ where: { id }, data: { parentId: null, sortKey } });
    // Both organizations' logs say it: one lost the collection, the other gained it.
    const event = {
      action: "collection.transferred",
      target: collectionTarget(transferred),
      payload: { from: collection.organizationId, to: targetOrganizationId },
    } as const;
    await recordAuditEvent(
      ctx,
      tx,
      { organizationId: collection.organizationId, ...event },
      { organizationId: targetOrganizationId, ...event },
    );
    return transferred;
  });
}
