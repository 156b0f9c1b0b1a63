// Effective role of a caller on an organization, collection or space, and the `permissions`
// objects derived from it. Pure functions: the inputs are loaded elsewhere (src/core/auth/access.ts).
//
// The model (documented in docs/permissions.md):
// - Only members of an organization see anything in it; an organization admin is admin everywhere.
// - A member with an organization role starts from that role. A collection or space `defaultLevel`
//   replaces it for that item and everything beneath it (the nearest one wins); null inherits.
// - Grants to the member or to one of their teams, on the item or on a collection above it, add
//   to that: the effective role is the highest of all. Guests (role null) get grants only.
import { atLeast, maxRole, ROLES, type Role } from "./roles.ts";

export interface Membership {
  role: Role | null;
}

/** One level of the content tree, from the item itself up to its top-level collection. */
export interface AccessLevel {
  defaultLevel: Role | null;
  grants: Role[];
}

export function effectiveRole(membership: Membership | null, chain: AccessLevel[]): Role | null {
  if (!membership) return null;
  if (membership.role === "admin") return "admin";
  const base = membership.role === null ? null : (chain.find((level) => level.defaultLevel !== null)?.defaultLevel ?? membership.role);
  return maxRole([base, ...chain.flatMap((level) => level.grants)]);
}

/** The permissions object of each role, made once: a list asks for it on every item. Not to be changed. */
const spacePermissionsByRole: ReadonlyMap<Role | null, Readonly<ReturnType<typeof spacePermissionsOf>>> = new Map(
  [...ROLES, null].map((role) => [role, Object.freeze(spacePermissionsOf(role))]),
);

export function spacePermissions(role: Role | null) {
  return spacePermissionsByRole.get(role) ?? Object.freeze(spacePermissionsOf(role));
}

function spacePermissionsOf(role: Role | null) {
  return {
    view: atLeast(role, "read"),
    access: atLeast(role, "read"),
    admin: atLeast(role, "admin"),
    viewInviteLinks: atLeast(role, "admin"),
    edit: atLeast(role, "edit"),
    triggerGitSync: atLeast(role, "edit"),
    comment: atLeast(role, "comment"),
    merge: atLeast(role, "review"),
    review: atLeast(role, "review"),
    installIntegration: atLeast(role, "admin"),
  };
}

export function collectionPermissions(role: Role | null) {
  return {
    view: atLeast(role, "read"),
    admin: atLeast(role, "admin"),
    viewInviteLinks: atLeast(role, "admin"),
    create: atLeast(role, "create"),
  };
}

export function organizationPermissions(membership: Membership | null) {
  const role = membership?.role ?? null;
  const isMember = membership !== null;
  const nonGuest = role !== null;
  return {
    view: isMember,
    access: isMember,
    admin: atLeast(role, "admin"),
    ownTeam: atLeast(role, "create"),
    createContent: atLeast(role, "create"),
    createOpenAPISpec: atLeast(role, "create"),
    ingestConversations: atLeast(role, "admin"),
    viewBilling: atLeast(role, "admin"),
    listMembers: nonGuest,
    listTeams: nonGuest,
    listIntegrations: nonGuest,
    listInstallations: atLeast(role, "admin"),
    installIntegration: atLeast(role, "admin"),
  };
}
