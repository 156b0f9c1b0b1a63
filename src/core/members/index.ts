// Members of an organization: listing, roles (an organization keeps at least one admin), removal,
// SSO, activity (`lastSeenAt`), their spaces and teams, and invitations (by e-mail, by link).
import { recordAuditEvent } from "../audit/index.ts";
import type { LinkInvite, Member, Organization, Prisma, PrismaClient, Space, TeamMember } from "../../generated/prisma/client.ts";
import { Access } from "../auth/access.ts";
import { issueToken } from "../auth/tokens.ts";
import { authorize } from "../auth/policy.ts";
import { isRole, ROLES, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { type Transaction, WRITE_TRANSACTION } from "../../db/transaction.ts";
import { badInput, conflict, notFound, quote } from "../errors.ts";
import { isEmail } from "../email.ts";
import { newId } from "../ids.ts";
import { createLoaders } from "../loaders.ts";
import { grantedSpaceRows, memberKey } from "./loaders.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { getOrganization, requireOrganization } from "../organizations/index.ts";
import { ScopeSlot } from "../request-scope.ts";

export const MEMBER_SORTS = ["joinedAt", "lastSeenAt"] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];
export type ListOrder = "asc" | "desc";
/** A role filter: a role, or `guest` for members without one. */
export type MemberRoleFilter = Role | "guest";
export const INVITE_EMAILS_MAX = 100;

function checkRole(field: string, value: string | null): Role | null {
  if (value !== null && !isRole(value))
    throw badInput(`${field} must be one of ${ROLES.join(", ")} or null for a guest (got ${quote(value)})`);
  return value;
}

/** The member, if the caller may read members of the organization; 404 when there is no such member. */
export async function readMember(ctx: CoreContext, organizationId: string, userId: string): Promise<Member> {
  await requireOrganization(ctx, organizationId, "member.read");
  const member = await ctx.loaders.member.load(memberKey(organizationId, userId));
  if (!member) throw notFound("member", userId);
  return member;
}

export async function listMembers(
  ctx: CoreContext,
  organizationId: string,
  options: PageArgs & { role?: MemberRoleFilter | null; search?: string | null; sort?: MemberSort | null; order?: ListOrder | null },
) {
  await requireOrganization(ctx, organizationId, "member.list");
  const sort = options.sort ?? "joinedAt";
  const conditions: Prisma.MemberWhereInput[] = [];
  if (options.role) conditions.push({ role: options.role === "guest" ? null : options.role });
  const search = options.search?.trim();
  if (search) {
    conditions.push({
      user: {
        OR: [{ displayName: { contains: search, mode: "insensitive" } }, { email: { contains: search, mode: "insensitive" } }],
      },
    });
  }
  // Sorting by activity lists the members who have been active.
  if (sort === "lastSeenAt") conditions.push({ lastSeenAt: { not: null } });
  const where: Prisma.MemberWhereInput = { organizationId, AND: conditions };
  const page = await paginate<Member, Prisma.MemberWhereInput>(options, {
    sortField: sort,
    sortKind: "date",
    direction: options.order ?? "desc",
    idField: "userId",
    where,
    rows: ctx.prisma.member,
  });
  for (const member of page.items) ctx.loaders.member.prime(memberKey(member.organizationId, member.userId), member);
  return page;
}

/**
 * Runs `work` in a transaction holding the organization's member lock, so two admins demoting
 * each other at once cannot leave the organization without an admin.
 */
