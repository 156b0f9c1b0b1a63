// Teams of an organization and their members: types, queries and mutations.
import { teamRoleOf } from "../core/storage-types.ts";
import type { Team } from "../generated/prisma/client.ts";
import { notFound } from "../core/errors.ts";
import { memberKey } from "../core/members/loaders.ts";
import {
  createTeam,
  deleteTeam,
  listTeamMembers,
  listTeams,
  loadVisibleTeams,
  mayOnTeam,
  readTeam,
  removeTeamMember,
  setTeamMember,
  TEAM_MEMBER_ROLES,
  updateTeam,
  updateTeamMembers,
} from "../core/teams/index.ts";
import { builder } from "./builder.ts";
import { enumName, toConnection, payloadDescription } from "./common.ts";
import { MemberRef, TeamMembershipRef } from "./member-refs.ts";
import { OrganizationRef, UserRef, nullMeansUnchanged } from "./organizations.ts";

export const TeamMemberRole = builder.enumType("TeamMemberRole", {
  description: "owner: can manage the team's members; member: is in the team",
  values: Object.fromEntries(TEAM_MEMBER_ROLES.map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof TEAM_MEMBER_ROLES)[number] }
  >,
});

const TeamPermissions = builder.simpleObject("TeamPermissions", {
  description: "What the caller may do with a team",
  fields: (t) => ({
    admin: t.boolean({ description: "Can the caller manage the team (rename it, change its members)" }),
    view: t.boolean({ description: "Can the caller view the team and list its members" }),
  }),
});

export const TeamRef = builder.loadableNode("Team", {
  description: "A group of an organization's members; grants to a team reach everyone in it",
  id: { resolve: (team: Team) => team.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleTeams(core, ids);
    return rows.map((row, index) => row ?? notFound("team", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title", { description: "Name of the team" }),
    createdAt: t.expose("createdAt", { description: "When the team was created", type: "DateTime" }),
    organization: t.field({
      description: "The organization the team belongs to",
      type: OrganizationRef,
      resolve: (team) => team.organizationId,
    }),
    memberCount: t.int({
      description: "Number of members in the team",
      resolve: (team, _args, { core }) => core.loaders.teamMemberCount.load(team.id),
    }),
    spaceCount: t.int({
      description: "Number of spaces the team reaches through its grants (on the space or a collection above it)",
      resolve: (team, _args, { core }) => core.loaders.teamSpaceCount.load(team.id),
    }),
    permissions: t.field({
      description: "What the caller may do with the team",
      type: TeamPermissions,
      resolve: async (team, _args, { core }) => {
        const [admin, view] = await Promise.all([mayOnTeam(core, "team.manageMembers", team), mayOnTeam(core, "team.read", team)]);
        return { admin, view };
      },
    }),
  }),
});

export const TeamConnection = builder.connectionObject({ type: TeamRef, name: "TeamConnection" }, { name: "TeamEdge" });

TeamMembershipRef.implement({
  description: "A member of a team: their membership in the organization and their role in the team",
  fields: (t) => ({
    role: t.field({
      description: "The member's role in the team: OWNER or MEMBER",
      type: TeamMemberRole,
      resolve: (m) => teamRoleOf(m.role),
    }),
    team: t.field({ description: "The team", type: TeamRef, resolve: (m) => m.teamId }),
    user: t.field({ description: "The member", type: UserRef, resolve: (m) => m.userId }),
    member: t.field({
      type: MemberRef,
      description: "The user as a member of the team's organization",
      resolve: async (m, _args, { core }) => {
        const team = await core.loaders.team.load(m.teamId);
        const member = team ? await core.loaders.member.load(memberKey(team.organizationId, m.userId)) : null;
        if (!member) throw notFound("member", m.userId);
        return member;
      },
    }),
    permissions: t.field({
      description: "What the caller may do with this membership",
      type: builder.simpleObject("TeamMembershipPermissions", {
        description: "What the caller may do with a team membership",
        fields: (p) => ({ view: p.boolean({ description: "Can the caller view the team member" }) }),
      }),
      // Listing a team's members needs to read the team, which shows every member in it.
      resolve: () => ({ view: true }),
    }),
  }),
});

builder.objectFields(TeamRef, (t) => ({
  members: t.connection(
    {
      type: TeamMembershipRef,
      description: "The team's members, by user id",
      resolve: async (team, args, { core }) => toConnection(await listTeamMembers(core, team.organizationId, team.id, args)),
    },
    builder.connectionObject({ type: TeamMembershipRef, name: "TeamMembershipConnection" }, { name: "TeamMembershipEdge" }),
  ),
}));

builder.objectFields(OrganizationRef, (t) => ({
  teams: t.connection(
    {
      type: TeamRef,
      description: "Teams of the organization, oldest first",
      args: {
        title: t.arg.string({ description: "Case-insensitive text in the team's title" }),
        owner: t.arg.id({ description: "A member's user id: only the teams they can manage (all for an organization admin)" }),
      },
      resolve: async (o, args, { core }) => toConnection(await listTeams(core, o.id, args)),
    },
    TeamConnection,
  ),
  team: t.field({
    description: "A team of the organization by id",
    type: TeamRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (o, { id }, { core }) => readTeam(core, o.id, id),
  }),
}));

const TeamPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ team: t.field({ description: "The team, as it stands after the change", type: TeamRef }) }),
  });

