// Integrations: publishing, installations (organization, spaces, sites), events and their
// traces, development mode, installation tokens and rendering. Rules in src/core/integrations.
import type {
  Integration,
  IntegrationEvent,
  IntegrationInstallation,
  IntegrationSiteInstallation,
  IntegrationSpaceInstallation,
} from "../generated/prisma/client.ts";
import { downloadUrlOf } from "../core/content/files.ts";
import { notFound } from "../core/errors.ts";
import {
  createInstallationToken,
  deleteIntegration,
  disableDevelopmentMode,
  installIntegration,
  installOnSite,
  installOnSpace,
  type IntegrationFilters,
  integrationPermissions,
  listEvents,
  listInstallations,
  listIntegrations,
  listOrganizationIntegrations,
  listSiteInstallations,
  listSpaceInstallations,
  listSpaceIntegrations,
  loadVisibleEvents,
  loadVisibleInstallations,
  loadVisibleIntegrations,
  manifestOf,
  publishIntegration,
  readEvent,
  readInstallation,
  readIntegration,
  readSiteInstallation,
  readSpaceInstallation,
  renderIntegration,
  setDevelopmentMode,
  uninstallFromSite,
  uninstallFromSpace,
  uninstallIntegration,
  updateInstallation,
  updateSiteInstallation,
  updateSpaceInstallation,
} from "../core/integrations/index.ts";
import { allows, POLICY } from "../auth/policy.ts";
import { organizationPermissions } from "../auth/permissions.ts";
import type { CoreContext } from "../core/context.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";
import { SiteRef } from "./sites.ts";
import { SpaceRef } from "./spaces.ts";

const integrationLocation = (core: CoreContext, name: string) => core.urls.api(`/integrations/${name}`);
const imageUrl = (core: CoreContext, hash: string, name: string) =>
  downloadUrlOf(core, { id: hash, name, contentType: "image/png", size: 0, blob: hash });

async function isManager(core: CoreContext, integration: Integration): Promise<boolean> {
  const membership = await core.access.membership(integration.organizationId);
  return membership !== null && allows(POLICY["integration.manage"].least, membership.role ?? "member");
}

const IntegrationUrls = builder.simpleObject("IntegrationUrls", {
  fields: (t) => ({
    location: t.string(),
    app: t.string(),
    assets: t.string(),
    icon: t.string({ nullable: true }),
    publicEndpoint: t.string(),
  }),
});

const OwnerProfile = builder.simpleObject("IntegrationOwner", {
  fields: (t) => ({
    id: t.id(),
    title: t.string(),
    createdAt: t.field({ type: "DateTime" }),
    hostname: t.string({ nullable: true }),
    type: t.string(),
    plan: t.string(),
    location: t.string(),
    app: t.string(),
    permissions: t.field({ type: "JSON", description: "The caller's permissions in the organization" }),
  }),
});

const IntegrationEventLog = builder.simpleObject("IntegrationEventLog", {
  description: "A line of an event's trace: what the script logged, and each delivery's failure",
  fields: (t) => ({ level: t.string(), message: t.string(), timestamp: t.string() }),
});

const DevelopmentMode = builder.simpleObject("IntegrationDevelopmentMode", {
  fields: (t) => ({ tunnelUrl: t.string(), all: t.boolean() }),
});

