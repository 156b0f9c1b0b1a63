// Creating organizations, joining them (invite links, invitations by e-mail, e-mail domains), and
// users by id: types, queries and mutations.
import type { EmailInvite } from "../generated/prisma/client.ts";
import { roleOf } from "../core/storage-types.ts";
import {
  getLinkInvite,
  inviteByEmail,
  isRedundantFor,
  joinByEmailDomain,
  joinWithInvite,
  listLinkInvites,
  updateLinkInvite,
  viewerInvites,
} from "../core/members/invites.ts";
import { createOrganization } from "../core/organizations/index.ts";
import { getUserProfile, type UserProfile, updateUser } from "../core/users/index.ts";
import { createNotificationsToken } from "../core/users/notifications-token.ts";
import { builder } from "./builder.ts";
import { MemberRole, toConnection } from "./common.ts";
import { LinkInviteRef } from "./members.ts";
import { OrganizationRef, UserRef } from "./organizations.ts";

// ---------------------------------------------------------------------------------------------
// Invite links
// ---------------------------------------------------------------------------------------------

builder.objectField(LinkInviteRef, "redundant", (t) =>
  t.boolean({
    description: "Whether the caller already holds at least the role the link gives",
    resolve: (invite, _args, { core }) => isRedundantFor(core, invite),
  }),
);

builder.objectFields(OrganizationRef, (t) => ({
  linkInvites: t.connection(
    {
      type: LinkInviteRef,
      description: "The organization's invite links, oldest first (admins)",
      resolve: async (o, args, { core }) => toConnection(await listLinkInvites(core, o.id, args)),
    },
    builder.connectionObject({ type: LinkInviteRef, name: "LinkInviteConnection" }, { name: "LinkInviteEdge" }),
  ),
  linkInvite: t.field({
    description: "An invite link of the organization by id (admins); not found when it is another organization's",
    type: LinkInviteRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (o, { id }, { core }) => getLinkInvite(core, o.id, id),
  }),
}));

// ---------------------------------------------------------------------------------------------
// Invitations by e-mail
// ---------------------------------------------------------------------------------------------

const EmailInviteRef = builder.objectRef<EmailInvite>("EmailInvite").implement({
  description: "An invitation to join an organization, addressed to an e-mail (no mail is sent: the invitee sees it in viewer.invites)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the invitation: joinOrganizationWithInvite accepts it" }),
    organizationId: t.exposeID("organizationId", { description: "Id of the organization it invites to" }),
    email: t.exposeString("email", { description: "The invited e-mail address (lowercase)" }),
    role: t.field({ type: MemberRole, nullable: true, description: "Role given on joining; null: guest", resolve: (i) => roleOf(i.role) }),
    sso: t.exposeBoolean("sso", { description: "Whether the invitee joins as an SSO member" }),
    createdAt: t.expose("createdAt", { description: "When the invitation was made", type: "DateTime" }),
  }),
});

builder.objectField(UserRef, "invites", (t) =>
  t.connection(
    {
      type: EmailInviteRef,
      description: "Pending invitations to the caller's e-mail address (only readable for the caller)",
      resolve: async (_user, args, { core }) => toConnection(await viewerInvites(core, args)),
    },
    builder.connectionObject({ type: EmailInviteRef, name: "EmailInviteConnection" }, { name: "EmailInviteEdge" }),
  ),
);

