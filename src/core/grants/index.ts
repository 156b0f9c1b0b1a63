// Permission grants: a role given on one space, collection or site to one member or one team of
// its organization. Changing them needs `space.grant` / `collection.grant` / `site.grant` (admin
// on the item). The
// effective role reads them through the loaders (src/core/auth/access.ts), so a change counts from the
// next request on; a team grant reaches whoever is in the team at that moment.
//
// Everything here takes a content kind and an id, so that another kind of item (sites) adds a
// row to CONTENT_KINDS rather than a copy of these functions.
import type { Collection, Space } from "../../generated/prisma/client.ts";
import { isRole, ROLES, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import type { Transaction } from "../../db/transaction.ts";
import { badInput, DomainError, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { memberKey } from "../members/loaders.ts";
import { isEmail } from "../email.ts";
import { addMembersByEmailIn, checkEmails, INVITE_EMAILS_MAX } from "../members/index.ts";

export * from "./holders.ts";
export * from "./items.ts";
import { CONTENT_KINDS, type ContentKind, type GrantItem, requireGrantItem } from "./items.ts";

export interface GrantInput {
  /** When given, the item's organization must be this one (404 otherwise). */
  organization?: string | null;
  /** Exactly one of user and team. */
  user?: string | null;
  team?: string | null;
  /** The role to give; null removes the grant. */
  role: string | null;
}

export function checkGrantRole(value: string | null, field = "role"): Role | null {
  if (value !== null && !isRole(value))
    throw badInput(`${field} must be one of ${ROLES.join(", ")} or null to remove the grant (got ${quote(value)})`);
  return value;
}

interface Subject {
  userId: string | null;
  teamId: string | null;
}

const noMember = (field: string, user: string) => new DomainError("NOT_FOUND", `${field}: no member ${quote(user)} in this organization`);
const noTeam = (field: string, team: string) => new DomainError("NOT_FOUND", `${field}: no team ${quote(team)} in this organization`);

/** A member of the organization (404 naming the field otherwise). */
async function memberSubject(ctx: CoreContext, organizationId: string, user: string, field: string): Promise<Subject> {
  const member = await ctx.loaders.member.load(memberKey(organizationId, user));
  if (!member) throw noMember(field, user);
  return { userId: user, teamId: null };
}

/** A team of the organization (404 naming the field otherwise: another organization's team is not found). */
async function teamSubject(ctx: CoreContext, organizationId: string, team: string, field: string): Promise<Subject> {
  const row = await ctx.loaders.team.load(team);
  if (!row || row.organizationId !== organizationId) throw noTeam(field, team);
  return { userId: null, teamId: team };
}

/** The subject of a grant: a member or a team of the organization. */
async function grantee(ctx: CoreContext, organizationId: string, input: GrantInput): Promise<Subject> {
  const user = input.user ?? null;
  const team = input.team ?? null;
  if ((user === null) === (team === null)) throw badInput("Exactly one of user and team is required");
  return user !== null ? memberSubject(ctx, organizationId, user, "user") : teamSubject(ctx, organizationId, team!, "team");
}

/** Writes (or, role null, removes) the subject's grant on the item; answers the role it had there before. */
async function writeGrant(tx: Transaction, item: GrantItem, subject: Subject, role: Role | null): Promise<Role | null> {
  // Grants of one item are written one transaction at a time, so two writers for the same subject
  // cannot both find no grant and both insert one (the unique indexes would refuse the second).
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`grants:${item.id}`}))::text`;
  const where = { [CONTENT_KINDS[item.kind].column]: item.id, userId: subject.userId, teamId: subject.teamId };
  const previous = await tx.permissionGrant.findFirst({ where });
  if (previous) await tx.permissionGrant.delete({ where: { id: previous.id } });
  if (role !== null) {
    await tx.permissionGrant.create({ data: { id: newId("PermissionGrant"), organizationId: item.organizationId, ...where, role } });
  }
  return previous && isRole(previous.role) ? previous.role : null;
}

function forgetGrants(ctx: CoreContext, item: GrantItem) {
  ctx.loaders.viewerGrants.clear(item.id);
}

/**
 * Gives `role` on the item to a member or a team (replacing their grant there), or removes it
 * (null). `previousRole` is the role their grant there gave before (null: they had none).
 */
export async function setContentGrant(ctx: CoreContext, kind: ContentKind, id: string, input: GrantInput) {
  const role = checkGrantRole(input.role);
  const item = await requireGrantItem(ctx, kind, id, "grant", input.organization);
  const subject = await grantee(ctx, item.organizationId, input);
  const previousRole = await ctx.prisma.$transaction((tx) => writeGrant(tx, item, subject, role));
  forgetGrants(ctx, item);
  return { item, role, previousRole };
}

/** Gives `role` on the space to a member or a team (replacing their grant there), or removes it (null). */
export async function setSpaceGrant(ctx: CoreContext, spaceId: string, input: GrantInput) {
  const { item, role, previousRole } = await setContentGrant(ctx, "space", spaceId, input);
  return { space: item.row as Space, role, previousRole };
}

/** Gives `role` on the collection (and what is beneath it) to a member or a team, or removes it (null). */
export async function setCollectionGrant(ctx: CoreContext, collectionId: string, input: GrantInput) {
  const { item, role, previousRole } = await setContentGrant(ctx, "collection", collectionId, input);
  return { collection: item.row as Collection, role, previousRole };
}

export interface InviteInput {
  /** When given, the item's organization must be this one (404 otherwise). */
  organization?: string | null;
  role: string | null;
  /** Member ids, or e-mails: an e-mail of no member adds that person to the organization as a guest. */
  users?: string[] | null;
  teams?: string[] | null;
}

/**
 * Gives `role` on the item to every user and team listed, all or nothing. An e-mail names the
 * member with that e-mail (case-insensitive); a new one becomes a guest of the organization
 * (a user named after the e-mail), who then sees only what is granted to them.
 */
export async function inviteToContent(ctx: CoreContext, kind: ContentKind, id: string, input: InviteInput) {
  if (input.role === null) throw badInput(`role must be one of ${ROLES.join(", ")}: an invitation gives a role`);
  const role = checkGrantRole(input.role)!;
  const users = input.users ?? [];
  const teams = input.teams ?? [];
  if (users.length + teams.length === 0) throw badInput("users or teams must list at least one user, e-mail or team");
  if (users.length + teams.length > INVITE_EMAILS_MAX) {
    throw badInput(`users and teams must list at most ${INVITE_EMAILS_MAX} entries together (got ${users.length + teams.length})`);
  }
  const item = await requireGrantItem(ctx, kind, id, "grant", input.organization);
  const emails = users.filter(isEmail);
  if (emails.length) checkEmails("users", emails);
  const subjects: Subject[] = [];
  for (const [index, user] of users.entries()) {
    if (!isEmail(user)) subjects.push(await memberSubject(ctx, item.organizationId, user, `users[${index}]`));
  }
  for (const [index, team] of teams.entries()) subjects.push(await teamSubject(ctx, item.organizationId, team, `teams[${index}]`));
  await ctx.prisma.$transaction(async (tx) => {
    const invited = emails.length ? await addMembersByEmailIn(tx, item.organizationId, emails, null) : [];
    const all = [...subjects, ...invited.map((member) => ({ userId: member.userId, teamId: null }))];
    const unique = new Map(all.map((subject) => [`${subject.userId}:${subject.teamId}`, subject]));
    for (const subject of unique.values()) await writeGrant(tx, item, subject, role);
  });
  forgetGrants(ctx, item);
  return item;
}
