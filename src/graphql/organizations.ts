// Organizations and the caller: types, queries and mutations.
import type { Organization, User } from "../generated/prisma/client.ts";
import { organizationPermissions } from "../auth/permissions.ts";
import { notFound } from "../core/errors.ts";
import {
  getOrganization,
  listViewerOrganizations,
  loadVisibleOrganizations,
  ORGANIZATION_TYPES,
  updateOrganization,
} from "../core/organizations/index.ts";
import { builder } from "./builder.ts";
import { enumName, MemberRole, toConnection } from "./common.ts";

const OrganizationType = builder.enumType("OrganizationType", {
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
    displayName: t.exposeString("displayName"),
    email: t.exposeString("email"),
    photoURL: t.exposeString("photoURL", { nullable: true }),
    urls: t.field({
      type: builder.simpleObject("UserUrls", { fields: (u) => ({ location: u.string() }) }),
      resolve: (user, _args, { core }) => ({ location: core.urls.api(`/users/${user.id}`) }),
    }),
  }),
});

const OrganizationUrls = builder.simpleObject("OrganizationUrls", {
  fields: (t) => ({
    location: t.string(),
    app: t.string(),
    logo: t.string({ nullable: true }),
  }),
});

const OrganizationTrial = builder.simpleObject("OrganizationTrial", {
  description: "Trials do not exist in this service: status is always notapplicable",
  fields: (t) => ({ status: t.string(), count: t.int() }),
});

const OrganizationDefaultContent = builder.simpleObject("OrganizationDefaultContent", {
  fields: (t) => ({ type: t.string(), site: t.id() }),
});

const OrganizationPermissions = builder.simpleObject("OrganizationPermissions", {
  fields: (t) => ({
    view: t.boolean(),
    access: t.boolean(),
    admin: t.boolean(),
    ownTeam: t.boolean(),
    createContent: t.boolean(),
    createOpenAPISpec: t.boolean(),
    ingestConversations: t.boolean(),
    viewBilling: t.boolean(),
    listMembers: t.boolean(),
    listTeams: t.boolean(),
    listIntegrations: t.boolean(),
    listInstallations: t.boolean(),
    installIntegration: t.boolean(),
  }),
});

export const OrganizationRef = builder.loadableNode("Organization", {
  id: { resolve: (organization: Organization) => organization.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleOrganizations(core, ids);
    return rows.map((row, index) => row ?? notFound("organization", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    emailDomains: t.exposeStringList("emailDomains"),
    hostname: t.exposeString("hostname", { nullable: true }),
    type: t.field({ type: OrganizationType, resolve: (o) => o.type as (typeof ORGANIZATION_TYPES)[number] }),
    useCase: t.exposeString("useCase", { nullable: true }),
    communityType: t.exposeString("communityType", { nullable: true }),
    defaultRole: t.field({ type: MemberRole, nullable: true, resolve: (o) => o.defaultRole as never }),
    defaultContent: t.field({
      type: OrganizationDefaultContent,
      nullable: true,
      resolve: (o) => (o.defaultSiteId ? { type: "site", site: o.defaultSiteId } : null),
    }),
    sso: t.exposeBoolean("sso"),
    ai: t.exposeBoolean("ai"),
    inviteLinks: t.exposeBoolean("inviteLinks"),
    mergeRules: t.field({ type: "JSON", description: "What a change request needs to be merged: { type: none } or { type: rules, rules }", resolve: (o) => o.mergeRules }),
    plan: t.exposeString("plan"),
    trial: t.field({ type: OrganizationTrial, resolve: () => ({ status: "notapplicable", count: 0 }) }),
    urls: t.field({
      type: OrganizationUrls,
      resolve: (o, _args, { core }) => ({
        location: core.urls.api(`/orgs/${o.id}`),
        app: core.urls.app(`/o/${o.id}`),
        logo: o.logo,
      }),
    }),
    permissions: t.field({
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
    type: OrganizationRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { core }) => getOrganization(core, id),
  }),
}));

builder.objectField(UserRef, "organizations", (t) =>
  t.connection({
    type: OrganizationRef,
    description: "Organizations the user is a member of (only readable for the caller)",
    resolve: async (_user, args, { core }) => toConnection(await listViewerOrganizations(core, args)),
  }, builder.connectionObject({ type: OrganizationRef, name: "OrganizationConnection" }, { name: "OrganizationEdge" })),
);

const OrganizationDefaultContentInput = builder.inputType("OrganizationDefaultContentInput", {
  fields: (t) => ({ type: t.string({ required: true }), site: t.id({ required: true }) }),
});

const UpdateOrganizationInput = builder.inputType("UpdateOrganizationInput", {
  fields: (t) => ({
    id: t.id({ required: true }),
    title: t.string(),
    emailDomains: t.stringList(),
    hostname: t.string(),
    defaultRole: t.field({ type: MemberRole, description: "null makes new members guests" }),
    defaultContent: t.field({ type: OrganizationDefaultContentInput }),
    logo: t.string({ description: "URL of the logo, null removes it" }),
    sso: t.boolean(),
    ai: t.boolean(),
    inviteLinks: t.boolean(),
    mergeRules: t.field({ type: "JSON", description: "{ type: none } or { type: rules, rules: [...] }, as the published API has them" }),
  }),
});

builder.mutationField("updateOrganization", (t) =>
  t.field({
    type: builder.simpleObject("UpdateOrganizationPayload", {
      fields: (p) => ({ organization: p.field({ type: OrganizationRef }) }),
    }),
    args: { input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    resolve: async (_root, { input }, { core }) => {
      const { id, ...patch } = input;
      return { organization: await updateOrganization(core, id, nullMeansUnchanged(patch, ["title", "emailDomains", "hostname", "sso", "ai", "inviteLinks", "mergeRules"])) };
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
