// Integrations: publishing, installations (organization, spaces, sites), events and their
// traces, development mode, installation tokens and rendering. Rules in src/core/integrations.
import type { ObjectRef } from "@pothos/core";
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
  type ContentKind,
  createInstallationToken,
  deleteIntegration,
  disableDevelopmentMode,
  INSTALLED_TARGETS,
  type InstalledIntegration,
  installationStatus,
  installIntegration,
  integrationPermissions,
  listInstalledIntegrations,
  listEvents,
  listInstallations,
  listIntegrations,
  listOrganizationIntegrations,
  listOrganizationInstallations,
  listSiteIntegrations,
  listSpaceIntegrations,
  loadVisibleEvents,
  loadVisibleInstallations,
  loadVisibleIntegrations,
  publishIntegration,
  queueIntegrationTask,
  readEvent,
  readInstallation,
  readIntegration,
  renderIntegration,
  setDevelopmentMode,
  siteInstallations,
  spaceInstallations,
  uninstallIntegration,
  updateInstallation,
} from "../core/integrations/index.ts";
import { manifestOf } from "../core/integrations/installed.ts";
import { allows, POLICY } from "../core/auth/policy.ts";
import { organizationPermissions } from "../core/auth/permissions.ts";
import type { CoreContext } from "../core/context.ts";
import type { Page } from "../core/pagination.ts";
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
  description: "Addresses of an integration",
  fields: (t) => ({
    location: t.string({ description: "Its address in the API" }),
    app: t.string({ description: "Its address in the app" }),
    assets: t.string({ description: "Where its assets are served" }),
    icon: t.string({ description: "Signed URL of its icon (PNG), or null without one", nullable: true }),
    publicEndpoint: t.string({
      description: "Its public HTTP endpoint: any request under it is delivered to the script as a fetch event (no installation)",
    }),
  }),
});

const OwnerProfile = builder.simpleObject("IntegrationOwner", {
  description: "The organization owning an integration, as anyone who sees the integration sees it",
  fields: (t) => ({
    id: t.id({ description: "Id of the organization" }),
    title: t.string({ description: "Title shown to people" }),
    createdAt: t.field({ description: "When it was created", type: "DateTime" }),
    hostname: t.string({ description: "The organization's subdomain, if it has one", nullable: true }),
    type: t.string({ description: "The organization's type" }),
    plan: t.string({ description: "The organization's plan" }),
    location: t.string({ description: "Its address in the API" }),
    app: t.string({ description: "Its address in the app" }),
    permissions: t.field({ type: "JSON", description: "The caller's permissions in the organization" }),
  }),
});

const IntegrationEventLog = builder.simpleObject("IntegrationEventLog", {
  description: "A line of an event's trace: what the script logged, and each delivery's failure",
  fields: (t) => ({
    level: t.string({ description: "debug, info, warn or error" }),
    message: t.string({ description: "The line" }),
    timestamp: t.string({ description: "When it was written (ISO 8601)" }),
  }),
});

const DevelopmentMode = builder.simpleObject("IntegrationDevelopmentMode", {
  description: "Where an integration's events go in development mode",
  fields: (t) => ({
    tunnelUrl: t.string({ description: "Where events are POSTed" }),
    all: t.boolean({ description: "Whether events of every organization go there (else its own organization's only)" }),
  }),
});

