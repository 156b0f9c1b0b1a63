// SAML providers and SSO logins of an organization: types, queries and mutations.
import { roleOf } from "../core/storage-types.ts";
import type { SamlProvider } from "../generated/prisma/client.ts";
import { notFound } from "../core/errors.ts";
import {
  createSamlProvider,
  deleteSamlProvider,
  listSamlProviders,
  listSsoLogins,
  loadVisibleSamlProviders,
  readSamlProvider,
  SAML_PROVIDER_STATUSES,
  samlProviderStatus,
  samlService,
  updateSamlProvider,
} from "../core/saml/index.ts";
import { builder } from "./builder.ts";
import { enumName, MemberRole, toConnection, payloadDescription } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";
import { TeamRef } from "./teams.ts";

const SamlProviderStatus = builder.enumType("SamlProviderStatus", {
  description: "active: usable to sign in; pending: not fully configured yet",
  values: Object.fromEntries(SAML_PROVIDER_STATUSES.map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof SAML_PROVIDER_STATUSES)[number] }
  >,
});

const SamlServiceProvider = builder.simpleObject("SamlServiceProvider", {
  description: "This service as the SAML service provider: the settings to give the identity provider",
  fields: (t) => ({
    acsURL: t.string({ description: "Assertion Consumer Service URL" }),
    startURL: t.string({ description: "URL that starts a sign-in through the identity provider" }),
    entityID: t.string({ description: "Entity ID of this service provider" }),
  }),
});

export const SamlProviderRef = builder.loadableNode("SamlProvider", {
  description: "An identity provider the organization's members sign in through (SAML 2.0); visible to organization admins",
  id: { resolve: (provider: SamlProvider) => provider.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleSamlProviders(core, ids);
    return rows.map((row, index) => row ?? notFound("SAML provider", ids[index]));
  },
  fields: (t) => ({
    label: t.exposeString("label", { description: "Name shown on the sign-in button" }),
    entityID: t.exposeString("entityID", { description: "Entity ID of the identity provider" }),
    ssoURL: t.exposeString("ssoURL", { description: "Single sign-on URL of the identity provider" }),
    certificate: t.exposeString("certificate", { description: "The identity provider's X.509 signing certificate, in PEM format" }),
    defaultTeam: t.field({
      type: TeamRef,
      nullable: true,
      description: "Team that members signing in through this provider join",
      resolve: (p) => p.defaultTeamId,
    }),
    defaultRole: t.field({
      type: MemberRole,
      nullable: true,
      description: "Role of members signing in through this provider; null makes them guests",
      resolve: (p) => roleOf(p.defaultRole),
    }),
    createdAt: t.expose("createdAt", { description: "When the provider was added", type: "DateTime" }),
    status: t.field({
      description: "Whether the provider is fully configured and active",
      type: SamlProviderStatus,
      resolve: (p) => samlProviderStatus(p),
    }),
    service: t.field({
      description: "What the identity provider needs to know about this service",
      type: SamlServiceProvider,
      resolve: (p, _args, { core }) => samlService(core, p),
    }),
    organization: t.field({
      description: "The organization the provider signs members into",
      type: OrganizationRef,
      resolve: (p) => p.organizationId,
    }),
    urls: t.field({
      description: "Addresses of the provider",
      type: builder.simpleObject("SamlProviderUrls", {
        description: "Addresses of a SAML provider",
        fields: (u) => ({ location: u.string({ description: "URL of the provider in the REST API" }) }),
      }),
      resolve: (p, _args, { core }) => ({ location: core.urls.api(`/orgs/${p.organizationId}/saml/${p.id}`) }),
    }),
  }),
});

const SsoLogin = builder.simpleObject("SsoLogin", {
  description: "A way to sign in to the organization through single sign-on",
  fields: (t) => ({
    id: t.id({ description: "The SAML provider's id" }),
    label: t.string({ description: "Name of the SAML provider shown on the sign-in button" }),
    startURL: t.string({ description: "URL that starts the sign-in" }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  samlProviders: t.connection(
    {
      type: SamlProviderRef,
      description: "The organization's SAML providers, oldest first (organization admins)",
      resolve: async (o, args, { core }) => toConnection(await listSamlProviders(core, o.id, args)),
    },
    builder.connectionObject({ type: SamlProviderRef, name: "SamlProviderConnection" }, { name: "SamlProviderEdge" }),
  ),
  samlProvider: t.field({
    description: "A SAML provider of the organization by id",
    type: SamlProviderRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (o, { id }, { core }) => readSamlProvider(core, o.id, id),
  }),
  ssoLogins: t.field({
    type: [SsoLogin],
    description: "The organization's SSO logins, oldest first (any member)",
    resolve: (o, _args, { core }) => listSsoLogins(core, o.id),
  }),
}));

const SamlProviderPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ samlProvider: t.field({ description: "The SAML provider, as it stands after the change", type: SamlProviderRef }) }),
  });

builder.mutationFields((t) => ({
  createSamlProvider: t.field({
    description: "Adds a SAML provider to an organization (admins)",
    type: SamlProviderPayload("CreateSamlProviderPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSamlProviderInput", {
          description: "Input of the createSamlProvider mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            label: f.string({ required: true, description: "1 to 30 characters" }),
            entityID: f.string({ required: true, description: "Entity ID of the identity provider, 1 to 1024 characters" }),
            ssoURL: f.string({ required: true, description: "Single sign-on URL of the identity provider (absolute http(s) URL)" }),
            certificate: f.string({
              required: true,
              description: "The identity provider's X.509 certificate: PEM, or the base64 between its BEGIN/END lines",
            }),
            defaultTeam: f.id({ description: "A team of the organization" }),
            defaultRole: f.field({ type: MemberRole, description: "null (default) makes SSO members guests" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { organization, ...fields } }, { core }) => ({
      samlProvider: await createSamlProvider(core, organization, fields),
    }),
  }),
  updateSamlProvider: t.field({
    description: "Changes a SAML provider's settings",
    type: SamlProviderPayload("UpdateSamlProviderPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSamlProviderInput", {
          description: "Input of the updateSamlProvider mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the saml provider", required: true }),
            label: f.string({ description: "Name shown on the sign-in button" }),
            entityID: f.string({ description: "The identity provider's entity id" }),
            ssoURL: f.string({ description: "The identity provider's single sign-on URL" }),
            certificate: f.string({ description: "The identity provider's X.509 signing certificate (PEM)" }),
            defaultTeam: f.id({ description: "null removes the default team" }),
            defaultRole: f.field({ type: MemberRole, description: "null makes SSO members guests" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { organization, id, ...patch } }, { core }) => ({
      samlProvider: await updateSamlProvider(
        core,
        organization,
        id,
        nullMeansUnchanged(patch, ["label", "entityID", "ssoURL", "certificate"]),
      ),
    }),
  }),
  deleteSamlProvider: t.field({
    description: "Removes a SAML provider from an organization",
    type: builder.simpleObject("DeleteSamlProviderPayload", {
      description: "Result of the deleteSamlProvider mutation",
      fields: (p) => ({ deletedSamlProviderId: p.id({ description: "Id of the SAML provider deleted" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSamlProviderInput", {
          description: "Input of the deleteSamlProvider mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            id: f.id({ description: "Id of the saml provider", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSamlProvider(core, input.organization, input.id);
      return { deletedSamlProviderId: input.id };
    },
  }),
}));
