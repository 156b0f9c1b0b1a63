// The caller's effective role on organizations, collections, spaces and sites, for one request.
// Walks the collection chain through the loaders, so checking 50 spaces costs one batched
// statement per tree level, not one per space.
import type { Collection, Member, Site, Space } from "../../generated/prisma/client.ts";
import type { Loaders } from "../loaders.ts";
import { effectiveRole, type AccessLevel, type Membership } from "./permissions.ts";
import { isRole, type Role } from "./roles.ts";
import { isThenable } from "../thenable.ts";

const asRole = (value: string | null): Role | null => (isRole(value) ? value : null);

/**
 * What an integration installation's token may do on a space it is installed on, from the
 * integration's scopes: `edit` with a write scope, `read` with a read scope, nothing otherwise.
 */
export function roleOfScopes(scopes: readonly string[]): Role | null {
  if (scopes.includes("space:content:write") || scopes.includes("space:metadata:write")) return "edit";
  if (scopes.includes("space:content:read") || scopes.includes("space:metadata:read")) return "read";
  return null;
}

export class Access {
  private readonly roles = new Map<string, Promise<Role | null>>();
  /** The roles decided so far (those of `roles` that settled, and those decided without a promise). */
  private readonly settledRoles = new Map<string, Role | null>();
  private readonly memberships = new Map<string, Promise<Membership | null>>();
  /** The memberships decided so far, as `settledRoles`. */
  private readonly settledMemberships = new Map<string, Membership | null>();
  private installation:
    | Promise<{
        organizationId: string;
        spaceSelection: string;
        siteSelection: string;
        scopes: string[];
        spaceIds: Set<string>;
        siteIds: Set<string>;
      } | null>
    | undefined;

  /** `installationId`: the caller is an installation's token (see `installationScope`). */
  constructor(
    private readonly loaders: Loaders,
    private readonly installationId?: string,
  ) {}

  /**
   * An installation's token is no member of anything: in the installation's organization it is
   * a guest (it sees the organization, no content by role), and on the spaces the installation
   * is on (all of the organization's with `space_selection: all`) it holds the role of its
   * integration's scopes. Elsewhere it sees nothing (404) and may do nothing (403).
   */
  private installationScope() {
    return (this.installation ??= (async () => {
      const installation = await this.loaders.integrationInstallation.load(this.installationId!);
      if (!installation) return null;
      const [integration, targets] = await Promise.all([
        this.loaders.integration.load(installation.integrationId),
        this.loaders.installationTargets.load(installation.id),
      ]);
      if (!integration) return null;
      return {
        organizationId: installation.organizationId,
        spaceSelection: installation.spaceSelection,
        siteSelection: installation.siteSelection,
        scopes: integration.scopes,
        spaceIds: targets.spaceIds,
        siteIds: targets.siteIds,
      };
    })());
  }

  /**
   * The caller's membership of the organization, once per request and organization: every role
   * check of a list's items asks for it (the viewer's memberships are loaded once and never
   * change within a request).
   */
  membership(organizationId: string): Promise<Membership | null> {
    let found = this.memberships.get(organizationId);
    if (!found) {
      const now = this.membershipNow(organizationId);
      found = now !== undefined ? Promise.resolve(now) : this.findMembership(organizationId);
      this.memberships.set(organizationId, found);
    }
    return found;
  }

  /**
   * `membership` without a promise, when the request already holds what decides it (the viewer's
   * membership row, which reading the organization or a space primes); undefined otherwise.
   */
  membershipNow(organizationId: string): Membership | null | undefined {
    const settled = this.settledMemberships.get(organizationId);
    if (settled !== undefined || this.settledMemberships.has(organizationId)) return settled;
    // An installation's scope is loaded; a membership being looked up is awaited.
    if (this.installationId || this.memberships.has(organizationId)) return undefined;
    const member = this.loaders.viewerMembership.peek(organizationId);
    if (member === undefined) return undefined;
    return this.settleMembership(organizationId, member);
  }