export const IntegrationEventRef = builder.loadableNode("IntegrationEvent", {
  description: "An event sent to an integration, with its delivery status and trace",
  id: { resolve: (event: IntegrationEvent) => event.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleEvents(core, ids);
    return rows.map((row, index) => row ?? notFound("integration event", ids[index]!));
  },
  fields: (t) => ({
    integrationId: t.exposeString("integrationId", { description: "Id of the integration" }),
    installationId: t.exposeString("installationId", { description: "Id of the installation it concerns", nullable: true }),
    createdAt: t.expose("createdAt", { description: "When it was created", type: "DateTime" }),
    payload: t.field({ type: "JSON", description: "The published Event sent to the script", resolve: (event) => event.payload }),
    status: t.exposeString("status", {
      description: "pending (not delivered yet), success or failed (the last delivery failed; retried while attempts remain)",
    }),
    attempts: t.exposeInt("attempts", { description: "Deliveries tried so far" }),
    logs: t.field({
      description: "The trace: the script's console lines and each failed delivery's reason, oldest first",
      type: [IntegrationEventLog],
      resolve: (event) => event.logs as never,
    }),
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
    name: t.exposeString("name", { description: "Unique name of the integration (pattern ^[a-zA-Z0-9-_.]+$)" }),
    version: t.exposeInt("version", { description: "Incremented at each publication" }),
    title: t.exposeString("title", { description: "Title shown to people" }),
    description: t.string({ description: "Short description", resolve: (integration) => manifestOf(integration).description ?? "" }),
    summary: t.string({
      description: "Long description (Markdown)",
      nullable: true,
      resolve: (integration) => manifestOf(integration).summary ?? null,
    }),
    runtime: t.string({
      description: "Runtime the script was published for (v1 or v2)",
      nullable: true,
      resolve: (integration) => manifestOf(integration).runtime ?? null,
    }),
    visibility: t.exposeString("visibility", { description: "public, private (its organization only) or unlisted" }),
    target: t.exposeString("target", { description: "Where it installs: all, organization, space or site" }),
    verified: t.boolean({ description: "Always false: this service verifies no integration", resolve: () => false }),
    scopes: t.exposeStringList("scopes", { description: "What its installation tokens may do (published IntegrationScope values)" }),
    categories: t.exposeStringList("categories", { description: "Categories it is listed under" }),
    blocks: t.field({
      description: "Blocks it offers in pages: [{ id, title, description, icon, urlUnfurl, markdown }]",
      type: "JSON",
      resolve: (integration) => manifestOf(integration).blocks ?? [],
    }),
    contentSources: t.field({
      description: "Content sources it offers: [{ id, title, description, icon, configuration }]",
      type: "JSON",
      resolve: (integration) => manifestOf(integration).contentSources ?? [],
    }),
    configurations: t.field({
      description: "Settings its installations take: { account, space, site }, each { properties, required }",
      type: "JSON",
      resolve: (integration) => manifestOf(integration).configurations ?? {},
    }),
    externalLinks: t.field({
      description: "Links about it: [{ url, label }]",
      type: "JSON",
      resolve: (integration) => manifestOf(integration).externalLinks ?? [],
    }),
    contentSecurityPolicy: t.field({
      description: "Sent as headers with its script-fetch and blocks-fetch answers",
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
    createdAt: t.expose("createdAt", { description: "When it was created", type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { description: "When it last changed", type: "DateTime" }),
    urls: t.field({
      description: "Where it is: in the API, in the app, its icon and its endpoint",
      type: IntegrationUrls,
      resolve: (integration, _args, { core }) => {
        const location = integrationLocation(core, integration.name);
        return {
          location,
          app: core.urls.app(`/integrations/${integration.name}`),
          assets: `${location}/assets`,
          icon: integration.iconHash ? imageUrl(core, integration.iconHash, "icon.png") : null,
          publicEndpoint: core.urls.integrationEndpoint(integration.name),
        };
      },
    }),
    permissions: t.field({
      description: "What the caller may do with it",
      type: builder.simpleObject("IntegrationPermissions", {
        description: "What the caller may do with an integration",
        fields: (p) => ({
          admin: p.boolean({ description: "Whether the caller may publish, change and delete it and read its events" }),
          install: p.boolean({ description: "Whether it may be installed at all (true; installing also needs an organization admin)" }),
        }),
      }),
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
  description: "Addresses of an installation",
  fields: (t) => ({
    location: t.string({ description: "Its address in the API" }),
    app: t.string({ description: "Its address in the app" }),
    publicEndpoint: t.string({
      description: "Its public HTTP endpoint: any request under it is delivered to the script as a fetch event naming the installation",
    }),
  }),
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
    siteSelection: t.exposeString("siteSelection", {
      description: "all: every site of the organization; selected: the sites it is installed on",
    }),
    spacesCount: t.int({
      description: "Number of spaces it is installed on",
      resolve: (installation, _args, { core }) => core.loaders.installationSpaceCount.load(installation.id),
    }),
    configuration: t.field({
      description: "Its settings (checked against the integration's configurations)",
      type: "JSON",
      resolve: (installation) => installation.configuration,
    }),
    externalIds: t.exposeStringList("externalIds", { description: "Ids the integration gave it in its own system" }),
    createdAt: t.expose("createdAt", { description: "When it was created", type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { description: "When it last changed", type: "DateTime" }),
    organization: t.field({
      description: "The organization it is installed in",
      type: OrganizationRef,
      resolve: (installation) => installation.organizationId,
    }),
    urls: t.field({
      description: "Where it is: in the API, in the app, its icon and its endpoint",
      type: InstallationUrls,
      resolve: async (installation, _args, { core }) => {
        const integration = await core.loaders.integration.load(installation.integrationId);
        const location = core.urls.api(`/integrations/${integration!.name}/installations/${installation.id}`);
        return {
          location,
          app: core.urls.app(`/integrations/${integration!.name}`),
          publicEndpoint: core.urls.installationEndpoint(integration!.name, installation.id),
        };
      },
    }),
  }),
});

const ContentInstallationUrls = builder.simpleObject("IntegrationContentInstallationUrls", {
  description: "Addresses of an installation on a space or site",
  fields: (t) => ({
    location: t.string({ description: "Its address in the API" }),
    publicEndpoint: t.string({
      description:
        "Its public HTTP endpoint: requests under it are delivered to the script as fetch events naming the space or site (`…/integration/installations/{id}/spaces/{spaceId}` or `…/sites/{siteId}`)",
    }),
  }),
});

async function contentInstallationUrls(core: CoreContext, installationId: string, path: `spaces/${string}` | `sites/${string}`) {
  const installation = (await core.loaders.integrationInstallation.load(installationId))!;
  const integration = (await core.loaders.integration.load(installation.integrationId))!;
  const location = core.urls.api(`/integrations/${integration.name}/installations/${installation.id}/${path}`);
  return { location, publicEndpoint: core.urls.contentInstallationEndpoint(integration.name, installation.id, path) };
}

const contentStores = { space: spaceInstallations, site: siteInstallations };
const capitalized = (kind: ContentKind) => (kind === "space" ? "Space" : "Site");

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const integrationIdOf = async (core: CoreContext, installationId: string) =>
  (await core.loaders.integrationInstallation.load(installationId))!.integrationId;

export const SpaceInstallationRef = builder.objectRef<IntegrationSpaceInstallation>("IntegrationSpaceInstallation");
export const SiteInstallationRef = builder.objectRef<IntegrationSiteInstallation>("IntegrationSiteInstallation");

/** The fields an installation on a space and one on a site share; `path` is its address below the installation's. */
const contentInstallationFields = <Row extends IntegrationSpaceInstallation | IntegrationSiteInstallation>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, Row>,
  path: (row: Row) => `spaces/${string}` | `sites/${string}`,
) => ({
  integration: t.field({
    description: "The integration",
    type: IntegrationRef,
    resolve: (row, _args, { core }) => integrationIdOf(core, row.installationId),
  }),
  installation: t.field({
    type: IntegrationInstallationRef,
    description: "The installation (its organization's admins)",
    resolve: (row) => row.installationId,
  }),
  installationId: t.id({ description: "Id of the installation it concerns", resolve: (row) => row.installationId }),
  integrationName: t.string({
    description: "Name of the integration",
    resolve: async (row, _args, { core }) => (await core.loaders.integration.load(await integrationIdOf(core, row.installationId)))!.name,
  }),
  status: t.string({ description: "active, pending (required settings missing) or paused", resolve: (row) => row.status }),
  configuration: t.field({
    description: "Its settings (checked against the integration's configurations)",
    type: "JSON",
    resolve: (row) => row.configuration,
  }),
  externalIds: t.stringList({ description: "Ids the integration gave it in its own system", resolve: (row) => row.externalIds }),
  createdAt: t.field({ description: "When it was created", type: "DateTime", resolve: (row) => row.createdAt }),
  updatedAt: t.field({ description: "When it last changed", type: "DateTime", resolve: (row) => row.updatedAt }),
  urls: t.field({
    description: "Where it is: in the API, in the app, its icon and its endpoint",
    type: ContentInstallationUrls,
    resolve: (row, _args, { core }) => contentInstallationUrls(core, row.installationId, path(row)),
  }),
});

SpaceInstallationRef.implement({
  description: "An installation on one space",
  fields: (t) => ({
    ...contentInstallationFields(t, (row) => `spaces/${row.spaceId}`),
    spaceId: t.exposeID("spaceId", { description: "Id of the space" }),
    space: t.field({ description: "The space", type: SpaceRef, resolve: (row) => row.spaceId }),
  }),
});

SiteInstallationRef.implement({
  description: "An installation on one site",
  fields: (t) => ({
    ...contentInstallationFields(t, (row) => `sites/${row.siteId}`),
    siteId: t.exposeID("siteId", { description: "Id of the site" }),
    site: t.field({ description: "The site", type: SiteRef, resolve: (row) => row.siteId }),
  }),
});

/**
 * The lists of installations on spaces, or on sites: an installation's (on Integration, by id, and
 * on IntegrationInstallation) and all those of the integration the caller sees.
 */
function contentInstallationLists<Row extends object>(
  kind: ContentKind,
  readable: string,
  store: { list: (...args: Parameters<typeof spaceInstallations.list>) => Promise<Page<Row>> },
  type: ObjectRef<Types, Row>,
) {
  const Kind = capitalized(kind);
  return {
    ofInstallation: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Integration>) => ({
      [`installation${Kind}s`]: t.connection(
        {
          type,
          description: `The ${kind}s an installation is on${readable} (members of its organization)`,
          args: { installation: t.arg.id({ required: true }) },
          resolve: async (integration, args, { core }) =>
            toConnection(await store.list(core, integration.name, args.installation, {}, args)),
        },
        { name: `IntegrationInstallation${Kind}sConnection` },
        { name: `IntegrationInstallation${Kind}sEdge` },
      ),
    }),
    everywhere: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Integration>) => ({
      [`${kind}Installations`]: t.connection(
        {
          description: `The ${kind}s it is installed on that the caller can read, in the caller's organizations`,
          type,
          args: { externalId: t.arg.string() },
          resolve: async (integration, args, { core }) => toConnection(await store.list(core, integration.name, null, args, args)),
        },
        builder.connectionObject(
          { type, name: `Integration${Kind}InstallationConnection` },
          { name: `Integration${Kind}InstallationEdge` },
        ),
      ),
    }),
    onInstallation: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, IntegrationInstallation>) => ({
      [`${kind}s`]: t.connection(
        {
          description: `The ${kind}s it is installed on`,
          type,
          resolve: async (installation, args, { core }) => {
            const integration = await core.loaders.integration.load(installation.integrationId);
            return toConnection(await store.list(core, integration!.name, installation.id, {}, args));
          },
        },
        { name: `IntegrationInstallation${Kind}Connection` },
        { name: `IntegrationInstallation${Kind}Edge` },
      ),
    }),
  };
}

const contentLists = {
  space: contentInstallationLists("space", " that the caller can read", spaceInstallations, SpaceInstallationRef),
  site: contentInstallationLists("site", "", siteInstallations, SiteInstallationRef),
};

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
  ...contentLists.space.ofInstallation(t),
  ...contentLists.site.ofInstallation(t),
  ...contentLists.space.everywhere(t),
  ...contentLists.site.everywhere(t),
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
    description: "One of its events by id, with its trace (its organization's admins)",
    type: IntegrationEventRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (integration, { id }, { core }) => readEvent(core, integration.name, id),
  }),
}));

