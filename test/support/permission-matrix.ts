// The permission matrix, route by route: every REST route the service serves is called as an
// organization member of each role, as a guest, as another organization's admin and without a
// token, and the outcome must be what src/core/auth/policy.ts says for the route's operation:
// allowed (2xx), 403 (sees the target, lacks the role), 404 (cannot see it) or 401.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import LZString from "lz-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allows, POLICY, type Rule } from "../../src/core/auth/policy.ts";
import type { Role } from "../../src/core/auth/roles.ts";
import { newId } from "../../src/core/ids.ts";
import { routes } from "../../rest-adapter/routes/index.ts";
import type { RestRoute } from "../../rest-adapter/route.ts";
import { validateResponse } from "./openapi.ts";
import { startTestServer, type TestServer } from "./server.ts";

const MEMBER_ROLES: (Role | null)[] = ["admin", "create", "review", "edit", "comment", "read", null];
const EMAIL_DOMAIN = "matrix.example.com";

let server: TestServer;
let organizationId: string;
let ownerToken: string;
let ownerUserId: string;
let targetOrganizationId: string;
let otherAdminToken: string;
const callers = new Map<Role | null, string>();
/** The user id of each caller's token (another organization's admin's too), for fixtures that act on the caller's own rows. */
const userIdOfToken = new Map<string, string>();

/** A one-page website the import route's fixture imports. */
let importSite: Server;
let importSiteUrl: string;

/**
 * A fresh target for one call: the path (and body) of the route, made from new rows. `callerUserId`
 * is the user making the call, when it has one (own-comment routes act on a comment of theirs).
 */
type Fixture = (callerUserId?: string) => Promise<{
  path: string;
  body?: unknown;
  /**
   * What an allowed caller gets when it is not a 2xx: the routes whose target never exists here
   * (a change request's agent conversations) answer 404 naming it once the access check passes.
   */
  allowedAs?: { status: number; mentions: string };
}>;

const prisma = () => server.database.prisma;

async function newCollection(): Promise<string> {
  const response = await server.rest(ownerToken, "POST", `/v1/orgs/${organizationId}/collections`, { title: "Matrix" });
  return response.body.id;
}

async function newSpace(parent?: string): Promise<string> {
  const response = await server.rest(ownerToken, "POST", `/v1/orgs/${organizationId}/spaces`, { title: "Matrix", parent });
  return response.body.id;
}

/** Two local repositories (matrix/docs as GitHub's 1, matrix/handbook as GitLab's 2), each with README.md on main. */
function gitSyncRepositories() {
  const root = mkdtempSync(join(tmpdir(), "matrix-git-"));
  const checkout = join(root, "checkout");
  const run = (cwd: string, args: string[]) =>
    execFileSync("git", ["-c", "user.name=Matrix", "-c", "user.email=matrix@example.com", "-c", "init.defaultBranch=main", ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
    });
  run(root, ["init", "-q", checkout]);
  writeFileSync(join(checkout, "README.md"), "# Matrix\n");
  run(checkout, ["add", "-A"]);
  run(checkout, ["commit", "-q", "-m", "Matrix"]);
  mkdirSync(join(root, "matrix"));
  for (const name of ["docs", "handbook"]) {
    run(root, ["init", "-q", "--bare", join(root, "matrix", `${name}.git`)]);
    run(checkout, ["push", "-q", join(root, "matrix", `${name}.git`), "HEAD:refs/heads/main"]);
  }
  return [
    { id: 1, provider: "github" as const, url: `file://${join(root, "matrix", "docs.git")}` },
    { id: 2, provider: "gitlab" as const, url: `file://${join(root, "matrix", "handbook.git")}` },
  ];
}

/** A Git Sync installation on a new space. */
async function newGitSyncInstallation(provider: "github" | "gitlab"): Promise<string> {
  const spaceId = await newSpace();
  const response = await server.rest(ownerToken, "POST", "/v1/git/installations", { provider, target: { type: "space", spaceId } });
  return response.body.id;
}

async function newMember(role: Role | null = "read"): Promise<string> {
  return (await server.addMember(organizationId, role)).userId;
}

async function newTeam(): Promise<string> {
  const id = newId("Team");
  await prisma().team.create({ data: { id, organizationId, title: "Matrix team" } });
  return id;
}

/** A new space whose head revision holds one document page (with a child), one file and one reusable content. */
async function newContent(): Promise<{
  spaceId: string;
  pageId: string;
  fileId: string;
  revisionId: string;
  reusableContentId: string;
  documentId: string;
}> {
  const spaceId = await newSpace();
  const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");
  const body = Buffer.from("# Matrix\n\nBody.");
  const bytes = Buffer.from("matrix file");
  await prisma().blob.createMany({
    data: [body, bytes].map((data) => ({ hash: sha(data), data, size: data.length })),
    skipDuplicates: true,
  });
  const now = new Date().toISOString();
  const page = (id: string, title: string, slug: string, pages: unknown[] = []) => ({
    id,
    kind: "document",
    title,
    slug,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    body: sha(body),
    createdAt: now,
    updatedAt: now,
    pages,
  });
  const pageId = newId("Page");
  const fileId = newId("File");
  const reusableContentId = newId("ReusableContent");
  const space = await prisma().space.findUniqueOrThrow({ where: { id: spaceId } });
  const revisionId = newId("Revision");
  await prisma().revision.create({
    data: {
      id: revisionId,
      spaceId,
      parentIds: [space.revisionId],
      pages: [page(pageId, "Matrix", "matrix", [page(newId("Page"), "Child", "child")])] as never,
      files: [{ id: fileId, name: "matrix.txt", contentType: "text/plain", size: bytes.length, blob: sha(bytes) }] as never,
      reusableContents: [{ id: reusableContentId, title: "Matrix snippet", body: sha(body), createdAt: now, updatedAt: now }] as never,
    },
  });
  await prisma().space.update({ where: { id: spaceId }, data: { revisionId } });
  return { spaceId, pageId, fileId, revisionId, reusableContentId, documentId: sha(body) };
}

/** Reads of a revision by id, and of the head's reusable contents (issue 30). */
function revisionFixtures(): Record<string, Fixture> {
  const on = (suffix: (content: Awaited<ReturnType<typeof newContent>>) => string) => async () => {
    const content = await newContent();
    return { path: `/v1/spaces/${content.spaceId}${suffix(content)}` };
  };
  const R = "GET /v1/spaces/:spaceId/revisions/:revisionId";
  return {
    [R]: on((c) => `/revisions/${c.revisionId}`),
    [`${R}/pages`]: on((c) => `/revisions/${c.revisionId}/pages`),
    [`${R}/files`]: on((c) => `/revisions/${c.revisionId}/files`),
    [`${R}/files/:fileId`]: on((c) => `/revisions/${c.revisionId}/files/${c.fileId}`),
    [`${R}/page/:pageId`]: on((c) => `/revisions/${c.revisionId}/page/${c.pageId}`),
    [`${R}/page/:pageId/document`]: on((c) => `/revisions/${c.revisionId}/page/${c.pageId}/document`),
    [`${R}/page/:pageId/meta-links`]: on((c) => `/revisions/${c.revisionId}/page/${c.pageId}/meta-links`),
    [`${R}/path/*`]: on((c) => `/revisions/${c.revisionId}/path/matrix/child`),
    [`${R}/reusable-contents/:reusableContentId`]: on((c) => `/revisions/${c.revisionId}/reusable-contents/${c.reusableContentId}`),
    [`${R}/reusable-contents/:reusableContentId/document`]: on(
      (c) => `/revisions/${c.revisionId}/reusable-contents/${c.reusableContentId}/document`,
    ),
    "GET /v1/spaces/:spaceId/pdf": on(() => "/pdf"),
    "GET /v1/spaces/:spaceId/documents/:documentId": on((c) => `/documents/${c.documentId}`),
    [`${R}/changes`]: on((c) => `/revisions/${c.revisionId}/changes`),
    "GET /v1/orgs/:organizationId/change-requests": async () => ({ path: `/v1/orgs/${organizationId}/change-requests` }),
    "GET /v1/spaces/:spaceId/content/reusable-contents/:reusableContentId": on((c) => `/content/reusable-contents/${c.reusableContentId}`),
  };
}

/** Issue 30, area 2: creating organizations, invites, joining, users by id. */
function organizationJoinFixtures(): Record<string, Fixture> {
  const newLinkInvite = async () => {
    const id = newId("LinkInvite");
    await prisma().linkInvite.create({ data: { id, organizationId, role: "read", createdById: "matrix" } });
    return id;
  };
  /** A fresh organization the caller is not in (joining the matrix's own would change who sees what). */
  const newOrganization = async (emailDomains: string[] = []) => {
    const id = newId("Organization");
    await prisma().organization.create({ data: { id, title: "Matrix join", emailDomains } });
    return id;
  };
  return {
    "POST /v1/orgs": async () => ({ path: "/v1/orgs", body: { title: "Matrix created" } }),
    "POST /v1/orgs/:organizationId/invites": async () => ({
      path: org("/invites"),
      body: { emails: [`invitee-${newId("User").slice(4).toLowerCase()}@example.com`] },
    }),
    "POST /v1/orgs/:organizationId/invites/:inviteId": async (callerUserId) => {
      const target = await newOrganization();
      const user = callerUserId ? await prisma().user.findUniqueOrThrow({ where: { id: callerUserId } }) : null;
      const id = newId("EmailInvite");
      await prisma().emailInvite.create({
        data: { id, organizationId: target, email: user?.email.toLowerCase() ?? "nobody@example.com", role: "read", createdById: "matrix" },
      });
      return { path: `/v1/orgs/${target}/invites/${id}` };
    },
    "POST /v1/orgs/:organizationId/join": async () => ({ path: `/v1/orgs/${await newOrganization(["example.com"])}/join` }),
    "GET /v1/orgs/:organizationId/link-invites": async () => ({ path: org("/link-invites") }),
    "POST /v1/orgs/:organizationId/link-invites": async () => ({ path: org("/link-invites"), body: { role: "read" } }),
    "GET /v1/orgs/:organizationId/link-invites/:inviteId": async () => ({ path: org(`/link-invites/${await newLinkInvite()}`) }),
    "PATCH /v1/orgs/:organizationId/link-invites/:inviteId": async () => ({
      path: org(`/link-invites/${await newLinkInvite()}`),
      body: { role: "edit" },
    }),
    "GET /v1/users/:userId": async () => ({ path: `/v1/users/${ownerUserId}` }),
    "PATCH /v1/users/:userId": async (callerUserId) => ({
      path: `/v1/users/${callerUserId ?? ownerUserId}`,
      body: { displayName: "Matrix caller" },
    }),
    "POST /v1/user/notifications/token": async () => ({ path: "/v1/user/notifications/token" }),
  };
}

