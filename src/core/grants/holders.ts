// Who holds access to a space, collection or site, and where it comes from: the users granted a role
// on it (or on a collection above it), the teams granted one, and everyone who can access it.
// Each user's role is `effectiveRole` (src/core/auth/permissions.ts), the same function that decides
// the caller's own access, fed with the item's chain of default levels and the grants on it.
//
// One read costs a fixed number of statements: one per level of the collection chain (through
// the loaders), the grants on the chain, the members of the granted teams, the members.
import type { Member, PermissionGrant, Prisma, User } from "../../generated/prisma/client.ts";
import { effectiveRole, type AccessLevel } from "../auth/permissions.ts";
import { isRole, maxRole, ROLES, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { badInput, DomainError, quote } from "../errors.ts";
import { pageInMemory, type Page, type PageArgs } from "../pagination.ts";
import { type ContentKind, type GrantItem, requireGrantItem } from "./items.ts";

/**
 * organization: the member's organization role (admin: admin everywhere); default-level: a
 * default level on the item or a collection above it, replacing the organization role; user: a
 * grant to the user; team: a grant to a team the user is in (or, in a team's list, to the team).
 */
export const ACCESS_SOURCE_KINDS = ["organization", "default-level", "user", "team"] as const;
export type AccessSourceKind = (typeof ACCESS_SOURCE_KINDS)[number];

export interface AccessSource {
  kind: AccessSourceKind;
  role: Role;
  /** The space or collection the default level or grant is on; null for the organization role. */
  on: { kind: ContentKind; id: string } | null;
  teamId: string | null;
}

export interface UserAccess {
  userId: string;
  /** The user's membership in the item's organization (joined, last seen). */
  member: Member;
  role: Role;
  /** Every source of a role, highest first: the first one gives `role`. */
  sources: AccessSource[];
}

export interface TeamAccess {
  teamId: string;
  role: Role;
  sources: AccessSource[];
}

interface Level {
  on: { kind: ContentKind; id: string };
  defaultLevel: Role | null;
  grants: PermissionGrant[];
}

const asRole = (value: string | null): Role | null => (isRole(value) ? value : null);
const byRoleDesc = (a: AccessSource, b: AccessSource) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role);

/** The item and the collections above it, nearest first, each with its default level and the grants on it. */
async function chainOf(ctx: CoreContext, item: GrantItem): Promise<Level[]> {
  const nodes: { kind: ContentKind; id: string; defaultLevel: string | null }[] = [
    { kind: item.kind, id: item.id, defaultLevel: item.defaultLevel },
  ];
  const seen = new Set([item.id]);
  let parentId = item.parentId;
  while (parentId && !seen.has(parentId)) {
    seen.add(parentId);
    const parent = await ctx.loaders.collection.load(parentId);
    if (!parent) break;
    nodes.push({ kind: "collection", id: parent.id, defaultLevel: parent.defaultLevel });
    parentId = parent.parentId;
  }
  const ids = nodes.map((node) => node.id);
  const grants = await ctx.prisma.permissionGrant.findMany({
    where: { OR: [{ spaceId: { in: ids } }, { collectionId: { in: ids } }, { siteId: { in: ids } }] },
    orderBy: { id: "asc" },
  });
  return nodes.map((node) => ({
    on: { kind: node.kind, id: node.id },
    defaultLevel: asRole(node.defaultLevel),
    grants: grants.filter((grant) => grant.spaceId === node.id || grant.collectionId === node.id || grant.siteId === node.id),
  }));
}

/** For each user, the teams of `chain`'s grants they are in. */
async function teamsOfUsers(ctx: CoreContext, chain: Level[]): Promise<Map<string, Set<string>>> {
  const teamIds = [
    ...new Set(chain.flatMap((level) => level.grants.map((grant) => grant.teamId)).filter((id): id is string => id !== null)),
  ];
  const rows = teamIds.length ? await ctx.prisma.teamMember.findMany({ where: { teamId: { in: teamIds } } }) : [];
  const teams = new Map<string, Set<string>>();
  for (const row of rows) {
    if (!teams.has(row.userId)) teams.set(row.userId, new Set());
    teams.get(row.userId)!.add(row.teamId);
  }
  return teams;
}