builder.objectFields(IntegrationInstallationRef, (t) => ({
  integration: t.field({ description: "The integration", type: IntegrationRef, resolve: (installation) => installation.integrationId }),
  ...contentLists.space.onInstallation(t),
  ...contentLists.site.onInstallation(t),
}));

const filterArgs = builder.args((t) => ({
  search: t.string(),
  category: t.string(),
  blockDomain: t.string(),
  blocks: t.boolean(),
  contentSources: t.boolean(),
  owner: t.id(),
  scope: t.string(),
  target: t.string(),
}));

const IntegrationConnection = builder.connectionObject(
  { type: IntegrationRef, name: "IntegrationConnection" },
  { name: "IntegrationEdge" },
);

builder.queryFields((t) => ({
  integration: t.field({
    description: "The integration",
    type: IntegrationRef,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, { name }, { core }) => readIntegration(core, name),
  }),
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Public integrations and those of the caller's organizations, oldest first",
      args: filterArgs,
      resolve: async (_root, args, { core }) => toConnection(await listIntegrations(core, args, args)),
    },
    IntegrationConnection,
  ),
}));

builder.objectFields(OrganizationRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Integrations available to the organization: every public one and its own (private and unlisted included), oldest first",
      args: filterArgs,
      resolve: async (o, args, { core }) => toConnection(await listOrganizationIntegrations(core, o.id, args, args)),
    },
    { name: "OrganizationIntegrationConnection" },
    { name: "OrganizationIntegrationEdge" },
  ),
}));

