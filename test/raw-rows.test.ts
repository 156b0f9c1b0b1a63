// The raw-SQL reads of the hottest loaders (src/core/loaders.ts `rawRows`) give the very row
// objects Prisma's model queries give: same keys, same types (dates, JSON, arrays, nulls), on the
// database under test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRows, rawSpacePages } from "../src/core/loaders.ts";
import { paginate } from "../src/core/pagination.ts";
import type { Database } from "../src/db/client.ts";
import { openTestDatabase } from "./support/database.ts";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
  const prisma = db.prisma;
  await prisma.user.createMany({ data: [{ id: "usr_a", email: "a@example.com", displayName: "A" }] });
  await prisma.organization.createMany({
    data: [
      { id: "org_a", title: "Plain" },
      {
        id: "org_b",
        title: "Full",
        hostname: "docs.example.com",
        useCase: "docs",
        communityType: "oss",
        defaultRole: "read",
        sso: true,
        emailDomains: ["example.com", "example.org"],
        logo: "https://example.com/logo.png",
        mergeRules: { type: "rules", rules: { requireApproval: true, nested: [1, "two", null] } },
        createdAt: new Date("2026-01-02T03:04:05.678Z"),
      },
    ],
  });
  await prisma.member.createMany({
    data: [
      { organizationId: "org_a", userId: "usr_a", role: "admin" },
      { organizationId: "org_b", userId: "usr_a", role: null, disabled: true, lastSeenAt: new Date("2026-02-03T00:00:00.001Z") },
    ],
  });
  await prisma.collection.createMany({
    data: [
      { id: "col_a", organizationId: "org_a", title: "Top", sortKey: "a0" },
      { id: "col_b", organizationId: "org_a", parentId: "col_a", title: "Inner", description: "d", defaultLevel: "edit", sortKey: "a1" },
    ],
  });
  await prisma.$transaction([
    prisma.space.createMany({
      data: [
        { id: "spc_a", organizationId: "org_a", title: "A", sortKey: "a0", revisionId: "rev_a" },
        {
          id: "spc_b",
          organizationId: "org_a",
          parentId: "col_b",
          title: "B",
          emoji: "1f600",
          visibility: "public",
          defaultLevel: "comment",
          sortKey: "a1",
          revisionId: "rev_b",
          deletedAt: new Date("2026-03-04T05:06:07.089Z"),
          changeRequestNumber: 7,
          mergeRules: { type: "none" },
        },
      ],
    }),
    prisma.revision.createMany({
      data: [
        { id: "rev_a", spaceId: "spc_a" },
        { id: "rev_b", spaceId: "spc_b" },
      ],
    }),
  ]);
});
afterAll(() => db?.close());

const byKey = <T>(rows: T[], key: (row: T) => string) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));

