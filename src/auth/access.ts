// The caller's effective role on organizations, collections, spaces and sites, for one request.
// Walks the collection chain through the loaders, so checking 50 spaces costs one batched
// statement per tree level, not one per space.
import type { Collection, Site, Space } from "../generated/prisma/client.ts";
import type { Loaders } from "../core/loaders.ts";
import { effectiveRole, type AccessLevel, type Membership } from "./permissions.ts";
import { isRole, type Role } from "./roles.ts";

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
  private readonly memberships = new Map<string, Promise<Membership | null>>();
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
    if (!found) this.memberships.set(organizationId, (found = this.findMembership(organizationId)));
    return found;
  }

  private async findMembership(organizationId: string): Promise<Membership | null> {
    if (this.installationId) {
      const scope = await this.installationScope();
      return scope?.organizationId === organizationId ? { role: null } : null;
    }
    const member = await this.loaders.viewerMembership.load(organizationId);
    return member && !member.disabled ? { role: asRole(member.role) } : null;
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
    if (!role) this.roles.set(id, (role = compute()));
    return role;
  }

  private async roleOnItem(
    item: { id: string; organizationId: string; defaultLevel: string | null },
    parentId: string | null,
  ): Promise<Role | null> {
    const membership = await this.membership(item.organizationId);
    if (!membership) return null;
    if (membership.role === "admin") return "admin";
    const chain: AccessLevel[] = [];
    let current: { id: string; defaultLevel: string | null } | null = item;
    let nextParent = parentId;
    const seen = new Set<string>();
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      const grants = await this.loaders.viewerGrants.load(current.id);
      chain.push({ defaultLevel: asRole(current.defaultLevel), grants: grants.map((g) => asRole(g.role)).filter(isRole) });
      const parent: Collection | null = nextParent ? await this.loaders.collection.load(nextParent) : null;
      current = parent;
      nextParent = parent?.parentId ?? null;
    }
    return effectiveRole(membership, chain);
  }
}
