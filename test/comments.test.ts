// Comments end to end, on both bases (the space itself and a change request): the whole flow
// through the official client (comment, reply, reactions, resolve, reopen, delete), counters,
// filters and pagination, who may edit and delete, refusals that write nothing, visibility across
// organizations and bases, what a comment shows of its page, GraphQL, and the SQL statements of
// a list. Every REST answer is validated against the published spec by the client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
type Caller = { userId: string; token: string };
let alice: Caller; // comment role
let bob: Caller; // comment role
let reader: Caller; // read role

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Comments A");
  B = await server.bootstrap("Comments B");
  alice = await server.addMember(A.organizationId, "comment");
  bob = await server.addMember(A.organizationId, "comment");
  reader = await server.addMember(A.organizationId, "read");
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const spaces = (token: string) => server.client(token).spaces;
const prisma = () => server.database.prisma;
const tick = () => server.clock.advance(1000);

const INTRO = "Welcome.\n\n## Setup\n\nInstall it.\n\n## Usage\n\nRun it.\n";

/** A space with two document pages. */
async function newSpace() {
  const created = await gql(A.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: A.organizationId, title: "Handbook" },
  });
  const space: string = created.createSpace.space.id;
  const page = async (title: string, markdown: string) =>
    (
      await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
        input: { space, title, markdown },
      })
    ).createPage.page.id as string;
  return { space, intro: await page("Intro", INTRO), guide: await page("Guide", "Read me.\n") };
}

async function newChangeRequest(space: string): Promise<{ id: string; number: number }> {
  return (await spaces(A.token).createChangeRequest(space, { subject: "Review me" })).data as never;
}

/** The comment operations of one base through the official client, as `token`. */
interface BaseApi {
  list(query?: Record<string, unknown>): Promise<any>;
  post(data: Record<string, unknown>): Promise<any>;
  get(comment: string, query?: Record<string, unknown>): Promise<any>;
  update(comment: string, data: Record<string, unknown>): Promise<any>;
  remove(comment: string): Promise<{ status: number }>;
  replies(comment: string, query?: Record<string, unknown>): Promise<any>;
  reply(comment: string, data: Record<string, unknown>): Promise<any>;
  getReply(comment: string, reply: string): Promise<any>;
  updateReply(comment: string, reply: string, data: Record<string, unknown>): Promise<any>;
  removeReply(comment: string, reply: string): Promise<{ status: number }>;
  commenters(query?: Record<string, unknown>): Promise<any>;
  /** The base's `comments` counter. */
  counter(): Promise<number>;
}

interface Base {
  kind: "space" | "change request";
  space: string;
  intro: string;
  guide: string;
  changeRequest?: string;
  /** The head revision comments are posted on. */
  head(): Promise<string>;
  as(token: string): BaseApi;
}

const data = async (call: Promise<{ data: unknown }>) => (await call).data as any;

function spaceBase(space: string, intro: string, guide: string): Base {
  return {
    kind: "space",
    space,
    intro,
    guide,
    head: async () => (await prisma().space.findUniqueOrThrow({ where: { id: space } })).revisionId,
    as: (token) => {
      const api = spaces(token);
      return {
        list: (query) => data(api.listCommentsInSpace(space, query as never)),
        post: (body) => data(api.postCommentInSpace(space, body as never)),
        get: (comment, query) => data(api.getCommentInSpace(space, comment, query as never)),
        update: (comment, body) => data(api.updateCommentInSpace(space, comment, body as never)),
        remove: (comment) => api.deleteCommentInSpace(space, comment),
        replies: (comment, query) => data(api.listCommentRepliesInSpace(space, comment, query as never)),
        reply: (comment, body) => data(api.postCommentReplyInSpace(space, comment, body as never)),
        getReply: (comment, reply) => data(api.getCommentReplyInSpace(space, comment, reply)),
        updateReply: (comment, reply, body) => data(api.updateCommentReplyInSpace(space, comment, reply, body as never)),
        removeReply: (comment, reply) => api.deleteCommentReplyInSpace(space, comment, reply),
        commenters: (query) => data(api.listCommentersInSpace(space, query as never)),
        counter: async () => (await api.getSpaceById(space)).data.comments,
      };
    },
  };
}