/** A member's effective role on the chain's item and its sources; null when they cannot access it. */
function userAccess(member: Member, chain: Level[], teams: Set<string>): UserAccess | null {
  const membership = { role: asRole(member.role) };
  const reaching = chain.map((level) => ({
    level,
    grants: level.grants.filter((grant) => grant.userId === member.userId || (grant.teamId !== null && teams.has(grant.teamId))),
  }));
  const levels: AccessLevel[] = reaching.map(({ level, grants }) => ({
    defaultLevel: level.defaultLevel,
    grants: grants.map((grant) => asRole(grant.role)).filter(isRole),
  }));
  const role = effectiveRole(membership, levels);
  if (role === null) return null;
  if (membership.role === "admin")
    return { userId: member.userId, member, role, sources: [{ kind: "organization", role: "admin", on: null, teamId: null }] };
  const sources: AccessSource[] = [];
  if (membership.role !== null) {
    const defaulting = chain.find((level) => level.defaultLevel !== null);
    sources.push(
      defaulting
        ? { kind: "default-level", role: defaulting.defaultLevel!, on: defaulting.on, teamId: null }
        : { kind: "organization", role: membership.role, on: null, teamId: null },
    );
  }
  for (const { level, grants } of reaching) {
    for (const grant of grants) {
      const granted = asRole(grant.role);
      if (granted) sources.push({ kind: grant.teamId ? "team" : "user", role: granted, on: level.on, teamId: grant.teamId });
    }
  }
  return { userId: member.userId, member, role, sources: sources.sort(byRoleDesc) };
}

/** Users with a grant of their own on the item or a collection above it, with their effective role there; by user id. */
export async function listUserPermissions(
  ctx: CoreContext,
  kind: ContentKind,
  id: string,
  page: PageArgs,
  organizationId?: string | null,
): Promise<Page<UserAccess>> {
  const item = await requireGrantItem(ctx, kind, id, "listGrants", organizationId);
  const chain = await chainOf(ctx, item);
  const userIds = [
    ...new Set(chain.flatMap((level) => level.grants.map((grant) => grant.userId)).filter((userId): userId is string => userId !== null)),
  ];
  const [members, teams] = await Promise.all([
    userIds.length
      ? ctx.prisma.member.findMany({ where: { organizationId: item.organizationId, userId: { in: userIds }, disabled: false } })
      : [],
    teamsOfUsers(ctx, chain),
  ]);
  const accesses = members
    .map((member) => userAccess(member, chain, teams.get(member.userId) ?? new Set()))
    .filter((access): access is UserAccess => access !== null)
    .sort((a, b) => (a.userId < b.userId ? -1 : 1));
  return pageInMemory(accesses, page, (access) => access.userId);
}

/** Teams with a grant on the item or a collection above it: the highest of those grants, and each of them; by team id. */
export async function listTeamPermissions(
  ctx: CoreContext,
  kind: ContentKind,
  id: string,
  page: PageArgs,
  organizationId?: string | null,
): Promise<Page<TeamAccess>> {
  const item = await requireGrantItem(ctx, kind, id, "listGrants", organizationId);
  const chain = await chainOf(ctx, item);
  const byTeam = new Map<string, AccessSource[]>();
  for (const level of chain) {
    for (const grant of level.grants) {
      const role = asRole(grant.role);
      if (!grant.teamId || !role) continue;
      if (!byTeam.has(grant.teamId)) byTeam.set(grant.teamId, []);
      byTeam.get(grant.teamId)!.push({ kind: "team", role, on: level.on, teamId: grant.teamId });
    }
  }
  const accesses = [...byTeam.entries()]
    .map(([teamId, sources]) => ({ teamId, role: maxRole(sources.map((source) => source.role))!, sources: sources.sort(byRoleDesc) }))
    .sort((a, b) => (a.teamId < b.teamId ? -1 : 1));
  return pageInMemory(accesses, page, (access) => access.teamId);
}

/** How the aggregate can be sorted (the published `memberSort`): when they joined, were last seen, or by name. */
export const ACCESS_SORTS = ["joinedAt", "lastSeenAt", "name"] as const;
export type AccessSort = (typeof ACCESS_SORTS)[number];

