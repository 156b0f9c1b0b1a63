// The permission checks that answer without a promise (`roleOnSpaceNow`, `roleOnCollectionNow`,
// `rolesOnSpacesNow`, `membershipNow` in src/core/auth/access.ts) agree with their async twins:
// whatever the request has loaded so far, a synchronous answer is either "not yet" (undefined)
// or exactly the role the async check gives. Checked for every member role of the permission
// matrix, a guest, a disabled member and a non-member, on a tree with inherited levels and grants,
// in any order of loads (fast-check). On the database under test.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Access } from "../src/core/auth/access.ts";
import type { Role } from "../src/core/auth/roles.ts";
import { createRevisionCache } from "../src/core/content/cache.ts";
import { createLoaders } from "../src/core/loaders.ts";
import type { Database } from "../src/db/client.ts";
import type { Collection, Space } from "../src/generated/prisma/client.ts";
import { openTestDatabase } from "./support/database.ts";

const ORG = "org_now";
/** User id → membership (role, or null for a guest; "disabled"; absent: no member). */
const MEMBERS: Record<string, Role | null | "disabled"> = {
  usr_admin: "admin",
  usr_create: "create",
  usr_review: "review",
  usr_edit: "edit",
  usr_comment: "comment",
  usr_read: "read",
  usr_guest: null,
  usr_disabled: "disabled",
};
const USERS = [...Object.keys(MEMBERS), "usr_outsider"];

let db: Database;
let spaces: Space[];
let collections: Collection[];

beforeAll(async () => {
  db = await openTestDatabase();
  const prisma = db.prisma;
  await prisma.user.createMany({ data: USERS.map((id) => ({ id, email: `${id}@example.com`, displayName: id })) });
  await prisma.organization.createMany({ data: [{ id: ORG, title: "Now" }] });
  await prisma.member.createMany({
    data: Object.entries(MEMBERS).map(([userId, role]) => ({
      organizationId: ORG,
      userId,
      role: role === "disabled" ? "edit" : role,
      disabled: role === "disabled",
    })),
  });
  // col_1 > col_2 (comment by default) > col_3; spaces at the root and at each level.
  await prisma.collection.createMany({
    data: [
      { id: "col_1", organizationId: ORG, title: "1", sortKey: "a0" },
      { id: "col_2", organizationId: ORG, parentId: "col_1", title: "2", defaultLevel: "comment", sortKey: "a1" },
      { id: "col_3", organizationId: ORG, parentId: "col_2", title: "3", sortKey: "a2" },
    ],
  });
  const spaceRows = [
    { id: "spc_root", organizationId: ORG, title: "root", sortKey: "a0" },
    { id: "spc_1", organizationId: ORG, parentId: "col_1", title: "1", defaultLevel: "read", sortKey: "a1" },
    { id: "spc_2", organizationId: ORG, parentId: "col_2", title: "2", defaultLevel: "edit", sortKey: "a2" },
    { id: "spc_3", organizationId: ORG, parentId: "col_3", title: "3", sortKey: "a3" },
  ];
  // A space and its first revision name each other: written together.
  await prisma.$transaction([
    prisma.space.createMany({ data: spaceRows.map((space) => ({ ...space, revisionId: `rev_${space.id}` })) }),
    prisma.revision.createMany({ data: spaceRows.map((space) => ({ id: `rev_${space.id}`, spaceId: space.id })) }),
  ]);
  await prisma.permissionGrant.createMany({
    data: [
      { id: "grt_1", organizationId: ORG, collectionId: "col_1", userId: "usr_read", role: "edit" },
      { id: "grt_2", organizationId: ORG, spaceId: "spc_3", userId: "usr_comment", role: "admin" },
      { id: "grt_3", organizationId: ORG, collectionId: "col_2", userId: "usr_guest", role: "review" },
      { id: "grt_4", organizationId: ORG, spaceId: "spc_1", userId: "usr_outsider", role: "edit" },
      { id: "grt_5", organizationId: ORG, collectionId: "col_3", userId: "usr_disabled", role: "admin" },
    ],
  });
  spaces = await prisma.space.findMany({ where: { organizationId: ORG }, orderBy: { id: "asc" } });
  collections = await prisma.collection.findMany({ where: { organizationId: ORG }, orderBy: { id: "asc" } });
});
afterAll(() => db?.close());

