// Joining an organization: invite links (read, change, join with one), invitations by e-mail
// (stored, seen by the invitee, accepted by them) and joining by e-mail domain. No mail is sent by
// this service: an invitee sees their pending invitations as `viewer.invites` (GraphQL) and accepts
// one with POST /v1/orgs/{organizationId}/invites/{inviteId}.
import { recordAuditEvent } from "../audit/index.ts";
import type { EmailInvite, LinkInvite, Organization, Prisma } from "../../generated/prisma/client.ts";
import { atLeast, isRole, ROLES, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { type Transaction, WRITE_TRANSACTION } from "../../db/transaction.ts";
import { badInput, conflict, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { requireOrganization } from "../organizations/read.ts";
import { isEmail } from "../email.ts";
import { INVITE_EMAILS_MAX, withMembersLock } from "./index.ts";
import { memberKey } from "./loaders.ts";

/** Pending invitations by e-mail an organization may hold at once. */
export const EMAIL_INVITES_PER_ORGANIZATION_MAX = 1000;

function checkRole(field: string, value: unknown): Role | null {
  if (value !== null && !isRole(value)) {
    throw badInput(`${field} must be one of ${ROLES.join(", ")} or null for a guest (got ${quote(value)})`);
  }
  return value;
}

const defaultRoleOf = (organization: Organization): Role | null => (isRole(organization.defaultRole) ? organization.defaultRole : null);

// ---------------------------------------------------------------------------------------------
// Invite links
// ---------------------------------------------------------------------------------------------

export async function listLinkInvites(ctx: CoreContext, organizationId: string, page: PageArgs) {
  await requireOrganization(ctx, organizationId, "invite.manage");
  return paginate<LinkInvite, Prisma.LinkInviteWhereInput>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where: { organizationId },
    rows: ctx.prisma.linkInvite,
  });
}

export async function getLinkInvite(ctx: CoreContext, organizationId: string, inviteId: string): Promise<LinkInvite> {
  await requireOrganization(ctx, organizationId, "invite.manage");
  const invite = await ctx.prisma.linkInvite.findFirst({ where: { id: inviteId, organizationId } });
  if (!invite) throw notFound("invite link", inviteId);
  return invite;
}

/** Changes the role an invite link gives (null: guests). */
export async function updateLinkInvite(ctx: CoreContext, organizationId: string, inviteId: string, role: unknown): Promise<LinkInvite> {
  const checked = checkRole("role", role);
  await getLinkInvite(ctx, organizationId, inviteId);
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.linkInvite.updateMany({ where: { id: inviteId, organizationId }, data: { role: checked } });
    if (count === 0) throw notFound("invite link", inviteId);
    await recordAuditEvent(ctx, tx, {
      organizationId,
      action: "organization.link-invite.updated",
      target: { type: "link-invite", id: inviteId },
      payload: { role: checked },
    });
    return tx.linkInvite.findUniqueOrThrow({ where: { id: inviteId } });
  }, WRITE_TRANSACTION);
}

/**
 * Whether the invite is redundant for the caller, as the published API defines it: they already
 * hold at least the role it gives (any member holds what a guest invite gives).
 */
export async function isRedundantFor(ctx: CoreContext, invite: { organizationId: string; role: string | null }): Promise<boolean> {
  const membership = await ctx.access.membership(invite.organizationId);
  if (!membership) return false;
  if (!isRole(invite.role)) return true;
  return atLeast(membership.role, invite.role);
}

// ---------------------------------------------------------------------------------------------
// Invitations by e-mail
// ---------------------------------------------------------------------------------------------

export interface EmailInviteItem {
  email: string;
  /** undefined: the request's role, else the organization's defaultRole. */
  role?: string | null;
}

/**
 * Stores an invitation per e-mail that is not yet a member's (an existing invitation gets the new
 * role). Returns the users who already have an account with one of these e-mails (they can accept
 * at once) and the number of invitations stored. At most INVITE_EMAILS_MAX e-mails per request.
 */
export async function inviteByEmail(
  ctx: CoreContext,
  input: { organizationId: string; items: EmailInviteItem[]; role?: string | null; sso?: boolean | null },
): Promise<{ users: string[]; invited: number }> {
  if (input.items.length === 0 || input.items.length > INVITE_EMAILS_MAX) {
    throw badInput(`emails must list between 1 and ${INVITE_EMAILS_MAX} e-mail addresses (got ${input.items.length})`);
  }
  const requestRole = input.role === undefined ? undefined : checkRole("role", input.role);
  const wanted = new Map<string, Role | null | undefined>();
  input.items.forEach((item, index) => {
    if (typeof item.email !== "string" || !isEmail(item.email)) {
      throw badInput(`emails[${index}]: ${quote(item.email)} is not an e-mail address`);
    }
    const role = item.role === undefined ? requestRole : checkRole(`emails[${index}].role`, item.role);
    wanted.set(item.email.toLowerCase(), role);
  });
  const organization = await requireOrganization(ctx, input.organizationId, "member.invite");
  const emails = [...wanted.keys()];
  return withMembersLock(ctx, organization.id, async (tx) => {
    const users = await tx.user.findMany({
      where: { OR: emails.map((email) => ({ email: { equals: email, mode: "insensitive" as const } })) },
      select: { id: true, email: true, memberships: { where: { organizationId: organization.id }, select: { userId: true } } },
    });
    const members = new Set(users.filter((user) => user.memberships.length > 0).map((user) => user.email.toLowerCase()));
    const toInvite = emails.filter((email) => !members.has(email));
    const existing = await tx.emailInvite.count({ where: { organizationId: organization.id, email: { notIn: toInvite } } });
    if (existing + toInvite.length > EMAIL_INVITES_PER_ORGANIZATION_MAX) {
      throw conflict(
        `The organization holds at most ${EMAIL_INVITES_PER_ORGANIZATION_MAX} pending invitations; delete members' unused ones or wait until they are accepted`,
      );
    }
    for (const email of toInvite) {
      const asked = wanted.get(email);
      const role = asked === undefined ? defaultRoleOf(organization) : asked;
      await tx.emailInvite.upsert({
        where: { organizationId_email: { organizationId: organization.id, email } },
        update: { role, sso: input.sso ?? false },
        create: {
          id: newId("EmailInvite"),
          organizationId: organization.id,
          email,
          role,
          sso: input.sso ?? false,
          createdById: ctx.viewer.userId,
        },
      });
    }
    const invitedEmails = new Set(toInvite);
    return {
      users: users.filter((user) => invitedEmails.has(user.email.toLowerCase())).map((user) => user.id),
      invited: toInvite.length,
    };
  });
}