export interface AccessFilter {
  /** Those whose effective role is this one; `guest`: the organization's guests (no organization role) who reach the item. */
  role?: string | null;
  /** Case-insensitive text in the user's display name or e-mail. */
  search?: string | null;
  /** Members of this team of the item's organization (404 naming `team` otherwise). */
  team?: string | null;
  /** Absent: by user id. */
  sort?: string | null;
  /** Default `desc` when `sort` is given, else `asc`. */
  order?: string | null;
}

const names = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** The comparison of `sort` (ascending), ties broken by user id. A member never seen sorts as the least recent. */
function compareBy(sort: AccessSort | null, users: Map<string, User>) {
  const byId = (a: UserAccess, b: UserAccess) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
  if (sort === null) return byId;
  return (a: UserAccess, b: UserAccess) => {
    let difference = 0;
    if (sort === "name") {
      difference = names.compare(users.get(a.userId)?.displayName ?? "", users.get(b.userId)?.displayName ?? "");
    } else {
      const time = (access: UserAccess) => access.member[sort]?.getTime() ?? Number.NEGATIVE_INFINITY;
      difference = time(a) === time(b) ? 0 : time(a) < time(b) ? -1 : 1;
    }
    return difference || byId(a, b);
  };
}

function checkAccessFilter(filter: AccessFilter) {
  if (filter.role != null && !isRole(filter.role) && filter.role !== "guest") {
    throw badInput(`role must be one of ${[...ROLES, "guest"].join(", ")} (got ${quote(filter.role)})`);
  }
  if (filter.sort != null && !(ACCESS_SORTS as readonly string[]).includes(filter.sort)) {
    throw badInput(`sort must be one of ${ACCESS_SORTS.join(", ")} (got ${quote(filter.sort)})`);
  }
  if (filter.order != null && filter.order !== "asc" && filter.order !== "desc") {
    throw badInput(`order must be one of asc, desc (got ${quote(filter.order)})`);
  }
  return { sort: (filter.sort ?? null) as AccessSort | null, order: filter.order ?? (filter.sort != null ? "desc" : "asc") };
}

/**
 * Every enabled member who can access the item (effective role at least read), with that role,
 * filtered and sorted as `filter` says (the published site aggregate's `role`, `search`, `team`,
 * `sort` and `order`). Computed over the organization's members in memory, their users read in
 * the same statement: no statement per member, whatever the filter.
 */
export async function listAccessAggregate(
  ctx: CoreContext,
  kind: ContentKind,
  id: string,
  filter: AccessFilter,
  page: PageArgs,
  organizationId?: string | null,
): Promise<Page<UserAccess>> {
  const { sort, order } = checkAccessFilter(filter);
  const item = await requireGrantItem(ctx, kind, id, "listGrants", organizationId);
  if (filter.team != null) {
    const team = await ctx.loaders.team.load(filter.team);
    if (!team || team.organizationId !== item.organizationId) {
      throw new DomainError("NOT_FOUND", `team: no team ${quote(filter.team)} in this organization`);
    }
  }
  const search = filter.search?.trim();
  const where: Prisma.MemberWhereInput = {
    organizationId: item.organizationId,
    disabled: false,
    ...(filter.role === "guest" ? { role: null } : {}),
    ...(search || filter.team != null
      ? {
          user: {
            ...(search
              ? { OR: [{ displayName: { contains: search, mode: "insensitive" } }, { email: { contains: search, mode: "insensitive" } }] }
              : {}),
            ...(filter.team != null ? { teams: { some: { teamId: filter.team } } } : {}),
          },
        }
      : {}),
  };
  const chain = await chainOf(ctx, item);
  const [members, teams] = await Promise.all([
    ctx.prisma.member.findMany({ where, include: { user: true }, orderBy: { userId: "asc" } }),
    teamsOfUsers(ctx, chain),
  ]);
  const users = new Map(members.map(({ user }) => [user.id, user]));
  for (const user of users.values()) ctx.loaders.user.prime(user.id, user);
  const compare = compareBy(sort, users);
  const accesses = members
    .map((member) => userAccess(member, chain, teams.get(member.userId) ?? new Set()))
    .filter(
      (access): access is UserAccess => access !== null && (filter.role == null || filter.role === "guest" || access.role === filter.role),
    )
    .sort(order === "desc" ? (a, b) => compare(b, a) : compare);
  return pageInMemory(accesses, page, (access) => access.userId);
}
