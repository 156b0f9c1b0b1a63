// Unit tests of the role model (src/core/auth/permissions.ts): the effective role of a caller on an
// item from their membership and the chain of levels from the item up to its top collection,
// and the `permissions` objects derived from a role.
import { describe, expect, it } from "vitest";
import {
  collectionPermissions,
  effectiveRole,
  organizationPermissions,
  spacePermissions,
  type AccessLevel,
} from "../src/core/auth/permissions.ts";
import { ROLES, type Role } from "../src/core/auth/roles.ts";
import { readFileSync } from "node:fs";
import { allows } from "../src/core/auth/policy.ts";
import { PERMISSIONS_FILE, withPolicy } from "../src/print-schema.ts";

/** One level of the chain: defaultLevel null inherits; no grants unless given. */
const level = (defaultLevel: Role | null = null, grants: Role[] = []): AccessLevel => ({ defaultLevel, grants });

describe("effectiveRole", () => {
  it("is null for a non-member, whatever the chain says", () => {
    expect(effectiveRole(null, [])).toBeNull();
    expect(effectiveRole(null, [level("admin", ["admin"]), level("create", ["create"])])).toBeNull();
  });

  it("is admin everywhere for an organization admin, even under a lower defaultLevel", () => {
    expect(effectiveRole({ role: "admin" }, [])).toBe("admin");
    expect(effectiveRole({ role: "admin" }, [level("read")])).toBe("admin");
    expect(effectiveRole({ role: "admin" }, [level(null), level("comment", ["read"])])).toBe("admin");
  });

  it("defaults to the organization role when nothing on the chain sets a level", () => {
    for (const role of ROLES) {
      expect(effectiveRole({ role }, [])).toBe(role);
      expect(effectiveRole({ role }, [level(), level(), level()])).toBe(role);
    }
  });

  it("lets the nearest defaultLevel replace the organization role, up or down", () => {
    // Down: an editor reads only in a read-only space.
    expect(effectiveRole({ role: "edit" }, [level("read")])).toBe("read");
    // Up: a reader may edit in a space opened to editing.
    expect(effectiveRole({ role: "read" }, [level("edit")])).toBe("edit");
    // Inherited from the collection when the space inherits.
    expect(effectiveRole({ role: "create" }, [level(null), level("comment")])).toBe("comment");
    // The nearest level wins over the ones above it, in both directions.
    expect(effectiveRole({ role: "read" }, [level("review"), level("comment")])).toBe("review");
    expect(effectiveRole({ role: "read" }, [level(null), level("comment"), level("create")])).toBe("comment");
    expect(effectiveRole({ role: "create" }, [level("read"), level("create")])).toBe("read");
  });

  it("adds grants to the base role through max, never lowering it", () => {
    expect(effectiveRole({ role: "read" }, [level(null, ["edit"])])).toBe("edit");
    expect(effectiveRole({ role: "review" }, [level(null, ["comment"])])).toBe("review");
    // A grant lifts a member above a restrictive defaultLevel.
    expect(effectiveRole({ role: "create" }, [level("read", ["review"])])).toBe("review");
    // Several grants (member and teams): the highest counts.
    expect(effectiveRole({ role: "read" }, [level(null, ["comment", "create", "edit"])])).toBe("create");
    // A grant can make a member admin of one item.
    expect(effectiveRole({ role: "read" }, [level(null, ["admin"])])).toBe("admin");
  });

  it("gives guests their grants only: no organization role, and defaultLevel does not apply to them", () => {
    expect(effectiveRole({ role: null }, [])).toBeNull();
    expect(effectiveRole({ role: null }, [level()])).toBeNull();
    expect(effectiveRole({ role: null }, [level("edit"), level("create")])).toBeNull();
    expect(effectiveRole({ role: null }, [level(null, ["comment"])])).toBe("comment");
    expect(effectiveRole({ role: null }, [level("admin", ["read"])])).toBe("read");
    expect(effectiveRole({ role: null }, [level(null, ["read"]), level(null, ["edit"])])).toBe("edit");
  });

  it("counts grants on any collection above the item", () => {
    // Space → collection → top collection; the grant is two levels up.
    expect(effectiveRole({ role: "read" }, [level(), level(), level(null, ["edit"])])).toBe("edit");
    expect(effectiveRole({ role: null }, [level(), level(), level(null, ["review"])])).toBe("review");
    // Even above a nearer defaultLevel that lowered the base role.
    expect(effectiveRole({ role: "create" }, [level("read"), level(null, ["edit"])])).toBe("edit");
    // And the highest grant along the whole chain wins.
    expect(effectiveRole({ role: "read" }, [level(null, ["comment"]), level(null, ["create"]), level(null, ["edit"])])).toBe("create");
  });
});

/** Every role from lowest to highest, and null (no access). */
const LADDER: (Role | null)[] = [null, "read", "comment", "edit", "review", "create", "admin"];
/** The roles at or above `least`. */
const from = (least: Role) => new Set(LADDER.slice(LADDER.indexOf(least)));

