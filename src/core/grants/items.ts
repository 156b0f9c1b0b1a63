// The items grants can be on (spaces, collections, sites), how each is read, and who may grant on it.
import type { Collection, Site, Space } from "../../generated/prisma/client.ts";
import { authorize, type Action } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { conflict, quote } from "../errors.ts";
import { readCollection } from "../collections/index.ts";
import { getSite } from "../sites/index.ts";
import { readSpace } from "../spaces/index.ts";

export type ContentKind = "space" | "collection" | "site";

/**
 * An item grants can be on: its kind, row, where it sits (its parent collection; sites have
 * none) and its default level (sites have none: their members start from the organization role).
 */
export type GrantItem = { id: string; organizationId: string; parentId: string | null; defaultLevel: string | null } & (
  | { kind: "space"; row: Space }
  | { kind: "collection"; row: Collection }
  | { kind: "site"; row: Site }
);

interface KindRules {
  /**
   * The item, when the caller can see it (404 otherwise); `organizationId`, when given (REST
   * paths of sites name it), must be the item's organization (404 otherwise).
   */
  read(ctx: CoreContext, id: string, organizationId?: string | null): Promise<GrantItem>;
  grant: Action;
  listGrants: Action;
  /** The grant row's column naming the item. */
  column: "spaceId" | "collectionId" | "siteId";
}

export const CONTENT_KINDS: Record<ContentKind, KindRules> = {
  space: {
    read: async (ctx, id) => {
      const { space } = await readSpace(ctx, id);
      return {
        kind: "space",
        row: space,
        id: space.id,
        organizationId: space.organizationId,
        parentId: space.parentId,
        defaultLevel: space.defaultLevel,
      };
    },
    grant: "space.grant",
    listGrants: "space.listPermissions",
    column: "spaceId",
  },
  collection: {
    read: async (ctx, id) => {
      const { collection } = await readCollection(ctx, id);
      return {
        kind: "collection",
        row: collection,
        id: collection.id,
        organizationId: collection.organizationId,
        parentId: collection.parentId,
        defaultLevel: collection.defaultLevel,
      };
    },
    grant: "collection.grant",
    listGrants: "collection.listPermissions",
    column: "collectionId",
  },
  site: {
    read: async (ctx, id, organizationId) => {
      const site = await getSite(ctx, organizationId, id);
      return { kind: "site", row: site, id: site.id, organizationId: site.organizationId, parentId: null, defaultLevel: null };
    },
    grant: "site.grant",
    listGrants: "site.listPermissions",
    column: "siteId",
  },
};

const targetOf = (item: GrantItem) =>
  item.kind === "space" ? { space: item.row } : item.kind === "collection" ? { collection: item.row } : { site: item.row };

/** The item, if the caller may do `action` on it: 404 unless readable, 403 without the role. */
export async function requireGrantItem(
  ctx: CoreContext,
  kind: ContentKind,
  id: string,
  action: "grant" | "listGrants",
  organizationId?: string | null,
): Promise<GrantItem> {
  const rules = CONTENT_KINDS[kind];
  const item = await rules.read(ctx, id, organizationId);
  if (action === "grant" && item.kind === "space" && item.row.deletedAt) {
    throw conflict(`Space ${quote(id)} is deleted: restore it before you change who can access it`);
  }
  await authorize(ctx, rules[action], targetOf(item));
  return item;
}
