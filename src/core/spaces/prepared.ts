// What the fields of listed spaces read, loaded for a whole page at once (issue 15); the GraphQL
// fields of Space read it (src/graphql/spaces.ts).
import type { Collection, Organization, Space } from "../../generated/prisma/client.ts";
import { spacePermissions } from "../auth/permissions.ts";
import { visibleParent } from "../collections/parents.ts";
import type { CoreContext } from "../context.ts";
import type { SpaceCounters } from "../loader-kit.ts";
import { loadVisibleOrganizations, visibleOrganizationNow } from "../organizations/index.ts";
import { ScopeSlot } from "../request-scope.ts";
import { isThenable } from "../thenable.ts";

/**
 * What the fields of a listed space read, loaded for the whole page before its items resolve
 * (issue 15): with it, `organization`, `parent`, the counters and `permissions` answer at once
 * instead of each creating promises per item (a REST list of 100 spaces made 47 promises per
 * space, and on Node 20 the AsyncLocalStorage hooks make each one dearer). Loaded through the
 * same loaders, memos and statements as a single space's fields (the counters read afresh, as
 * their loaders do after a write's clear()), so the values and the statements are the same; only
 * the selected fields are prepared, and a field whose value was not (a single space) takes its
 * own path.
 */
export class PreparedSpace {
  // Every field set at creation, whichever are prepared and in whatever order the loads end: one
  // shape for all entries, so the resolvers reading them stay monomorphic.
  organization: Organization | undefined = undefined;
  /** null: no parent, or one the caller cannot read. */
  parent: Collection | null | undefined = undefined;
  permissions: ReturnType<typeof spacePermissions> | undefined = undefined;
  changeRequests: Record<string, number> | undefined = undefined;
  openComments: number | undefined = undefined;
}

/** The listed spaces' prepared values, by row; they go when the operation ends (use-loader-release.ts). */
const PREPARED_SPACES = new ScopeSlot("prepared values of listed spaces, by row", () => new Map<Space, PreparedSpace>(), true);

export const preparedOf = (core: CoreContext, space: Space): PreparedSpace | undefined => core.scope.peek(PREPARED_SPACES)?.get(space);

export const COUNTER_FIELDS = ["openCommentCount", "changeRequestCount", "openChangeRequestCount", "draftChangeRequestCount"];

/**
 * Loads what the selected `fields` of `spaces` read, all at once (see PreparedSpace); `counted`:
 * their counters, when the statement that read the spaces read those too. What the request already
 * holds (a space's view, a list's organization and parents, the caller's role) is set without a
 * promise, and nothing is returned when nothing was left to load (issue 15).
 */
export function prepareSpaces(
  core: CoreContext,
  spaces: Space[],
  fields: ReadonlySet<string>,
  counted?: SpaceCounters[],
): Promise<void> | undefined {
  if (spaces.length === 0) return undefined;
  const prepared = core.scope.get(PREPARED_SPACES);
  const entries = spaces.map((space) => {
    const entry = new PreparedSpace();
    prepared.set(space, entry);
    return entry;
  });
  const loads: Promise<void>[] = [];
  if (
    fields.has("organization") &&
    !prepareNow(entries, spaces, (space) => visibleOrganizationNow(core, space.organizationId), "organization")
  ) {
    const organizationIds = [...new Set(spaces.map((space) => space.organizationId))];
    loads.push(
      loadVisibleOrganizations(core, organizationIds).then((organizations) => {
        const byId = new Map(organizationIds.map((id, index) => [id, organizations[index]]));
        spaces.forEach((space, index) => {
          const organization = byId.get(space.organizationId);
          if (organization) entries[index].organization = organization;
        });
      }),
    );
  }
  if (fields.has("parent") && !prepareNow(entries, spaces, (space) => visibleParent(core, space.parentId), "parent")) {
    // A loop, not flatMap: no array per space (issue 15).
    const parentSet = new Set<string>();
    for (const space of spaces) if (space.parentId) parentSet.add(space.parentId);
    const parentIds = [...parentSet];
    loads.push(
      Promise.all(parentIds.map((id) => visibleParent(core, id))).then((parents) => {
        const byId = new Map(parentIds.map((id, index) => [id, parents[index]]));
        spaces.forEach((space, index) => {
          entries[index].parent = space.parentId ? byId.get(space.parentId) : null;
        });
      }),
    );
  }
  const roles = fields.has("permissions") ? core.access.rolesOnSpacesNow(spaces) : undefined;
  if (roles) roles.forEach((role, index) => (entries[index].permissions = spacePermissions(role)));
  else if (fields.has("permissions")) {
    loads.push(
      core.access.rolesOnSpaces(spaces).then((roles) => {
        roles.forEach((role, index) => {
          entries[index].permissions = spacePermissions(role);
        });
      }),
    );
  }
  const setCounters = (counters: SpaceCounters[]) =>
    counters.forEach((counter, index) => {
      entries[index].changeRequests = counter.changeRequests;
      entries[index].openComments = counter.openComments;
    });
  if (counted) setCounters(counted);
  else if (COUNTER_FIELDS.some((field) => fields.has(field))) {
    loads.push(core.loaders.spaceCounters(spaces.map((space) => space.id)).then(setCounters));
  }
  return loads.length ? Promise.all(loads).then(() => undefined) : undefined;
}

/**
 * Sets `field` of every entry from `valueOf` its space, when each is known now (null: none; the
 * organization's null is one the caller cannot see, left unset as a load leaves it); false, and
 * nothing set, when one of them is still to load.
 */
function prepareNow<F extends "organization" | "parent">(
  entries: PreparedSpace[],
  spaces: Space[],
  valueOf: (space: Space) => PreparedSpace[F] | null | PromiseLike<unknown>,
  field: F,
): boolean {
  const values: (PreparedSpace[F] | null)[] = [];
  for (const space of spaces) {
    const value = valueOf(space);
    if (value === undefined || isThenable(value)) return false;
    values.push(value as PreparedSpace[F] | null);
  }
  values.forEach((value, index) => {
    if (value !== null || field === "parent") entries[index][field] = value as PreparedSpace[F];
  });
  return true;
}
