// Teams of an organization and their members. Reading teams needs a role in the organization
// (`team.read`, `team.list`); creating and deleting them an organization admin; renaming a team
// and changing its members an organization admin or an owner of the team (scope "team").
import { type AuditAction, type AuditEventInput, recordAuditEvent } from "../audit/index.ts";
import type { Prisma, Team, TeamMember } from "../../generated/prisma/client.ts";
import { authorize, type Action } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { type Transaction, WRITE_TRANSACTION } from "../../db/transaction.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { memberKey } from "../members/loaders.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { getOrganization, requireOrganization } from "../organizations/index.ts";
import { checkLength, checkOneOf } from "../validate.ts";

/** The OpenAPI schema OrganizationTeamTitle: 1 to 64 characters. */
export const TEAM_TITLE_MAX = 64;
export const TEAM_MEMBER_ROLES = ["owner", "member"] as const;
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];

function checkTitle(title: string): string {
  checkLength("title", title, { min: 1, max: TEAM_TITLE_MAX });
  if (!title.trim()) throw badInput("title must not be blank");
  return title;
}

const checkTeamRole = (field: string, value: string): TeamMemberRole => checkOneOf(field, value, TEAM_MEMBER_ROLES);

/** The team, when it belongs to `organizationId` and the caller is a member of it; 404 otherwise. */
async function findTeam(ctx: CoreContext, organizationId: string, teamId: string): Promise<Team> {
  await getOrganization(ctx, organizationId);
  const team = await ctx.loaders.team.load(teamId);
  if (!team || team.organizationId !== organizationId) throw notFound("team", teamId);
  return team;
}

/** The team (404 unless it is a team of the organization the caller is a member of), if the caller may do `action` on it (else 403). */
async function requireTeam(ctx: CoreContext, organizationId: string, teamId: string, action: Action): Promise<Team> {
  const team = await findTeam(ctx, organizationId, teamId);
  await authorize(ctx, action, { team });
  return team;
}

/** Reading a team: a role in its organization (guests: 403). */
export function readTeam(ctx: CoreContext, organizationId: string, teamId: string): Promise<Team> {
  return requireTeam(ctx, organizationId, teamId, "team.read");
}

/** For `node(id:)`: the teams the caller may read, null for the others. */
export async function loadVisibleTeams(ctx: CoreContext, ids: readonly string[]): Promise<(Team | null)[]> {
  return Promise.all(
    ids.map(async (id) => {
      const team = await ctx.loaders.team.load(id);
      if (!team) return null;
      return readTeam(ctx, team.organizationId, id).catch(() => null);
    }),
  );
}

/** Does the caller pass `action` on the team? (For `permissions` objects; never throws.) */
export function mayOnTeam(ctx: CoreContext, action: Action, team: Team): Promise<boolean> {
  return authorize(ctx, action, { team }).then(
    () => true,
    () => false,
  );
}

export async function listTeams(
  ctx: CoreContext,
  organizationId: string,
  options: PageArgs & { title?: string | null; owner?: string | null },
) {
  await requireOrganization(ctx, organizationId, "team.list");
  const conditions: Prisma.TeamWhereInput[] = [];
  const title = options.title?.trim();
  if (title) conditions.push({ title: { contains: title, mode: "insensitive" } });
  if (options.owner) {
    // Teams that member can manage: every team for an organization admin, else the ones they own.
    const member = await ctx.loaders.member.load(memberKey(organizationId, options.owner));
    if (!member || member.disabled) conditions.push({ id: { in: [] } });
    else if (member.role !== "admin") conditions.push({ members: { some: { userId: options.owner, role: "owner" } } });
  }
  const where: Prisma.TeamWhereInput = { organizationId, AND: conditions };
  const page = await paginate<Team, Prisma.TeamWhereInput>(options, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.team,
  });
  for (const team of page.items) ctx.loaders.team.prime(team.id, team);
  return page;
}

export async function createTeam(ctx: CoreContext, input: { organizationId: string; title: string; members?: string[] | null }) {
  const title = checkTitle(input.title);
  await requireOrganization(ctx, input.organizationId, "team.create");
  return ctx.prisma.$transaction(async (tx) => {
    const userIds = await resolveMembers(tx, input.organizationId, "members", input.members ?? [], { byEmail: false });
    const team = await tx.team.create({ data: { id: newId("Team"), organizationId: input.organizationId, title } });
    if (userIds.length) await tx.teamMember.createMany({ data: userIds.map((userId) => ({ teamId: team.id, userId, role: "member" })) });
    await recordAuditEvent(ctx, tx, {
      organizationId: team.organizationId,
      action: "organization.team.created",
      target: teamTarget(team),
      payload: { members: userIds },
    });
    return team;
  });
}