describe("spacePermissions", () => {
  const minimum: Record<keyof ReturnType<typeof spacePermissions>, Role> = {
    view: "read",
    access: "read",
    comment: "comment",
    edit: "edit",
    triggerGitSync: "edit",
    merge: "review",
    review: "review",
    admin: "admin",
    viewInviteLinks: "admin",
    installIntegration: "admin",
  };

  it("has exactly the published permission keys", () => {
    expect(Object.keys(spacePermissions("read")).sort()).toEqual(Object.keys(minimum).sort());
  });

  it.each(LADDER)("for role %s grants each permission from its minimum role up", (role) => {
    const permissions = spacePermissions(role);
    for (const [key, least] of Object.entries(minimum)) {
      expect({ key, value: permissions[key as keyof typeof minimum] }).toEqual({ key, value: from(least).has(role) });
    }
  });

  it("spells out the ladder", () => {
    expect(Object.values(spacePermissions(null)).every((value) => value === false)).toBe(true);
    expect(spacePermissions("read")).toEqual({
      view: true,
      access: true,
      comment: false,
      edit: false,
      triggerGitSync: false,
      merge: false,
      review: false,
      admin: false,
      viewInviteLinks: false,
      installIntegration: false,
    });
    expect(spacePermissions("edit")).toMatchObject({ comment: true, edit: true, merge: false, admin: false });
    expect(spacePermissions("review")).toMatchObject({ edit: true, merge: true, review: true, admin: false });
    expect(spacePermissions("create")).toMatchObject({ merge: true, admin: false, installIntegration: false });
    expect(Object.values(spacePermissions("admin")).every((value) => value === true)).toBe(true);
  });
});

describe("collectionPermissions", () => {
  const minimum: Record<keyof ReturnType<typeof collectionPermissions>, Role> = {
    view: "read",
    create: "create",
    admin: "admin",
    viewInviteLinks: "admin",
  };

  it("has exactly the published permission keys", () => {
    expect(Object.keys(collectionPermissions("read")).sort()).toEqual(Object.keys(minimum).sort());
  });

  it.each(LADDER)("for role %s grants each permission from its minimum role up", (role) => {
    const permissions = collectionPermissions(role);
    for (const [key, least] of Object.entries(minimum)) {
      expect({ key, value: permissions[key as keyof typeof minimum] }).toEqual({ key, value: from(least).has(role) });
    }
  });

  it("lets create (not review) add content, and only admin administer", () => {
    expect(collectionPermissions("review")).toEqual({ view: true, create: false, admin: false, viewInviteLinks: false });
    expect(collectionPermissions("create")).toEqual({ view: true, create: true, admin: false, viewInviteLinks: false });
    expect(collectionPermissions("admin")).toEqual({ view: true, create: true, admin: true, viewInviteLinks: true });
    expect(collectionPermissions(null)).toEqual({ view: false, create: false, admin: false, viewInviteLinks: false });
  });
});

describe("organizationPermissions", () => {
  const none = {
    view: false,
    access: false,
    admin: false,
    ownTeam: false,
    createContent: false,
    createOpenAPISpec: false,
    ingestConversations: false,
    viewBilling: false,
    listMembers: false,
    listTeams: false,
    listIntegrations: false,
    listInstallations: false,
    installIntegration: false,
  };

  it("gives a non-member nothing", () => {
    expect(organizationPermissions(null)).toEqual(none);
  });

  it("lets a guest see the organization but not list its people or create", () => {
    expect(organizationPermissions({ role: null })).toEqual({ ...none, view: true, access: true });
  });

  it.each(["read", "comment", "edit", "review"] as const)("gives a %s member view and the member lists only", (role) => {
    expect(organizationPermissions({ role })).toEqual({
      ...none,
      view: true,
      access: true,
      listMembers: true,
      listTeams: true,
      listIntegrations: true,
    });
  });

  it("lets create members create content and own teams, not administer", () => {
    expect(organizationPermissions({ role: "create" })).toEqual({
      ...none,
      view: true,
      access: true,
      listMembers: true,
      listTeams: true,
      listIntegrations: true,
      ownTeam: true,
      createContent: true,
      createOpenAPISpec: true,
    });
  });

  it("gives an admin every permission", () => {
    const permissions = organizationPermissions({ role: "admin" });
    expect(Object.keys(permissions).sort()).toEqual(Object.keys(none).sort());
    expect(Object.values(permissions).every((value) => value === true)).toBe(true);
  });
});

describe("the permission matrix (src/core/auth/policy.ts)", () => {
  it("is printed in docs/permissions.md as it is in the code (run `npm run schema` when this fails)", () => {
    const page = readFileSync(PERMISSIONS_FILE, "utf8");
    expect(withPolicy(page)).toBe(page);
  });

  it("admits members (guests too) to `member` operations, owners and admins to `owner` ones, and roles by the lattice", () => {
    expect(allows("member", "member")).toBe(true);
    expect(allows("member", "read")).toBe(true);
    expect(allows("member", null)).toBe(false);
    expect(allows("owner", "owner")).toBe(true);
    expect(allows("owner", "admin")).toBe(true);
    expect(allows("owner", "edit")).toBe(false);
    expect(allows("read", "member")).toBe(false);
    expect(allows("edit", "review")).toBe(true);
    expect(allows("review", "edit")).toBe(false);
    expect(allows("admin", "owner")).toBe(false);
  });
});