/** A change request (opened by the owner) on a new space with content: its REST path by id and by number. */
async function newChangeRequest() {
  const content = await newContent();
  const response = await server.rest(ownerToken, "POST", `/v1/spaces/${content.spaceId}/change-requests`, { subject: "Matrix" });
  const prefix = `/v1/spaces/${content.spaceId}/change-requests`;
  return { ...content, path: `${prefix}/${response.body.id}`, byNumber: `${prefix}/${response.body.number}` };
}

/** A change request with a requested reviewer and their approval (rows written directly). */
async function newReview() {
  const changeRequest = await newChangeRequest();
  const reviewerId = await newMember("review");
  const row = await prisma().changeRequest.findUniqueOrThrow({
    where: { id: changeRequest.path.slice(changeRequest.path.lastIndexOf("/") + 1) },
  });
  const now = new Date();
  await prisma().changeRequestReviewer.create({
    data: { changeRequestId: row.id, userId: reviewerId, requestedById: ownerUserId, revisionId: row.revisionId, createdAt: now },
  });
  const reviewId = newId("ChangeRequestReview");
  await prisma().changeRequestReview.create({
    data: {
      id: reviewId,
      changeRequestId: row.id,
      reviewerId,
      requestedById: ownerUserId,
      status: "approved",
      revisionId: row.revisionId,
      createdAt: now,
      updatedAt: now,
    },
  });
  return { ...changeRequest, reviewerId, reviewId };
}

/**
 * A comment with a reply, on a new space with content or on a new change request, posted (rows
 * written directly) by `authorId`, else by the owner: the REST paths of the base, comment and reply.
 */
async function newComment(base: "space" | "change request", authorId = ownerUserId) {
  const { spaceId, pageId, path } = base === "space" ? { ...(await newContent()), path: undefined } : await newChangeRequest();
  const changeRequestId = path ? path.slice(path.lastIndexOf("/") + 1) : null;
  const { revisionId } = await prisma().space.findUniqueOrThrow({ where: { id: spaceId } });
  const row = { spaceId, changeRequestId, body: "Matrix", postedById: authorId, postedAt: new Date(), targetRevisionId: revisionId };
  const commentId = newId("Comment");
  const replyId = newId("CommentReply");
  await prisma().comment.create({ data: { ...row, id: commentId, targetPageId: pageId } });
  await prisma().comment.create({ data: { ...row, id: replyId, parentId: commentId } });
  const prefix = path ?? `/v1/spaces/${spaceId}`;
  return { prefix, pageId, comment: `${prefix}/comments/${commentId}`, reply: `${prefix}/comments/${commentId}/replies/${replyId}` };
}

/** The fixtures of the comment routes of one base; PUT and DELETE act on the caller's own comment or reply. */
function commentFixtures(routePrefix: string, base: "space" | "change request"): Record<string, Fixture> {
  const markdown = { body: { markdown: "Matrix" } };
  return {
    [`GET ${routePrefix}/comments`]: async () => ({ path: `${(await newComment(base)).prefix}/comments` }),
    [`POST ${routePrefix}/comments`]: async () => {
      const { prefix, pageId } = await newComment(base);
      return { path: `${prefix}/comments`, body: { ...markdown, page: pageId } };
    },
    [`GET ${routePrefix}/comments/:commentId`]: async () => ({ path: (await newComment(base)).comment }),
    [`PUT ${routePrefix}/comments/:commentId`]: async (caller) => ({ path: (await newComment(base, caller)).comment, body: markdown }),
    [`DELETE ${routePrefix}/comments/:commentId`]: async (caller) => ({ path: (await newComment(base, caller)).comment }),
    [`GET ${routePrefix}/comments/:commentId/replies`]: async () => ({ path: `${(await newComment(base)).comment}/replies` }),
    [`POST ${routePrefix}/comments/:commentId/replies`]: async () => ({
      path: `${(await newComment(base)).comment}/replies`,
      body: markdown,
    }),
    [`GET ${routePrefix}/comments/:commentId/replies/:commentReplyId`]: async () => ({ path: (await newComment(base)).reply }),
    [`PUT ${routePrefix}/comments/:commentId/replies/:commentReplyId`]: async (caller) => ({
      path: (await newComment(base, caller)).reply,
      body: markdown,
    }),
    [`DELETE ${routePrefix}/comments/:commentId/replies/:commentReplyId`]: async (caller) => ({
      path: (await newComment(base, caller)).reply,
    }),
    [`GET ${routePrefix}/commenters`]: async () => ({ path: `${(await newComment(base)).prefix}/commenters` }),
  };
}

const org = (suffix = "") => `/v1/orgs/${organizationId}${suffix}`;

/** A new site showing a new space: its REST path, and its site space. */
async function newSite() {
  const spaceId = await newSpace();
  const response = await server.rest(ownerToken, "POST", org("/sites"), { title: "Matrix site", spaces: [spaceId] });
  const path = org(`/sites/${response.body.id}`);
  const siteSpaces = await server.rest(ownerToken, "GET", `${path}/site-spaces`);
  return { path, siteSpaceId: siteSpaces.body.items[0].id as string };
}

/** A new site with one finding (a search that found nothing): its path and the finding's id. */
async function newFinding() {
  const { path } = await newSite();
  const siteId = path.split("/").pop()!;
  await prisma().insightEvent.create({
    data: {
      siteId,
      type: "search_type_query",
      timestamp: server.clock.now(),
      visitorId: "matrix-visitor",
      sessionId: "matrix-session",
      url: "https://example.com/~search?q=matrix",
      urlPath: "/~search",
      data: { query: "matrix", found: false },
    },
  });
  const response = await server.rest(ownerToken, "GET", `${path}/findings`);
  return { path, findingId: response.body.items[0].id as string };
}

/** The reader's URL of a new published site (its space has a page). */
async function newPublishedSiteUrl() {
  const spaceId = await newSpace();
  await server.graphql(ownerToken, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: spaceId, title: "Matrix page", markdown: "Body." },
  });
  const response = await server.rest(ownerToken, "POST", org("/sites"), { title: "Matrix published site", spaces: [spaceId] });
  const path = org(`/sites/${response.body.id}`);
  await server.rest(ownerToken, "POST", `${path}/publish`);
  return `${server.url}/sites/${path.split("/").pop()}/`;
}

/** A new visitor-auth site: its path. */
async function newVisitorAuthSite() {
  const { path } = await newSite();
  await server.rest(ownerToken, "PATCH", path, { visibility: "visitor-auth" });
  return path;
}

/** A new site with a share link: the site's path and the link's id. */
async function newShareLink() {
  const { path } = await newSite();
  const response = await server.rest(ownerToken, "POST", `${path}/share-links`, { name: "Matrix link" });
  return { path, shareLinkId: response.body.id as string };
}

/** A new site with two sections, the second in a group: their ids and the site's path. */
async function newSiteWithSections() {
  const { path } = await newSite();
  const first = await server.rest(ownerToken, "POST", `${path}/sections`, { spaceId: await newSpace(), title: "First" });
  const second = await server.rest(ownerToken, "POST", `${path}/sections`, { spaceId: await newSpace(), title: "Second" });
  const group = await server.rest(ownerToken, "POST", `${path}/section-groups`, { title: "Group", sections: [second.body.id] });
  return { path, sectionId: first.body.id as string, groupedSectionId: second.body.id as string, groupId: group.body.id as string };
}

let hostnames = 0;
/** A fresh site of the organization with a pending custom hostname, and the TXT record that proves it set. */
async function newHostname() {
  const { path } = await newSite();
  const hostname = `docs-${++hostnames}.matrix.example.com`;
  await server.rest(ownerToken, "PATCH", path, { hostname });
  server.dns.set(`_docs-verification.${hostname}`, [`site-verification=${path.split("/").pop()}`]);
  return `/v1/custom-hostnames/${hostname}`;
}

