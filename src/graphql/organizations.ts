// Organizations and the caller: types, queries and mutations.
import { organizationTypeOf, roleOf } from "../core/storage-types.ts";
import type { Organization, User } from "../generated/prisma/client.ts";
import { organizationPermissions } from "../core/auth/permissions.ts";
import { notFound } from "../core/errors.ts";
import {
  getOrganization,
  listViewerOrganizations,
  loadVisibleOrganizations,
  ORGANIZATION_TYPES,
  updateOrganization,
} from "../core/organizations/index.ts";
import { getSubdomain } from "../core/organizations/subdomains.ts";
import { builder } from "./builder.ts";
import { enumName, MemberRole, ownProperty, toConnection } from "./common.ts";

const OrganizationType = builder.enumType("OrganizationType", {
  description: "What an organization is used for",
  values: Object.fromEntries(ORGANIZATION_TYPES.map((value) => [enumName(value), { value }])),
});

export const UserRef = builder.loadableNode("User", {
  description: "A person using the service",
  id: { resolve: (user: User) => user.id },
  // A user is visible to themselves and to the members of an organization they belong to.
  load: async (ids: string[], { core }): Promise<(User | Error)[]> => {
    const [users, shared] = await Promise.all([
      Promise.all(ids.map((id) => core.loaders.user.load(id))),
      Promise.all(ids.map((id) => (id === core.viewer.userId ? true : core.loaders.coMember.load(id)))),
    ]);
    return users.map((user, index) => (user && shared[index] ? user : notFound("user", ids[index])));
  },
  fields: (t) => ({
    displayName: t.exposeString("displayName", { description: "Name shown for the user" }),
    email: t.exposeString("email", { description: "E-mail address of the user" }),
    photoURL: t.exposeString("photoURL", { description: "URL of the user's photo; null when none", nullable: true }),
    urls: t.field({
      description: "Addresses of the user",
      type: builder.simpleObject("UserUrls", {
        description: "Addresses of a user",
        fields: (u) => ({ location: u.string({ description: "URL of the user in the REST API" }) }),
      }),
      resolve: (user, _args, { core }) => ({ location: core.urls.api(`/users/${user.id}`) }),
    }),
  }),
});

const OrganizationUrls = builder.simpleObject("OrganizationUrls", {
  description: "Addresses of an organization",
  fields: (t) => ({
    location: t.string({ description: "URL of the organization in the REST API" }),
    app: t.string({ description: "URL of the organization in the app" }),
    logo: t.string({ description: "URL of the organization's logo; null when none", nullable: true }),
  }),
});

const OrganizationTrial = builder.simpleObject("OrganizationTrial", {
  description: "Trials do not exist in this service: status is always notapplicable",
  fields: (t) => ({
    status: t.string({ description: "State of the current trial" }),
    count: t.int({ description: "Number of trials the organization had" }),
  }),
});

const OrganizationDefaultContent = builder.simpleObject("OrganizationDefaultContent", {
  description: "What the organization's hostname shows by default",
  fields: (t) => ({
    type: t.string({ description: "Kind of default content: site" }),
    site: t.id({ description: "Id of the site shown" }),
  }),
});

const OrganizationPermissions = builder.simpleObject("OrganizationPermissions", {
  description: "What the caller may do in an organization",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the organization" }),
    access: t.boolean({ description: "Whether the caller is a member (or guest) with access" }),
    admin: t.boolean({ description: "Whether the caller administers the organization" }),
    ownTeam: t.boolean({ description: "Whether the caller may own (create and manage) teams" }),
    createContent: t.boolean({ description: "Whether the caller may create spaces and collections" }),
    createOpenAPISpec: t.boolean({ description: "Whether the caller may publish OpenAPI specifications" }),
    ingestConversations: t.boolean({ description: "Whether the caller may ingest conversations" }),
    viewBilling: t.boolean({ description: "Whether the caller may see billing" }),
    listMembers: t.boolean({ description: "Whether the caller may list the members" }),
    listTeams: t.boolean({ description: "Whether the caller may list the teams" }),
    listIntegrations: t.boolean({ description: "Whether the caller may list integrations" }),
    listInstallations: t.boolean({ description: "Whether the caller may list integration installations" }),
    installIntegration: t.boolean({ description: "Whether the caller may install integrations" }),
  }),
});