  private settleMembership(organizationId: string, member: Member | null): Membership | null {
    const membership = member && !member.disabled ? { role: asRole(member.role) } : null;
    this.settledMemberships.set(organizationId, membership);
    return membership;
  }

  private async findMembership(organizationId: string): Promise<Membership | null> {
    if (this.installationId) {
      const scope = await this.installationScope();
      const membership = scope?.organizationId === organizationId ? { role: null } : null;
      this.settledMemberships.set(organizationId, membership);
      return membership;
    }
    return this.settleMembership(organizationId, await this.loaders.viewerMembership.load(organizationId));
  }

  /** Role in the organization itself: null for guests and non-members. */
  async organizationRole(organizationId: string): Promise<Role | null> {
    return (await this.membership(organizationId))?.role ?? null;
  }

  /** The caller's role in a team: owner, member, or null when not in it. */
  async teamRole(teamId: string): Promise<string | null> {
    if (this.installationId) return null;
    return (await this.loaders.viewerTeamRole.load(teamId))?.role ?? null;
  }

  roleOnCollection(collection: Collection): Promise<Role | null> {
    if (this.installationId) return Promise.resolve(null);
    return this.memo(collection.id, () => this.roleOnItem(collection, collection.parentId));
  }

  /**
   * `roleOnCollection` without a promise, when the request already holds everything that decides
   * it (membership, grants, the collection chain); undefined otherwise (then ask roleOnCollection).
   */
  roleOnCollectionNow(collection: Collection): Role | null | undefined {
    if (this.installationId) return null;
    return this.roleNow(collection, collection.parentId);
  }

  roleOnSpace(space: Space): Promise<Role | null> {
    if (this.installationId) {
      return this.memo(space.id, async () => {
        const scope = await this.installationScope();
        if (!scope || scope.organizationId !== space.organizationId) return null;
        return scope.spaceSelection === "all" || scope.spaceIds.has(space.id) ? roleOfScopes(scope.scopes) : null;
      });
    }
    return this.memo(space.id, () => this.roleOnItem(space, space.parentId));
  }

  /** `roleOnSpace` without a promise, as roleOnCollectionNow. */
  roleOnSpaceNow(space: Space): Role | null | undefined {
    // An installation's role comes from its scope, which is loaded.
    if (this.installationId) return undefined;
    return this.roleNow(space, space.parentId);
  }

  /** `rolesOnSpaces` without a promise, when every role is decided by what the request holds; undefined otherwise. */
  rolesOnSpacesNow(spaces: readonly Space[]): (Role | null)[] | undefined {
    const organizationId = spaces[0]?.organizationId;
    if (!this.installationId && organizationId && spaces.every((space) => space.organizationId === organizationId)) {
      const membership = this.membershipNow(organizationId);
      if (membership === undefined) return undefined;
      if (!membership) return spaces.map(() => null);
      if (membership.role === "admin") return spaces.map((): Role => "admin");
    }
    const roles: (Role | null)[] = [];
    for (const space of spaces) {
      const role = this.roleOnSpaceNow(space);
      if (role === undefined) return undefined;
      roles.push(role);
    }
    return roles;
  }

  /**
   * The caller's role on each of `spaces`, as roleOnSpace answers it, for the items of a list at
   * once (issue 15): in an organization the caller administers (or is no member of), without a
   * promise per space; otherwise space by space through roleOnSpace, whose chains batch in the
   * loaders.
   */
  async rolesOnSpaces(spaces: readonly Space[]): Promise<(Role | null)[]> {
    const organizationId = spaces[0]?.organizationId;
    if (!this.installationId && organizationId && spaces.every((space) => space.organizationId === organizationId)) {
      const membership = await this.membership(organizationId);
      if (!membership) return spaces.map(() => null);
      if (membership.role === "admin") return spaces.map((): Role => "admin");
    }
    return Promise.all(spaces.map((space) => this.roleOnSpace(space)));
  }