export async function updateTeam(ctx: CoreContext, organizationId: string, teamId: string, patch: { title?: string }) {
  const title = patch.title === undefined ? undefined : checkTitle(patch.title);
  await requireTeam(ctx, organizationId, teamId, "team.update");
  const updated = await ctx.prisma.$transaction(async (tx) => {
    const team = await tx.team.update({ where: { id: teamId }, data: title === undefined ? {} : { title } });
    await recordAuditEvent(ctx, tx, {
      organizationId: team.organizationId,
      action: "organization.team.updated",
      target: teamTarget(team),
      payload: { fields: title === undefined ? [] : ["title"] },
    });
    return team;
  }, WRITE_TRANSACTION);
  ctx.loaders.team.clear(teamId).prime(teamId, updated);
  return updated;
}

/** Deletes the team with its memberships and grants (SAML providers defaulting to it keep no default team). */
export async function deleteTeam(ctx: CoreContext, organizationId: string, teamId: string) {
  const team = await findTeam(ctx, organizationId, teamId);
  await authorize(ctx, "team.delete", { organizationId: team.organizationId });
  await ctx.prisma.$transaction(async (tx) => {
    await tx.team.delete({ where: { id: teamId } });
    await recordAuditEvent(ctx, tx, { organizationId: team.organizationId, action: "organization.team.deleted", target: teamTarget(team) });
  }, WRITE_TRANSACTION);
  ctx.loaders.team.clear(teamId);
}

export async function listTeamMembers(ctx: CoreContext, organizationId: string, teamId: string, options: PageArgs) {
  await readTeam(ctx, organizationId, teamId);
  return paginate<TeamMember, Prisma.TeamMemberWhereInput>(options, {
    sortField: "userId",
    sortKind: "text",
    idField: "userId",
    where: { teamId },
    rows: ctx.prisma.teamMember,
  });
}

/**
 * The user ids of organization members named by `values` (user ids, or e-mails when `byEmail`),
 * in order, without repeats. Anything else is refused with 400 naming the value.
 */
async function resolveMembers(
  tx: Transaction,
  organizationId: string,
  field: string,
  values: string[],
  { byEmail }: { byEmail: boolean },
): Promise<string[]> {
  if (values.length === 0) return [];
  const members = await tx.member.findMany({
    where: {
      organizationId,
      OR: [
        { userId: { in: values } },
        ...(byEmail ? [{ user: { email: { in: values.map((value) => value.toLowerCase()), mode: "insensitive" as const } } }] : []),
      ],
    },
    select: { userId: true, user: { select: { email: true } } },
  });
  const byKey = new Map<string, string>();
  for (const member of members) {
    byKey.set(member.userId, member.userId);
    if (byEmail) byKey.set(member.user.email.toLowerCase(), member.userId);
  }
  const userIds: string[] = [];
  for (const value of values) {
    const userId = byKey.get(value) ?? (byEmail ? byKey.get(value.toLowerCase()) : undefined);
    if (!userId) {
      throw badInput(
        `${field}: ${quote(value)} is not a member of this organization${byEmail ? " (neither a user id nor an e-mail)" : ""}`,
      );
    }
    if (!userIds.includes(userId)) userIds.push(userId);
  }
  return userIds;
}

/** A team as the target of an audit event. */
const teamTarget = (team: Team) => ({ type: "team", id: team.id, label: team.title });

/** An audit event of a change of one of the team's members. */
function teamMemberEvent(team: Team, action: AuditAction, userId: string, role: string): AuditEventInput {
  return { organizationId: team.organizationId, action, target: teamTarget(team), payload: { user: userId, role } };
}