function changeRequestBase(space: string, intro: string, guide: string, changeRequest: string): Base {
  return {
    kind: "change request",
    space,
    intro,
    guide,
    changeRequest,
    head: async () => (await prisma().changeRequest.findUniqueOrThrow({ where: { id: changeRequest } })).revisionId,
    as: (token) => {
      const api = spaces(token);
      const cr = changeRequest;
      return {
        list: (query) => data(api.listCommentsInChangeRequest(space, cr, query as never)),
        post: (body) => data(api.postCommentInChangeRequest(space, cr, body as never)),
        get: (comment, query) => data(api.getCommentInChangeRequest(space, cr, comment, query as never)),
        update: (comment, body) => data(api.updateCommentInChangeRequest(space, cr, comment, body as never)),
        remove: (comment) => api.deleteCommentInChangeRequest(space, cr, comment),
        replies: (comment, query) => data(api.listCommentRepliesInChangeRequest(space, cr, comment, query as never)),
        reply: (comment, body) => data(api.postCommentReplyInChangeRequest(space, cr, comment, body as never)),
        getReply: (comment, reply) => data(api.getCommentReplyInChangeRequest(space, cr, comment, reply)),
        updateReply: (comment, reply, body) => data(api.updateCommentReplyInChangeRequest(space, cr, comment, reply, body as never)),
        removeReply: (comment, reply) => api.deleteCommentReplyInChangeRequest(space, cr, comment, reply),
        commenters: (query) => data(api.listCommentersInChangeRequest(space, cr, query as never)),
        counter: async () => (await api.getChangeRequestById(space, cr)).data.comments,
      };
    },
  };
}

const BASES: [string, () => Promise<Base>][] = [
  [
    "space",
    async () => {
      const { space, intro, guide } = await newSpace();
      return spaceBase(space, intro, guide);
    },
  ],
  [
    "change request",
    async () => {
      const { space, intro, guide } = await newSpace();
      return changeRequestBase(space, intro, guide, (await newChangeRequest(space)).id);
    },
  ],
];

/** Every comment row (comments and replies) and reaction of a space: must not move when a call is refused. */
async function rowsOf(space: string) {
  const comments = await prisma().comment.findMany({ where: { spaceId: space }, orderBy: { id: "asc" } });
  const reactions = await prisma().commentReaction.findMany({
    where: { commentId: { in: comments.map((c) => c.id) } },
    orderBy: [{ commentId: "asc" }, { emoji: "asc" }],
  });
  return { comments, reactions };
}

const md = (markdown: string) => ({ body: { markdown } });

// ---------------------------------------------------------------------------------------------
// The flow, on both bases
// ---------------------------------------------------------------------------------------------