const TeamMembershipInput = builder.inputType("TeamMembershipInput", {
  description: "Input of the teamMembership mutation",
  fields: (f) => ({
    user: f.id({ description: "Id of the user (a member of the organization)", required: true }),
    role: f.field({ description: "Role in the team: OWNER or MEMBER", type: TeamMemberRole, required: true }),
  }),
});

builder.mutationFields((t) => ({
  createTeam: t.field({
    description: "Creates a team in an organization",
    type: TeamPayload("CreateTeamPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateTeamInput", {
          description: "Input of the createTeam mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            title: f.string({ required: true, description: "1 to 64 characters" }),
            members: f.idList({ description: "User ids of organization members to add to the team (as members)" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      team: await createTeam(core, { organizationId: input.organization, title: input.title, members: input.members }),
    }),
  }),
  updateTeam: t.field({
    description: "Renames a team",
    type: TeamPayload("UpdateTeamPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateTeamInput", {
          description: "Input of the updateTeam mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the team", required: true }),
            title: f.string({ description: "New title; absent: unchanged" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { organization, id, ...patch } }, { core }) => ({
      team: await updateTeam(core, organization, id, nullMeansUnchanged(patch, ["title"])),
    }),
  }),
  deleteTeam: t.field({
    description: "Deletes a team, its memberships and its grants",
    type: builder.simpleObject("DeleteTeamPayload", {
      description: "Result of the deleteTeam mutation",
      fields: (p) => ({ deletedTeamId: p.id({ description: "Id of the team deleted" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteTeamInput", {
          description: "Input of the deleteTeam mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the team", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteTeam(core, input.organization, input.id);
      return { deletedTeamId: input.id };
    },
  }),
  updateTeamMembers: t.field({
    type: TeamPayload("UpdateTeamMembersPayload"),
    description:
      "Adds and removes members (user ids or e-mails of organization members) and sets their roles, all or nothing; a user in both add and remove ends removed",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateTeamMembersInput", {
          description: "Input of the updateTeamMembers mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            team: f.id({ description: "Id of the team", required: true }),
            add: f.stringList({ description: "User ids or e-mails; role from memberships, else kept, else member" }),
            remove: f.stringList({ description: "User ids or e-mails; wins over add and memberships" }),
            memberships: f.field({
              type: [TeamMembershipInput],
              description: "Role per user; a user named here ends in the team with that role unless removed",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await updateTeamMembers(core, input.organization, input.team, {
        add: input.add,
        remove: input.remove,
        memberships: input.memberships?.map((m) => ({ userId: m.user, role: m.role })),
      });
      return { team: (await core.loaders.team.load(input.team))! };
    },
  }),
  setTeamMember: t.field({
    type: TeamPayload("SetTeamMemberPayload"),
    description: "Adds an organization member to the team or changes their role (absent: kept, or member when new)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SetTeamMemberInput", {
          description: "Input of the setTeamMember mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            team: f.id({ description: "Id of the team", required: true }),
            user: f.id({ description: "Id of the user (a member of the organization)", required: true }),
            role: f.field({
              description: "Role in the team: OWNER or MEMBER; absent keeps the current one (MEMBER when new)",
              type: TeamMemberRole,
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await setTeamMember(core, input.organization, input.team, input.user, input.role);
      return { team: (await core.loaders.team.load(input.team))! };
    },
  }),
  removeTeamMember: t.field({
    type: TeamPayload("RemoveTeamMemberPayload"),
    description: "Removes a member from the team; nothing happens when they are not in it",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveTeamMemberInput", {
          description: "Input of the removeTeamMember mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            team: f.id({ description: "Id of the team", required: true }),
            user: f.id({ description: "Id of the user to remove from the team", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await removeTeamMember(core, input.organization, input.team, input.user);
      return { team: (await core.loaders.team.load(input.team))! };
    },
  }),
}));
