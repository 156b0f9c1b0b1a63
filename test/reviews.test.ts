// Reviews of change requests, requested reviewers, contributors, changes and merge rules, through
// the official client (every response validated against the published schemas) and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeRequestReviewStatus } from "@gitbook/api";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;
let admin: { organizationId: string; userId: string; token: string };
let other: { organizationId: string; userId: string; token: string };
let author: { userId: string; token: string };
let reviewer: { userId: string; token: string };
let secondReviewer: { userId: string; token: string };
let editor: { userId: string; token: string };

const api = (token: string) => server.client(token);
const prisma = () => server.database.prisma;
const status = (value: string) => value as ChangeRequestReviewStatus;
let counter = 0;

const CREATE_PAGE = /* GraphQL */ `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;
const UPDATE_PAGE = /* GraphQL */ `mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`;
const DELETE_PAGE = /* GraphQL */ `mutation($input: DeletePageInput!) { deletePage(input: $input) { revision { id } } }`;
const MOVE_PAGE = /* GraphQL */ `mutation($input: MovePageInput!) { movePage(input: $input) { page { id } } }`;

async function createPage(token: string, input: Record<string, unknown>): Promise<string> {
  return (await graphqlData(server, token, CREATE_PAGE, { input })).createPage.page.id;
}

/** A space with three pages (b under a), and a change request on it opened by `author`. */
async function setup() {
  const { data: space } = await api(admin.token).orgs.createSpace(admin.organizationId, { title: `Reviewed ${++counter}` });
  const a = await createPage(admin.token, { space: space.id, title: "A", markdown: "# A" });
  const b = await createPage(admin.token, { space: space.id, title: "B", parent: a, markdown: "# B" });
  const c = await createPage(admin.token, { space: space.id, title: "C", markdown: "# C" });
  const { data: changeRequest } = await api(author.token).spaces.createChangeRequest(space.id, { subject: "Proposal" });
  return { space, changeRequest, pages: { a, b, c } };
}

const rules = (value: unknown) => value as never;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("Reviews");
  other = await server.bootstrap("Elsewhere");
  author = await server.addMember(admin.organizationId, "edit");
  reviewer = await server.addMember(admin.organizationId, "review");
  secondReviewer = await server.addMember(admin.organizationId, "review");
  editor = await server.addMember(admin.organizationId, "edit");
});

afterAll(async () => {
  await server?.close();
});

describe("merge rules", () => {
  it("one required approval: refused until a reviewer approves, and again once a new edit makes the approval outdated", async () => {
    const { space, changeRequest, pages } = await setup();
    const { data: patched } = await api(admin.token).spaces.updateSpaceById(space.id, {
      mergeRules: rules({ type: "rules", rules: [{ rule: "require_at_least_one_approved_review" }] }),
    });
    expect(patched.mergeRules).toEqual({ type: "rules", rules: [{ rule: "require_at_least_one_approved_review" }] });
    await graphqlData(server, author.token, UPDATE_PAGE, {
      input: { space: space.id, changeRequest: changeRequest.id, page: pages.a, title: "A, reviewed" },
    });

    await expectRestError(api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, "at least one current approval");
    const { data: review } = await api(reviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, {
      status: status("approved"),
    });
    expect(review).toMatchObject({
      object: "change-request-review",
      status: "approved",
      outdated: false,
      reviewer: { id: reviewer.userId },
    });

    // A new edit: the approval is of an older revision, and the merge is refused again.
    await graphqlData(server, author.token, UPDATE_PAGE, {
      input: { space: space.id, changeRequest: changeRequest.id, page: pages.c, title: "C, later" },
    });
    const { data: afterEdit } = await api(reviewer.token).spaces.getChangeRequestReviewById(space.id, changeRequest.id, review.id);
    expect(afterEdit.outdated).toBe(true);
    const head = (await prisma().space.findUniqueOrThrow({ where: { id: space.id } })).revisionId;
    await expectRestError(api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, "at least one current approval");
    expect((await prisma().space.findUniqueOrThrow({ where: { id: space.id } })).revisionId).toBe(head);

    const { data: current } = await api(secondReviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, {
      status: status("approved"),
    });
    const { data: outdated } = await api(admin.token).spaces.getReviewsByChangeRequestId(space.id, changeRequest.id, { outdated: true });
    expect(outdated.items.map((item) => item.id)).toEqual([review.id]);
    const { data: notOutdated } = await api(admin.token).spaces.getReviewsByChangeRequestId(space.id, changeRequest.id, {
      outdated: false,
    });
    expect(notOutdated.items.map((item) => item.id)).toEqual([current.id]);
    const { data: merged } = await api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id);
    expect(merged.result).toBe("merge");
  });

  it("inherits the organization's rules; specific reviewers, subject, up to date; allow_bypass lets the listed users merge anyway", async () => {
    const { space, changeRequest, pages } = await setup();
    await api(admin.token).orgs.updateOrganizationById(admin.organizationId, {
      mergeRules: rules({
        type: "rules",
        rules: [
          { rule: "require_specific_reviewers", users: [secondReviewer.userId] },
          { rule: "require_up_to_date_change_request" },
          { rule: "allow_bypass", users: [admin.userId] },
        ],
      }),
    });
    try {
      expect((await api(admin.token).spaces.getSpaceById(space.id)).data.mergeRules).toEqual({ type: "inherit" });
      await graphqlData(server, author.token, UPDATE_PAGE, {
        input: { space: space.id, changeRequest: changeRequest.id, page: pages.b, markdown: "# B\n\nMore." },
      });
      await api(reviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("approved") });
      await expectRestError(api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, secondReviewer.userId);
      await api(secondReviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("changes-requested") });
      await expectRestError(api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, secondReviewer.userId);
      await api(secondReviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("approved") });
      // The space moves on: the change request is no longer up to date.
      await graphqlData(server, admin.token, UPDATE_PAGE, { input: { space: space.id, page: pages.c, title: "C, live" } });
      await expectRestError(api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, "updated");
      // The admin is listed in allow_bypass.
      const { data } = await api(admin.token).spaces.mergeChangeRequest(space.id, changeRequest.id);
      expect(data.result).toBe("merge");
    } finally {
      await api(admin.token).orgs.updateOrganizationById(admin.organizationId, { mergeRules: rules({ type: "none" }) });
    }
  });

  it("a space's own rules win over the organization's; bad configurations are 400 and change nothing", async () => {
    const { space, changeRequest } = await setup();
    await api(admin.token).spaces.updateSpaceById(space.id, {
      mergeRules: rules({ type: "rules", rules: [{ rule: "require_author_to_merge" }] }),
    });
    await expectRestError(api(admin.token).spaces.mergeChangeRequest(space.id, changeRequest.id), 409, "author");
    await api(admin.token).spaces.updateSpaceById(space.id, { mergeRules: rules({ type: "none" }) });
    await api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id);

    const before = await prisma().space.findUniqueOrThrow({ where: { id: space.id } });
    const org = await prisma().organization.findUniqueOrThrow({ where: { id: admin.organizationId } });
    await expectRestError(
      api(admin.token).spaces.updateSpaceById(space.id, { mergeRules: rules({ type: "sometimes" }) }),
      400,
      "mergeRules.type",
    );
    await expectRestError(
      api(admin.token).spaces.updateSpaceById(space.id, {
        mergeRules: rules({ type: "rules", rules: [{ rule: "custom", expression: "true" }] }),
      }),
      400,
      "not supported",
    );
    await expectRestError(
      api(admin.token).spaces.updateSpaceById(space.id, { mergeRules: rules({ type: "rules", rules: [{ rule: "allow_bypass" }] }) }),
      400,
      "mergeRules.rules[0].users",
    );
    await expectRestError(
      api(admin.token).orgs.updateOrganizationById(admin.organizationId, { mergeRules: rules({ type: "inherit" }) }),
      400,
      "mergeRules.type",
    );
    await expectRestError(api(editor.token).spaces.updateSpaceById(space.id, { mergeRules: rules({ type: "none" }) }), 403);
    expect(await prisma().space.findUniqueOrThrow({ where: { id: space.id } })).toEqual(before);
    expect(await prisma().organization.findUniqueOrThrow({ where: { id: admin.organizationId } })).toEqual(org);
  });
});

describe("reviews and requested reviewers", () => {
  it("asks reviewers, lists them, and a review names who asked; withdrawing answers 205 then 204", async () => {
    const { space, changeRequest } = await setup();
    const { data: asked } = await api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, {
      users: [reviewer.userId, secondReviewer.userId],
      subject: "Please review",
    });
    expect(asked.users?.map((user) => user.kind === "user" && user.user.id).sort()).toEqual(
      [reviewer.userId, secondReviewer.userId].sort(),
    );
    expect((await api(author.token).spaces.getChangeRequestById(space.id, changeRequest.id)).data.subject).toBe("Please review");
    const { data: listed } = await api(reviewer.token).spaces.getRequestedReviewersByChangeRequestId(space.id, changeRequest.id);
    expect(listed.count).toBe(2);
    expect(listed.items[0]).toMatchObject({
      object: "change-request-requested-reviewer",
      requestedBy: { id: author.userId },
      revision: changeRequest.revision,
    });

    const { data: review } = await api(reviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, {
      status: status("changes-requested"),
      comment: { markdown: "Needs an example." } as never,
    });
    expect(review.requestedBy?.id).toBe(author.userId);
    expect(review.comment).toMatchObject({ object: "comment", body: { markdown: "Needs an example." }, postedBy: { id: reviewer.userId } });

    expect(
      (await api(author.token).spaces.removeRequestedReviewerFromChangeRequest(space.id, changeRequest.id, secondReviewer.userId)).status,
    ).toBe(205);
    expect(
      (await api(author.token).spaces.removeRequestedReviewerFromChangeRequest(space.id, changeRequest.id, secondReviewer.userId)).status,
    ).toBe(204);
    const data = await graphqlData(
      server,
      reviewer.token,
      `query($space: ID!, $cr: ID!) { space(id: $space) { changeRequest(id: $cr) {
        requestedReviewers { nodes { user { id } } }
        reviews { totalCount nodes { status outdated reviewer { id } comment { id } } }
      } } }`,
      { space: space.id, cr: changeRequest.number.toString() },
    );
    expect(data.space.changeRequest.requestedReviewers.nodes).toEqual([{ user: { id: reviewer.userId } }]);
    expect(data.space.changeRequest.reviews.nodes).toEqual([
      { status: "CHANGES_REQUESTED", outdated: false, reviewer: { id: reviewer.userId }, comment: { id: review.comment!.id } },
    ]);
  });

  it("refuses your own change request, a reviewer who cannot review, an unknown user, a bad status: 4xx and nothing changes", async () => {
    const { space, changeRequest } = await setup();
    const reader = await server.addMember(admin.organizationId, "read");
    const snapshot = async () => ({
      reviews: await prisma().changeRequestReview.findMany({ orderBy: { id: "asc" } }),
      requests: await prisma().changeRequestReviewer.findMany({ orderBy: { userId: "asc" } }),
      comments: await prisma().comment.count(),
      changeRequest: await prisma().changeRequest.findUniqueOrThrow({ where: { id: changeRequest.id } }),
    });
    const before = await snapshot();
    await expectRestError(
      api(author.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("approved") }),
      403,
      "your own",
    );
    await expectRestError(
      api(editor.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("approved") }),
      403,
      "review",
    );
    await expectRestError(
      api(reviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("maybe") }),
      400,
      "status",
    );
    await expectRawRestError(
      server,
      reviewer.token,
      "POST",
      `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/reviews`,
      {},
      400,
      "status",
    );
    await expectRawRestError(
      server,
      reviewer.token,
      "POST",
      `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/reviews`,
      { status: "approved", comment: "plain" },
      400,
      "comment",
    );
    await expectRestError(
      api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, {
        users: [reviewer.userId, reader.userId],
        subject: "Changed?",
      }),
      400,
      reader.userId,
    );
    await expectRestError(
      api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, { users: ["usr_nobody"] }),
      400,
      "usr_nobody",
    );
    await expectRestError(
      api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, { users: [other.userId] }),
      400,
      other.userId,
    );
    await expectRestError(
      api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, { users: [author.userId] }),
      400,
      "opened",
    );
    await expectRestError(
      api(author.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, { users: [] }),
      400,
      "users",
    );
    await expectRestError(
      api(reader.token).spaces.requestReviewersForChangeRequest(space.id, changeRequest.id, { users: [reviewer.userId] }),
      403,
    );
    await expectRestError(api(other.token).spaces.getReviewsByChangeRequestId(space.id, changeRequest.id), 404);
    await expectRestError(api(reviewer.token).spaces.getChangeRequestReviewById(space.id, changeRequest.id, "rvw_unknown"), 404);
    expectGraphQLError(
      await server.graphql(
        author.token,
        `mutation($input: SubmitChangeRequestReviewInput!) { submitChangeRequestReview(input: $input) { review { id } } }`,
        {
          input: { space: space.id, changeRequest: changeRequest.id, status: "APPROVED" },
        },
      ),
      "FORBIDDEN",
    );
    expect(await snapshot()).toEqual(before);

    // A merged change request takes no more reviews (409).
    await api(reviewer.token).spaces.mergeChangeRequest(space.id, changeRequest.id);
    await expectRestError(
      api(reviewer.token).spaces.submitChangeRequestReview(space.id, changeRequest.id, { status: status("approved") }),
      409,
      "merged",
    );
  });
});

describe("contributors and changes", () => {
  it("changes lists exactly the pages the change request changed, not what the space did meanwhile", async () => {
    const { space, changeRequest, pages } = await setup();
    const cr = { space: space.id, changeRequest: changeRequest.id };
    const created = await createPage(author.token, { ...cr, title: "New page", markdown: "# New" });
    await graphqlData(server, author.token, UPDATE_PAGE, { input: { ...cr, page: pages.a, title: "A renamed" } });
    await graphqlData(server, editor.token, DELETE_PAGE, { input: { ...cr, page: pages.c } });
    await graphqlData(server, editor.token, MOVE_PAGE, { input: { ...cr, page: pages.b, parent: null } });
    // The space changes too, and the change request is updated from it: not the change request's change.
    await createPage(admin.token, { space: space.id, title: "Live page", markdown: "# Live" });
    await api(author.token).spaces.updateChangeRequest(space.id, changeRequest.id);

    const { data } = await api(reviewer.token).spaces.getChangeRequestChanges(space.id, changeRequest.id, { limit: 100 });
    const summary = data.changes.map((change) => ("page" in change ? `${change.type} ${change.page.title}` : change.type));
    expect(summary.sort()).toEqual(["page_created New page", "page_deleted C", "page_edited A renamed", "page_moved B"].sort());
    const edited = data.changes.find((change) => change.type === "page_edited");
    expect(edited).toMatchObject({
      page: { id: pages.a, type: "document", path: "a" },
      attributes: { title: { before: "A", after: "A renamed" } },
    });
    expect(edited && "attributes" in edited && Object.keys(edited.attributes)).toEqual(["title"]);
    const moved = data.changes.find((change) => change.type === "page_moved");
    expect(moved).toMatchObject({ page: { id: pages.b }, parent: { before: { id: pages.a } } });
    expect(moved && "parent" in moved && moved.parent.after).toBeUndefined();
    expect(data.changes.find((change) => change.type === "page_created")).toMatchObject({ page: { id: created } });
    expect(data.more).toBeUndefined();

    const { data: limited } = await api(reviewer.token).spaces.getChangeRequestChanges(space.id, changeRequest.id, { limit: 1 });
    expect(limited.changes).toHaveLength(1);
    expect(limited.more).toBe(3);
    await expectRawRestError(
      server,
      reviewer.token,
      "GET",
      `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/changes?limit=0`,
      undefined,
      400,
      "limit",
    );
  });

  it("contributors: who edited and who commented, with counts", async () => {
    const { space, changeRequest, pages } = await setup();
    const cr = { space: space.id, changeRequest: changeRequest.id };
    await graphqlData(server, author.token, UPDATE_PAGE, { input: { ...cr, page: pages.a, title: "A1" } });
    await graphqlData(server, author.token, UPDATE_PAGE, { input: { ...cr, page: pages.a, title: "A2" } });
    await graphqlData(server, editor.token, UPDATE_PAGE, { input: { ...cr, page: pages.c, title: "C1" } });
    server.clock.advance(60_000);
    await api(reviewer.token).spaces.postCommentInChangeRequest(space.id, changeRequest.id, { body: { markdown: "Looks good" } as never });
    const { data } = await api(reviewer.token).spaces.getContributorsByChangeRequestId(space.id, changeRequest.id);
    const byUser = Object.fromEntries(data.items.map((item) => [`${item.actionType}:${item.user.id}`, item.count]));
    expect(byUser).toEqual({ [`edit:${author.userId}`]: 2, [`edit:${editor.userId}`]: 1, [`comment:${reviewer.userId}`]: 1 });
    expect(data.items[0].actionType).toBe("comment");
  });
});