const SITE = "/v1/orgs/:organizationId/sites/:siteId";
const SITE_FIXTURES: Record<string, Fixture> = {
  "GET /v1/custom-hostnames/:hostname": async () => ({ path: await newHostname() }),
  "PATCH /v1/custom-hostnames/:hostname": async () => ({ path: await newHostname() }),
  "DELETE /v1/custom-hostnames/:hostname": async () => ({ path: await newHostname() }),
  "GET /v1/orgs/:organizationId/sites": async () => ({ path: org("/sites") }),
  "POST /v1/orgs/:organizationId/sites": async () => ({ path: org("/sites"), body: { title: "Created site" } }),
  [`GET ${SITE}`]: async () => ({ path: (await newSite()).path }),
  [`PATCH ${SITE}`]: async () => ({ path: (await newSite()).path, body: { title: "Renamed site" } }),
  [`DELETE ${SITE}`]: async () => ({ path: (await newSite()).path }),
  [`POST ${SITE}/publish`]: async () => ({ path: `${(await newSite()).path}/publish` }),
  [`POST ${SITE}/unpublish`]: async () => ({ path: `${(await newSite()).path}/unpublish` }),
  [`GET ${SITE}/published`]: async () => ({ path: `${(await newSite()).path}/published` }),
  [`GET ${SITE}/adaptive-schema`]: async () => ({ path: `${(await newSite()).path}/adaptive-schema` }),
  [`PUT ${SITE}/adaptive-schema`]: async () => ({
    path: `${(await newSite()).path}/adaptive-schema`,
    body: { jsonSchema: { type: "object", properties: {}, additionalProperties: false } },
  }),
  [`GET ${SITE}/adaptive-schema/template-conditions`]: async () => ({
    path: `${(await newSite()).path}/adaptive-schema/template-conditions`,
  }),
  [`GET ${SITE}/structure`]: async () => ({ path: `${(await newSite()).path}/structure` }),
  [`PATCH ${SITE}/structure/sort`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/structure/sort`, body: { item: { type: "site-space", id: siteSpaceId }, position: {} } };
  },
  [`GET ${SITE}/site-spaces`]: async () => ({ path: `${(await newSite()).path}/site-spaces` }),
  [`POST ${SITE}/site-spaces`]: async () => ({ path: `${(await newSite()).path}/site-spaces`, body: { spaceId: await newSpace() } }),
  [`PATCH ${SITE}/site-spaces/:siteSpaceId`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}`, body: { path: "renamed" } };
  },
  [`DELETE ${SITE}/site-spaces/:siteSpaceId`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}` };
  },
  [`POST ${SITE}/site-spaces/:siteSpaceId/move`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}/move`, body: {} };
  },
  [`GET ${SITE}/sections`]: async () => ({ path: `${(await newSiteWithSections()).path}/sections` }),
  [`POST ${SITE}/sections`]: async () => ({
    path: `${(await newSite()).path}/sections`,
    body: { spaceId: await newSpace(), title: "Section" },
  }),
  [`PATCH ${SITE}/sections/:siteSectionId`]: async () => {
    const { path, sectionId } = await newSiteWithSections();
    return { path: `${path}/sections/${sectionId}`, body: { title: "Renamed section" } };
  },
  [`DELETE ${SITE}/sections/:siteSectionId`]: async () => {
    const { path, sectionId } = await newSiteWithSections();
    return { path: `${path}/sections/${sectionId}` };
  },
  [`POST ${SITE}/sections/:siteSectionId/move`]: async () => {
    const { path, sectionId } = await newSiteWithSections();
    return { path: `${path}/sections/${sectionId}/move`, body: {} };
  },
  [`GET ${SITE}/section-groups`]: async () => ({ path: `${(await newSiteWithSections()).path}/section-groups` }),
  [`POST ${SITE}/section-groups`]: async () => ({
    path: `${(await newSiteWithSections()).path}/section-groups`,
    body: { title: "New group" },
  }),
  [`PATCH ${SITE}/section-groups/:siteSectionGroupId`]: async () => {
    const { path, groupId } = await newSiteWithSections();
    return { path: `${path}/section-groups/${groupId}`, body: { title: "Renamed group" } };
  },
  [`DELETE ${SITE}/section-groups/:siteSectionGroupId`]: async () => {
    const { path, groupId } = await newSiteWithSections();
    return { path: `${path}/section-groups/${groupId}` };
  },
  [`POST ${SITE}/section-groups/:siteSectionGroupId/sections`]: async () => {
    const { path, groupId, sectionId } = await newSiteWithSections();
    return { path: `${path}/section-groups/${groupId}/sections`, body: { sectionId } };
  },
  [`DELETE ${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`]: async () => {
    const { path, groupId, groupedSectionId } = await newSiteWithSections();
    return { path: `${path}/section-groups/${groupId}/sections/${groupedSectionId}` };
  },
  [`POST ${SITE}/section-groups/:siteSectionGroupId/move`]: async () => {
    const { path, groupId } = await newSiteWithSections();
    return { path: `${path}/section-groups/${groupId}/move`, body: {} };
  },
  [`POST ${SITE}/search`]: async () => ({ path: `${(await newSite()).path}/search`, body: { query: "matrix" } }),
  [`POST ${SITE}/ask`]: async () => ({ path: `${(await newSite()).path}/ask`, body: { question: "matrix", scope: { mode: "all" } } }),
  [`GET ${SITE}/ask/questions`]: async () => ({ path: `${(await newSite()).path}/ask/questions` }),
  [`GET ${SITE}/customization`]: async () => ({ path: `${(await newSite()).path}/customization` }),
  [`PUT ${SITE}/customization`]: async () => {
    const { path } = await newSite();
    const current = await server.rest(ownerToken, "GET", `${path}/customization`);
    return { path: `${path}/customization`, body: { ...current.body, title: "Matrix look" } };
  },
  [`GET ${SITE}/site-spaces/:siteSpaceId/customization`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}/customization` };
  },
  [`PATCH ${SITE}/site-spaces/:siteSpaceId/customization`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}/customization`, body: { title: "Matrix variant" } };
  },
  [`DELETE ${SITE}/site-spaces/:siteSpaceId/customization`]: async () => {
    const { path, siteSpaceId } = await newSite();
    await server.rest(ownerToken, "PATCH", `${path}/site-spaces/${siteSpaceId}/customization`, { title: "Matrix variant" });
    return { path: `${path}/site-spaces/${siteSpaceId}/customization` };
  },
  [`GET ${SITE}/publishing/auth`]: async () => ({ path: `${await newVisitorAuthSite()}/publishing/auth` }),
  [`PATCH ${SITE}/publishing/auth`]: async () => ({
    path: `${await newVisitorAuthSite()}/publishing/auth`,
    body: { logoutURL: "https://example.com/logout" },
  }),
  [`POST ${SITE}/publishing/auth/regenerate`]: async () => ({ path: `${await newVisitorAuthSite()}/publishing/auth/regenerate` }),
  [`GET ${SITE}/share-links`]: async () => ({ path: `${(await newSite()).path}/share-links` }),
  [`POST ${SITE}/share-links`]: async () => ({ path: `${(await newSite()).path}/share-links`, body: { name: "Matrix link" } }),
  [`PATCH ${SITE}/share-links/:shareLinkId`]: async () => {
    const { path, shareLinkId } = await newShareLink();
    return { path: `${path}/share-links/${shareLinkId}`, body: { active: false } };
  },
  [`DELETE ${SITE}/share-links/:shareLinkId`]: async () => {
    const { path, shareLinkId } = await newShareLink();
    return { path: `${path}/share-links/${shareLinkId}` };
  },
  [`GET ${SITE}/redirects`]: async () => ({ path: `${(await newSite()).path}/redirects` }),
  [`POST ${SITE}/redirects`]: async () => ({
    path: `${(await newSite()).path}/redirects`,
    body: { source: "/matrix-old", destination: { kind: "external", url: "https://example.com/matrix" } },
  }),
  [`PUT ${SITE}/redirects`]: async () => ({
    path: `${(await newSite()).path}/redirects`,
    body: { redirects: [{ source: "/matrix-old", destination: { kind: "external", url: "https://example.com/matrix" } }] },
  }),
  [`PATCH ${SITE}/redirects/:siteRedirectId`]: async () => {
    const { path, redirectId } = await newRedirect();
    return { path: `${path}/redirects/${redirectId}`, body: { permanent: true } };
  },
  [`DELETE ${SITE}/redirects/:siteRedirectId`]: async () => {
    const { path, redirectId } = await newRedirect();
    return { path: `${path}/redirects/${redirectId}` };
  },
  [`POST ${SITE}/insights/events`]: async () => ({
    path: `${(await newSite()).path}/insights/events`,
    body: {
      events: [
        {
          type: "page_view",
          session: {
            visitorId: "matrix-visitor",
            sessionId: "matrix-session",
            cookies: {},
            userAgent: "Matrix",
            language: null,
            referrer: null,
          },
          location: {
            url: "https://example.com/matrix",
            siteSection: null,
            siteSpace: null,
            siteShareKey: null,
            page: null,
            space: null,
            revision: null,
          },
        },
      ],
    },
  }),
  [`POST ${SITE}/insights/events/aggregate`]: async () => ({
    path: `${(await newSite()).path}/insights/events/aggregate`,
    body: { range: "last7Days", groupBy: [{ column: "eventType" }] },
  }),
  [`GET ${SITE}/insights/visitor-segments`]: async () => ({ path: `${(await newSite()).path}/insights/visitor-segments` }),
  [`GET ${SITE}/findings`]: async () => ({ path: `${(await newSite()).path}/findings` }),
  [`GET ${SITE}/findings/:siteFindingId`]: async () => {
    const { path, findingId } = await newFinding();
    return { path: `${path}/findings/${findingId}` };
  },
  [`GET ${SITE}/stats/findings`]: async () => ({ path: `${(await newSite()).path}/stats/findings` }),
  [`POST ${SITE}/search/prewarm`]: async () => ({ path: `${(await newSite()).path}/search/prewarm` }),
  [`GET ${SITE}/redirect`]: async () => ({ path: `${(await newRedirect()).path}/redirect?source=/matrix-old` }),
  // Site extras (issue 30, areas 5 to 7)
  [`GET ${SITE}/integrations`]: async () => ({ path: `${(await newSite()).path}/integrations` }),
  "GET /v1/orgs/:organizationId/installations": async () => ({ path: org("/installations") }),
  [`POST ${SITE}/template`]: async () => {
    const response = await server.rest(ownerToken, "POST", org("/sites"), { title: "Matrix template" });
    return { path: org(`/sites/${response.body.id}/template`) };
  },
  [`POST ${SITE}/ads`]: async () => ({ path: `${(await newSite()).path}/ads`, body: { topic: "webdev" } }),
  "GET /v1/ads/sites": async () => ({ path: "/v1/ads/sites" }),
  "PATCH /v1/ads/sites/:siteId": async () => ({
    path: `/v1/ads/sites/${(await newSite()).path.split("/").pop()}`,
    body: { status: "rejected", reason: "Matrix" },
  }),
  [`POST ${SITE}/site-spaces/:siteSpaceId/duplicate`]: async () => {
    const { path, siteSpaceId } = await newSite();
    return { path: `${path}/site-spaces/${siteSpaceId}/duplicate`, body: {} };
  },
  [`GET ${SITE}/publishing/preview`]: async () => ({ path: `${(await newSite()).path}/publishing/preview` }),
  [`POST ${SITE}/external-links`]: async () => ({
    path: `${(await newSiteWithSections()).path}/external-links`,
    body: { title: "Matrix link", url: "https://example.com/matrix" },
  }),
  [`PATCH ${SITE}/external-links/:siteExternalLinkId`]: async () => {
    const { path, linkId } = await newExternalLink();
    return { path: `${path}/external-links/${linkId}`, body: { title: "Renamed link" } };
  },
  [`DELETE ${SITE}/external-links/:siteExternalLinkId`]: async () => {
    const { path, linkId } = await newExternalLink();
    return { path: `${path}/external-links/${linkId}` };
  },
  "GET /v1/subdomains/:subdomain": async () => {
    await prisma().organization.update({ where: { id: organizationId }, data: { hostname: "matrix-subdomain" } });
    return { path: "/v1/subdomains/matrix-subdomain" };
  },
};