describe("raw rows of the hottest loaders", () => {
  it("organizations equal findMany's, with the viewer's membership", async () => {
    const ids = ["org_a", "org_b", "org_missing"];
    for (const userId of ["usr_a", "usr_none", null]) {
      const raw = await rawRows.organizations(db.prisma, ids, userId);
      expect(raw).toHaveLength(2);
      expect(byKey(raw, (r) => r.organization.id).map((r) => r.organization)).toStrictEqual(
        await db.prisma.organization.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } }),
      );
      // With the viewer's membership of each (org_b's is disabled, with a lastSeenAt).
      for (const { organization, membership } of raw) {
        expect(membership).toStrictEqual(
          userId
            ? await db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: organization.id, userId } } })
            : null,
        );
      }
    }
  });

  it("collections equal findMany's", async () => {
    const ids = ["col_a", "col_b"];
    expect(byKey(await rawRows.collections(db.prisma, ids), (r) => r.id)).toStrictEqual(
      await db.prisma.collection.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } }),
    );
  });

  it("spaces equal findMany's", async () => {
    const ids = ["spc_a", "spc_b"];
    expect(byKey(await rawRows.spaces(db.prisma, ids), (r) => r.id)).toStrictEqual(
      await db.prisma.space.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } }),
    );
  });

  it("pages of spaces equal the model's findMany and count, for every filter lists pass, cursors included", async () => {
    // More spaces, two with the same createdAt (the id breaks the tie), one deleted.
    const at = new Date("2026-05-06T07:08:09.123Z");
    await db.prisma.$transaction([
      db.prisma.space.createMany({
        data: ["c", "d", "e", "f"].map((x, i) => ({
          id: `spc_${x}`,
          organizationId: "org_a",
          parentId: i % 2 ? "col_a" : null,
          title: x,
          sortKey: `b${x}`,
          revisionId: `rev_${x}`,
          createdAt: i < 2 ? at : new Date(at.getTime() + i),
          deletedAt: x === "f" ? at : null,
        })),
      }),
      db.prisma.revision.createMany({ data: ["c", "d", "e", "f"].map((x) => ({ id: `rev_${x}`, spaceId: `spc_${x}` })) }),
    ]);
    const filters = [
      {},
      { id: { in: [] as string[] } },
      { OR: [{ id: { in: ["spc_a", "spc_e"] } }, { parentId: { in: ["col_a"] } }] },
      { OR: [{ id: { in: [] as string[] } }, { parentId: { in: [] as string[] } }] },
    ];
    let compared = 0;
    for (const readable of filters) {
      for (const [sortField, sortKind] of [
        ["createdAt", "date"],
        ["sortKey", "text"],
      ] as const) {
        const where = { organizationId: "org_a", deletedAt: null, AND: [readable] };
        for (const first of [1, 2, 10]) {
          let after: string | undefined;
          for (let page = 0; page < 10; page++) {
            const args = { first, after };
            const raw = await paginate(args, { rows: rawSpacePages(db.prisma), sortField, sortKind, where });
            const model = await paginate(args, { rows: db.prisma.space, sortField, sortKind, where });
            expect(raw.items).toStrictEqual(model.items);
            expect([raw.totalCount, raw.hasNextPage]).toEqual([model.totalCount, model.hasNextPage]);
            compared += raw.items.length;
            if (!raw.hasNextPage) break;
            after = raw.cursorOf(raw.items[raw.items.length - 1]);
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
    // With the items' counters and parents read in the same statement: the same page.
    const primed = new Map<string, unknown>();
    const parents = { prime: (id: string, collection: unknown) => primed.set(id, collection) };
    const where = { organizationId: "org_a", deletedAt: null, AND: [{}] };
    const source = rawSpacePages(db.prisma, { counters: true, parents: parents as never });
    const page = await paginate({ first: 10 }, { rows: source, sortField: "createdAt", sortKind: "date", where });
    expect(page.items).toStrictEqual(
      (await paginate({ first: 10 }, { rows: db.prisma.space, sortField: "createdAt", sortKind: "date", where })).items,
    );
    expect(page.items.map((item) => source.countersOf.get(item))).toStrictEqual(
      page.items.map(() => ({ changeRequests: {}, openComments: 0 })),
    );
    expect([...primed.keys()].sort()).toEqual(["col_a"]);
    expect(primed.get("col_a")).toStrictEqual(await db.prisma.collection.findUnique({ where: { id: "col_a" } }));
    // An empty page still has its count.
    const empty = await paginate(
      { first: 10 },
      {
        rows: rawSpacePages(db.prisma, { counters: true }),
        sortField: "createdAt",
        sortKind: "date",
        where: { organizationId: "org_none" },
      },
    );
    expect([empty.items, empty.totalCount, empty.hasNextPage]).toEqual([[], 0, false]);
    // A filter of another shape is refused, not read another way.
    await expect(rawSpacePages(db.prisma).count({ where: { title: { contains: "a" } } })).rejects.toThrow(
      /unsupported condition title.contains/,
    );
  });

  it("space views: the space, organization, viewer's membership, collection chain, grants reaching the viewer and counters, as the model queries give them", async () => {
    const prisma = db.prisma;
    await prisma.user.createMany({ data: [{ id: "usr_b", email: "b@example.com", displayName: "B" }] });
    await prisma.team.create({ data: { id: "tea_a", organizationId: "org_a", title: "T" } });
    await prisma.teamMember.create({ data: { teamId: "tea_a", userId: "usr_a" } });
    await prisma.permissionGrant.createMany({
      data: [
        { id: "grt_1", organizationId: "org_a", spaceId: "spc_b", userId: "usr_a", role: "edit" },
        { id: "grt_2", organizationId: "org_a", collectionId: "col_a", teamId: "tea_a", role: "review" },
        { id: "grt_3", organizationId: "org_a", collectionId: "col_b", userId: "usr_b", role: "read" },
        {
          id: "grt_4",
          organizationId: "org_a",
          spaceId: "spc_a",
          userId: "usr_a",
          role: "comment",
          createdAt: new Date("2026-04-05T06:07:08.9Z"),
        },
      ],
    });
    await prisma.changeRequest.createMany({
      data: [
        { id: "crq_1", spaceId: "spc_b", number: 1, status: "open", revisionId: "rev_b", revisionInitialId: "rev_b", createdById: "usr_a" },
        {
          id: "crq_2",
          spaceId: "spc_b",
          number: 2,
          status: "draft",
          revisionId: "rev_b",
          revisionInitialId: "rev_b",
          createdById: "usr_a",
        },
        { id: "crq_3", spaceId: "spc_b", number: 3, status: "open", revisionId: "rev_b", revisionInitialId: "rev_b", createdById: "usr_a" },
      ],
    });
    const expected = async (id: string, userId: string | null) => {
      const space = await prisma.space.findUniqueOrThrow({ where: { id } });
      const chain = [];
      for (let parentId = space.parentId; parentId; ) {
        const collection = await prisma.collection.findUniqueOrThrow({ where: { id: parentId } });
        chain.push(collection);
        parentId = collection.parentId;
      }
      const teamIds = (await prisma.teamMember.findMany({ where: { userId: userId ?? "" } })).map((row) => row.teamId);
      const grants = userId
        ? await prisma.permissionGrant.findMany({
            where: {
              OR: [{ spaceId: id }, { collectionId: { in: chain.map((c) => c.id) } }],
              AND: [{ OR: [{ userId }, { teamId: { in: teamIds } }] }],
            },
            orderBy: { id: "asc" },
          })
        : [];
      const statuses = await prisma.changeRequest.groupBy({ by: ["status"], where: { spaceId: id }, _count: { _all: true } });
      return {
        space,
        organization: await prisma.organization.findUnique({ where: { id: space.organizationId } }),
        membership: userId
          ? await prisma.member.findUnique({ where: { organizationId_userId: { organizationId: space.organizationId, userId } } })
          : null,
        chain,
        grants,
        counters: {
          changeRequests: Object.fromEntries(statuses.map((row) => [row.status, row._count._all])),
          openComments: await prisma.comment.count({ where: { spaceId: id, changeRequestId: null, parentId: null, status: "open" } }),
        },
      };
    };
    for (const userId of ["usr_a", "usr_b", "usr_none", null]) {
      const views = await rawRows.spaceViews(prisma, ["spc_a", "spc_b", "spc_missing"], userId, { counters: true });
      expect(views.map((view) => view.space.id).sort()).toEqual(["spc_a", "spc_b"]);
      for (const view of views) {
        expect({ ...view, grants: byKey(view.grants, (g) => g.id) }).toStrictEqual(await expected(view.space.id, userId));
      }
      const [plain] = await rawRows.spaceViews(prisma, ["spc_b"], userId);
      expect(plain).not.toHaveProperty("counters");
    }
  });

  it("a user's memberships equal findMany's", async () => {
    expect(byKey(await rawRows.membershipsOfUser(db.prisma, "usr_a"), (r) => r.organizationId)).toStrictEqual(
      await db.prisma.member.findMany({ where: { userId: "usr_a" }, orderBy: { organizationId: "asc" } }),
    );
    expect(await rawRows.membershipsOfUser(db.prisma, "usr_none")).toStrictEqual([]);
  });
});
