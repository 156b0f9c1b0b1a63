// Members of an organization, their spaces and teams, invitations and activity: types, queries
// and mutations. A Member is not a node: it is addressed by organization and user id.
import { roleOf } from "../core/storage-types.ts";
import type { LinkInvite, Space } from "../generated/prisma/client.ts";
import { ROLES } from "../core/auth/roles.ts";
import { memberKey } from "../core/members/loaders.ts";
import {
  createLinkInvite,
  deleteLinkInvite,
  inviteMembers,
  listMembers,
  listMemberSpaces,
  listMemberTeams,
  MEMBER_SORTS,
  memberRoleOnSpace,
  organizationsForEmailDomain,
  pingOrganization,
  readMember,
  removeMember,
  setMemberSso,
  updateMemberRole,
} from "../core/members/index.ts";
import { memberSiteCount } from "../core/sites/index.ts";
import { builder } from "./builder.ts";
import { enumName, MemberRole, toConnection, payloadDescription, inputDescription } from "./common.ts";
import { OrganizationRef, UserRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";
import { MemberRef, TeamMembershipRef } from "./member-refs.ts";

export const MemberRoleFilter = builder.enumType("MemberRoleFilter", {
  description: "A member role, or GUEST for members without one",
  values: Object.fromEntries([...ROLES, "guest"].map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof ROLES)[number] | "guest" }
  >,
});

export const MemberSort = builder.enumType("MemberSort", {
  description: "joinedAt: when they joined; lastSeenAt: last activity (lists only members who have been active)",
  values: Object.fromEntries(MEMBER_SORTS.map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof MEMBER_SORTS)[number] }
  >,
});

export const ListOrder = builder.enumType("ListOrder", {
  description: "Sort direction of a list",
  values: { ASC: { value: "asc" as const }, DESC: { value: "desc" as const } },
});

MemberRef.implement({
  description: "A user's membership in an organization",
  fields: (t) => ({
    id: t.id({ description: "The user's id", resolve: (m) => m.userId }),
    role: t.field({ type: MemberRole, nullable: true, description: "null for guests", resolve: (m) => roleOf(m.role) }),
    user: t.field({ description: "The user", type: UserRef, resolve: (m) => m.userId }),
    organization: t.field({ description: "The organization", type: OrganizationRef, resolve: (m) => m.organizationId }),
    disabled: t.exposeBoolean("disabled", { description: "Whether the member's access is disabled" }),
    joinedAt: t.expose("joinedAt", { description: "When the user joined the organization", type: "DateTime" }),
    lastSeenAt: t.expose("lastSeenAt", {
      description: "When the member last used the API (recorded at most once a minute); null if never",
      type: "DateTime",
      nullable: true,
    }),
    sso: t.exposeBoolean("sso", { description: "Whether the member signs in through the organization's SAML provider" }),
    spaces: t.int({
      description: "Number of spaces the member reaches through grants (to them or their teams)",
      resolve: (m, _args, { core }) => core.loaders.memberSpaceCount.load(memberKey(m.organizationId, m.userId)),
    }),
    teams: t.int({
      description: "Number of the organization's teams the member is in",
      resolve: (m, _args, { core }) => core.loaders.memberTeamCount.load(memberKey(m.organizationId, m.userId)),
    }),
    sites: t.int({
      description: "Number of sites the member reads (all of the organization's for members with a role, none for guests)",
      resolve: (m, _args, { core }) => memberSiteCount(core, m),
    }),
  }),
});

const MemberConnection = builder.connectionObject({ type: MemberRef, name: "MemberConnection" }, { name: "MemberEdge" });

/** A space a member reaches, with their effective role on it. */
interface MemberSpace {
  userId: string;
  space: Space;
}

const MemberSpaceRef = builder.objectRef<MemberSpace>("MemberSpace").implement({
  description: "A space a member can access through a grant, and their effective role on it",
  fields: (t) => ({
    permission: t.field({
      description: "The member's role on the space",
      type: MemberRole,
      resolve: async ({ userId, space }, _args, { core }) => (await memberRoleOnSpace(core, userId, space)) ?? "read",
    }),
    space: t.field({ description: "The space", type: SpaceRef, resolve: ({ space }) => space }),
  }),
});