/** The fixtures of the permission routes of one kind of content; `newItem` makes a fresh one (its id). */
function permissionFixtures(routePrefix: string, pathOf: (id: string) => string, newItem: () => Promise<string>): Record<string, Fixture> {
  const column = routePrefix.includes("spaces") ? "spaceId" : routePrefix.includes("sites") ? "siteId" : "collectionId";
  /** A fresh item with a read grant to a new member and to a new team. */
  const granted = async () => {
    const itemId = await newItem();
    const [userId, teamId] = [await newMember(), await newTeam()];
    for (const subject of [{ userId }, { teamId }]) {
      await prisma().permissionGrant.create({
        data: { id: newId("PermissionGrant"), organizationId, [column]: itemId, ...subject, role: "read" },
      });
    }
    return { path: pathOf(itemId), userId, teamId };
  };
  return {
    [`POST ${routePrefix}/permissions`]: async () => ({
      path: `${pathOf(await newItem())}/permissions`,
      body: { role: "edit", users: [await newMember()], teams: [await newTeam()] },
    }),
    [`GET ${routePrefix}/permissions/users`]: async () => ({ path: `${(await granted()).path}/permissions/users` }),
    [`GET ${routePrefix}/permissions/teams`]: async () => ({ path: `${(await granted()).path}/permissions/teams` }),
    [`GET ${routePrefix}/permissions/aggregate`]: async () => ({ path: `${(await granted()).path}/permissions/aggregate` }),
    [`PATCH ${routePrefix}/permissions/users/:userId`]: async () => {
      const { path, userId } = await granted();
      return { path: `${path}/permissions/users/${userId}`, body: { role: "edit" } };
    },
    [`DELETE ${routePrefix}/permissions/users/:userId`]: async () => {
      const { path, userId } = await granted();
      return { path: `${path}/permissions/users/${userId}` };
    },
    [`PATCH ${routePrefix}/permissions/teams/:teamId`]: async () => {
      const { path, teamId } = await granted();
      return { path: `${path}/permissions/teams/${teamId}`, body: { role: "edit" } };
    },
    [`DELETE ${routePrefix}/permissions/teams/:teamId`]: async () => {
      const { path, teamId } = await granted();
      return { path: `${path}/permissions/teams/${teamId}` };
    },
  };
}