const accessOf = (userId: string) => {
  const loaders = createLoaders({ prisma: db.prisma, revisions: createRevisionCache() }, userId);
  return { access: new Access(loaders), loaders };
};

/** The async answers, on a fresh request of `userId`. */
async function asyncRoles(userId: string) {
  const { access } = accessOf(userId);
  return {
    spaces: await Promise.all(spaces.map((space) => access.roleOnSpace(space))),
    collections: await Promise.all(collections.map((collection) => access.roleOnCollection(collection))),
  };
}

describe("permission checks without a promise", () => {
  it("give the roles written by hand for this tree (the async checks, and the synchronous ones once loaded)", async () => {
    // spaces in id order: spc_1 (col_1, read), spc_2 (col_2, edit), spc_3 (col_3), spc_root
    // A default level replaces the member's role beneath it (nearest wins); grants add to it.
    const expected: Record<string, (Role | null)[]> = {
      usr_admin: ["admin", "admin", "admin", "admin"],
      usr_create: ["read", "edit", "comment", "create"],
      usr_review: ["read", "edit", "comment", "review"],
      usr_edit: ["read", "edit", "comment", "edit"],
      usr_comment: ["read", "edit", "admin", "comment"],
      usr_read: ["edit", "edit", "edit", "read"],
      usr_guest: [null, "review", "review", null],
      usr_disabled: [null, null, null, null],
      usr_outsider: [null, null, null, null],
    };
    for (const [userId, roles] of Object.entries(expected)) {
      expect({ userId, roles: (await asyncRoles(userId)).spaces }).toStrictEqual({ userId, roles });
      const { access } = accessOf(userId);
      await access.rolesOnSpaces(spaces);
      expect({ userId, roles: access.rolesOnSpacesNow(spaces) }).toStrictEqual({ userId, roles });
    }
  });

  it("answer, for every user and any order of loads, either not yet or what the async check answers", async () => {
    const want = new Map<string, Awaited<ReturnType<typeof asyncRoles>>>();
    for (const userId of USERS) want.set(userId, await asyncRoles(userId));
    const step = fc.oneof(
      fc.constant({ kind: "membership" as const, index: 0 }),
      fc.nat({ max: 2 }).map((index) => ({ kind: "collection" as const, index })),
      fc.nat({ max: 6 }).map((index) => ({ kind: "grants" as const, index })),
      fc.nat({ max: 3 }).map((index) => ({ kind: "space" as const, index })),
      fc.nat({ max: 2 }).map((index) => ({ kind: "onCollection" as const, index })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...USERS), fc.array(step, { maxLength: 8 }), async (userId, steps) => {
        const { access, loaders } = accessOf(userId);
        const ids = [...collections.map((c) => c.id), ...spaces.map((s) => s.id)];
        const check = () => {
          const expected = want.get(userId)!;
          spaces.forEach((space, index) => {
            const now = access.roleOnSpaceNow(space);
            if (now !== undefined) expect(now).toBe(expected.spaces[index]);
          });
          collections.forEach((collection, index) => {
            const now = access.roleOnCollectionNow(collection);
            if (now !== undefined) expect(now).toBe(expected.collections[index]);
          });
          const all = access.rolesOnSpacesNow(spaces);
          if (all !== undefined) expect(all).toStrictEqual(expected.spaces);
        };
        for (const { kind, index } of steps) {
          check();
          if (kind === "membership") await access.membership(ORG);
          else if (kind === "collection") await loaders.collection.load(collections[index].id);
          else if (kind === "grants") await loaders.viewerGrants.load(ids[index]);
          else if (kind === "space") expect(await access.roleOnSpace(spaces[index])).toBe(want.get(userId)!.spaces[index]);
          else expect(await access.roleOnCollection(collections[index])).toBe(want.get(userId)!.collections[index]);
        }
        check();
        // Once every check has been asked with a promise, every synchronous one answers.
        await access.rolesOnSpaces(spaces);
        await Promise.all(collections.map((collection) => access.roleOnCollection(collection)));
        expect(access.rolesOnSpacesNow(spaces)).toStrictEqual(want.get(userId)!.spaces);
        expect(collections.map((collection) => access.roleOnCollectionNow(collection))).toStrictEqual(want.get(userId)!.collections);
      }),
      { numRuns: 60 },
    );
  });
});