describe.each(BASES)("on the %s", (_label, makeBase) => {
  let base: Base;

  beforeAll(async () => {
    base = await makeBase();
  });

  it("comments, replies, reacts (once per user and emoji), resolves, reopens and deletes", async () => {
    const asAlice = base.as(alice.token);
    const asBob = base.as(bob.token);
    const head = await base.head();

    const comment = await asAlice.post({ ...md("Is this **right**?"), page: base.intro, node: "setup" });
    expect(comment).toMatchObject({
      object: "comment",
      postedBy: { object: "user", id: alice.userId },
      body: { markdown: "Is this **right**?" },
      status: "open",
      replies: 0,
      repliers: [],
      reactions: [],
      target: {
        space: base.space,
        revision: head,
        page: { id: base.intro, title: "Intro", path: "intro", outdated: false },
        node: { id: "setup", preview: "Setup" },
      },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(comment.id).toMatch(/^cmt_/);
    expect(comment.target.changeRequest).toBe(base.changeRequest);
    const location = base.changeRequest
      ? `${server.url}/v1/spaces/${base.space}/change-requests/${base.changeRequest}/comments/${comment.id}`
      : `${server.url}/v1/spaces/${base.space}/comments/${comment.id}`;
    expect(comment.urls.location).toBe(location);
    expect(comment.resolvedAt).toBeUndefined();
    expect(await base.as(A.token).counter()).toBe(1);

    // Bob sees it, but may not edit or delete it.
    expect((await asBob.get(comment.id)).permissions).toEqual({ view: true, edit: false, reply: true, delete: false });

    tick();
    const reply = await asBob.reply(comment.id, md("Yes."));
    expect(reply).toMatchObject({ object: "comment-reply", postedBy: { id: bob.userId }, body: { markdown: "Yes." }, reactions: [] });
    expect(reply.id).toMatch(/^rpl_/);
    expect(reply.urls.location).toBe(`${location}/replies/${reply.id}`);
    expect(await asAlice.getReply(comment.id, reply.id)).toMatchObject({ id: reply.id });
    const withReply = await asAlice.get(comment.id);
    expect(withReply.replies).toBe(1);
    expect(withReply.repliers).toEqual([{ user: expect.objectContaining({ id: bob.userId }), count: 1, updatedAt: reply.postedAt }]);
    expect((await asAlice.replies(comment.id)).items.map((r: any) => r.id)).toEqual([reply.id]);
    expect(await base.as(A.token).counter()).toBe(1); // replies are not counted

    // Alice reacts twice with the same emoji (and once more in one list): counted once.
    await asAlice.update(comment.id, { addedReactions: ["👍"] });
    await asAlice.update(comment.id, { addedReactions: ["👍", "👍"] });
    const once = await asAlice.get(comment.id);
    expect(once.reactions).toEqual([
      { emoji: "👍", count: 1, users: [{ user: expect.objectContaining({ id: alice.userId }), reactedAt: expect.any(String) }] },
    ]);

    // Bob reacts too: two users.
    tick();
    const twice = await asBob.update(comment.id, { addedReactions: ["👍"] });
    expect(twice.reactions).toHaveLength(1);
    expect(twice.reactions[0].count).toBe(2);
    expect(twice.reactions[0].users.map((u: any) => u.user.id)).toEqual([alice.userId, bob.userId]);

    // Alice takes hers back; taking back one she does not have changes nothing.
    const removed = await asAlice.update(comment.id, { removedReactions: ["👍"] });
    expect(removed.reactions).toEqual([
      { emoji: "👍", count: 1, users: [expect.objectContaining({ user: expect.objectContaining({ id: bob.userId }) })] },
    ]);
    expect((await asAlice.update(comment.id, { removedReactions: ["👍", "🎉"] })).reactions[0].count).toBe(1);

    // Replies take reactions too.
    const reactedReply = await asAlice.updateReply(comment.id, reply.id, { addedReactions: ["🎉"] });
    expect(reactedReply.reactions).toEqual([expect.objectContaining({ emoji: "🎉", count: 1 })]);

    // Resolve (by Bob, not the author), then reopen.
    tick();
    const resolved = await asBob.update(comment.id, { resolved: true });
    expect(resolved).toMatchObject({ status: "resolved", resolvedBy: { id: bob.userId }, resolvedAt: server.clock.now().toISOString() });
    expect(await base.as(A.token).counter()).toBe(0);
    const reopened = await asAlice.update(comment.id, { resolved: false });
    expect(reopened.status).toBe("open");
    expect(reopened.resolvedAt).toBeUndefined();
    expect(reopened.resolvedBy).toBeUndefined();
    expect(await base.as(A.token).counter()).toBe(1);

    // A reply resolves its comment on a change request only.
    if (base.changeRequest) {
      await asBob.updateReply(comment.id, reply.id, { resolved: true });
      expect(await asAlice.get(comment.id)).toMatchObject({ status: "resolved", resolvedBy: { id: bob.userId } });
      expect(await base.as(A.token).counter()).toBe(0);
      await asBob.updateReply(comment.id, reply.id, { resolved: false });
      expect((await asAlice.get(comment.id)).status).toBe("open");
    } else {
      await expectRestError(asBob.updateReply(comment.id, reply.id, { resolved: true } as never), 400, "resolved");
      expect((await asAlice.get(comment.id)).status).toBe("open");
    }

    // Editing the body sets editedAt.
    tick();
    const edited = await asAlice.update(comment.id, md("Is this right? (edited)"));
    expect(edited).toMatchObject({ body: { markdown: "Is this right? (edited)" }, editedAt: server.clock.now().toISOString() });
    const editedReply = await asBob.updateReply(comment.id, reply.id, md("Yes, it is."));
    expect(editedReply).toMatchObject({ body: { markdown: "Yes, it is." }, editedAt: server.clock.now().toISOString() });

    // Commenters: who posted a comment or reply here.
    const commenters = await asAlice.commenters();
    expect(commenters.items.map((m: any) => m.id).sort()).toEqual([alice.userId, bob.userId].sort());
    expect(commenters.items[0]).toMatchObject({ object: "member", role: "comment" });

    // Deleting a reply, then the comment with its replies and reactions.
    const second = await asBob.reply(comment.id, md("Also this."));
    expect((await asBob.removeReply(comment.id, second.id)).status).toBe(205);
    await expectRestError(asAlice.getReply(comment.id, second.id), 404);
    expect((await asAlice.get(comment.id)).replies).toBe(1);

    expect((await asAlice.remove(comment.id)).status).toBe(205);
    await expectRestError(asAlice.get(comment.id), 404);
    await expectRestError(asAlice.getReply(comment.id, reply.id), 404);
    expect(await rowsOf(base.space)).toEqual({ comments: [], reactions: [] });
    expect(await base.as(A.token).counter()).toBe(0);
    await expectRestError(asAlice.remove(comment.id), 404);
  });

  it("lets only the author or an admin edit and delete (403 for another commenter, nothing changed)", async () => {
    const comment = await base.as(alice.token).post(md("Mine."));
    const reply = await base.as(alice.token).reply(comment.id, md("Mine too."));
    const before = await rowsOf(base.space);

    await expectRestError(base.as(bob.token).update(comment.id, md("Bob's now.")), 403, "Only the author");
    await expectRestError(base.as(bob.token).remove(comment.id), 403, "Only the author");
    await expectRestError(base.as(bob.token).updateReply(comment.id, reply.id, md("Bob's now.")), 403, "Only the author");
    await expectRestError(base.as(bob.token).removeReply(comment.id, reply.id), 403, "Only the author");
    // Reacting in the same update does not slip through either.
    await expectRestError(base.as(bob.token).update(comment.id, { ...md("Bob's now."), addedReactions: ["👀"] }), 403);
    expect(await rowsOf(base.space)).toEqual(before);

    // The organization admin (admin of every space) may.
    expect((await base.as(A.token).get(comment.id)).permissions).toMatchObject({ edit: true, delete: true });
    expect((await base.as(A.token).update(comment.id, md("Moderated."))).body.markdown).toBe("Moderated.");
    expect((await base.as(A.token).updateReply(comment.id, reply.id, md("Moderated."))).body.markdown).toBe("Moderated.");
    expect((await base.as(A.token).removeReply(comment.id, reply.id)).status).toBe(205);
    expect((await base.as(A.token).remove(comment.id)).status).toBe(205);
  });

  it("refuses the read role to post, reply, react and resolve (403), writing nothing; it may read", async () => {
    const comment = await base.as(alice.token).post(md("Read this."));
    const before = await rowsOf(base.space);
    const asReader = base.as(reader.token);
    await expectRestError(asReader.post(md("Hello")), 403, "comment role");
    await expectRestError(asReader.reply(comment.id, md("Hello")), 403, "comment role");
    await expectRestError(asReader.update(comment.id, { addedReactions: ["👍"] }), 403, "comment role");
    await expectRestError(asReader.update(comment.id, { resolved: true }), 403, "comment role");
    await expectRestError(asReader.remove(comment.id), 403);
    expect(await rowsOf(base.space)).toEqual(before);
    expect((await asReader.get(comment.id)).permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect((await asReader.list()).items.map((c: any) => c.id)).toContain(comment.id);
  });

  it("refuses bad input with 400 naming the field, writing nothing", async () => {
    const api = base.as(alice.token);
    const comment = await api.post(md("Fine."));
    const before = await rowsOf(base.space);
    await expectRestError(api.post(md("")), 400, "body");
    await expectRestError(api.post(md("   \n")), 400, "body");
    await expectRestError(api.post(md("x".repeat(10_001))), 400, "body");
    await expectRestError(api.post({ body: { document: { object: "document", data: {}, nodes: [] } } }), 400, "body");
    await expectRestError(api.post({ ...md("On a missing page"), page: "pg_missing" }), 404, "pg_missing");
    await expectRestError(api.post({ ...md("Node without page"), node: "setup" }), 400, "page");
    await expectRestError(api.update(comment.id, md("")), 400, "body");
    await expectRestError(api.update(comment.id, { addedReactions: ["not an emoji"] }), 400, "addedReactions");
    await expectRestError(api.update(comment.id, { addedReactions: ["👍".repeat(51)] }), 400, "addedReactions");
    await expectRestError(api.update(comment.id, { removedReactions: ["x"] }), 400, "removedReactions");
    await expectRestError(api.update(comment.id, { addedReactions: "👍" }), 400, "addedReactions");
    await expectRestError(api.update(comment.id, { resolved: "yes" }), 400, "resolved");
    await expectRestError(api.reply(comment.id, md("")), 400, "body");
    await expectRestError(api.list({ status: "closed" }), 400, "status");
    await expectRestError(api.list({ order: "newest" }), 400, "order");
    await expectRestError(api.list({ format: "html" }), 400, "format");
    await expectRestError(api.get(comment.id, { format: "html" }), 400, "format");
    expect(await rowsOf(base.space)).toEqual(before);
    // 10000 characters (not bytes) are fine; a code point is an emoji too.
    expect((await api.update(comment.id, md("é".repeat(10_000)))).body.markdown).toHaveLength(10_000);
    expect((await api.update(comment.id, { addedReactions: ["1f389"] })).reactions[0].emoji).toBe("1f389");
  });

  it("answers the body as a document tree on request", async () => {
    const comment = await base.as(alice.token).post(md("# Title\n\nText."));
    const asDocument = await base.as(alice.token).get(comment.id, { format: "document" });
    expect(asDocument.body.markdown).toBeUndefined();
    expect(asDocument.body.document).toMatchObject({
      object: "document",
      nodes: [expect.objectContaining({ type: "heading-1" }), expect.objectContaining({ type: "paragraph" })],
    });
    const list = await base.as(alice.token).list({ format: "document", limit: 1 });
    expect(list.items[0].body.document.object).toBe("document");
  });
});

// ---------------------------------------------------------------------------------------------
// Lists, counters, bases
// ---------------------------------------------------------------------------------------------

describe("lists and counters", () => {
  it("filters by status, target page and authors, orders by postedAt and pages", async () => {
    const { space, intro, guide } = await newSpace();
    const base = spaceBase(space, intro, guide);
    tick();
    const first = await base.as(alice.token).post({ ...md("one"), page: intro });
    tick();
    const second = await base.as(bob.token).post({ ...md("two"), page: guide });
    tick();
    const third = await base.as(alice.token).post({ ...md("three"), page: intro });
    await base.as(bob.token).update(third.id, { resolved: true });
    const ids = (list: any) => list.items.map((c: any) => c.id);
    const api = base.as(reader.token);

    expect(ids(await api.list())).toEqual([third.id, second.id, first.id]);
    expect((await api.list()).count).toBe(3);
    expect(ids(await api.list({ order: "asc" }))).toEqual([first.id, second.id, third.id]);
    expect(ids(await api.list({ status: "all" }))).toEqual([third.id, second.id, first.id]);
    expect(ids(await api.list({ status: "open" }))).toEqual([second.id, first.id]);
    expect(ids(await api.list({ status: "resolved" }))).toEqual([third.id]);
    expect(ids(await api.list({ targetPage: intro }))).toEqual([third.id, first.id]);
    expect(ids(await api.list({ targetPage: intro, status: "open" }))).toEqual([first.id]);
    expect(ids(await api.list({ authors: [bob.userId] }))).toEqual([second.id]);
    expect(ids(await api.list({ authors: [alice.userId, bob.userId], order: "asc" }))).toEqual([first.id, second.id, third.id]);
    expect(ids(await api.list({ authors: [reader.userId] }))).toEqual([]);
    // Comma-separated works too.
    const raw = await server.rest(reader.token, "GET", `/v1/spaces/${space}/comments?authors=${bob.userId},${reader.userId}`);
    expect(raw.body.items.map((c: any) => c.id)).toEqual([second.id]);

    const page1 = await api.list({ limit: 2 });
    expect(ids(page1)).toEqual([third.id, second.id]);
    expect(page1.count).toBe(3);
    const page2 = await api.list({ limit: 2, page: page1.next.page });
    expect(ids(page2)).toEqual([first.id]);
    expect(page2.next).toBeUndefined();

    // Replies page oldest first.
    const replies = [];
    for (const text of ["a", "b", "c"]) {
      tick();
      replies.push((await base.as(bob.token).reply(first.id, md(text))).id);
    }
    const replies1 = await api.replies(first.id, { limit: 2 });
    expect(ids(replies1)).toEqual(replies.slice(0, 2));
    expect(replies1.count).toBe(3);
    expect(ids(await api.replies(first.id, { limit: 2, page: replies1.next.page }))).toEqual(replies.slice(2));

    const commenters1 = await api.commenters({ limit: 1 });
    expect(commenters1.count).toBe(2);
    const commenters2 = await api.commenters({ limit: 1, page: commenters1.next.page });
    expect([...commenters1.items, ...commenters2.items].map((m: any) => m.id).sort()).toEqual([alice.userId, bob.userId].sort());
  });

  it("counts open comments per base: the space's own, and each change request's; never replies", async () => {
    const { space, intro, guide } = await newSpace();
    const changeRequest = await newChangeRequest(space);
    const onSpace = spaceBase(space, intro, guide).as(alice.token);
    const onChangeRequest = changeRequestBase(space, intro, guide, changeRequest.id).as(alice.token);

    const a = await onSpace.post(md("space one"));
    await onSpace.post(md("space two"));
    const c = await onChangeRequest.post(md("change request one"));
    await onSpace.reply(a.id, md("a reply"));
    await onChangeRequest.reply(c.id, md("a reply"));
    expect(await onSpace.counter()).toBe(2);
    expect(await onChangeRequest.counter()).toBe(1);

    await onSpace.update(a.id, { resolved: true });
    expect(await onSpace.counter()).toBe(1);
    expect(await onChangeRequest.counter()).toBe(1);
    await onChangeRequest.update(c.id, { resolved: true });
    expect(await onChangeRequest.counter()).toBe(0);
    expect(await onSpace.counter()).toBe(1);

    // Lists keep to their base.
    expect((await onSpace.list()).count).toBe(2);
    expect((await onChangeRequest.list()).items.map((x: any) => x.id)).toEqual([c.id]);

    // The change request addressed by number is the same base.
    const byNumber = changeRequestBase(space, intro, guide, String(changeRequest.number)).as(alice.token);
    expect((await byNumber.get(c.id)).id).toBe(c.id);
  });

  it("finds a comment only through its own base (404 through another space, the space or a change request)", async () => {
    const one = await newSpace();
    const other = await newSpace();
    const changeRequest = await newChangeRequest(one.space);
    const otherChangeRequest = await newChangeRequest(one.space);
    const onSpace = spaceBase(one.space, one.intro, one.guide).as(alice.token);
    const onChangeRequest = changeRequestBase(one.space, one.intro, one.guide, changeRequest.id).as(alice.token);
    const spaceComment = await onSpace.post(md("on the space"));
    const spaceReply = await onSpace.reply(spaceComment.id, md("reply"));
    const crComment = await onChangeRequest.post(md("on the change request"));
    const before = await rowsOf(one.space);

    await expectRestError(spaceBase(other.space, other.intro, other.guide).as(alice.token).get(spaceComment.id), 404, "comment");
    await expectRestError(spaceBase(other.space, other.intro, other.guide).as(alice.token).remove(spaceComment.id), 404);
    await expectRestError(onChangeRequest.get(spaceComment.id), 404);
    await expectRestError(onChangeRequest.update(spaceComment.id, { resolved: true }), 404);
    await expectRestError(onSpace.get(crComment.id), 404);
    await expectRestError(onSpace.remove(crComment.id), 404);
    await expectRestError(changeRequestBase(one.space, one.intro, one.guide, otherChangeRequest.id).as(alice.token).get(crComment.id), 404);
    // A reply id is no comment id, and a reply is found under its own comment only.
    await expectRestError(onSpace.get(spaceReply.id), 404);
    await expectRestError(onSpace.getReply(crComment.id, spaceReply.id), 404);
    const another = await onSpace.post(md("another"));
    await expectRestError(onSpace.getReply(another.id, spaceReply.id), 404, "comment reply");
    await expectRestError(onSpace.removeReply(another.id, spaceReply.id), 404);
    await onSpace.remove(another.id);
    expect(await rowsOf(one.space)).toEqual(before);
  });

  it("hides comments from another organization's admin: 404 on REST, not found through node(id:)", async () => {
    const { space, intro, guide } = await newSpace();
    const changeRequest = await newChangeRequest(space);
    const comment = await spaceBase(space, intro, guide).as(alice.token).post(md("Private."));
    const reply = await spaceBase(space, intro, guide).as(alice.token).reply(comment.id, md("Private too."));
    const crComment = await changeRequestBase(space, intro, guide, changeRequest.id).as(alice.token).post(md("Private."));
    const outsider = spaceBase(space, intro, guide).as(B.token);
    await expectRestError(outsider.list(), 404);
    await expectRestError(outsider.get(comment.id), 404);
    await expectRestError(outsider.post(md("Hello")), 404);
    await expectRestError(outsider.update(comment.id, { addedReactions: ["👍"] }), 404);
    await expectRestError(outsider.remove(comment.id), 404);
    await expectRestError(outsider.getReply(comment.id, reply.id), 404);
    await expectRestError(outsider.commenters(), 404);
    await expectRestError(changeRequestBase(space, intro, guide, changeRequest.id).as(B.token).get(crComment.id), 404);

    for (const id of [comment.id, reply.id, crComment.id]) {
      const result = await server.graphql(B.token, `query($id: ID!) { node(id: $id) { id } }`, { id });
      expect(result.data?.node ?? null).toBeNull();
      expect(result.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    }
    const mine = await gql(reader.token, `query($id: ID!) { node(id: $id) { ... on CommentReply { id comment { id } } } }`, {
      id: reply.id,
    });
    expect(mine.node).toEqual({ id: reply.id, comment: { id: comment.id } });
  });
});

// ---------------------------------------------------------------------------------------------
// What a comment shows of its page; GraphQL
// ---------------------------------------------------------------------------------------------

describe("the target of a comment", () => {
  it("is outdated once the page's body or title changed in the base's head, or the page is gone", async () => {
    const { space, intro, guide } = await newSpace();
    const api = spaceBase(space, intro, guide).as(alice.token);
    const onIntro = await api.post({ ...md("About the intro"), page: intro, node: "usage" });
    const onGuide = await api.post({ ...md("About the guide"), page: guide, node: "not-a-heading" });
    expect(onIntro.target.node).toEqual({ id: "usage", preview: "Usage" });
    expect(onGuide.target.node).toEqual({ id: "not-a-heading" });

    await gql(A.token, `mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space, page: intro, markdown: "Rewritten.\n" },
    });
    const after = await api.get(onIntro.id);
    expect(after.target.page).toMatchObject({ id: intro, title: "Intro", outdated: true });
    expect(after.target.revision).toBe(onIntro.target.revision);
    // The preview is of the revision the comment targets.
    expect(after.target.node.preview).toBe("Usage");
    expect((await api.get(onGuide.id)).target.page.outdated).toBe(false);

    await gql(A.token, `mutation($input: DeletePageInput!) { deletePage(input: $input) { revision { id } } }`, {
      input: { space, page: guide },
    });
    expect((await api.get(onGuide.id)).target.page).toMatchObject({ id: guide, title: "Guide", outdated: true });
    // New comments need a page of the current head.
    await expectRestError(api.post({ ...md("Too late"), page: guide }), 404, guide);
  });

  it("on a change request, is the change request's content", async () => {
    const { space, intro, guide } = await newSpace();
    const changeRequest = await newChangeRequest(space);
    const created = await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, changeRequest: changeRequest.id, title: "Proposed", markdown: "New.\n" },
    });
    const proposed = created.createPage.page.id;
    const onChangeRequest = changeRequestBase(space, intro, guide, changeRequest.id).as(alice.token);
    const comment = await onChangeRequest.post({ ...md("Nice page"), page: proposed });
    expect(comment.target).toMatchObject({ changeRequest: changeRequest.id, page: { id: proposed, title: "Proposed", outdated: false } });
    // The page is not in the space's own content.
    await expectRestError(
      spaceBase(space, intro, guide)
        .as(alice.token)
        .post({ ...md("Nice page"), page: proposed }),
      404,
      proposed,
    );
  });
});

describe("GraphQL", () => {
  it("posts, lists with replies and reactions, updates and deletes through the mutations", async () => {
    const { space, intro } = await newSpace();
    const changeRequest = await newChangeRequest(space);
    const posted = await gql(
      alice.token,
      `mutation($input: PostCommentInput!) { postComment(input: $input) { comment { id status body { markdown } target { page { id } changeRequest { number } } } } }`,
      {
        input: { space, changeRequest: String(changeRequest.number), page: intro, body: "From GraphQL" },
      },
    );
    const comment = posted.postComment.comment;
    expect(comment).toMatchObject({
      status: "OPEN",
      body: { markdown: "From GraphQL" },
      target: { page: { id: intro }, changeRequest: { number: changeRequest.number } },
    });

    const replied = await gql(
      bob.token,
      `mutation($input: PostCommentReplyInput!) { postCommentReply(input: $input) { reply { id } comment { replyCount } } }`,
      {
        input: { space, changeRequest: changeRequest.id, comment: comment.id, body: "Reply" },
      },
    );
    expect(replied.postCommentReply.comment.replyCount).toBe(1);
    const updated = await gql(
      bob.token,
      `mutation($input: UpdateCommentReplyInput!) { updateCommentReply(input: $input) { reply { reactions { emoji count } } comment { status resolvedBy { id } } } }`,
      {
        input: {
          space,
          changeRequest: changeRequest.id,
          comment: comment.id,
          reply: replied.postCommentReply.reply.id,
          addedReactions: ["👍"],
          resolved: true,
        },
      },
    );
    expect(updated.updateCommentReply).toEqual({
      reply: { reactions: [{ emoji: "👍", count: 1 }] },
      comment: { status: "RESOLVED", resolvedBy: { id: bob.userId } },
    });

    const listed = await gql(
      reader.token,
      `query($space: ID!, $cr: ID!) { space(id: $space) { changeRequest(id: $cr) {
        openCommentCount
        comments(status: RESOLVED) { totalCount nodes { id replies { totalCount nodes { body { markdown } postedBy { id } } } } }
        commenters { nodes { user { id } } }
      } } }`,
      { space, cr: changeRequest.id },
    );
    const cr = listed.space.changeRequest;
    expect(cr.openCommentCount).toBe(0);
    expect(cr.comments.nodes).toEqual([
      { id: comment.id, replies: { totalCount: 1, nodes: [{ body: { markdown: "Reply" }, postedBy: { id: bob.userId } }] } },
    ]);
    expect(cr.commenters.nodes.map((m: any) => m.user.id).sort()).toEqual([alice.userId, bob.userId].sort());

    const invalid = await server.graphql(
      alice.token,
      `mutation($input: UpdateCommentInput!) { updateComment(input: $input) { comment { id } } }`,
      {
        input: { space, changeRequest: changeRequest.id, comment: comment.id, addedReactions: ["nope"] },
      },
    );
    expect(invalid.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(invalid.errors?.[0]?.message).toContain("addedReactions");

    const deleted = await gql(alice.token, `mutation($input: DeleteCommentInput!) { deleteComment(input: $input) { deletedCommentId } }`, {
      input: { space, changeRequest: changeRequest.id, comment: comment.id },
    });
    expect(deleted.deleteComment.deletedCommentId).toBe(comment.id);
    expect(await prisma().comment.count({ where: { spaceId: space } })).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// SQL statements
// ---------------------------------------------------------------------------------------------

describe("SQL statements of a comment list do not grow with its length", () => {
  const bases: Record<"small" | "large", { space: string; changeRequest: string }> = {} as never;

  /** `count` comments on a page, each with two reactions, two replies (one reacted to) by two users. */
  async function seed(count: number) {
    const { space, intro, guide } = await newSpace();
    const changeRequest = (await newChangeRequest(space)).id;
    for (const api of [
      spaceBase(space, intro, guide).as(alice.token),
      changeRequestBase(space, intro, guide, changeRequest).as(alice.token),
    ]) {
      for (let i = 0; i < count; i++) {
        const comment = await api.post({ ...md(`Comment ${i}\n\n## Setup`), page: intro, node: "setup" });
        await api.update(comment.id, { addedReactions: ["👍", "🎉"] });
        const reply = await api.reply(comment.id, md("Reply"));
        await api.updateReply(comment.id, reply.id, { addedReactions: ["👀"] });
        await api.reply(comment.id, md("Another reply"));
        if (i % 2) await api.update(comment.id, { resolved: true });
      }
    }
    return { space, changeRequest };
  }

  beforeAll(async () => {
    bases.small = await seed(2);
    bases.large = await seed(20);
  });

  async function measure(read: () => Promise<number>) {
    await read(); // warm-up: token bookkeeping happens once
    const before = server.database.statementCount;
    const items = await read();
    return { statements: server.database.statementCount - before, items };
  }

  const READS: [string, (base: { space: string; changeRequest: string }) => Promise<number>][] = [
    [
      "REST, space",
      async ({ space }) => (await spaces(bob.token).listCommentsInSpace(space, { format: "document" as never })).data.items.length,
    ],
    [
      "REST, change request",
      async ({ space, changeRequest }) => (await spaces(bob.token).listCommentsInChangeRequest(space, changeRequest)).data.items.length,
    ],
    [
      "GraphQL with replies",
      async ({ space }) =>
        (
          await gql(
            bob.token,
            `query($id: ID!) { space(id: $id) { comments(first: 50) { nodes {
              id postedBy { id displayName } status resolvedBy { id } replyCount repliers { user { id } count }
              reactions { emoji count users { user { id } } } permissions { edit delete }
              target { node { preview } page { title outdated } revision { id } space { id } }
              replies(first: 5) { totalCount nodes { postedBy { id } reactions { emoji } permissions { edit } } }
            } } } }`,
            { id: space },
          )
        ).space.comments.nodes.length,
    ],
  ];

  it.each(READS)("%s", async (_label, read) => {
    const small = await measure(() => read(bases.small));
    const large = await measure(() => read(bases.large));
    expect(small.items).toBe(2);
    expect(large.items).toBe(20);
    expect(large.statements).toBe(small.statements);
  });
});