export const IntegrationEventRef = builder.loadableNode("IntegrationEvent", {
  description: "An event sent to an integration, with its delivery status and trace",
  id: { resolve: (event: IntegrationEvent) => event.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleEvents(core, ids);
    return rows.map((row, index) => row ?? notFound("integration event", ids[index]!));
  },
  fields: (t) => ({
    integrationId: t.exposeString("integrationId"),
    installationId: t.exposeString("installationId", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    payload: t.field({ type: "JSON", description: "The published Event sent to the script", resolve: (event) => event.payload }),
    status: t.exposeString("status", {
      description: "pending (not delivered yet), success or failed (the last delivery failed; retried while attempts remain)",
    }),
    attempts: t.exposeInt("attempts"),
    logs: t.field({ type: [IntegrationEventLog], resolve: (event) => event.logs as never }),
  }),
});

export const IntegrationRef = builder.loadableNode("Integration", {
  description: "An integration published by an organization",
  id: { resolve: (integration: Integration) => integration.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleIntegrations(core, ids);
    return rows.map((row, index) => row ?? notFound("integration", ids[index]!));
  },
  fields: (t) => ({
    name: t.exposeString("name"),
    version: t.exposeInt("version", { description: "Incremented at each publication" }),
    title: t.exposeString("title"),
    description: t.string({ resolve: (integration) => manifestOf(integration).description ?? "" }),
    summary: t.string({ nullable: true, resolve: (integration) => manifestOf(integration).summary ?? null }),
    runtime: t.string({ nullable: true, resolve: (integration) => manifestOf(integration).runtime ?? null }),
    visibility: t.exposeString("visibility", { description: "public, private (its organization only) or unlisted" }),
    target: t.exposeString("target", { description: "Where it installs: all, organization, space or site" }),
    verified: t.boolean({ resolve: () => false }),
    scopes: t.exposeStringList("scopes"),
    categories: t.exposeStringList("categories"),
    blocks: t.field({ type: "JSON", resolve: (integration) => manifestOf(integration).blocks ?? [] }),
    contentSources: t.field({ type: "JSON", resolve: (integration) => manifestOf(integration).contentSources ?? [] }),
    configurations: t.field({ type: "JSON", resolve: (integration) => manifestOf(integration).configurations ?? {} }),
    externalLinks: t.field({ type: "JSON", resolve: (integration) => manifestOf(integration).externalLinks ?? [] }),
    contentSecurityPolicy: t.field({
      type: "JSON",
      nullable: true,
      resolve: (integration) => manifestOf(integration).contentSecurityPolicy ?? null,
    }),
    previewImages: t.stringList({
      description: "URLs of the preview images",
      resolve: (integration, _args, { core }) =>
        integration.previewHashes.map((hash, index) => imageUrl(core, hash, `preview-${index + 1}.png`)),
    }),
    owner: t.field({
      type: OrganizationRef,
      description: "The owning organization (its members only: see ownerProfile)",
      resolve: (integration) => integration.organizationId,
    }),
    ownerProfile: t.field({
      type: OwnerProfile,
      description: "What anyone who sees the integration sees of its organization",
      resolve: async (integration, _args, { core }) => {
        const organization = (await core.loaders.organization.load(integration.organizationId))!;
        return {
          id: organization.id,
          title: organization.title,
          createdAt: organization.createdAt,
          hostname: organization.hostname,
          type: organization.type,
          plan: organization.plan,
          location: core.urls.api(`/orgs/${organization.id}`),
          app: core.urls.app(`/o/${organization.id}`),
          permissions: organizationPermissions(await core.access.membership(organization.id)),
        };
      },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    urls: t.field({
      type: IntegrationUrls,
      resolve: (integration, _args, { core }) => {
        const location = integrationLocation(core, integration.name);
        return {
          location,
          app: core.urls.app(`/integrations/${integration.name}`),
          assets: `${location}/assets`,
          icon: integration.iconHash ? imageUrl(core, integration.iconHash, "icon.png") : null,
          publicEndpoint: location,
        };
      },
    }),
    permissions: t.field({
      type: builder.simpleObject("IntegrationPermissions", { fields: (p) => ({ admin: p.boolean(), install: p.boolean() }) }),
      resolve: (integration, _args, { core }) => integrationPermissions(core, integration),
    }),
    developmentMode: t.field({
      type: DevelopmentMode,
      nullable: true,
      description: "Where events go in development mode (its organization's admins only; null otherwise or when off)",
      resolve: async (integration, _args, { core }) =>
        integration.devTunnelUrl && (await isManager(core, integration))
          ? { tunnelUrl: integration.devTunnelUrl, all: integration.devAll }
          : null,
    }),
    signingSecret: t.string({
      nullable: true,
      description:
        "Key of the HMAC-SHA256 signing development-mode deliveries (x-gitbook-signature over `<x-gitbook-timestamp>.<body>`); its organization's admins only",
      resolve: async (integration, _args, { core }) => ((await isManager(core, integration)) ? integration.signingSecret : null),
    }),
  }),
});

const InstallationUrls = builder.simpleObject("IntegrationInstallationUrls", {
  fields: (t) => ({ location: t.string(), app: t.string(), publicEndpoint: t.string() }),
});

export const IntegrationInstallationRef = builder.loadableNode("IntegrationInstallation", {
  description: "An integration installed in an organization",
  id: { resolve: (installation: IntegrationInstallation) => installation.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleInstallations(core, ids);
    return rows.map((row, index) => row ?? notFound("integration installation", ids[index]!));
  },
  fields: (t) => ({
    status: t.exposeString("status", { description: "active, or pending while required settings are missing" }),
    spaceSelection: t.exposeString("spaceSelection", {
      description: "all: every space of the organization; selected: the spaces it is installed on",
    }),
    siteSelection: t.exposeString("siteSelection"),
    spacesCount: t.int({ resolve: (installation, _args, { core }) => core.loaders.installationSpaceCount.load(installation.id) }),
    configuration: t.field({ type: "JSON", resolve: (installation) => installation.configuration }),
    externalIds: t.exposeStringList("externalIds"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    organization: t.field({ type: OrganizationRef, resolve: (installation) => installation.organizationId }),
    urls: t.field({
      type: InstallationUrls,
      resolve: async (installation, _args, { core }) => {
        const integration = await core.loaders.integration.load(installation.integrationId);
        const location = core.urls.api(`/integrations/${integration!.name}/installations/${installation.id}`);
        return { location, app: core.urls.app(`/integrations/${integration!.name}`), publicEndpoint: location };
      },
    }),
  }),
});

const ContentInstallationUrls = builder.simpleObject("IntegrationContentInstallationUrls", {
  fields: (t) => ({ location: t.string(), publicEndpoint: t.string() }),
});

async function contentInstallationUrls(core: CoreContext, installationId: string, path: string) {
  const installation = (await core.loaders.integrationInstallation.load(installationId))!;
  const integration = (await core.loaders.integration.load(installation.integrationId))!;
  const location = core.urls.api(`/integrations/${integration.name}/installations/${installation.id}/${path}`);
  return { location, publicEndpoint: location };
}

const integrationIdOf = async (core: CoreContext, installationId: string) =>
  (await core.loaders.integrationInstallation.load(installationId))!.integrationId;

export const SpaceInstallationRef = builder.objectRef<IntegrationSpaceInstallation>("IntegrationSpaceInstallation");
export const SiteInstallationRef = builder.objectRef<IntegrationSiteInstallation>("IntegrationSiteInstallation");

SpaceInstallationRef.implement({
  description: "An installation on one space",
  fields: (t) => ({
    integration: t.field({ type: IntegrationRef, resolve: (row, _args, { core }) => integrationIdOf(core, row.installationId) }),
    installation: t.field({
      type: IntegrationInstallationRef,
      description: "The installation (its organization's admins)",
      resolve: (row) => row.installationId,
    }),
    installationId: t.exposeID("installationId"),
    integrationName: t.string({
      resolve: async (row, _args, { core }) => (await core.loaders.integration.load(await integrationIdOf(core, row.installationId)))!.name,
    }),
    status: t.exposeString("status"),
    configuration: t.field({ type: "JSON", resolve: (row) => row.configuration }),
    externalIds: t.exposeStringList("externalIds"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    urls: t.field({
      type: ContentInstallationUrls,
      resolve: (row, _args, { core }) => contentInstallationUrls(core, row.installationId, `spaces/${row.spaceId}`),
    }),
    spaceId: t.exposeID("spaceId"),
    space: t.field({ type: SpaceRef, resolve: (row) => row.spaceId }),
  }),
});

SiteInstallationRef.implement({
  description: "An installation on one site",
  fields: (t) => ({
    integration: t.field({ type: IntegrationRef, resolve: (row, _args, { core }) => integrationIdOf(core, row.installationId) }),
    installation: t.field({
      type: IntegrationInstallationRef,
      description: "The installation (its organization's admins)",
      resolve: (row) => row.installationId,
    }),
    installationId: t.exposeID("installationId"),
    integrationName: t.string({
      resolve: async (row, _args, { core }) => (await core.loaders.integration.load(await integrationIdOf(core, row.installationId)))!.name,
    }),
    status: t.exposeString("status"),
    configuration: t.field({ type: "JSON", resolve: (row) => row.configuration }),
    externalIds: t.exposeStringList("externalIds"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    urls: t.field({
      type: ContentInstallationUrls,
      resolve: (row, _args, { core }) => contentInstallationUrls(core, row.installationId, `sites/${row.siteId}`),
    }),
    siteId: t.exposeID("siteId"),
    site: t.field({ type: SiteRef, resolve: (row) => row.siteId }),
  }),
});

builder.objectFields(IntegrationRef, (t) => ({
  installations: t.connection(
    {
      type: IntegrationInstallationRef,
      description: "Installations the caller may see (all of them for the integration's admins)",
      args: { externalId: t.arg.string() },
      resolve: async (integration, args, { core }) => toConnection(await listInstallations(core, integration.name, args, args)),
    },
    builder.connectionObject(
      { type: IntegrationInstallationRef, name: "IntegrationInstallationConnection" },
      { name: "IntegrationInstallationEdge" },
    ),
  ),
  installation: t.field({
    type: IntegrationInstallationRef,
    description: "An installation, for admins of its organization or of the integration's",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (integration, { id }, { core }) => (await readInstallation(core, integration.name, id)).installation,
  }),
  installationSpaces: t.connection(
    {
      type: SpaceInstallationRef,
      description: "The spaces an installation is on that the caller can read (members of its organization)",
      args: { installation: t.arg.id({ required: true }) },
      resolve: async (integration, args, { core }) =>
        toConnection(await listSpaceInstallations(core, integration.name, args.installation, {}, args)),
    },
    { name: "IntegrationInstallationSpacesConnection" },
    { name: "IntegrationInstallationSpacesEdge" },
  ),
  installationSites: t.connection(
    {
      type: SiteInstallationRef,
      description: "The sites an installation is on (members of its organization)",
      args: { installation: t.arg.id({ required: true }) },
      resolve: async (integration, args, { core }) =>
        toConnection(await listSiteInstallations(core, integration.name, args.installation, {}, args)),
    },
    { name: "IntegrationInstallationSitesConnection" },
    { name: "IntegrationInstallationSitesEdge" },
  ),
  spaceInstallations: t.connection(
    {
      type: SpaceInstallationRef,
      args: { externalId: t.arg.string() },
      resolve: async (integration, args, { core }) => toConnection(await listSpaceInstallations(core, integration.name, null, args, args)),
    },
    builder.connectionObject(
      { type: SpaceInstallationRef, name: "IntegrationSpaceInstallationConnection" },
      { name: "IntegrationSpaceInstallationEdge" },
    ),
  ),
  siteInstallations: t.connection(
    {
      type: SiteInstallationRef,
      args: { externalId: t.arg.string() },
      resolve: async (integration, args, { core }) => toConnection(await listSiteInstallations(core, integration.name, null, args, args)),
    },
    builder.connectionObject(
      { type: SiteInstallationRef, name: "IntegrationSiteInstallationConnection" },
      { name: "IntegrationSiteInstallationEdge" },
    ),
  ),
  events: t.connection(
    {
      type: IntegrationEventRef,
      description: "Events, newest first (the integration's admins); `delivered: false` lists the pending ones too",
      args: { delivered: t.arg.boolean({ defaultValue: true }) },
      resolve: async (integration, args, { core }) =>
        toConnection(await listEvents(core, integration.name, args, { delivered: args.delivered ?? true })),
    },
    builder.connectionObject({ type: IntegrationEventRef, name: "IntegrationEventConnection" }, { name: "IntegrationEventEdge" }),
  ),
  event: t.field({
    type: IntegrationEventRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (integration, { id }, { core }) => readEvent(core, integration.name, id),
  }),
}));

builder.objectFields(IntegrationInstallationRef, (t) => ({
  integration: t.field({ type: IntegrationRef, resolve: (installation) => installation.integrationId }),
  spaces: t.connection(
    {
      type: SpaceInstallationRef,
      resolve: async (installation, args, { core }) => {
        const integration = await core.loaders.integration.load(installation.integrationId);
        return toConnection(await listSpaceInstallations(core, integration!.name, installation.id, {}, args));
      },
    },
    { name: "IntegrationInstallationSpaceConnection" },
    { name: "IntegrationInstallationSpaceEdge" },
  ),
  sites: t.connection(
    {
      type: SiteInstallationRef,
      resolve: async (installation, args, { core }) => {
        const integration = await core.loaders.integration.load(installation.integrationId);
        return toConnection(await listSiteInstallations(core, integration!.name, installation.id, {}, args));
      },
    },
    { name: "IntegrationInstallationSiteConnection" },
    { name: "IntegrationInstallationSiteEdge" },
  ),
}));

const FilterArgs = (t: any) => ({
  search: t.arg.string(),
  category: t.arg.string(),
  blockDomain: t.arg.string(),
  blocks: t.arg.boolean(),
  contentSources: t.arg.boolean(),
  owner: t.arg.id(),
  scope: t.arg.string(),
  target: t.arg.string(),
});

const IntegrationConnection = builder.connectionObject(
  { type: IntegrationRef, name: "IntegrationConnection" },
  { name: "IntegrationEdge" },
);

builder.queryFields((t) => ({
  integration: t.field({
    type: IntegrationRef,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, { name }, { core }) => readIntegration(core, name),
  }),
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Public integrations and those of the caller's organizations, oldest first",
      args: FilterArgs(t),
      resolve: async (_root, args, { core }) => toConnection(await listIntegrations(core, args as IntegrationFilters, args)),
    },
    IntegrationConnection,
  ),
}));

builder.objectFields(OrganizationRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Integrations installed in the organization",
      args: FilterArgs(t),
      resolve: async (o, args, { core }) => toConnection(await listOrganizationIntegrations(core, o.id, args as IntegrationFilters, args)),
    },
    { name: "OrganizationIntegrationConnection" },
    { name: "OrganizationIntegrationEdge" },
  ),
}));