builder.objectFields(MemberRef, (t) => ({
  spaceAccess: t.connection(
    {
      type: MemberSpaceRef,
      description: "Spaces of the organization the member reaches through a grant, to them or to one of their teams",
      args: { order: t.arg({ type: ListOrder, defaultValue: "desc" }) },
      resolve: async (m, args, { core }) => {
        const page = await listMemberSpaces(core, m.organizationId, m.userId, args);
        return toConnection({
          ...page,
          items: page.items.map((space) => ({ userId: m.userId, space })),
          cursorOf: (item: MemberSpace) => page.cursorOf(item.space),
        });
      },
    },
    builder.connectionObject({ type: MemberSpaceRef, name: "MemberSpaceConnection" }, { name: "MemberSpaceEdge" }),
  ),
}));

builder.objectFields(MemberRef, (t) => ({
  teamMemberships: t.connection(
    {
      type: TeamMembershipRef,
      description: "The member's teams in the organization, with their role in each",
      args: { title: t.arg.string({ description: "Case-insensitive text in the team's title" }) },
      resolve: async (m, args, { core }) => toConnection(await listMemberTeams(core, m.organizationId, m.userId, args)),
    },
    { name: "MemberTeamConnection" },
    { name: "MemberTeamEdge" },
  ),
}));

builder.objectFields(OrganizationRef, (t) => ({
  members: t.connection(
    {
      type: MemberRef,
      description: "Members of the organization",
      args: {
        role: t.arg({ type: MemberRoleFilter }),
        search: t.arg.string({ description: "Case-insensitive text in the display name or e-mail" }),
        sort: t.arg({ type: MemberSort, defaultValue: "joinedAt" }),
        order: t.arg({ type: ListOrder, defaultValue: "desc" }),
      },
      resolve: async (o, args, { core }) => toConnection(await listMembers(core, o.id, args)),
    },
    MemberConnection,
  ),
  member: t.field({
    description: "A member of the organization by user id; not found when the user is not a member",
    type: MemberRef,
    args: { user: t.arg.id({ required: true, description: "The member's user id" }) },
    resolve: (o, { user }, { core }) => readMember(core, o.id, user),
  }),
}));

export const LinkInviteRef = builder.objectRef<LinkInvite>("LinkInvite").implement({
  description: "A link anyone can use to join the organization with a role",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the invite link" }),
    role: t.field({ type: MemberRole, nullable: true, description: "null joins as a guest", resolve: (i) => roleOf(i.role) }),
    organization: t.field({
      description: "The organization the link lets people join",
      type: OrganizationRef,
      resolve: (i) => i.organizationId,
    }),
    createdAt: t.expose("createdAt", { description: "When the invite link was created", type: "DateTime" }),
    expiresAt: t.expose("expiresAt", {
      description: "After this instant the link lets nobody join; null: until it is deleted",
      type: "DateTime",
      nullable: true,
    }),
  }),
});

builder.queryField("organizationsForEmailDomain", (t) =>
  t.field({
    type: [OrganizationRef],
    description:
      "Organizations whose emailDomains contain the domain: the caller's own, and, for the domain of the caller's e-mail, those they could join",
    args: { emailDomain: t.arg.string({ required: true }) },
    resolve: (_root, { emailDomain }, { core }) => organizationsForEmailDomain(core, emailDomain),
  }),
);

const MemberPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ member: t.field({ description: "The member, as it stands after the change", type: MemberRef }) }),
  });
const MemberInput = (name: string, extra?: "role") =>
  builder.inputType(name, {
    description: inputDescription(name),
    fields: (f) => ({
      organization: f.id({ description: "Id of the organization", required: true }),
      user: f.id({ required: true, description: "The member's user id" }),
      ...(extra === "role" ? { role: f.field({ type: MemberRole, description: "null makes the member a guest; absent leaves it" }) } : {}),
    }),
  });