export const OrganizationRef = builder.loadableNode("Organization", {
  description: "An organization: its members, teams, collections, spaces and settings",
  id: { resolve: ownProperty<Organization> },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleOrganizations(core, ids);
    return rows.map((row, index) => row ?? notFound("organization", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title", { description: "Name of the organization" }),
    createdAt: t.expose("createdAt", { description: "When the organization was created", type: "DateTime" }),
    emailDomains: t.exposeStringList("emailDomains", { description: "E-mail domains whose users may join" }),
    hostname: t.exposeString("hostname", { description: "Custom hostname of the organization; null when none", nullable: true }),
    type: t.field({ description: "What the organization is used for", type: OrganizationType, resolve: (o) => organizationTypeOf(o.type) }),
    useCase: t.exposeString("useCase", { description: "What the organization documents; null when not given", nullable: true }),
    communityType: t.exposeString("communityType", {
      description: "Kind of community, for a community organization; null otherwise",
      nullable: true,
    }),
    defaultRole: t.field({
      description: "Role every member has on the organization's content unless granted more; null: none",
      type: MemberRole,
      nullable: true,
      resolve: (o) => roleOf(o.defaultRole),
    }),
    defaultContent: t.field({
      description: "What the organization's hostname shows by default; null when nothing",
      type: OrganizationDefaultContent,
      nullable: true,
      resolve: (o) => (o.defaultSiteId ? { type: "site", site: o.defaultSiteId } : null),
    }),
    sso: t.exposeBoolean("sso", { description: "Whether members sign in through SAML" }),
    ai: t.exposeBoolean("ai", { description: "Whether AI features are on" }),
    inviteLinks: t.exposeBoolean("inviteLinks", { description: "Whether invite links are allowed" }),
    mergeRules: t.field({
      type: "JSON",
      description: "What a change request needs to be merged: { type: none } or { type: rules, rules }",
      resolve: (o) => o.mergeRules,
    }),
    plan: t.exposeString("plan", { description: "Billing plan of the organization" }),
    trial: t.field({
      description: "The organization's trial, if any",
      type: OrganizationTrial,
      resolve: () => ({ status: "notapplicable", count: 0 }),
    }),
    urls: t.field({
      description: "Addresses of the organization in the REST API and the app",
      type: OrganizationUrls,
      resolve: (o, _args, { core }) => ({
        location: core.urls.api(`/orgs/${o.id}`),
        app: core.urls.app(`/o/${o.id}`),
        logo: o.logo,
      }),
    }),
    permissions: t.field({
      description: "What the caller may do in the organization",
      type: OrganizationPermissions,
      resolve: async (o, _args, { core }) => organizationPermissions(await core.access.membership(o.id)),
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: UserRef,
    description: "The caller",
    resolve: (_root, _args, { core }) => core.viewer.userId,
  }),
  organization: t.field({
    description: "An organization by id; not found when the caller is not a member",
    type: OrganizationRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { core }) => getOrganization(core, id),
  }),
}));

builder.objectField(UserRef, "organizations", (t) =>
  t.connection(
    {
      type: OrganizationRef,
      description: "Organizations the user is a member of (only readable for the caller)",
      resolve: async (_user, args, { core }) => toConnection(await listViewerOrganizations(core, args)),
    },
    builder.connectionObject({ type: OrganizationRef, name: "OrganizationConnection" }, { name: "OrganizationEdge" }),
  ),
);

const OrganizationDefaultContentInput = builder.inputType("OrganizationDefaultContentInput", {
  description: "What the organization's hostname shows by default",
  fields: (t) => ({
    type: t.string({ description: "Kind of default content: site", required: true }),
    site: t.id({ description: "Id of the site to show", required: true }),
  }),
});

const UpdateOrganizationInput = builder.inputType("UpdateOrganizationInput", {
  description: "Input of the updateOrganization mutation",
  fields: (t) => ({
    id: t.id({ description: "Id of the organization", required: true }),
    title: t.string({ description: "New name; absent: unchanged" }),
    emailDomains: t.stringList({ description: "E-mail domains whose users may join (replaces the list)" }),
    hostname: t.string({ description: "Custom hostname; null removes it" }),
    defaultRole: t.field({ type: MemberRole, description: "null makes new members guests" }),
    defaultContent: t.field({ description: "What the hostname shows by default; null: nothing", type: OrganizationDefaultContentInput }),
    logo: t.string({ description: "URL of the logo, null removes it" }),
    sso: t.boolean({ description: "Make members sign in through SAML" }),
    ai: t.boolean({ description: "Turn AI features on or off" }),
    inviteLinks: t.boolean({ description: "Allow invite links" }),
    mergeRules: t.field({ type: "JSON", description: "{ type: none } or { type: rules, rules: [...] }, as the published API has them" }),
  }),
});

builder.mutationField("updateOrganization", (t) =>
  t.field({
    description: "Changes an organization's settings (admins)",
    type: builder.simpleObject("UpdateOrganizationPayload", {
      description: "Result of the updateOrganization mutation",
      fields: (p) => ({ organization: p.field({ description: "The organization after the change", type: OrganizationRef }) }),
    }),
    args: { input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    resolve: async (_root, { input }, { core }) => {
      const { id, ...patch } = input;
      return {
        organization: await updateOrganization(
          core,
          id,
          nullMeansUnchanged(patch, ["title", "emailDomains", "hostname", "sso", "ai", "inviteLinks", "mergeRules"]),
        ),
      };
    },
  }),
);

/**
 * GraphQL lets a client send null for any optional input; for the fields that cannot be
 * removed, null means "leave unchanged", like absence.
 */
export function nullMeansUnchanged<T extends object, K extends keyof T>(input: T, keys: K[]) {
  const result: Partial<T> = { ...input };
  for (const key of keys) if (result[key] === null) delete result[key];
  return result as Omit<T, K> & { [P in K]?: Exclude<T[P], null> };
}

builder.queryField("subdomain", (t) =>
  t.field({
    description:
      "The organization that holds a subdomain (its hostname); not found when no organization of the caller holds it, whether or not another one does",
    type: builder.simpleObject("Subdomain", {
      description: "A subdomain and the organization that holds it (the published Subdomain)",
      fields: (f) => ({
        subdomain: f.string({ description: "The subdomain, for example my-company" }),
        organizationId: f.id({ description: "The organization that holds it" }),
        isActive: f.boolean({ description: "Whether the organization serves it now" }),
      }),
    }),
    args: { subdomain: t.arg.string({ required: true, description: "3 to 32 lowercase letters, digits and inner hyphens" }) },
    resolve: (_root, { subdomain }, { core }) => getSubdomain(core, subdomain),
  }),
);