builder.objectFields(SpaceRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Integrations installed on the space",
      args: FilterArgs(t),
      resolve: async (space, args, { core }) => toConnection(await listSpaceIntegrations(core, space.id, args as IntegrationFilters, args)),
    },
    { name: "SpaceIntegrationConnection" },
    { name: "SpaceIntegrationEdge" },
  ),
}));

const PublishInput = builder.inputType("PublishIntegrationInput", {
  description: "The published PublishIntegration body; absent fields keep their value on an update",
  fields: (f) => ({
    organization: f.string({ description: "Id or subdomain of the publishing organization (required when creating)" }),
    runtime: f.string({ description: "v1 or v2" }),
    title: f.string(),
    description: f.string(),
    summary: f.string(),
    icon: f.string({ description: "Base64 of a PNG (at most 256 KiB)" }),
    previewImages: f.stringList({ description: "Base64 of PNGs (at most 3, 1 MiB each)" }),
    visibility: f.string({ description: "public, private or unlisted" }),
    target: f.string({ description: "all (default), organization, space or site" }),
    scopes: f.stringList(),
    categories: f.stringList(),
    blocks: f.field({ type: "JSON" }),
    contentSources: f.field({ type: "JSON" }),
    externalLinks: f.field({ type: "JSON" }),
    configurations: f.field({
      type: "JSON",
      description:
        "{ account, space, site }: each { properties: { <name>: { type, title, description, default, enum } }, required: [names] }",
    }),
    secrets: f.field({ type: "JSON", description: "Map of names to strings: stored, given to the script, never returned" }),
    contentSecurityPolicy: f.field({ type: "JSON" }),
    script: f.string({
      description: "The script: an ES module whose default export has fetch(request, env, ctx) (what `gitbook publish` bundles)",
    }),
  }),
});