  /**
   * A site has no default level and no parent: the organization role, raised by grants on the site
   * (to the caller or a team of theirs). A guest reaches a site only through a grant. An
   * installation's token holds no role on sites: what it may do on the sites of its installation
   * is what its integration's scopes allow, action by action (`siteScopes`, policy.ts `tokenScopes`).
   */
  roleOnSite(site: Site): Promise<Role | null> {
    if (this.installationId) return Promise.resolve(null);
    return this.memo(site.id, () => this.roleOnItem({ id: site.id, organizationId: site.organizationId, defaultLevel: null }, null));
  }

  /**
   * For an installation's token: its integration's scopes when `site` is one its installation is on
   * (a site installation, or every site of the organization with `site_selection: all`); null for
   * any other site, and for callers that are not installations.
   */
  async siteScopes(site: Pick<Site, "id" | "organizationId">): Promise<readonly string[] | null> {
    const sites = await this.installationSites(site.organizationId);
    return sites && (sites.all || sites.siteIds.has(site.id)) ? sites.scopes : null;
  }

  /** For an installation's token: the sites of `organizationId` its installation is on, and its scopes; null otherwise. */
  async installationSites(
    organizationId: string,
  ): Promise<{ all: boolean; siteIds: ReadonlySet<string>; scopes: readonly string[] } | null> {
    if (!this.installationId) return null;
    const scope = await this.installationScope();
    if (!scope || scope.organizationId !== organizationId) return null;
    return { all: scope.siteSelection === "all", siteIds: scope.siteIds, scopes: scope.scopes };
  }

  private memo(id: string, compute: () => Promise<Role | null>): Promise<Role | null> {
    let role = this.roles.get(id);
    if (!role) {
      const settled = this.settledRoles.get(id);
      role = settled !== undefined || this.settledRoles.has(id) ? Promise.resolve(settled!) : compute();
      this.roles.set(id, role);
    }
    return role;
  }

  /** An item's role decided by what the request holds (memoized as `memo` does); undefined when something is still to load. */
  private roleNow(item: Item, parentId: string | null): Role | null | undefined {
    const settled = this.settledRoles.get(item.id);
    if (settled !== undefined || this.settledRoles.has(item.id)) return settled;
    // One being decided with a promise is awaited (it is the one memoized).
    if (this.roles.has(item.id)) return undefined;
    const role = this.decide(item, parentId);
    if (isThenable(role)) return undefined;
    this.settledRoles.set(item.id, role);
    return role;
  }

  private async roleOnItem(item: Item, parentId: string | null): Promise<Role | null> {
    let missing: PromiseLike<unknown> | undefined;
    for (;;) {
      const role = this.decide(item, parentId);
      if (!isThenable(role)) {
        this.settledRoles.set(item.id, role);
        return role;
      }
      // A load that settled with a value is held by its loader (KnownLoader): asking for it again would never end.
      if (role === missing) throw new Error(`Access: a load for ${item.id} settled but its loader does not hold its value`);
      missing = role;
      await missing;
    }
  }

  /**
   * The caller's role on an item (the membership, then the grants on the item and on each
   * collection up its chain, read through the loaders) from what the loaders hold; when they do
   * not hold something yet, the load of the first missing one, to await before deciding again.
   */
  private decide(item: Item, parentId: string | null): Role | null | PromiseLike<unknown> {
    const membership = this.membershipNow(item.organizationId);
    if (membership === undefined) return this.membership(item.organizationId);
    if (!membership) return null;
    if (membership.role === "admin") return "admin";
    const chain: AccessLevel[] = [];
    let current: { id: string; defaultLevel: string | null } | null = item;
    let nextParent = parentId;
    const seen = new Set<string>();
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      const grants = this.loaders.viewerGrants.peek(current.id);
      if (grants === undefined) return this.loaders.viewerGrants.load(current.id);
      chain.push({ defaultLevel: asRole(current.defaultLevel), grants: grants.map((g) => asRole(g.role)).filter(isRole) });
      const parent: Collection | null | undefined = nextParent ? this.loaders.collection.peek(nextParent) : null;
      if (parent === undefined) return this.loaders.collection.load(nextParent!);
      current = parent;
      nextParent = parent?.parentId ?? null;
    }
    return effectiveRole(membership, chain);
  }
}

type Item = { id: string; organizationId: string; defaultLevel: string | null };