const InstalledIntegrationRef = builder.objectRef<InstalledIntegration>("InstalledIntegration").implement({
  description: "An installation of an integration, its status and what it is installed on (the published InstalledIntegration)",
  fields: (t) => ({
    status: t.exposeString("status", { description: "active, pending (required settings missing) or paused" }),
    integration: t.field({
      description: "The integration",
      type: IntegrationRef,
      resolve: (row, _args, { core }) => integrationIdOf(core, row.installationId),
    }),
    target: t.field({
      description: "What it is installed on",
      type: builder.simpleObject("InstalledIntegrationTarget", {
        description: "What an installation is on: the organization, a space or a site (type tells which id is set)",
        fields: (f) => ({
          type: f.string({ description: "organization, space or site" }),
          organizationId: f.id({ description: "The organization, for type organization", nullable: true }),
          spaceId: f.id({ description: "The space, for type space", nullable: true }),
          siteId: f.id({ description: "The site, for type site", nullable: true }),
        }),
      }),
      resolve: (row) => ({
        type: row.target.type,
        organizationId: row.target.organizationId ?? null,
        spaceId: row.target.spaceId ?? null,
        siteId: row.target.siteId ?? null,
      }),
    }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  integrationInstallationStatus: t.string({
    description:
      "The status of the integration's installation in the organization: active, pending or paused (not found when not installed)",
    args: { integration: t.arg.string({ required: true, description: "Name of the integration" }) },
    resolve: (organization, args, { core }) => installationStatus(core, organization.id, args.integration),
  }),
  installedIntegrations: t.connection(
    {
      type: InstalledIntegrationRef,
      description: "Installations in the organization, oldest first: in the organization itself (default), on its spaces or on its sites",
      args: {
        target: t.arg.string({ description: `One of ${INSTALLED_TARGETS.join(", ")} (default organization)` }),
        space: t.arg.id({ description: "Only the installations on this space (target space)" }),
        site: t.arg.id({ description: "Only the installations on this site (target site)" }),
      },
      resolve: async (organization, args, { core }) => toConnection(await listInstalledIntegrations(core, organization.id, args, args)),
    },
    { name: "InstalledIntegrationConnection" },
    { name: "InstalledIntegrationEdge" },
  ),
}));

builder.objectFields(SpaceRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Integrations installed on the space",
      args: filterArgs,
      resolve: async (space, args, { core }) => toConnection(await listSpaceIntegrations(core, space.id, args, args)),
    },
    { name: "SpaceIntegrationConnection" },
    { name: "SpaceIntegrationEdge" },
  ),
}));

