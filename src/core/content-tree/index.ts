// The content tree of an organization: collections and spaces under a parent collection (or the
// root), ordered together by fractional `sortKey`s. Structural writes (create, move, transfer,
// duplicate, delete) take a per-organization advisory lock, so two moves at once can neither
// create a cycle nor compute the same key.
import { generateKeyBetween } from "fractional-indexing";
import { Prisma } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import type { Transaction } from "../../db/transaction.ts";
import { badInput, quote } from "../errors.ts";

const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

/** Runs `work` in a transaction holding the tree lock of each organization (in a fixed order). */
export async function withTreeLock<T>(ctx: CoreContext, organizationIds: string[], work: (tx: Transaction) => Promise<T>): Promise<T> {
  return ctx.prisma.$transaction(async (tx) => {
    for (const id of [...new Set(organizationIds)].sort()) {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`tree:${id}`}))::text`;
    }
    return work(tx);
  }, TX_OPTIONS);
}

interface Sibling {
  id: string;
  sortKey: string;
}

async function siblings(tx: Transaction, organizationId: string, parentId: string | null): Promise<Sibling[]> {
  const where = { organizationId, parentId };
  const [collections, spaces] = await Promise.all([
    tx.collection.findMany({ where, select: { id: true, sortKey: true } }),
    tx.space.findMany({ where, select: { id: true, sortKey: true } }),
  ]);
  return [...collections, ...spaces].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.id < b.id ? -1 : 1));
}

export interface Position {
  before?: string | null;
  after?: string | null;
}

/** The item a position refers to: a space or collection of the organization. */
export async function findPositionTarget(tx: Transaction, organizationId: string, id: string, field: string) {
  const where = { id, organizationId };
  const item =
    (await tx.collection.findFirst({ where, select: { id: true, parentId: true } })) ??
    (await tx.space.findFirst({ where: { ...where, deletedAt: null }, select: { id: true, parentId: true } }));
  if (!item) throw badInput(`${field}: no space or collection ${quote(id)} in this organization`);
  return item;
}

/**
 * The parent a move targets: the given one, else the parent of the position's reference, else
 * the current one.
 */
export async function resolveMoveParent(
  tx: Transaction,
  organizationId: string,
  currentParentId: string | null,
  parent: string | null | undefined,
  position: Position | null | undefined,
): Promise<string | null> {
  const reference = position?.before ?? position?.after;
  const referenceField = position?.before ? "position.before" : "position.after";
  const referenced = reference ? await findPositionTarget(tx, organizationId, reference, referenceField) : null;
  if (parent !== undefined) {
    if (referenced && referenced.parentId !== parent) {
      throw badInput(`${referenceField} must be inside the target parent`);
    }
    return parent;
  }
  return referenced ? referenced.parentId : currentParentId;
}

/** A sort key for `itemId` under `parentId` at `position` (default: last). */
export async function sortKeyAt(
  tx: Transaction,
  organizationId: string,
  parentId: string | null,
  position: Position | null | undefined,
  itemId?: string,
): Promise<string> {
  if (position?.before && position?.after) throw badInput("position takes before or after, not both");
  const list = (await siblings(tx, organizationId, parentId)).filter((sibling) => sibling.id !== itemId);
  const reference = position?.before ?? position?.after;
  if (!reference) return generateKeyBetween(list.at(-1)?.sortKey ?? null, null);
  const index = list.findIndex((sibling) => sibling.id === reference);
  const field = position?.before ? "position.before" : "position.after";
  if (index < 0) throw badInput(`${field}: ${quote(reference)} is not in the target parent`);
  const [low, high] = position?.before
    ? [list[index - 1]?.sortKey ?? null, list[index].sortKey]
    : [list[index].sortKey, list[index + 1]?.sortKey ?? null];
  // Equal neighbours (written before keys were unique) get a key just after the lower one.
  return low !== null && high !== null && low >= high ? generateKeyBetween(low, null) : generateKeyBetween(low, high);
}

/** Ids of a collection and all collections beneath it. */
export async function collectionSubtree(tx: Transaction | CoreContext["prisma"], rootId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>(Prisma.sql`
    WITH RECURSIVE subtree(id) AS (
      SELECT id FROM "Collection" WHERE id = ${rootId}
      UNION
      SELECT c.id FROM "Collection" c JOIN subtree s ON c."parentId" = s.id
    )
    SELECT id FROM subtree`);
  return rows.map((row) => row.id);
}

/**
 * Filters that restrict lists of an organization's collections and spaces to what the caller can
 * read. Members with a role read everything in their organization; guests read what is granted
 * to them (or their teams) and everything beneath a granted collection.
 */
export async function readableContentFilter(ctx: CoreContext, organizationId: string) {
  const membership = await ctx.access.membership(organizationId);
  if (!membership) return { collections: { id: { in: [] as string[] } }, spaces: { id: { in: [] as string[] } } };
  if (membership.role !== null) return { collections: {}, spaces: {} };
  const teams = await ctx.prisma.teamMember.findMany({ where: { userId: ctx.viewer.userId }, select: { teamId: true } });
  const grants = await ctx.prisma.permissionGrant.findMany({
    where: {
      organizationId,
      OR: [{ userId: ctx.viewer.userId }, { teamId: { in: teams.map((team) => team.teamId) } }],
    },
    select: { spaceId: true, collectionId: true },
  });
  const grantedCollections = grants.flatMap((grant) => (grant.collectionId ? [grant.collectionId] : []));
  const grantedSpaces = grants.flatMap((grant) => (grant.spaceId ? [grant.spaceId] : []));
  const collectionIds = grantedCollections.length
    ? (
        await ctx.prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
          WITH RECURSIVE subtree(id) AS (
            SELECT id FROM "Collection" WHERE id = ANY(${grantedCollections})
            UNION
            SELECT c.id FROM "Collection" c JOIN subtree s ON c."parentId" = s.id
          )
          SELECT id FROM subtree`)
      ).map((row) => row.id)
    : [];
  return {
    collections: { id: { in: collectionIds } },
    spaces: { OR: [{ id: { in: grantedSpaces } }, { parentId: { in: collectionIds } }] },
  };
}