/** The caller's pending invitations by e-mail (to the address of their account), oldest first. */
export async function viewerInvites(ctx: CoreContext, page: PageArgs) {
  const viewer = await ctx.loaders.user.load(ctx.viewer.userId);
  const email = viewer?.email.toLowerCase() ?? "";
  return paginate<EmailInvite, Prisma.EmailInviteWhereInput>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where: { email },
    rows: ctx.prisma.emailInvite,
  });
}

// ---------------------------------------------------------------------------------------------
// Joining
// ---------------------------------------------------------------------------------------------

export interface JoinResult {
  organizationId: string;
  /** The caller's role in the organization after the call (null: guest). */
  role: Role | null;
  /** True when the caller was already a member: nothing changed. */
  alreadyMember: boolean;
}

/** Makes the caller a member with `role` (a member already keeps their role), inside the lock. */
async function join(tx: Transaction, organizationId: string, userId: string, role: Role | null, sso = false): Promise<JoinResult> {
  const existing = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (existing) {
    if (existing.disabled) throw conflict("Your membership of this organization is disabled: an admin must enable it");
    return { organizationId, role: isRole(existing.role) ? existing.role : null, alreadyMember: true };
  }
  await tx.member.create({ data: { organizationId, userId, role, sso } });
  return { organizationId, role, alreadyMember: false };
}

function forgetMembership(ctx: CoreContext, organizationId: string) {
  ctx.loaders.member.clear(memberKey(organizationId, ctx.viewer.userId));
}

/**
 * Joins with an invite: an invite link of the organization (its id is the secret; refused while the
 * organization's inviteLinks is false or once the link has expired), or an invitation by e-mail to
 * the caller's own address (deleted once accepted). Any other id, or another organization's, is
 * unknown (404).
 */
export async function joinWithInvite(ctx: CoreContext, organizationId: string, inviteId: string): Promise<JoinResult> {
  if (ctx.viewer.installationId) throw badInput("An integration's token cannot join an organization");
  const result = await withMembersLock(ctx, organizationId, async (tx) => {
    const organization = await tx.organization.findUnique({ where: { id: organizationId } });
    if (!organization) throw notFound("invite", inviteId);
    const link = await tx.linkInvite.findFirst({ where: { id: inviteId, organizationId } });
    if (link) {
      if (!organization.inviteLinks) throw conflict("Invite links are disabled in this organization: this link does not let anyone join");
      if (link.expiresAt && link.expiresAt.getTime() <= ctx.clock.now().getTime()) {
        throw conflict(`This invite link expired at ${link.expiresAt.toISOString()}: ask an admin of the organization for a new one`);
      }
      return join(tx, organizationId, ctx.viewer.userId, isRole(link.role) ? link.role : null);
    }
    const user = await tx.user.findUnique({ where: { id: ctx.viewer.userId } });
    const invite = await tx.emailInvite.findFirst({ where: { id: inviteId, organizationId } });
    if (!invite || !user || invite.email !== user.email.toLowerCase()) throw notFound("invite", inviteId);
    await tx.emailInvite.delete({ where: { id: invite.id } });
    return join(tx, organizationId, user.id, isRole(invite.role) ? invite.role : null, invite.sso);
  });
  forgetMembership(ctx, organizationId);
  return result;
}

/**
 * Joins an organization whose emailDomains hold the domain of the caller's e-mail, with the
 * organization's defaultRole. Unknown organization: 404; another domain: 400.
 */
export async function joinByEmailDomain(ctx: CoreContext, organizationId: string): Promise<JoinResult> {
  if (ctx.viewer.installationId) throw badInput("An integration's token cannot join an organization");
  const result = await withMembersLock(ctx, organizationId, async (tx) => {
    const organization = await tx.organization.findUnique({ where: { id: organizationId } });
    if (!organization) throw notFound("organization", organizationId);
    const user = await tx.user.findUnique({ where: { id: ctx.viewer.userId } });
    const domain = user?.email.split("@")[1]?.toLowerCase() ?? "";
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId: ctx.viewer.userId } } });
    if (!member && !organization.emailDomains.includes(domain)) {
      throw badInput(`email: the domain of your e-mail (${quote(domain)}) is not one of the organization's e-mail domains`);
    }
    return join(tx, organizationId, ctx.viewer.userId, defaultRoleOf(organization));
  });
  forgetMembership(ctx, organizationId);
  return result;
}