const InstallationPayload = (name: string) =>
  builder.simpleObject(name, { fields: (t) => ({ installation: t.field({ type: IntegrationInstallationRef }) }) });
const IntegrationPayload = (name: string) =>
  builder.simpleObject(name, { fields: (t) => ({ integration: t.field({ type: IntegrationRef }) }) });

builder.mutationFields((t) => ({
  publishIntegration: t.field({
    type: builder.simpleObject("PublishIntegrationPayload", {
      fields: (p) => ({ integration: p.field({ type: IntegrationRef }), created: p.boolean() }),
    }),
    description: "Creates or updates the integration `name`, with a new version",
    args: { name: t.arg.string({ required: true }), input: t.arg({ type: PublishInput, required: true }) },
    resolve: (_root, { name, input }, { core }) => publishIntegration(core, name, input as never),
  }),
  deleteIntegration: t.field({
    type: builder.simpleObject("DeleteIntegrationPayload", { fields: (p) => ({ deletedName: p.string() }) }),
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, { name }, { core }) => {
      await deleteIntegration(core, name);
      return { deletedName: name };
    },
  }),
  setIntegrationDevelopmentMode: t.field({
    type: IntegrationPayload("SetIntegrationDevelopmentModePayload"),
    description: "Sends the integration's events (of its organization, or of all with `all`) to `tunnelUrl`, signed",
    args: { name: t.arg.string({ required: true }), tunnelUrl: t.arg.string({ required: true }), all: t.arg.boolean() },
    resolve: async (_root, args, { core }) => ({ integration: await setDevelopmentMode(core, args.name, args) }),
  }),
  disableIntegrationDevelopmentMode: t.field({
    type: IntegrationPayload("DisableIntegrationDevelopmentModePayload"),
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, { name }, { core }) => ({ integration: await disableDevelopmentMode(core, name) }),
  }),
  installIntegration: t.field({
    type: InstallationPayload("InstallIntegrationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InstallIntegrationInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            organization: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ installation: await installIntegration(core, input.integration, input) }),
  }),
  updateIntegrationInstallation: t.field({
    type: InstallationPayload("UpdateIntegrationInstallationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateIntegrationInstallationInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
            externalIds: f.stringList(),
            spaceSelection: f.string(),
            siteSelection: f.string(),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      installation: await updateInstallation(core, input.integration, input.installation, input),
    }),
  }),
  uninstallIntegration: t.field({
    type: builder.simpleObject("UninstallIntegrationPayload", { fields: (p) => ({ deletedInstallationId: p.id() }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UninstallIntegrationInput", {
          fields: (f) => ({ integration: f.string({ required: true }), installation: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await uninstallIntegration(core, input.integration, input.installation);
      return { deletedInstallationId: input.installation };
    },
  }),
  installIntegrationOnSpace: t.field({
    type: builder.simpleObject("InstallIntegrationOnSpacePayload", {
      fields: (p) => ({ spaceInstallation: p.field({ type: SpaceInstallationRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InstallIntegrationOnSpaceInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            space: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      spaceInstallation: await installOnSpace(core, input.integration, input.installation, input.space, input.configuration ?? undefined),
    }),
  }),
  updateIntegrationSpaceInstallation: t.field({
    type: builder.simpleObject("UpdateIntegrationSpaceInstallationPayload", {
      fields: (p) => ({ spaceInstallation: p.field({ type: SpaceInstallationRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateIntegrationSpaceInstallationInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            space: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
            externalIds: f.stringList(),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      spaceInstallation: await updateSpaceInstallation(core, input.integration, input.installation, input.space, input),
    }),
  }),
  uninstallIntegrationFromSpace: t.field({
    type: builder.simpleObject("UninstallIntegrationFromSpacePayload", { fields: (p) => ({ removed: p.boolean() }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UninstallIntegrationFromSpaceInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            space: f.id({ required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      removed: await uninstallFromSpace(core, input.integration, input.installation, input.space),
    }),
  }),
  installIntegrationOnSite: t.field({
    type: builder.simpleObject("InstallIntegrationOnSitePayload", {
      fields: (p) => ({ siteInstallation: p.field({ type: SiteInstallationRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InstallIntegrationOnSiteInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            site: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteInstallation: await installOnSite(core, input.integration, input.installation, input.site, input.configuration ?? undefined),
    }),
  }),
  updateIntegrationSiteInstallation: t.field({
    type: builder.simpleObject("UpdateIntegrationSiteInstallationPayload", {
      fields: (p) => ({ siteInstallation: p.field({ type: SiteInstallationRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateIntegrationSiteInstallationInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            site: f.id({ required: true }),
            configuration: f.field({ type: "JSON" }),
            externalIds: f.stringList(),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteInstallation: await updateSiteInstallation(core, input.integration, input.installation, input.site, input),
    }),
  }),
  uninstallIntegrationFromSite: t.field({
    type: builder.simpleObject("UninstallIntegrationFromSitePayload", { fields: (p) => ({ removed: p.boolean() }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UninstallIntegrationFromSiteInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            installation: f.id({ required: true }),
            site: f.id({ required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      removed: await uninstallFromSite(core, input.integration, input.installation, input.site),
    }),
  }),
  createIntegrationInstallationToken: t.field({
    type: builder.simpleObject("IntegrationInstallationToken", {
      fields: (p) => ({ token: p.string(), expiresAt: p.field({ type: "DateTime" }) }),
    }),
    description: "A token acting as the installation for an hour: its integration's scopes, on the spaces it is installed on only",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateIntegrationInstallationTokenInput", {
          fields: (f) => ({ integration: f.string({ required: true }), installation: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => createInstallationToken(core, input.integration, input.installation),
  }),
  renderIntegrationUI: t.field({
    type: builder.simpleObject("RenderIntegrationUIPayload", {
      fields: (p) => ({ output: p.field({ type: "JSON" }), cacheControl: p.string({ nullable: true }) }),
    }),
    description: "Renders a component of the integration (a ui_render event, answered now): its ContentKit output",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RenderIntegrationUIInput", {
          fields: (f) => ({
            integration: f.string({ required: true }),
            componentId: f.string({ required: true }),
            props: f.field({ type: "JSON", required: true }),
            state: f.field({ type: "JSON" }),
            context: f.field({ type: "JSON", required: true, description: "ContentKitContext: { type, spaceId, … }" }),
            action: f.field({ type: "JSON" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => renderIntegration(core, input.integration, input as never),
  }),
}));

// Single reads of the REST surface, by name and ids.
builder.queryFields((t) => ({
  integrationSpaceInstallation: t.field({
    type: SpaceInstallationRef,
    args: {
      integration: t.arg.string({ required: true }),
      installation: t.arg.id({ required: true }),
      space: t.arg.id({ required: true }),
    },
    resolve: (_root, args, { core }) => readSpaceInstallation(core, args.integration, args.installation, args.space),
  }),
  integrationSiteInstallation: t.field({
    type: SiteInstallationRef,
    args: { integration: t.arg.string({ required: true }), installation: t.arg.id({ required: true }), site: t.arg.id({ required: true }) },
    resolve: (_root, args, { core }) => readSiteInstallation(core, args.integration, args.installation, args.site),
  }),
}));