builder.objectFields(SiteRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationRef,
      description: "Integrations installed on the site: active in its organization and on every site or on this one",
      args: filterArgs,
      resolve: async (site, args, { core }) => toConnection(await listSiteIntegrations(core, site.organizationId, site.id, args, args)),
    },
    { name: "SiteIntegrationConnection" },
    { name: "SiteIntegrationEdge" },
  ),
}));

builder.objectFields(OrganizationRef, (t) => ({
  installations: t.connection(
    {
      type: IntegrationInstallationRef,
      description: "The installations made in the organization, each with its integration, oldest first (admins)",
      args: { search: t.arg.string({ description: "Only installations of integrations whose name or title contains this" }) },
      resolve: async (organization, args, { core }) =>
        toConnection(await listOrganizationInstallations(core, organization.id, { search: args.search }, args)),
    },
    { name: "OrganizationInstallationConnection" },
    { name: "OrganizationInstallationEdge" },
  ),
}));

const PublishInput = builder.inputType("PublishIntegrationInput", {
  description: "The published PublishIntegration body; absent fields keep their value on an update",
  fields: (f) => ({
    organization: f.string({ description: "Id or subdomain of the publishing organization (required when creating)" }),
    runtime: f.string({ description: "v1 or v2" }),
    title: f.string({ description: "Title (2 to 100 characters)" }),
    description: f.string({ description: "Short description (at most 1000 characters)" }),
    summary: f.string({ description: "Long description in Markdown (at most 20,000 characters)" }),
    icon: f.string({ description: "Base64 of a PNG (at most 256 KiB)" }),
    previewImages: f.stringList({ description: "Base64 of PNGs (at most 3, 1 MiB each)" }),
    visibility: f.string({ description: "public, private or unlisted" }),
    target: f.string({ description: "all (default), organization, space or site" }),
    scopes: f.stringList({ description: "What its installation tokens may do: published IntegrationScope values" }),
    categories: f.stringList({ description: "Categories it is listed under" }),
    blocks: f.field({ description: "Blocks: [{ id, title, description, icon, urlUnfurl, markdown }]", type: "JSON" }),
    contentSources: f.field({ description: "Content sources: [{ id, title, description, icon, configuration }]", type: "JSON" }),
    externalLinks: f.field({ description: "Links: [{ url, label }]", type: "JSON" }),
    configurations: f.field({
      type: "JSON",
      description:
        "{ account, space, site }: each { properties: { <name>: { type, title, description, default, enum } }, required: [names] }",
    }),
    secrets: f.field({ type: "JSON", description: "Map of names to strings: stored, given to the script, never returned" }),
    contentSecurityPolicy: f.field({ description: "Sent as headers with its script-fetch and blocks-fetch answers", type: "JSON" }),
    script: f.string({
      description: "The script: an ES module whose default export has fetch(request, env, ctx) (what `gitbook publish` bundles)",
    }),
  }),
});