/** One fixture per served route, keyed "METHOD path" as in the route table. */
const FIXTURES: Record<string, Fixture> = {
  "GET /v1/orgs": async () => ({ path: "/v1/orgs" }),
  "GET /v1/": async () => ({ path: "/v1/" }),
  "GET /v1/orgs/:organizationId": async () => ({ path: org() }),
  "PATCH /v1/orgs/:organizationId": async () => ({ path: org(), body: { ai: true } }),
  "GET /v1/orgs/:organizationId/collections": async () => ({ path: org("/collections") }),
  "POST /v1/orgs/:organizationId/collections": async () => ({ path: org("/collections"), body: { title: "New" } }),
  "GET /v1/orgs/:organizationId/spaces": async () => ({ path: org("/spaces") }),
  "POST /v1/orgs/:organizationId/spaces": async () => ({ path: org("/spaces"), body: { title: "New" } }),

  "GET /v1/collections/:collectionId": async () => ({ path: `/v1/collections/${await newCollection()}` }),
  "PATCH /v1/collections/:collectionId": async () => ({ path: `/v1/collections/${await newCollection()}`, body: { title: "Renamed" } }),
  "DELETE /v1/collections/:collectionId": async () => ({ path: `/v1/collections/${await newCollection()}` }),
  "GET /v1/collections/:collectionId/spaces": async () => ({ path: `/v1/collections/${await newCollection()}/spaces` }),
  "POST /v1/collections/:collectionId/move": async () => ({
    path: `/v1/collections/${await newCollection()}/move`,
    body: { parent: await newCollection() },
  }),
  "POST /v1/collections/:collectionId/transfer": async () => ({
    path: `/v1/collections/${await newCollection()}/transfer`,
    body: { organization: targetOrganizationId },
  }),

  "GET /v1/spaces/:spaceId": async () => ({ path: `/v1/spaces/${await newSpace()}` }),
  "PATCH /v1/spaces/:spaceId": async () => ({ path: `/v1/spaces/${await newSpace()}`, body: { title: "Renamed" } }),
  "DELETE /v1/spaces/:spaceId": async () => ({ path: `/v1/spaces/${await newSpace()}` }),
  "POST /v1/spaces/:spaceId/duplicate": async () => ({ path: `/v1/spaces/${await newSpace()}/duplicate` }),
  "POST /v1/spaces/:spaceId/restore": async () => {
    const spaceId = await newSpace();
    await server.rest(ownerToken, "DELETE", `/v1/spaces/${spaceId}`);
    return { path: `/v1/spaces/${spaceId}/restore` };
  },
  "POST /v1/spaces/:spaceId/move": async () => ({ path: `/v1/spaces/${await newSpace()}/move`, body: { parent: await newCollection() } }),
  "POST /v1/spaces/:spaceId/transfer": async () => ({
    path: `/v1/spaces/${await newSpace()}/transfer`,
    body: { organization: targetOrganizationId },
  }),

  "GET /v1/spaces/:spaceId/search": async () => ({ path: `/v1/spaces/${await newSpace()}/search?query=matrix` }),
  "GET /v1/orgs/:organizationId/search": async () => ({ path: org("/search?query=matrix") }),
  "POST /v1/orgs/:organizationId/ask": async () => ({ path: org("/ask"), body: { query: "matrix" } }),
  "GET /v1/orgs/:organizationId/ask/stream": async () => ({ path: org("/ask/stream?query=matrix") }),
  "GET /v1/orgs/:organizationId/ask/questions": async () => ({ path: org("/ask/questions") }),
  "GET /v1/orgs/:organizationId/ask/questions/stream": async () => ({ path: org("/ask/questions/stream") }),

  "GET /v1/spaces/:spaceId/content": async () => ({ path: `/v1/spaces/${(await newContent()).spaceId}/content` }),
  // Git Sync: the remote is the loopback site (not a repository: the queued job fails, the request is what is checked).
  "POST /v1/spaces/:spaceId/git/import": async () => ({
    path: `/v1/spaces/${await newSpace()}/git/import`,
    body: { url: `${importSiteUrl}docs.git`, ref: "refs/heads/main" },
  }),
  "POST /v1/spaces/:spaceId/git/export": async () => ({
    path: `/v1/spaces/${await newSpace()}/git/export`,
    body: { url: `${importSiteUrl}docs.git`, ref: "refs/heads/main", commitMessage: "Matrix" },
  }),
  "GET /v1/spaces/:spaceId/git/info": async () => {
    const spaceId = await newSpace();
    const now = new Date();
    await prisma().gitSync.create({
      data: {
        spaceId,
        installationId: `gsi_${spaceId}`,
        provider: "github",
        url: "https://git.example.com/docs.git",
        ref: "refs/heads/main",
        operation: { state: "success", direction: "import", startedAt: now.toISOString(), endedAt: now.toISOString() },
        createdById: ownerUserId,
        createdAt: now,
        updatedAt: now,
      },
    });
    return { path: `/v1/spaces/${spaceId}/git/info` };
  },
  // Git Sync installations: against the two local repositories of gitSyncRepositories().
  "GET /v1/orgs/:organizationId/sites/:siteId/spaces/git/installations": async () => ({
    path: `${(await newSite()).path}/spaces/git/installations`,
  }),
  "POST /v1/git/installations": async () => ({
    path: "/v1/git/installations",
    body: { provider: "github", target: { type: "space", spaceId: await newSpace() } },
  }),
  "GET /v1/git/installations/:installationId": async () => ({ path: `/v1/git/installations/${await newGitSyncInstallation("github")}` }),
  "PATCH /v1/git/installations/:installationId": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("github")}`,
    body: { provider: "github", providerConfiguration: { repositoryId: 1, branch: "refs/heads/main" } },
  }),
  "DELETE /v1/git/installations/:installationId": async () => ({ path: `/v1/git/installations/${await newGitSyncInstallation("github")}` }),
  "GET /v1/git/installations/:installationId/github/repos": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("github")}/github/repos`,
  }),
  "GET /v1/git/installations/:installationId/github/repos/:accountName/:repositoryName/branches": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("github")}/github/repos/matrix/docs/branches`,
  }),
  "GET /v1/git/installations/:installationId/github/repos/:accountName/:repositoryName/file": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("github")}/github/repos/matrix/docs/file?path=README.md&ref=main`,
  }),
  "GET /v1/git/installations/:installationId/gitlab/projects": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("gitlab")}/gitlab/projects`,
  }),
  "GET /v1/git/installations/:installationId/gitlab/projects/:projectId/branches": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("gitlab")}/gitlab/projects/2/branches`,
  }),
  "GET /v1/git/installations/:installationId/gitlab/projects/:projectId/file": async () => ({
    path: `/v1/git/installations/${await newGitSyncInstallation("gitlab")}/gitlab/projects/2/file?path=README.md&ref=main`,
  }),
  "POST /v1/spaces/:spaceId/content/import": async () => ({
    path: `/v1/spaces/${(await newContent()).spaceId}/content/import`,
    body: { url: importSiteUrl, source: "website" },
  }),
  "POST /v1/spaces/:spaceId/content/page/:pageId/import": async () => {
    const { spaceId, pageId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/page/${pageId}/import`, body: { url: importSiteUrl, source: "website" } };
  },
  "GET /v1/spaces/:spaceId/content/pages": async () => ({ path: `/v1/spaces/${(await newContent()).spaceId}/content/pages` }),
  "GET /v1/spaces/:spaceId/content/page/:pageId": async () => {
    const { spaceId, pageId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/page/${pageId}` };
  },
  "GET /v1/spaces/:spaceId/content/path/*": async () => ({ path: `/v1/spaces/${(await newContent()).spaceId}/content/path/matrix/child` }),
  "GET /v1/spaces/:spaceId/content/files": async () => ({ path: `/v1/spaces/${(await newContent()).spaceId}/content/files` }),
  "GET /v1/spaces/:spaceId/content/files/:fileId": async () => {
    const { spaceId, fileId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/files/${fileId}` };
  },
  ...revisionFixtures(),
  "GET /v1/spaces/:spaceId/links": async () => ({ path: `/v1/spaces/${(await newContent()).spaceId}/links` }),
  "GET /v1/spaces/:spaceId/content/page/:pageId/links": async () => {
    const { spaceId, pageId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/page/${pageId}/links` };
  },
  "GET /v1/spaces/:spaceId/content/page/:pageId/meta-links": async () => {
    const { spaceId, pageId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/page/${pageId}/meta-links` };
  },
  "GET /v1/spaces/:spaceId/content/page/:pageId/backlinks": async () => {
    const { spaceId, pageId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/page/${pageId}/backlinks` };
  },
  "GET /v1/spaces/:spaceId/content/files/:fileId/backlinks": async () => {
    const { spaceId, fileId } = await newContent();
    return { path: `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks` };
  },

  // Change requests (the content routes address some by number, which the routes accept too)
  "GET /v1/spaces/:spaceId/change-requests": async () => ({ path: `/v1/spaces/${(await newChangeRequest()).spaceId}/change-requests` }),
  "POST /v1/spaces/:spaceId/change-requests": async () => ({
    path: `/v1/spaces/${await newSpace()}/change-requests`,
    body: { subject: "New" },
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId": async () => ({ path: (await newChangeRequest()).path }),
  "PATCH /v1/spaces/:spaceId/change-requests/:changeRequestId": async () => ({
    path: (await newChangeRequest()).path,
    body: { subject: "Renamed", status: "open" },
  }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/merge": async () => ({ path: `${(await newChangeRequest()).path}/merge` }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/update": async () => ({ path: `${(await newChangeRequest()).path}/update` }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/reusable-contents/:reusableContentId": async () => {
    const { path, reusableContentId } = await newChangeRequest();
    return { path: `${path}/content/reusable-contents/${reusableContentId}` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content": async () => ({
    path: `${(await newChangeRequest()).byNumber}/content`,
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/pages": async () => ({
    path: `${(await newChangeRequest()).path}/content/pages`,
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId": async () => {
    const { byNumber, pageId } = await newChangeRequest();
    return { path: `${byNumber}/content/page/${pageId}` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/path/*": async () => ({
    path: `${(await newChangeRequest()).path}/content/path/matrix/child`,
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/files": async () => ({
    path: `${(await newChangeRequest()).path}/content/files`,
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/files/:fileId": async () => {
    const { path, fileId } = await newChangeRequest();
    return { path: `${path}/content/files/${fileId}` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/files/:fileId/backlinks": async () => {
    const { path, fileId } = await newChangeRequest();
    return { path: `${path}/content/files/${fileId}/backlinks` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/links": async () => {
    const { path, pageId } = await newChangeRequest();
    return { path: `${path}/content/page/${pageId}/links` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/meta-links": async () => {
    const { byNumber, pageId } = await newChangeRequest();
    return { path: `${byNumber}/content/page/${pageId}/meta-links` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/backlinks": async () => {
    const { path, pageId } = await newChangeRequest();
    return { path: `${path}/content/page/${pageId}/backlinks` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/conversations": async () => ({
    path: `${(await newChangeRequest()).byNumber}/conversations`,
  }),
  "PATCH /v1/spaces/:spaceId/change-requests/:changeRequestId/conversations/:conversationId": async () => ({
    path: `${(await newChangeRequest()).path}/conversations/default`,
    body: { title: "Renamed" },
    allowedAs: { status: 404, mentions: 'conversation found with id "default"' },
  }),
  "DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/conversations/:conversationId": async () => ({
    path: `${(await newChangeRequest()).path}/conversations/default`,
    allowedAs: { status: 404, mentions: 'conversation found with id "default"' },
  }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content/import": async () => ({
    path: `${(await newChangeRequest()).path}/content/import`,
    body: { url: importSiteUrl, source: "website" },
  }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/import": async () => {
    const { path, pageId } = await newChangeRequest();
    return { path: `${path}/content/page/${pageId}/import`, body: { url: importSiteUrl, source: "website" } };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/pdf": async () => ({ path: `${(await newChangeRequest()).path}/pdf` }),

  // URL resolution: a space's app URL is read as the space is (a guest and another organization: 404).
  "GET /v1/urls/content": async () => ({
    path: `/v1/urls/content?url=${encodeURIComponent(`${server.url}/app/s/${await newSpace()}`)}`,
  }),

  // Published URLs: any signed-in caller resolves a URL of a published site (what its readers see).
  "GET /v1/urls/published": async () => ({
    path: `/v1/urls/published?url=${encodeURIComponent(await newPublishedSiteUrl())}`,
  }),
  "POST /v1/urls/published": async () => ({ path: "/v1/urls/published", body: { url: await newPublishedSiteUrl() } }),

  // Embeds: any signed-in caller previews a URL (here the local site the import fixtures read); in a space's context, a reader of it.
  "GET /v1/urls/embed": async () => ({ path: `/v1/urls/embed?url=${encodeURIComponent(importSiteUrl)}` }),
  "GET /v1/spaces/:spaceId/embed": async () => ({
    path: `/v1/spaces/${await newSpace()}/embed?url=${encodeURIComponent(importSiteUrl)}`,
  }),

  "GET /v1/user": async () => ({ path: "/v1/user" }),
  "GET /v1/email-domains/:emailDomain/orgs": async () => ({ path: `/v1/email-domains/${EMAIL_DOMAIN}/orgs` }),
  "POST /v1/orgs/:organizationId/ping": async () => ({ path: org("/ping") }),
  "GET /v1/orgs/:organizationId/members": async () => ({ path: org("/members") }),
  "GET /v1/orgs/:organizationId/members/:userId": async () => ({ path: org(`/members/${await newMember()}`) }),
  "PATCH /v1/orgs/:organizationId/members/:userId": async () => ({ path: org(`/members/${await newMember()}`), body: { role: "comment" } }),
  "DELETE /v1/orgs/:organizationId/members/:userId": async () => ({ path: org(`/members/${await newMember()}`) }),
  "POST /v1/orgs/:organizationId/members/:userId/sso": async () => ({ path: org(`/members/${await newMember()}/sso`) }),
  "GET /v1/orgs/:organizationId/members/:userId/spaces": async () => ({ path: org(`/members/${await newMember()}/spaces`) }),
  "GET /v1/orgs/:organizationId/members/:userId/teams": async () => ({ path: org(`/members/${await newMember()}/teams`) }),
  "DELETE /v1/orgs/:organizationId/link-invites/:inviteId": async () => {
    const id = newId("LinkInvite");
    await prisma().linkInvite.create({ data: { id, organizationId, role: "read", createdById: "matrix" } });
    return { path: org(`/link-invites/${id}`) };
  },

  ...organizationJoinFixtures(),

  "GET /v1/orgs/:organizationId/teams": async () => ({ path: org("/teams") }),
  "PUT /v1/orgs/:organizationId/teams": async () => ({ path: org("/teams"), body: { title: "Created" } }),
  "GET /v1/orgs/:organizationId/teams/:teamId": async () => ({ path: org(`/teams/${await newTeam()}`) }),
  "PATCH /v1/orgs/:organizationId/teams/:teamId": async () => ({ path: org(`/teams/${await newTeam()}`), body: { title: "Renamed" } }),
  "DELETE /v1/orgs/:organizationId/teams/:teamId": async () => ({ path: org(`/teams/${await newTeam()}`) }),
  "GET /v1/orgs/:organizationId/teams/:teamId/members": async () => ({ path: org(`/teams/${await newTeam()}/members`) }),
  "PUT /v1/orgs/:organizationId/teams/:teamId/members": async () => ({
    path: org(`/teams/${await newTeam()}/members`),
    body: { add: [await newMember()] },
  }),
  "PUT /v1/orgs/:organizationId/teams/:teamId/members/:userId": async () => ({
    path: org(`/teams/${await newTeam()}/members/${await newMember()}`),
    body: { role: "member" },
  }),
  "DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId": async () => {
    const teamId = await newTeam();
    const userId = await newMember();
    await prisma().teamMember.create({ data: { teamId, userId } });
    return { path: org(`/teams/${teamId}/members/${userId}`) };
  },

  "GET /v1/orgs/:organizationId/saml": async () => ({ path: org("/saml") }),
  "POST /v1/orgs/:organizationId/saml": async () => ({ path: org("/saml"), body: samlBody() }),
  "GET /v1/orgs/:organizationId/saml/:samlProviderId": async () => ({ path: org(`/saml/${await newSamlProvider()}`) }),
  "PATCH /v1/orgs/:organizationId/saml/:samlProviderId": async () => ({
    path: org(`/saml/${await newSamlProvider()}`),
    body: { label: "Renamed" },
  }),
  "DELETE /v1/orgs/:organizationId/saml/:samlProviderId": async () => ({ path: org(`/saml/${await newSamlProvider()}`) }),
  "GET /v1/orgs/:organizationId/sso": async () => ({ path: org("/sso") }),

  // OpenAPI specs (made processed, with one version, so that version routes have one)
  "GET /v1/orgs/:organizationId/translations": async () => ({ path: org("/translations") }),
  "POST /v1/orgs/:organizationId/translations": async () => ({ path: org("/translations"), body: { title: "Matrix", languages: ["fr"] } }),
  "GET /v1/orgs/:organizationId/translations/:translationId": async () => ({ path: org(`/translations/${await newTranslation()}`) }),
  "PUT /v1/orgs/:organizationId/translations/:translationId": async () => ({
    path: org(`/translations/${await newTranslation()}`),
    body: { title: "Renamed", languages: ["fr", "de"] },
  }),
  "DELETE /v1/orgs/:organizationId/translations/:translationId": async () => ({ path: org(`/translations/${await newTranslation()}`) }),
  "POST /v1/orgs/:organizationId/translations/:translationId/run": async () => ({
    path: org(`/translations/${await newTranslation()}/run`),
  }),
  "GET /v1/orgs/:organizationId/fonts": async () => ({ path: org("/fonts") }),
  "PUT /v1/orgs/:organizationId/fonts": async () => ({
    path: org("/fonts"),
    body: { fontFamily: "Matrix Sans", fontFaces: [{ weight: 400, storageKey: "https://fonts.example.com/matrix-400.woff2" }] },
  }),
  "GET /v1/orgs/:organizationId/fonts/:fontId": async () => ({ path: org(`/fonts/${await newFont()}`) }),
  "POST /v1/orgs/:organizationId/fonts/:fontId": async () => ({
    path: org(`/fonts/${await newFont()}`),
    body: { fontFaces: [{ weight: 700, storageKey: "https://fonts.example.com/matrix-700.woff2" }] },
  }),
  "DELETE /v1/orgs/:organizationId/fonts/:fontId": async () => ({ path: org(`/fonts/${await newFont()}`) }),
  // Storage uploads (issue 30)
  "POST /v1/orgs/:organizationId/storage/upload": async () => ({
    path: org("/storage/upload"),
    body: { file: { name: "matrix.png", type: "image/png", size: 1024 }, kind: "organization_file" },
  }),
  // Import runs (issue 30)
  "GET /v1/org/:organizationId/imports": async () => ({ path: `/v1/org/${organizationId}/imports` }),
  "POST /v1/org/:organizationId/imports": async () => ({
    path: `/v1/org/${organizationId}/imports`,
    body: { source: { type: "website", url: importSiteUrl }, target: { space: await newSpace() } },
  }),
  "GET /v1/org/:organizationId/imports/:importRunId": async () => ({
    path: `/v1/org/${organizationId}/imports/${await newImportRun()}`,
  }),
  "POST /v1/org/:organizationId/imports/:importRunId/cancel": async () => ({
    path: `/v1/org/${organizationId}/imports/${await newImportRun()}/cancel`,
  }),
  // Translation glossary (issue 30, urls)
  "GET /v1/orgs/:organizationId/translations-glossary": async () => ({ path: org("/translations-glossary") }),
  "PUT /v1/orgs/:organizationId/translations-glossary": async () => ({
    path: org("/translations-glossary"),
    body: { operations: [{ type: "update", id: await newGlossaryEntry(), translations: { en: "matrix", fr: "matrice" } }] },
  }),
  "GET /v1/orgs/:organizationId/translations-glossary/:glossaryEntryId": async () => ({
    path: org(`/translations-glossary/${await newGlossaryEntry()}`),
  }),
  // Audit log (issue 30, audit): organization admins read it
  "GET /v1/orgs/:organizationId/audit-event-actions": async () => ({ path: org("/audit-event-actions") }),
  "GET /v1/orgs/:organizationId/audit-events": async () => ({ path: org("/audit-events") }),
  "GET /v1/orgs/:organizationId/audit-events/:auditEventId": async () => ({ path: org(`/audit-events/${await newAuditEvent()}`) }),
  "GET /v1/orgs/:organizationId/openapi": async () => ({ path: org("/openapi") }),
  "POST /v1/orgs/:organizationId/openapi": async () => ({
    path: org("/openapi"),
    body: {
      slug: `new-${newId("Page")
        .slice(3)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")}`,
      source: { text: OPENAPI_TEXT },
    },
  }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug": async () => ({ path: org(`/openapi/${(await newSpec()).slug}`) }),
  "PUT /v1/orgs/:organizationId/openapi/:specSlug": async () => ({
    path: org(`/openapi/${(await newSpec()).slug}`),
    body: { source: { text: OPENAPI_TEXT } },
  }),
  "PATCH /v1/orgs/:organizationId/openapi/:specSlug": async () => ({
    path: org(`/openapi/${(await newSpec()).slug}`),
    body: { visibility: "public" },
  }),
  "DELETE /v1/orgs/:organizationId/openapi/:specSlug": async () => ({ path: org(`/openapi/${(await newSpec()).slug}`) }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions": async () => ({ path: org(`/openapi/${(await newSpec()).slug}/versions`) }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest": async () => ({
    path: org(`/openapi/${(await newSpec()).slug}/versions/latest`),
  }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content": async () => ({
    path: org(`/openapi/${(await newSpec()).slug}/versions/latest/content`),
  }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw": async () => ({
    path: org(`/openapi/${(await newSpec()).slug}/versions/latest/content/raw`),
  }),
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId": async () => {
    const { slug, versionId } = await newSpec();
    return { path: org(`/openapi/${slug}/versions/${versionId}`) };
  },
  "GET /v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content": async () => {
    const { slug, versionId } = await newSpec();
    return { path: org(`/openapi/${slug}/versions/${versionId}/content`) };
  },

  // Comments, on the space itself and on a change request
  ...commentFixtures("/v1/spaces/:spaceId", "space"),
  ...commentFixtures("/v1/spaces/:spaceId/change-requests/:changeRequestId", "change request"),

  // Reviews, requested reviewers, contributors and changes of a change request
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/reviews": async () => ({ path: `${(await newReview()).path}/reviews` }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/reviews": async () => ({
    path: `${(await newChangeRequest()).path}/reviews`,
    body: { status: "approved" },
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/reviews/:reviewId": async () => {
    const { path, reviewId } = await newReview();
    return { path: `${path}/reviews/${reviewId}` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers": async () => ({
    path: `${(await newReview()).path}/requested-reviewers`,
  }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers": async () => ({
    path: `${(await newChangeRequest()).path}/requested-reviewers`,
    body: { users: [await newMember("review")] },
  }),
  "DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers/:userId": async () => {
    const { path, reviewerId } = await newReview();
    return { path: `${path}/requested-reviewers/${reviewerId}` };
  },
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/contributors": async () => ({
    path: `${(await newReview()).path}/contributors`,
  }),
  "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/changes": async () => ({ path: `${(await newChangeRequest()).path}/changes` }),
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content": async () => ({
    path: `${(await newChangeRequest()).path}/content`,
    body: { changes: [{ operation: "insert_page", title: "Matrix", document: { markdown: "Batch" } }] },
  }),

  ...SITE_FIXTURES,
  ...integrationFixtures(),
  "GET /v1/spaces/:spaceId/integration-blocks": async () => ({ path: `/v1/spaces/${await newSpace()}/integration-blocks` }),
  // Computed content, from a specification of the organization (read as the space is).
  "POST /v1/spaces/:spaceId/content/computed/document": async () => ({
    path: `/v1/spaces/${await newSpace()}/content/computed/document`,
    body: {
      source: {
        type: "builtin:openapi",
        props: { doc: "models" },
        dependencies: { spec: { ref: { kind: "openapi", spec: (await newSpec()).slug } } },
      },
      seed: "matrix",
    },
  }),
  "POST /v1/spaces/:spaceId/content/computed/revision": async () => ({
    path: `/v1/spaces/${await newSpace()}/content/computed/revision`,
    body: {
      source: {
        type: "builtin:openapi",
        props: { models: true },
        dependencies: { spec: { ref: { kind: "openapi", spec: (await newSpec()).slug } } },
      },
      seed: "matrix",
    },
  }),

  // A template fills a new (empty) space.
  "POST /v1/spaces/:spaceId/content/template": async () => ({
    path: `/v1/spaces/${await newSpace()}/content/template`,
    body: { id: "changelog" },
  }),
  "GET /v1/orgs/:organizationId/sites/:siteId/integration-scripts": async () => ({ path: `${(await newSite()).path}/integration-scripts` }),
  // Who can access a space, collection or site
  ...permissionFixtures(
    "/v1/spaces/:spaceId",
    (id) => `/v1/spaces/${id}`,
    () => newSpace(),
  ),
  ...permissionFixtures("/v1/collections/:collectionId", (id) => `/v1/collections/${id}`, newCollection),
  ...permissionFixtures(
    SITE,
    (id) => org(`/sites/${id}`),
    async () => (await newSite()).path.split("/").pop()!,
  ),
};

// A self-signed certificate (CN=matrix, made with openssl for this test), for SAML provider bodies.
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBejCCAR+gAwIBAgIUILbi0bWdua6r3KPYUIWP+8+F0dYwCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGbWF0cml4MCAXDTI2MTEyMjAzMzU0NloYDzIxMjYxMDI5MDMz
NTQ2WjARMQ8wDQYDVQQDDAZtYXRyaXgwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AATwrJZH7C2LKoY40/Bdh0p6E0l/lT/ogyDWSGChOthkBOXLQezyYqiFPCinBACa
rt1RyxW14AW9OZCmpmphYC9bo1MwUTAdBgNVHQ4EFgQUmJ4ZNGflmdmF0Dwt7Dnt
N7wS7yAwHwYDVR0jBBgwFoAUmJ4ZNGflmdmF0Dwt7DntN7wS7yAwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEArBsr6UnzAy6/b6KD2fFzyam28DBp
K7lX7/U+vgzuUtsCIQDDRQ+fC3rct92JeAy7onVcEFEotINBMK3t6GtvqHxQjA==
-----END CERTIFICATE-----`;

const samlBody = () => ({
  label: "Matrix IdP",
  entityID: "https://idp.example.com/matrix",
  ssoURL: "https://idp.example.com/sso",
  certificate: CERTIFICATE,
});

async function newSamlProvider(): Promise<string> {
  const id = newId("SamlProvider");
  await prisma().samlProvider.create({ data: { id, organizationId, ...samlBody() } });
  return id;
}

/**
 * A private integration of the organization, written directly (no script: its events fail at
 * once, no sandbox starts), optionally installed in the organization: its REST path and ids.
 */
async function newIntegration({
  installed = false,
  script,
  spaceSelection,
}: {
  installed?: boolean;
  script?: string;
  spaceSelection?: "all";
} = {}) {
  const id = newId("Integration");
  const name = `matrix-${id
    .slice(5)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")}`;
  const now = new Date();
  let scriptHash: string | undefined;
  if (script) {
    const data = Buffer.from(script);
    scriptHash = createHash("sha256").update(data).digest("hex");
    await prisma().blob.createMany({ data: [{ hash: scriptHash, data, size: data.length }], skipDuplicates: true });
  }
  await prisma().integration.create({
    data: {
      id,
      name,
      organizationId,
      title: "Matrix integration",
      visibility: "private",
      signingSecret: "matrix",
      scriptHash,
      createdAt: now,
      updatedAt: now,
    },
  });
  const installationId = newId("IntegrationInstallation");
  if (installed)
    await prisma().integrationInstallation.create({
      data: { id: installationId, integrationId: id, organizationId, spaceSelection, createdAt: now, updatedAt: now },
    });
  return {
    id,
    name,
    path: `/v1/integrations/${name}`,
    installationId,
    installation: `/v1/integrations/${name}/installations/${installationId}`,
  };
}

async function newSpaceInstallation() {
  const integration = await newIntegration({ installed: true });
  const spaceId = await newSpace();
  const now = new Date();
  await prisma().integrationSpaceInstallation.create({
    data: { installationId: integration.installationId, spaceId, createdAt: now, updatedAt: now },
  });
  return `${integration.installation}/spaces/${spaceId}`;
}

async function newSiteInstallation() {
  const integration = await newIntegration({ installed: true });
  const siteId = (await newSite()).path.split("/").pop()!;
  const now = new Date();
  await prisma().integrationSiteInstallation.create({
    data: { installationId: integration.installationId, siteId, createdAt: now, updatedAt: now },
  });
  return `${integration.installation}/sites/${siteId}`;
}

/** One integration whose script renders a button, installed once on all spaces: render fixtures use it on new spaces. */
const RENDERER = `export default { async fetch() {
  return Response.json({ type: "element", state: {}, props: {}, element: { type: "block", children: [{ type: "button", label: "Matrix", onPress: { action: "click" } }] } });
} };`;
const renderer: { path?: Promise<string> } = {};
const rendererPath = () =>
  (renderer.path ??= newIntegration({ installed: true, script: RENDERER, spaceSelection: "all" }).then((integration) => integration.path));
const renderBody = (spaceId: string) => ({ componentId: "matrix", props: {}, context: { type: "document", spaceId } });

/** Hoisted: FIXTURES above spreads it. */
function integrationFixtures(): Record<string, Fixture> {
  return {
    "GET /v1/integrations": async () => ({ path: "/v1/integrations" }),
    "GET /v1/integrations/:integrationName": async () => ({ path: (await newIntegration()).path }),
    "POST /v1/integrations/:integrationName": async () => ({
      path: `/v1/integrations/new-${newId("Page")
        .slice(3)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")}`,
      body: { organization: organizationId, title: "Matrix integration", script: "export default {}", visibility: "private" },
    }),
    "DELETE /v1/integrations/:integrationName": async () => ({ path: (await newIntegration()).path }),
    "GET /v1/integrations/:integrationName/installations": async () => ({
      path: `${(await newIntegration({ installed: true })).path}/installations`,
    }),
    "POST /v1/integrations/:integrationName/installations": async () => ({
      path: `${(await newIntegration()).path}/installations`,
      body: { organization: organizationId },
    }),
    "GET /v1/integrations/:integrationName/installations/:installationId": async () => ({
      path: (await newIntegration({ installed: true })).installation,
    }),
    "PATCH /v1/integrations/:integrationName/installations/:installationId": async () => ({
      path: (await newIntegration({ installed: true })).installation,
      body: { externalIds: ["matrix"] },
    }),
    "DELETE /v1/integrations/:integrationName/installations/:installationId": async () => ({
      path: (await newIntegration({ installed: true })).installation,
    }),
    "POST /v1/integrations/:integrationName/installations/:installationId/tokens": async () => ({
      path: `${(await newIntegration({ installed: true })).installation}/tokens`,
    }),
    "GET /v1/integrations/:integrationName/installations/:installationId/spaces": async () => ({
      path: `${(await newIntegration({ installed: true })).installation}/spaces`,
    }),
    "POST /v1/integrations/:integrationName/installations/:installationId/spaces": async () => ({
      path: `${(await newIntegration({ installed: true })).installation}/spaces`,
      body: { space: await newSpace() },
    }),
    "GET /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId": async () => ({
      path: await newSpaceInstallation(),
    }),
    "PATCH /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId": async () => ({
      path: await newSpaceInstallation(),
      body: { externalIds: ["matrix"] },
    }),
    "DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId": async () => ({
      path: await newSpaceInstallation(),
    }),
    "GET /v1/integrations/:integrationName/installations/:installationId/sites": async () => ({
      path: `${(await newIntegration({ installed: true })).installation}/sites`,
    }),
    "POST /v1/integrations/:integrationName/installations/:installationId/sites": async () => ({
      path: `${(await newIntegration({ installed: true })).installation}/sites`,
      body: { siteId: (await newSite()).path.split("/").pop() },
    }),
    "GET /v1/integrations/:integrationName/installations/:installationId/sites/:siteId": async () => ({
      path: await newSiteInstallation(),
    }),
    "PATCH /v1/integrations/:integrationName/installations/:installationId/sites/:siteId": async () => ({
      path: await newSiteInstallation(),
      body: { externalIds: ["matrix"] },
    }),
    "DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId": async () => ({
      path: await newSiteInstallation(),
    }),
    "GET /v1/integrations/:integrationName/spaces": async () => ({ path: `${(await newIntegration({ installed: true })).path}/spaces` }),
    "GET /v1/integrations/:integrationName/sites": async () => ({ path: `${(await newIntegration({ installed: true })).path}/sites` }),
    "GET /v1/integrations/:integrationName/events": async () => ({ path: `${(await newIntegration()).path}/events` }),
    "GET /v1/integrations/:integrationName/events/:eventId": async () => {
      const integration = await newIntegration({ installed: true });
      const eventId = newId("IntegrationEvent");
      const now = new Date();
      await prisma().integrationEvent.create({
        data: {
          id: eventId,
          integrationId: integration.id,
          installationId: integration.installationId,
          payload: { eventId, type: "installation_setup", installationId: integration.installationId, status: "active" },
          status: "success",
          logs: [{ level: "info", message: "matrix", timestamp: now.toISOString() }],
          createdAt: now,
          updatedAt: now,
        },
      });
      return { path: `${integration.path}/events/${eventId}` };
    },
    "PUT /v1/integrations/:integrationName/dev": async () => ({
      path: `${(await newIntegration()).path}/dev`,
      body: { tunnelUrl: "http://127.0.0.1:9/matrix" },
    }),
    "DELETE /v1/integrations/:integrationName/dev": async () => ({ path: `${(await newIntegration()).path}/dev` }),
    "GET /v1/integrations/:integrationName/render": async () => ({
      path: `${await rendererPath()}/render?request=${LZString.compressToEncodedURIComponent(JSON.stringify(renderBody(await newSpace())))}`,
    }),
    "POST /v1/integrations/:integrationName/render": async () => ({
      path: `${await rendererPath()}/render`,
      body: renderBody(await newSpace()),
    }),
    "GET /v1/orgs/:organizationId/integrations": async () => ({ path: org("/integrations") }),
    "GET /v1/orgs/:organizationId/integrations/:integrationName/installation_status": async () => ({
      path: org(`/integrations/${(await newIntegration({ installed: true })).name}/installation_status`),
    }),
    "GET /v1/orgs/:organizationId/integrations/installations-status": async () => ({ path: org("/integrations/installations-status") }),
    "POST /v1/integrations/:integrationName/tasks": async () => ({
      path: `${(await newIntegration()).path}/tasks`,
      body: { task: { matrix: true } },
    }),
    "GET /v1/spaces/:spaceId/integrations": async () => ({ path: `/v1/spaces/${await newSpace()}/integrations` }),
  };
}

const OPENAPI_TEXT = JSON.stringify({ openapi: "3.1.0", info: { title: "Matrix", version: "1" }, paths: {} });

/** A translation from a new space into another (French), written directly. */
async function newTranslation(): Promise<string> {
  const [source, target] = [await newSpace(), await newSpace()];
  const id = newId("TranslationSettings");
  const now = new Date();
  await prisma().translationSettings.create({
    data: { id, organizationId, title: "Matrix", languages: ["fr"], sourceSpaceId: source, createdAt: now, updatedAt: now },
  });
  await prisma().translationTarget.create({
    data: { id: newId("TranslationTarget"), translationId: id, language: "fr", spaceId: target, createdAt: now },
  });
  return id;
}

/** A new site with a live redirect from /matrix-old, written directly: the site's path and the redirect's id. */
async function newRedirect() {
  const { path } = await newSite();
  const redirectId = newId("SiteRedirect");
  const now = new Date();
  await prisma().siteRedirect.create({
    data: {
      id: redirectId,
      siteId: path.split("/").pop()!,
      source: "/matrix-old",
      destination: { kind: "external", url: "https://example.com/matrix" },
      createdAt: now,
      updatedAt: now,
    },
  });
  return { path, redirectId };
}

/** A pending import run (its job not enqueued: nothing runs it), written directly. */
async function newImportRun(): Promise<string> {
  const id = newId("ImportRun");
  const now = new Date();
  const jobId = `job_${id}`;
  await prisma().job.create({ data: { id: jobId, kind: "matrix-idle", payload: {}, runAt: now, maxAttempts: 1, createdAt: now } });
  await prisma().importRun.create({
    data: {
      id,
      organizationId,
      spaceId: await newSpace(),
      sourceType: "website",
      sourceUrl: importSiteUrl,
      status: "pending",
      jobId,
      createdById: ownerUserId,
      createdByTokenId: "tok_matrix",
      createdAt: now,
      updatedAt: now,
    },
  });
  return id;
}

/** A glossary entry, written directly. */
/** An event of the organization's audit log: the one a new collection records. */
async function newAuditEvent(): Promise<string> {
  const collectionId = await newCollection();
  const event = await prisma().auditEvent.findFirstOrThrow({ where: { organizationId, targetId: collectionId } });
  return event.id;
}

async function newGlossaryEntry(): Promise<string> {
  const id = newId("GlossaryEntry");
  const now = new Date();
  await prisma().glossaryEntry.create({
    data: { id, organizationId, translations: { en: "matrix" }, createdAt: now, updatedAt: now },
  });
  return id;
}

/** A new site with sections and an external link, written directly: the site's path and the link's id. */
async function newExternalLink() {
  const { path } = await newSiteWithSections();
  const linkId = newId("SiteExternalLink");
  await prisma().siteExternalLink.create({
    data: {
      id: linkId,
      siteId: path.split("/").pop()!,
      title: "Matrix link",
      url: "https://example.com/matrix",
      sortKey: "a0",
      createdAt: new Date(),
    },
  });
  return { path, linkId };
}

/** A custom font with its regular face, written directly. */
async function newFont(): Promise<string> {
  const id = newId("CustomFont");
  const now = new Date();
  await prisma().customFont.create({
    data: {
      id,
      organizationId,
      fontFamily: "Matrix Sans",
      faces: [{ weight: 400, url: "https://fonts.example.com/matrix-400.woff2" }],
      createdAt: now,
      updatedAt: now,
    },
  });
  return id;
}

/** A processed spec with one version, written directly (no processing to wait for). */
async function newSpec(): Promise<{ slug: string; versionId: string }> {
  const id = newId("OpenAPISpec");
  const versionId = newId("OpenAPISpecVersion");
  const slug = `matrix-${id
    .slice(4)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")}`;
  const data = Buffer.from(OPENAPI_TEXT);
  const hash = createHash("sha256").update(data).digest("hex");
  await prisma().blob.createMany({ data: [{ hash, data, size: data.length }], skipDuplicates: true });
  const now = new Date();
  await prisma().openAPISpec.create({
    data: {
      id,
      organizationId,
      slug,
      sourceTextHash: hash,
      processingState: "complete",
      lastVersionId: versionId,
      lastProcessedAt: now,
      createdAt: now,
      updatedAt: now,
    },
  });
  await prisma().openAPISpecVersion.create({
    data: { id: versionId, specId: id, hash, files: [{ path: "openapi.json", hash, format: "json" }], createdAt: now },
  });
  return { slug, versionId };
}

type Outcome = "allowed" | 401 | 403 | 404;

/** What POLICY says for `route` called by a member with `role` (null: a guest) of the organization. */
function expectedFor(route: RestRoute, role: Role | null): Outcome {
  if (route.action === "viewer") return "allowed";
  // The ad partner's routes answer its key, never a role (the matrix's server has no partner).
  if (route.action === "partner") return 403;
  const rule: Rule = POLICY[route.action];
  if (rule.scope === "collection" || rule.scope === "space" || rule.scope === "site") {
    // No grants and no default levels here: the effective role is the organization role, and a
    // guest cannot see the content (or the site) at all.
    if (role === null) return 404;
    return allows(rule.least, role) ? "allowed" : 403;
  }
  // Organization and team scopes: every member sees the organization; none of them owns the
  // fresh teams, so only admins pass `owner`.
  const held = rule.scope === "team" ? (role === "admin" ? "admin" : null) : (role ?? "member");
  return allows(rule.least, held) ? "allowed" : 403;
}

function outcomeOf(status: number): Outcome | number {
  return status >= 200 && status < 300 ? "allowed" : status;
}

async function call(route: RestRoute, token: string | undefined) {
  const { path, body, allowedAs } = await FIXTURES[`${route.method} ${route.path}`](token ? userIdOfToken.get(token) : undefined);
  const response = await server.rest(token, route.method, path, body);
  const violations = validateResponse(route.method, path, response.status, response.body);
  const message = response.body?.error?.message as string | undefined;
  const allowed = allowedAs && response.status === allowedAs.status && message?.includes(allowedAs.mentions);
  return { path, status: allowed ? 200 : response.status, message, violations };
}
/**
 * The matrix runs in full on PGlite; with DATABASE_URL (the PostgreSQL pass) a deterministic sample:
 * on route number i, the member roles i and i + 3 (mod 7), and the other organization's admin and
 * the tokenless call on every other route. Every route and every role is still called; the policy
 * does not depend on the database, the queries behind each route do, and those run either way.
 */
const SAMPLED = Boolean(process.env.DATABASE_URL);
const sampledRoles = (index: number) =>
  SAMPLED ? MEMBER_ROLES.filter((_role, i) => i === index % MEMBER_ROLES.length || i === (index + 3) % MEMBER_ROLES.length) : MEMBER_ROLES;

/**
 * Registers the matrix's tests for the routes whose number is `shard` modulo `shards`, on a server of
 * their own: the shards are test files (test/permission-matrix-*.test.ts) that run in parallel
 * workers, where the matrix as one file was the last file running, alone, in every pass.
 */
export function permissionMatrix(shard: number, shards: number) {
  beforeAll(async () => {
    importSite = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<title>Matrix site</title><p>Hello</p>"),
    );
    await new Promise<void>((resolve) => importSite.listen(0, "127.0.0.1", resolve));
    importSiteUrl = `http://127.0.0.1:${(importSite.address() as AddressInfo).port}/`;
    server = await startTestServer({ gitSyncRepositories: gitSyncRepositories() });
    const owner = await server.bootstrap("Matrix organization");
    organizationId = owner.organizationId;
    ownerToken = owner.token;
    ownerUserId = owner.userId;
    await prisma().organization.update({ where: { id: organizationId }, data: { emailDomains: [EMAIL_DOMAIN] } });
    targetOrganizationId = (await server.bootstrap("Matrix transfer target")).organizationId;
    const otherAdmin = await server.bootstrap("Matrix other organization");
    otherAdminToken = otherAdmin.token;
    userIdOfToken.set(otherAdmin.token, otherAdmin.userId);
    for (const role of MEMBER_ROLES) {
      const member = await server.addMember(organizationId, role);
      // Admin of the transfer target, so that transfers depend on the source role only.
      await prisma().member.create({ data: { organizationId: targetOrganizationId, userId: member.userId, role: "admin" } });
      callers.set(role, member.token);
      userIdOfToken.set(member.token, member.userId);
    }
  });

  afterAll(async () => {
    await new Promise((resolve) => importSite?.close(resolve));
    await server?.close();
  });

  describe.runIf(shard === 0)("the route table", () => {
    it("has a fixture for every route it serves, and serves every route the matrix has a fixture for", () => {
      const served = routes.map((route) => `${route.method} ${route.path}`);
      expect(served.filter((key) => !FIXTURES[key])).toEqual([]);
      expect(Object.keys(FIXTURES).filter((key) => !served.includes(key))).toEqual([]);
    });

    it("names an operation of the matrix on every route", () => {
      for (const route of routes)
        expect(route.action === "viewer" || route.action === "partner" || route.action in POLICY, `${route.method} ${route.path}`).toBe(
          true,
        );
    });
  });

  describe.each(
    routes
      .map((route, index) => [`${route.method} ${route.path}`, route, index] as const)
      .filter(([, , index]) => index % shards === shard),
  )("%s", (_key, route, index) => {
    it.each(sampledRoles(index).map((role) => [role ?? "guest", role] as const))("as %s: as the matrix says", async (_label, role) => {
      const result = await call(route, callers.get(role));
      expect(outcomeOf(result.status), `${result.path}: ${result.message ?? ""}`).toBe(expectedFor(route, role));
      expect(result.violations).toEqual([]);
    });

    it.skipIf(SAMPLED && index % 2 === 1)("as another organization's admin: 404 (allowed for the caller's own resources)", async () => {
      const result = await call(route, otherAdminToken);
      const expected: Outcome = route.action === "viewer" ? "allowed" : route.action === "partner" ? 403 : 404;
      expect(outcomeOf(result.status), `${result.path}: ${result.message ?? ""}`).toBe(expected);
    });

    it.skipIf(SAMPLED && index % 2 === 0)("without a token: 401", async () => {
      const result = await call(route, undefined);
      expect(result.status, result.path).toBe(401);
      expect(result.violations).toEqual([]);
    });
  });
}