const EmailInviteInput = builder.inputType("EmailInviteInput", {
  description: "One e-mail to invite, with its own role",
  fields: (f) => ({
    email: f.string({ required: true, description: "The e-mail address" }),
    role: f.field({ type: MemberRole, description: "null: guest; absent: the request's role" }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Joining
// ---------------------------------------------------------------------------------------------

const JoinOrganizationPayload = builder.simpleObject("JoinOrganizationPayload", {
  description: "Result of joining an organization",
  fields: (t) => ({
    organizationId: t.id({ description: "Id of the organization" }),
    role: t.field({ type: MemberRole, nullable: true, description: "The caller's role in it now; null: guest" }),
    alreadyMember: t.boolean({ description: "True when the caller was already a member: nothing changed" }),
  }),
});

builder.mutationFields((t) => ({
  updateLinkInvite: t.field({
    description: "Changes the role an invite link gives (admins)",
    type: builder.simpleObject("UpdateLinkInvitePayload", {
      description: "Result of the updateLinkInvite mutation",
      fields: (p) => ({ linkInvite: p.field({ description: "The invite link after the change", type: LinkInviteRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateLinkInviteInput", {
          description: "Input of the updateLinkInvite mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the invite link", required: true }),
            role: f.field({ type: MemberRole, description: "The new role; null: guests" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      linkInvite: await updateLinkInvite(core, input.organization, input.id, input.role ?? null),
    }),
  }),
  inviteUsersToOrganization: t.field({
    description:
      "Invites people by e-mail (admins, at most 100 e-mails): an invitation is stored per e-mail that is not a member's yet, which its invitee accepts",
    type: builder.simpleObject("InviteUsersToOrganizationPayload", {
      description: "Result of the inviteUsersToOrganization mutation",
      fields: (p) => ({
        users: p.idList({ description: "Ids of the invitees who already have an account (they can accept at once)" }),
        invited: p.int({ description: "Number of invitations stored" }),
      }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InviteUsersToOrganizationInput", {
          description: "Input of the inviteUsersToOrganization mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            emails: f.field({ type: [EmailInviteInput], required: true, description: "The e-mails to invite (1 to 100)" }),
            role: f.field({
              type: MemberRole,
              description: "Role of the invitees without their own; null: guests; absent: the defaultRole",
            }),
            sso: f.boolean({ description: "Invitees join as SSO members" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) =>
      inviteByEmail(core, {
        organizationId: input.organization,
        items: input.emails.map((item) => ({ email: item.email, role: (item as { role?: string | null }).role })),
        role: (input as { role?: string | null }).role,
        sso: input.sso,
      }),
  }),
  joinOrganizationWithInvite: t.field({
    description:
      "Joins an organization with one of its invite links, or with an invitation to the caller's e-mail (which it consumes); a member keeps their role",
    type: JoinOrganizationPayload,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("JoinOrganizationWithInviteInput", {
          description: "Input of the joinOrganizationWithInvite mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            invite: f.id({ description: "Id of the invite link or invitation", required: true }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => joinWithInvite(core, input.organization, input.invite),
  }),
  joinOrganization: t.field({
    description: "Joins an organization whose e-mail domains hold the domain of the caller's e-mail, with its defaultRole",
    type: JoinOrganizationPayload,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("JoinOrganizationInput", {
          description: "Input of the joinOrganization mutation",
          fields: (f) => ({ organization: f.id({ description: "Id of the organization", required: true }) }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => joinByEmailDomain(core, input.organization),
  }),
  createOrganization: t.field({
    description: "Creates an organization with the caller as its admin (at most ORGANIZATIONS_PER_USER_MAX per user)",
    type: builder.simpleObject("CreateOrganizationPayload", {
      description: "Result of the createOrganization mutation",
      fields: (p) => ({ organization: p.field({ description: "The new organization", type: OrganizationRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateOrganizationInput", {
          description: "Input of the createOrganization mutation",
          fields: (f) => ({
            title: f.string({ required: true, description: "Name of the organization (2 to 255 characters)" }),
            emailDomains: f.stringList({ description: "E-mail domains whose users may join (at most 100)" }),
            withDefaultSite: f.boolean({ description: "Also create an empty site, titled as the organization" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ organization: await createOrganization(core, input) }),
  }),
}));

// ---------------------------------------------------------------------------------------------
// Users by id
// ---------------------------------------------------------------------------------------------

const UserProfileRef = builder.objectRef<UserProfile>("UserProfile").implement({
  description: "A user's public profile; the e-mail address only on the caller's own",
  fields: (t) => ({
    id: t.id({ description: "Id of the user", resolve: (p) => p.user.id }),
    displayName: t.string({ description: "Name shown for the user", resolve: (p) => p.user.displayName }),
    email: t.string({
      nullable: true,
      description: "E-mail address: the caller's own only, null for others",
      resolve: (p) => (p.own ? p.user.email : null),
    }),
    photoURL: t.string({ nullable: true, description: "URL of the user's photo; null when none", resolve: (p) => p.user.photoURL }),
    urls: t.field({
      description: "Addresses of the user",
      type: builder.simpleObject("UserProfileUrls", {
        description: "Addresses of a user profile",
        fields: (u) => ({ location: u.string({ description: "URL of the user in the REST API" }) }),
      }),
      resolve: (p, _args, { core }) => ({ location: core.urls.api(`/users/${p.user.id}`) }),
    }),
  }),
});

builder.queryField("userProfile", (t) =>
  t.field({
    description: "A user's public profile by id (any signed-in caller); not found when there is no such user",
    type: UserProfileRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { core }) => getUserProfile(core, id),
  }),
);

builder.mutationFields((t) => ({
  updateUser: t.field({
    description: "Changes the caller's own name or photo (another user's: FORBIDDEN)",
    type: builder.simpleObject("UpdateUserPayload", {
      description: "Result of the updateUser mutation",
      fields: (p) => ({ user: p.field({ description: "The user after the change", type: UserProfileRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateUserInput", {
          description: "Input of the updateUser mutation",
          fields: (f) => ({
            id: f.id({ required: true, description: "Id of the user: the caller's own" }),
            displayName: f.string({ description: "Full name (1 to 64 characters)" }),
            photoURL: f.string({ description: "http(s) URL of the photo; null removes it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      user: await updateUser(core, input.id, {
        ...(input.displayName != null ? { displayName: input.displayName } : {}),
        ...(input.photoURL !== undefined ? { photoURL: input.photoURL } : {}),
      }),
    }),
  }),
  createNotificationsToken: t.field({
    description:
      "A short-lived token (10 minutes) that opens the caller's own user channels on GET /v1/channels (`token` query parameter) and nothing else",
    type: builder.simpleObject("NotificationsToken", {
      description: "A short-lived token scoped to the caller's notifications",
      fields: (p) => ({
        token: p.string({ description: "The token" }),
        expiresAt: p.field({ type: "DateTime", description: "When it stops being accepted" }),
      }),
    }),
    resolve: (_root, _args, { core }) => createNotificationsToken(core),
  }),
}));