const InstallationPayload = (name: string) =>
  builder.simpleObject(name, {
    description: "The installation, as the mutation left it",
    fields: (t) => ({ installation: t.field({ description: "The installation", type: IntegrationInstallationRef }) }),
  });
const IntegrationPayload = (name: string) =>
  builder.simpleObject(name, {
    description: "The integration, as the mutation left it",
    fields: (t) => ({ integration: t.field({ description: "The integration", type: IntegrationRef }) }),
  });

/**
 * `installIntegrationOn<Kind>`, `updateIntegration<Kind>Installation` and
 * `uninstallIntegrationFrom<Kind>` for spaces and for sites, from one set of rules in core.
 */
function contentInstallationMutations(t: PothosSchemaTypes.MutationFieldBuilder<Types, object>, kind: ContentKind, installers: string) {
  const Kind = capitalized(kind);
  const store = contentStores[kind];
  const rowField = `${kind}Installation` as const;
  const rowPayload = (name: string, description: string) =>
    builder.simpleObject(name, {
      description,
      fields: (p) => ({
        [rowField]: p.field({
          description: `The installation on the ${kind}`,
          type: kind === "space" ? SpaceInstallationRef : SiteInstallationRef,
        }),
      }),
    });
  const configuration = (f: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) =>
    f.field({
      description: "Settings, checked against the integration's configurations (400 naming the key on a mismatch)",
      type: "JSON",
    });
  /** The space or site named by an input made with `key`. */
  const targetOf = (input: object) => (input as Record<ContentKind, string>)[kind];
  const key = (f: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
    integration: f.string({ description: "Name of the integration", required: true }),
    installation: f.id({ description: "Id of the installation", required: true }),
    [kind]: f.id({ description: `Id of the ${kind}`, required: true }),
  });
  return {
    [`installIntegrationOn${Kind}`]: t.field({
      description: `Installs an installation on a ${kind} of its organization (${installers}); ${kind}_installation_setup is sent`,
      type: rowPayload(`InstallIntegrationOn${Kind}Payload`, `The installation on the ${kind}`),
      args: {
        input: t.arg({
          required: true,
          type: builder.inputType(`InstallIntegrationOn${Kind}Input`, {
            description: `An installation and the ${kind} to install it on`,
            fields: (f) => ({ ...key(f), configuration: configuration(f) }),
          }),
        }),
      },
      resolve: async (_root, { input }, { core }) => ({
        [rowField]: await store.install(core, input.integration, input.installation, targetOf(input), input.configuration ?? undefined),
      }),
    }),
    [`updateIntegration${Kind}Installation`]: t.field({
      description: `Changes an installation on a ${kind}; a new configuration is sent as ${kind}_installation_setup`,
      type: rowPayload(`UpdateIntegration${Kind}InstallationPayload`, `The installation on the ${kind}, changed`),
      args: {
        input: t.arg({
          required: true,
          type: builder.inputType(`UpdateIntegration${Kind}InstallationInput`, {
            description: `An installation on a ${kind} and what to change`,
            fields: (f) => ({
              ...key(f),
              configuration: configuration(f),
              externalIds: f.stringList({ description: "Ids the integration gives it in its own system" }),
            }),
          }),
        }),
      },
      resolve: async (_root, { input }, { core }) => ({
        [rowField]: await store.update(core, input.integration, input.installation, targetOf(input), input),
      }),
    }),
    [`uninstallIntegrationFrom${Kind}`]: t.field({
      description: `Removes an installation from a ${kind}; ${kind}_installation_deleted is sent`,
      type: builder.simpleObject(`UninstallIntegrationFrom${Kind}Payload`, {
        description: "Whether it was removed",
        fields: (p) => ({ removed: p.boolean({ description: "Whether it was installed there (and is not anymore)" }) }),
      }),
      args: {
        input: t.arg({
          required: true,
          type: builder.inputType(`UninstallIntegrationFrom${Kind}Input`, {
            description: `An installation and the ${kind} to remove it from`,
            fields: key,
          }),
        }),
      },
      resolve: async (_root, { input }, { core }) => ({
        removed: await store.uninstall(core, input.integration, input.installation, targetOf(input)),
      }),
    }),
  };
}

