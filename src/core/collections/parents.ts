// The parent collection of a listed item, as the caller may see it.
import type { Collection } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { ScopeSlot } from "../request-scope.ts";
import { loadVisibleCollections, visibleCollectionNow } from "./index.ts";

/**
 * The parent collections a request has looked up, by id: the items of a list share few parents,
 * and the collection loader and the role memo behind `loadVisibleCollections` never change within
 * a request, so each parent is decided once rather than once per item.
 */
const VISIBLE_PARENTS = new ScopeSlot("visible parent collections, by id", () => new Map<string, Promise<Collection | null>>(), true);

/** A parent collection the caller may not read shows as no parent rather than as an error. */
export function visibleParent(core: CoreContext, parentId: string | null): Collection | null | Promise<Collection | null> {
  if (!parentId) return null;
  // Without a promise when the request holds the parent and the caller's role on it (issue 15).
  const now = visibleCollectionNow(core, parentId);
  if (now !== undefined) return now;
  const parents = core.scope.get(VISIBLE_PARENTS);
  let parent = parents.get(parentId);
  if (!parent) parents.set(parentId, (parent = loadVisibleCollections(core, [parentId]).then((found) => found[0])));
  return parent;
}