builder.mutationFields((t) => ({
  updateMember: t.field({
    type: MemberPayload("UpdateMemberPayload"),
    description: "Changes a member's role. The organization's last admin cannot be demoted (CONFLICT).",
    args: { input: t.arg({ required: true, type: MemberInput("UpdateMemberInput", "role") }) },
    resolve: async (_root, { input }, { core }) => ({
      member: await updateMemberRole(core, input.organization, input.user, (input as { role?: string | null }).role),
    }),
  }),
  removeMember: t.field({
    type: builder.simpleObject("RemoveMemberPayload", {
      description: "Result of the removeMember mutation",
      fields: (p) => ({ removedUserId: p.id({ description: "Id of the user removed from the organization" }) }),
    }),
    description:
      "Removes a member, with their team memberships and grants in the organization. The last admin cannot be removed (CONFLICT).",
    args: { input: t.arg({ required: true, type: MemberInput("RemoveMemberInput") }) },
    resolve: async (_root, { input }, { core }) => {
      await removeMember(core, input.organization, input.user);
      return { removedUserId: input.user };
    },
  }),
  setMemberSso: t.field({
    type: MemberPayload("SetMemberSsoPayload"),
    description: "Makes the member an SSO member",
    args: { input: t.arg({ required: true, type: MemberInput("SetMemberSsoInput") }) },
    resolve: async (_root, { input }, { core }) => ({ member: await setMemberSso(core, input.organization, input.user) }),
  }),
  pingOrganization: t.field({
    type: MemberPayload("PingOrganizationPayload"),
    description: "Records the caller's activity in the organization (their lastSeenAt)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PingOrganizationInput", {
          description: "Input of the pingOrganization mutation",
          fields: (f) => ({ organization: f.id({ description: "Id of the organization", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ member: await pingOrganization(core, input.organization) }),
  }),
  inviteMembers: t.field({
    type: builder.simpleObject("InviteMembersPayload", {
      description: "Result of the inviteMembers mutation",
      fields: (p) => ({
        members: p.field({ description: "The members added (existing members are left as they are)", type: [MemberRef] }),
      }),
    }),
    description:
      "Adds people by e-mail: a new e-mail gets a user and a member; an existing member keeps their role (change it with updateMember)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InviteMembersInput", {
          description: "Input of the inviteMembers mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            emails: f.stringList({ description: "E-mail addresses of the people to add", required: true }),
            role: f.field({ type: MemberRole, description: "null: guests; absent: the organization's defaultRole" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      members: await inviteMembers(core, {
        organizationId: input.organization,
        emails: input.emails,
        role: (input as { role?: string | null }).role,
      }),
    }),
  }),
  createLinkInvite: t.field({
    type: builder.simpleObject("CreateLinkInvitePayload", {
      description: "Result of the createLinkInvite mutation",
      fields: (p) => ({ linkInvite: p.field({ description: "The new invite link", type: LinkInviteRef }) }),
    }),
    description: "Creates an invite link; refused (CONFLICT) when the organization's inviteLinks is false",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateLinkInviteInput", {
          description: "Input of the createLinkInvite mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            role: f.field({ type: MemberRole, description: "null: guests; absent: the organization's defaultRole" }),
            expiresAt: f.field({ type: "DateTime", description: "When the link stops letting anyone join (in the future); absent: never" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      linkInvite: await createLinkInvite(core, {
        organizationId: input.organization,
        role: (input as { role?: string | null }).role,
        expiresAt: input.expiresAt,
      }),
    }),
  }),
  deleteLinkInvite: t.field({
    description: "Deletes an invite link; it no longer lets anyone join",
    type: builder.simpleObject("DeleteLinkInvitePayload", {
      description: "Result of the deleteLinkInvite mutation",
      fields: (p) => ({ deletedLinkInviteId: p.id({ description: "Id of the invite link deleted" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteLinkInviteInput", {
          description: "Input of the deleteLinkInvite mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the link invite", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteLinkInvite(core, input.organization, input.id);
      return { deletedLinkInviteId: input.id };
    },
  }),
}));
