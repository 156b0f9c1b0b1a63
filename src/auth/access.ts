// The caller's effective role on organizations, collections and spaces, for one request.
// Walks the collection chain through the loaders, so checking 50 spaces costs one batched
// statement per tree level, not one per space.
import type { Collection, Space } from "../generated/prisma/client.ts";
import type { Loaders } from "../core/loaders.ts";
import { effectiveRole, type AccessLevel, type Membership } from "./permissions.ts";
import { isRole, type Role } from "./roles.ts";

const asRole = (value: string | null): Role | null => (isRole(value) ? value : null);

export class Access {
  private readonly roles = new Map<string, Promise<Role | null>>();

  constructor(private readonly loaders: Loaders) {}

  async membership(organizationId: string): Promise<Membership | null> {
    const member = await this.loaders.viewerMembership.load(organizationId);
    return member && !member.disabled ? { role: asRole(member.role) } : null;
  }

  /** Role in the organization itself: null for guests and non-members. */
  async organizationRole(organizationId: string): Promise<Role | null> {
    return (await this.membership(organizationId))?.role ?? null;
  }

  /** The caller's role in a team: owner, member, or null when not in it. */
  async teamRole(teamId: string): Promise<string | null> {
    return (await this.loaders.viewerTeamRole.load(teamId))?.role ?? null;
  }

  roleOnCollection(collection: Collection): Promise<Role | null> {
    return this.memo(collection.id, () => this.roleOnItem(collection, collection.parentId));
  }

  roleOnSpace(space: Space): Promise<Role | null> {
    return this.memo(space.id, () => this.roleOnItem(space, space.parentId));
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