/** Serializes changes to one team's members, so concurrent updates apply one after the other. */
function withTeamLock<T>(ctx: CoreContext, teamId: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return ctx.prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`team:${teamId}`}))::text`;
      return work(tx);
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}

export interface TeamMembersChange {
  /** User ids or e-mails of organization members to add (role: `memberships`, else kept, else member). */
  add?: string[] | null;
  /** User ids or e-mails to remove; a user also in `add` ends removed. */
  remove?: string[] | null;
  /** Role per user id; a user named here ends in the team with that role (unless removed). */
  memberships?: { userId: string; role: string }[] | null;
}

/**
 * Changes the team's members in one transaction: every value is checked first (an unknown user
 * or a bad role refuses the whole change with 400, and nothing changes).
 */
export async function updateTeamMembers(ctx: CoreContext, organizationId: string, teamId: string, change: TeamMembersChange) {
  const memberships = (change.memberships ?? []).map((m) => ({
    userId: m.userId,
    role: checkTeamRole(`memberships.${m.userId}.role`, m.role),
  }));
  const team = await requireTeam(ctx, organizationId, teamId, "team.manageMembers");
  await withTeamLock(ctx, teamId, async (tx) => {
    const added = await resolveMembers(tx, organizationId, "add", change.add ?? [], { byEmail: true });
    const removed = new Set(await resolveMembers(tx, organizationId, "remove", change.remove ?? [], { byEmail: true }));
    await resolveMembers(
      tx,
      organizationId,
      "memberships",
      memberships.map((m) => m.userId),
      { byEmail: false },
    );
    const roles = new Map(memberships.map((m) => [m.userId, m.role]));
    const current = new Map((await tx.teamMember.findMany({ where: { teamId } })).map((row) => [row.userId, row.role]));
    const wanted = new Map<string, string>();
    for (const userId of added) wanted.set(userId, roles.get(userId) ?? current.get(userId) ?? "member");
    for (const [userId, role] of roles) wanted.set(userId, role);
    for (const userId of removed) wanted.delete(userId);

    const events: AuditEventInput[] = [];
    if (removed.size) {
      await tx.teamMember.deleteMany({ where: { teamId, userId: { in: [...removed] } } });
      for (const userId of removed) {
        if (current.has(userId)) events.push(teamMemberEvent(team, "organization.team.member-removed", userId, current.get(userId)!));
      }
    }
    for (const [userId, role] of wanted) {
      if (current.get(userId) === role) continue;
      await tx.teamMember.upsert({
        where: { teamId_userId: { teamId, userId } },
        update: { role },
        create: { teamId, userId, role },
      });
      events.push(
        teamMemberEvent(team, current.has(userId) ? "organization.team.member-updated" : "organization.team.member-added", userId, role),
      );
    }
    await recordAuditEvent(ctx, tx, ...events);
  });
  ctx.loaders.teamMemberCount.clear(teamId);
  ctx.loaders.viewerTeamRole.clear(teamId);
}

/** Adds one member to the team, or changes their role (absent: kept, or member for a new one). */
export async function setTeamMember(ctx: CoreContext, organizationId: string, teamId: string, userId: string, role?: string | null) {
  const checked = role == null ? undefined : checkTeamRole("role", role);
  const team = await requireTeam(ctx, organizationId, teamId, "team.manageMembers");
  const member = await ctx.loaders.member.load(memberKey(organizationId, userId));
  if (!member) throw notFound("member", userId);
  await withTeamLock(ctx, teamId, async (tx) => {
    const current = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } } });
    const row = await tx.teamMember.upsert({
      where: { teamId_userId: { teamId, userId } },
      update: checked ? { role: checked } : {},
      create: { teamId, userId, role: checked ?? "member" },
    });
    if (current?.role === row.role) return;
    const action = current ? "organization.team.member-updated" : "organization.team.member-added";
    await recordAuditEvent(ctx, tx, teamMemberEvent(team, action, userId, row.role));
  });
  ctx.loaders.teamMemberCount.clear(teamId);
  ctx.loaders.viewerTeamRole.clear(teamId);
}

/** Removes one member from the team; nothing happens when they are not in it. */
export async function removeTeamMember(ctx: CoreContext, organizationId: string, teamId: string, userId: string) {
  const team = await requireTeam(ctx, organizationId, teamId, "team.manageMembers");
  await withTeamLock(ctx, teamId, async (tx) => {
    const current = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } } });
    if (!current) return;
    await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
    await recordAuditEvent(ctx, tx, teamMemberEvent(team, "organization.team.member-removed", userId, current.role));
  });
  ctx.loaders.teamMemberCount.clear(teamId);
  ctx.loaders.viewerTeamRole.clear(teamId);
}