builder.mutationFields((t) => ({
  publishIntegration: t.field({
    type: builder.simpleObject("PublishIntegrationPayload", {
      description: "The integration published",
      fields: (p) => ({
        integration: p.field({ description: "The integration", type: IntegrationRef }),
        created: p.boolean({ description: "Whether the integration was created (else updated)" }),
      }),
    }),
    description: "Creates or updates the integration `name`, with a new version",
    args: { name: t.arg.string({ required: true }), input: t.arg({ type: PublishInput, required: true }) },
    resolve: (_root, { name, input }, { core }) => publishIntegration(core, name, input as never),
  }),
  deleteIntegration: t.field({
    description: "Deletes the integration, its installations and events (its organization's admins)",
    type: builder.simpleObject("DeleteIntegrationPayload", {
      description: "The integration deleted",
      fields: (p) => ({ deletedName: p.string({ description: "Name of the deleted integration" }) }),
    }),
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
    description: "Sends the integration's events to its script again",
    type: IntegrationPayload("DisableIntegrationDevelopmentModePayload"),
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, { name }, { core }) => ({ integration: await disableDevelopmentMode(core, name) }),
  }),
  installIntegration: t.field({
    description: "Installs an integration in an organization (its admins); installation_setup is sent to the script",
    type: InstallationPayload("InstallIntegrationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("InstallIntegrationInput", {
          description: "What to install where",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            organization: f.id({ description: "Id of the organization", required: true }),
            configuration: f.field({
              description: "Settings, checked against the integration's configurations (400 naming the key on a mismatch)",
              type: "JSON",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ installation: await installIntegration(core, input.integration, input) }),
  }),
  updateIntegrationInstallation: t.field({
    description: "Changes an installation; a new configuration is sent as installation_setup",
    type: InstallationPayload("UpdateIntegrationInstallationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateIntegrationInstallationInput", {
          description: "An installation and what to change in it (absent: unchanged)",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            installation: f.id({ description: "Id of the installation", required: true }),
            configuration: f.field({
              description: "Settings, checked against the integration's configurations (400 naming the key on a mismatch)",
              type: "JSON",
            }),
            externalIds: f.stringList({ description: "Ids the integration gives it in its own system" }),
            spaceSelection: f.string({ description: "all or selected" }),
            siteSelection: f.string({ description: "all or selected" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      installation: await updateInstallation(core, input.integration, input.installation, input),
    }),
  }),
  uninstallIntegration: t.field({
    description: "Removes an installation, its spaces, sites and tokens; installation_deleted is sent",
    type: builder.simpleObject("UninstallIntegrationPayload", {
      description: "The installation removed",
      fields: (p) => ({ deletedInstallationId: p.id({ description: "Id of the removed installation" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UninstallIntegrationInput", {
          description: "The installation to remove",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            installation: f.id({ description: "Id of the installation", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await uninstallIntegration(core, input.integration, input.installation);
      return { deletedInstallationId: input.installation };
    },
  }),
  ...contentInstallationMutations(t, "space", "the space's admins"),
  ...contentInstallationMutations(t, "site", "admins of the organization"),
  createIntegrationInstallationToken: t.field({
    type: builder.simpleObject("IntegrationInstallationToken", {
      description: "A token acting as an installation",
      fields: (p) => ({
        token: p.string({ description: "The token (shown once): send it as Authorization: Bearer <token>" }),
        expiresAt: p.field({ description: "When it stops working", type: "DateTime" }),
      }),
    }),
    description: "A token acting as the installation for an hour: its integration's scopes, on the spaces it is installed on only",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateIntegrationInstallationTokenInput", {
          description: "The installation the token acts as",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            installation: f.id({ description: "Id of the installation", required: true }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => createInstallationToken(core, input.integration, input.installation),
  }),
  queueIntegrationTask: t.field({
    description:
      "Queues a task event for the integration's script, run after `schedule` seconds (its installations' tokens and its organization's admins)",
    type: builder.simpleObject("QueueIntegrationTaskPayload", {
      description: "The task queued",
      fields: (p) => ({
        eventId: p.id({ description: "Id of the task event (in the integration's events once delivered)" }),
        runAt: p.field({ description: "When it is run at the earliest", type: "DateTime" }),
      }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("QueueIntegrationTaskInput", {
          description: "The task and when to run it",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            task: f.field({ description: "Payload of the task, given to the script as the event's task", type: "JSON", required: true }),
            schedule: f.float({ description: "Seconds to wait before running it, 0 to 86,400 (default 0)" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => queueIntegrationTask(core, input.integration, input),
  }),
  renderIntegrationUI: t.field({
    type: builder.simpleObject("RenderIntegrationUIPayload", {
      description: "What the component rendered",
      fields: (p) => ({
        output: p.field({ description: "The ContentKit render output of the script", type: "JSON" }),
        cacheControl: p.string({ description: "The script's Cache-Control header, if any", nullable: true }),
      }),
    }),
    description: "Renders a component of the integration (a ui_render event, answered now): its ContentKit output",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RenderIntegrationUIInput", {
          description: "The component to render and where",
          fields: (f) => ({
            integration: f.string({ description: "Name of the integration", required: true }),
            componentId: f.string({ description: "Id of the component (createComponent's componentId)", required: true }),
            props: f.field({ description: "Properties of the component", type: "JSON", required: true }),
            state: f.field({ description: "Local state of the component", type: "JSON" }),
            context: f.field({ type: "JSON", required: true, description: "ContentKitContext: { type, spaceId, … }" }),
            action: f.field({ description: "The action that triggered this render, if any", type: "JSON" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => renderIntegration(core, input.integration, input as never),
  }),
}));

/** `integration<Kind>Installation(integration, installation, <kind>)`: one installation on a space or site. */
function contentInstallationQuery(t: PothosSchemaTypes.QueryFieldBuilder<Types, object>, kind: ContentKind, readers: string) {
  return {
    [`integration${capitalized(kind)}Installation`]: t.field({
      description: `An installation on a ${kind} (${readers})`,
      type: kind === "space" ? SpaceInstallationRef : SiteInstallationRef,
      args: {
        integration: t.arg.string({ required: true }),
        installation: t.arg.id({ required: true }),
        [kind]: t.arg.id({ required: true }),
      },
      resolve: (_root, args, { core }) => contentStores[kind].read(core, args.integration, args.installation, args[kind]!),
    }),
  };
}

// Single reads of the REST surface, by name and ids.
builder.queryFields((t) => ({
  ...contentInstallationQuery(t, "space", "members of its organization who read the space"),
  ...contentInstallationQuery(t, "site", "members of its organization"),
}));
