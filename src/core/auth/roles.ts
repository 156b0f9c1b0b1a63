// The role lattice: admin > create > review > edit > comment > read. `null` means no role
// (a guest at organization level, "inherit" on content).

export const ROLES = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Does `role` grant at least `least`? */
export function atLeast(role: Role | null | undefined, least: Role): boolean {
  return role != null && RANK[role] >= RANK[least];
}

export function maxRole(roles: Iterable<Role | null | undefined>): Role | null {
  let best: Role | null = null;
  for (const role of roles) {
    if (role && (!best || RANK[role] > RANK[best])) best = role;
  }
  return best;
}