export function withMembersLock<T>(ctx: CoreContext, organizationId: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return ctx.prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`members:${organizationId}`}))::text`;
      return work(tx);
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}

/** A member as the target of an audit event: the user, named as they were then. */
async function memberTarget(tx: Transaction, userId: string) {
  const user = await tx.user.findUnique({ where: { id: userId }, select: { displayName: true } });
  return { type: "member", id: userId, label: user?.displayName ?? null };
}

/** Refuses (409) a change that would leave the organization without an enabled admin. */
async function keepAnAdmin(tx: Transaction, member: Member, change: string) {
  if (member.role !== "admin" || member.disabled) return;
  const others = await tx.member.count({
    where: { organizationId: member.organizationId, role: "admin", disabled: false, userId: { not: member.userId } },
  });
  if (others === 0) {
    throw conflict(
      `${change} refused: user ${quote(member.userId)} is the last admin of the organization; make another member admin first`,
    );
  }
}

/** Changes a member's role; null makes them a guest. The last admin cannot be demoted. */
export async function updateMemberRole(ctx: CoreContext, organizationId: string, userId: string, role: string | null | undefined) {
  const checked = role === undefined ? undefined : checkRole("role", role);
  await getOrganization(ctx, organizationId);
  await authorize(ctx, "member.update", { organizationId });
  const updated = await withMembersLock(ctx, organizationId, async (tx) => {
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw notFound("member", userId);
    if (checked === undefined || checked === member.role) return member;
    if (checked !== "admin") await keepAnAdmin(tx, member, "Changing the role");
    await recordAuditEvent(ctx, tx, {
      organizationId,
      action: "organization.member.updated",
      target: await memberTarget(tx, userId),
      payload: { role: { from: member.role, to: checked } },
    });
    return tx.member.update({ where: { organizationId_userId: { organizationId, userId } }, data: { role: checked } });
  });
  ctx.loaders.member.clear(memberKey(organizationId, userId)).prime(memberKey(organizationId, userId), updated);
  return updated;
}

/**
 * Removes a member with their team memberships and grants in the organization. The last admin
 * cannot be removed; 404 when there is no such member.
 */
export async function removeMember(ctx: CoreContext, organizationId: string, userId: string) {
  await getOrganization(ctx, organizationId);
  await authorize(ctx, "member.remove", { organizationId });
  await withMembersLock(ctx, organizationId, async (tx) => {
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw notFound("member", userId);
    await keepAnAdmin(tx, member, "Removing the member");
    await tx.teamMember.deleteMany({ where: { userId, team: { organizationId } } });
    await tx.permissionGrant.deleteMany({ where: { userId, organizationId } });
    await tx.member.delete({ where: { organizationId_userId: { organizationId, userId } } });
    await recordAuditEvent(ctx, tx, {
      organizationId,
      action: "organization.member.removed",
      target: await memberTarget(tx, userId),
      payload: { role: member.role },
    });
  });
  ctx.loaders.member.clear(memberKey(organizationId, userId));
}

/** Makes the member an SSO member (they can sign in through the organization's SSO). */
export async function setMemberSso(ctx: CoreContext, organizationId: string, userId: string) {
  await getOrganization(ctx, organizationId);
  await authorize(ctx, "member.setSso", { organizationId });
  const member = await ctx.loaders.member.load(memberKey(organizationId, userId));
  if (!member) throw notFound("member", userId);
  const updated = await ctx.prisma.member.update({
    where: { organizationId_userId: { organizationId, userId } },
    data: { sso: true },
  });
  ctx.loaders.member.clear(memberKey(organizationId, userId)).prime(memberKey(organizationId, userId), updated);
  return updated;
}

/** Records the caller's activity in the organization (their `lastSeenAt`). */
export async function pingOrganization(ctx: CoreContext, organizationId: string) {
  await requireOrganization(ctx, organizationId, "organization.ping");
  const userId = ctx.viewer.userId;
  const updated = await ctx.prisma.member.update({
    where: { organizationId_userId: { organizationId, userId } },
    data: { lastSeenAt: ctx.clock.now() },
  });
  ctx.loaders.member.clear(memberKey(organizationId, userId)).prime(memberKey(organizationId, userId), updated);
  return updated;
}

// ---------------------------------------------------------------------------------------------
// A member's spaces and teams
// ---------------------------------------------------------------------------------------------

/** Spaces of the organization the member reaches through a grant (to them or a team), newest first by default. */
export async function listMemberSpaces(
  ctx: CoreContext,
  organizationId: string,
  userId: string,
  options: PageArgs & { order?: ListOrder | null },
) {
  await readMember(ctx, organizationId, userId);
  const rows = await grantedSpaceRows(ctx.prisma, [memberKey(organizationId, userId)]);
  const where: Prisma.SpaceWhereInput = { id: { in: rows.map((row) => row.spaceId) } };
  return paginate<Space, Prisma.SpaceWhereInput>(options, {
    sortField: "createdAt",
    sortKind: "date",
    direction: options.order ?? "desc",
    where,
    rows: ctx.prisma.space,
  });
}

const SUBJECT_ACCESSES = new ScopeSlot("access of other users, by user id", () => new Map<string, Access>());

/**
 * The effective role of `userId` (not the caller) on a space, through an Access built for that
 * user; one per user and request, so a page of spaces is checked in batched statements.
 */
export async function memberRoleOnSpace(ctx: CoreContext, userId: string, space: Space): Promise<Role | null> {
  const accesses = ctx.scope.get(SUBJECT_ACCESSES);
  let access = accesses.get(userId);
  if (!access) accesses.set(userId, (access = new Access(createLoaders(ctx, userId))));
  return access.roleOnSpace(space);
}

/** The member's team memberships in the organization, optionally filtered by team title. */
export async function listMemberTeams(
  ctx: CoreContext,
  organizationId: string,
  userId: string,
  options: PageArgs & { title?: string | null },
) {
  await readMember(ctx, organizationId, userId);
  const title = options.title?.trim();
  const where: Prisma.TeamMemberWhereInput = {
    userId,
    team: { organizationId, ...(title ? { title: { contains: title, mode: "insensitive" } } : {}) },
  };
  return paginate<TeamMember, Prisma.TeamMemberWhereInput>(options, {
    sortField: "teamId",
    sortKind: "text",
    idField: "teamId",
    where,
    rows: ctx.prisma.teamMember,
  });
}

// ---------------------------------------------------------------------------------------------
// Invitations
// ---------------------------------------------------------------------------------------------

/**
 * Adds people by e-mail to an organization, with no caller (the operator's CLI) or after the
 * caller's check (inviteMembers). A new e-mail gets a user (display name from the e-mail) and a
 * member; an existing member keeps their role (roles change through updateMemberRole only).
 * `role` undefined: the organization's `defaultRole`.
 */
export async function addMembersByEmail(
  prisma: PrismaClient,
  input: { organizationId: string; emails: string[]; role?: string | null },
): Promise<Member[]> {
  checkEmails("emails", input.emails);
  const explicitRole = input.role === undefined ? undefined : checkRole("role", input.role);
  return prisma.$transaction(async (tx) => {
    const organization = await tx.organization.findUnique({ where: { id: input.organizationId } });
    if (!organization) throw notFound("organization", input.organizationId);
    const role = explicitRole === undefined ? (isRole(organization.defaultRole) ? organization.defaultRole : null) : explicitRole;
    return addMembersByEmailIn(tx, organization.id, input.emails, role);
  });
}

/** Refuses (400 naming `field`) a list of e-mails that is empty, too long, or holds a non-address. */
export function checkEmails(field: string, emails: string[]): void {
  if (emails.length === 0 || emails.length > INVITE_EMAILS_MAX) {
    throw badInput(`${field} must list between 1 and ${INVITE_EMAILS_MAX} e-mail addresses (got ${emails.length})`);
  }
  for (const email of emails) {
    if (!isEmail(email)) throw badInput(`${field}: ${quote(email)} is not an e-mail address`);
  }
}

/**
 * The members for `emails` (checked by the caller), inside the caller's transaction: an unknown
 * e-mail becomes a user and a member with `role`; an existing member keeps theirs.
 */
export async function addMembersByEmailIn(tx: Transaction, organizationId: string, emails: string[], role: Role | null): Promise<Member[]> {
  const members: Member[] = [];
  for (const email of [...new Set(emails.map((email) => email.toLowerCase()))]) {
    // E-mails compare case-insensitively (older rows may keep their original case).
    const user =
      (await tx.user.findFirst({ where: { email: { equals: email, mode: "insensitive" } } })) ??
      (await tx.user.create({ data: { id: newId("User"), email, displayName: email.split("@")[0] } }));
    members.push(
      await tx.member.upsert({
        where: { organizationId_userId: { organizationId, userId: user.id } },
        update: {},
        create: { organizationId, userId: user.id, role },
      }),
    );
  }
  return members;
}

export async function inviteMembers(ctx: CoreContext, input: { organizationId: string; emails: string[]; role?: string | null }) {
  await requireOrganization(ctx, input.organizationId, "member.invite");
  const members = await addMembersByEmail(ctx.prisma, input);
  for (const member of members) ctx.loaders.member.prime(memberKey(member.organizationId, member.userId), member);
  return members;
}

/** Invite links an organization may hold at once. */
export const LINK_INVITES_PER_ORGANIZATION_MAX = 100;

/**
 * A link anyone can use to join with `role`, until `expiresAt` if given (in the future); refused
 * (409) when the organization disabled invite links or holds LINK_INVITES_PER_ORGANIZATION_MAX.
 */
export async function createLinkInvite(
  ctx: CoreContext,
  input: { organizationId: string; role?: string | null; expiresAt?: Date | null },
): Promise<LinkInvite> {
  const role = input.role === undefined ? undefined : checkRole("role", input.role);
  if (input.expiresAt && input.expiresAt.getTime() <= ctx.clock.now().getTime()) throw badInput("expiresAt must be in the future");
  const organization: Organization = await requireOrganization(ctx, input.organizationId, "invite.manage");
  if (!organization.inviteLinks) {
    throw conflict("Invite links are disabled in this organization (inviteLinks is false): enable them first");
  }
  return withMembersLock(ctx, organization.id, async (tx) => {
    if ((await tx.linkInvite.count({ where: { organizationId: organization.id } })) >= LINK_INVITES_PER_ORGANIZATION_MAX) {
      throw conflict(`The organization holds at most ${LINK_INVITES_PER_ORGANIZATION_MAX} invite links: delete one first`);
    }
    const invite = await tx.linkInvite.create({
      data: {
        id: newId("LinkInvite"),
        organizationId: organization.id,
        role: role === undefined ? organization.defaultRole : role,
        createdById: ctx.viewer.userId,
        expiresAt: input.expiresAt ?? null,
      },
    });
    await recordAuditEvent(ctx, tx, {
      organizationId: organization.id,
      action: "organization.link-invite.created",
      target: { type: "link-invite", id: invite.id },
      payload: { role: invite.role, expiresAt: invite.expiresAt },
    });
    return invite;
  });
}

export async function deleteLinkInvite(ctx: CoreContext, organizationId: string, inviteId: string) {
  await requireOrganization(ctx, organizationId, "invite.manage");
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.linkInvite.deleteMany({ where: { id: inviteId, organizationId } });
    if (count === 0) throw notFound("invite link", inviteId);
    await recordAuditEvent(ctx, tx, {
      organizationId,
      action: "organization.link-invite.deleted",
      target: { type: "link-invite", id: inviteId },
    });
  }, WRITE_TRANSACTION);
}

// ---------------------------------------------------------------------------------------------
// Organizations by e-mail domain
// ---------------------------------------------------------------------------------------------

/**
 * Organizations whose `emailDomains` contain `domain`: the caller's own organizations, and, when
 * `domain` is the domain of the caller's own e-mail, the ones they could join with it. Others'
 * domains list nothing beyond the caller's own organizations.
 */
export async function organizationsForEmailDomain(ctx: CoreContext, emailDomain: string): Promise<Organization[]> {
  const domain = emailDomain.trim().toLowerCase();
  const viewer = await ctx.loaders.user.load(ctx.viewer.userId);
  const ownDomain = viewer?.email.split("@")[1]?.toLowerCase() === domain;
  const organizations = await ctx.prisma.organization.findMany({
    where: {
      emailDomains: { has: domain },
      ...(ownDomain ? {} : { members: { some: { userId: ctx.viewer.userId, disabled: false } } }),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 100,
  });
  for (const organization of organizations) ctx.loaders.organization.prime(organization.id, organization);
  return organizations;
}

/**
 * The operator's invite (`npm run cli -- invite`), without a caller: adds the member like
 * inviteMembers (same rule) and issues a new API token for that user. `role` is a role or `guest`.
 */
export async function inviteByOperator(
  prisma: PrismaClient,
  input: { organizationId: string; email: string; role: string },
): Promise<{ userId: string; token: string }> {
  if (input.role !== "guest" && !isRole(input.role)) {
    throw badInput(`role must be one of ${ROLES.join(", ")} or guest (got ${quote(input.role)})`);
  }
  const [member] = await addMembersByEmail(prisma, {
    organizationId: input.organizationId,
    emails: [input.email],
    role: input.role === "guest" ? null : input.role,
  });
  return { userId: member.userId, token: await issueToken(prisma, member.userId, "invite") };
}
