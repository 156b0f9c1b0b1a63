// Sites: types, queries and mutations (site spaces, sections, section groups, publishing).
import { agentsContextOf, siteTypeOf, siteVisibilityOf } from "../core/storage-types.ts";
import type { Site, SiteExternalLink, SiteSection, SiteSectionGroup, SiteShareLink, SiteSpace } from "../generated/prisma/client.ts";
import { conditionHolds } from "../core/sites/conditions.ts";
import { may } from "../core/auth/policy.ts";
import { notFound } from "../core/errors.ts";
import {
  addSection,
  addSectionGroup,
  addSectionToGroup,
  addSiteSpace,
  AGENTS_CONTEXTS,
  createSite,
  deleteSection,
  deleteSectionGroup,
  deleteSite,
  deleteSiteSpace,
  isGroup,
  joinUrl,
  listSites,
  loadReadableSite,
  loadReadableStructureRow,
  moveSection,
  moveSectionGroup,
  moveSiteSpace,
  readSectionGroups,
  readSections,
  readSiteSpaces,
  readStructure,
  removeSectionFromGroup,
  requireSite,
  sectionPathOf,
  sectionsOfGroup,
  setSitePublished,
  siteBaseUrl,
  siteSpacePathOf,
  siteSpacesIn,
  sitesOfSpace,
  SITE_TYPES,
  SITE_VISIBILITIES,
  sortStructure,
  structureOf,
  updateSection,
  updateSectionGroup,
  updateSite,
  updateSiteSpace,
  type Structure,
} from "../core/sites/index.ts";
import { readAdaptiveSchema, templateConditions, updateAdaptiveSchema } from "../core/sites/adaptive.ts";
import { siteLoaders, sortByKey } from "../core/sites/loaders.ts";
import { readPublishingAuth, regeneratePublishingAuth, updatePublishingAuth } from "../core/sites/publishing-auth.ts";
import {
  createShareLink,
  deleteShareLink,
  listShareLinks,
  presentShareKey,
  publishedUrlOf,
  shareLinkUrl,
  updateShareLink,
} from "../core/sites/share-links.ts";
import {
  deleteSiteSpaceCustomization,
  mergeCustomization,
  overrideSiteSpaceCustomization,
  siteCustomization,
  siteSpaceCustomization,
  updateSiteCustomization,
  type Customization,
} from "../core/sites/customization.ts";
import { pageInMemory } from "../core/pagination.ts";
import type { CoreContext } from "../core/context.ts";
import { builder } from "./builder.ts";
import { SearchSpaceConnection, SearchSpaceRef } from "./search.ts";
import { searchSite } from "../core/sites/search.ts";
import { enumName, inputDescription, payloadDescription, toConnection } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

function enumOf<T extends string>(name: string, description: string, values: readonly T[]) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [enumName(value), { value }])) as Record<string, { value: T }>,
  });
}

export const SiteVisibility = enumOf(
  "SiteVisibility",
  "Who can open the published site: PUBLIC anyone (indexed), UNLISTED anyone with the URL (not indexed), SHARE_LINK visitors with a share link's key, VISITOR_AUTH visitors with a valid JWT from the site's own authentication",
  SITE_VISIBILITIES,
);
export const SiteType = enumOf("SiteType", "The plan a site is on (default on creation: BASIC)", SITE_TYPES);
export const SiteAgentsContext = enumOf(
  "SiteAgentsContext",
  "Whether the site's content is included in AI agents' context",
  AGENTS_CONTEXTS,
);

/** The structure of the row's site, read once per request and site. */
async function structureOfRow(core: CoreContext, row: { siteId: string }): Promise<Structure> {
  const site = await siteLoaders(core).site.load(row.siteId);
  if (!site) throw notFound("site", row.siteId);
  return structureOf(core, site);
}

const SitePermissions = builder.simpleObject("SitePermissions", {
  description:
    "What the caller may do with a site: what the permission policy allows them (a member's role on the site, an installation token's integration scopes)",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the site's settings and structure" }),
    access: t.boolean({ description: "Whether the caller has any access to the site" }),
    edit: t.boolean({ description: "Whether the caller may edit the site's structure (site spaces, sections, groups)" }),
    create: t.boolean({ description: "Whether the caller may create sites in the organization" }),
    admin: t.boolean({
      description: "Whether the caller administers the site (settings, publishing, visitor authentication, share links, deletion)",
    }),
    installIntegration: t.boolean({ description: "Whether the caller may install integrations on the site" }),
    viewAdaptiveSchema: t.boolean({ description: "Whether the caller may read the adaptive content schema" }),
    editAdaptiveSchema: t.boolean({ description: "Whether the caller may change the adaptive content schema" }),
  }),
});

const SiteUrls = builder.simpleObject("SiteUrls", {
  description: "Addresses of a site",
  fields: (t) => ({
    location: t.string({ description: "URL of the site in the REST API" }),
    app: t.string({ description: "URL of the site in the app" }),
    preview: t.string({ description: "URL where the site is served, without a share key (it opens only once the site is published)" }),
    published: t.string({ nullable: true, description: "Only when the site is published" }),
  }),
});

const PublishedUrls = builder.simpleObject("SitePublishedUrls", {
  description: "Where a site item is published",
  fields: (t) => ({ published: t.string({ nullable: true, description: "Only when the site is published" }) }),
});

export const SiteRef = builder.loadableNode("Site", {
  description:
    "A site: the published form of one or more spaces, organized in site spaces, sections and section groups, with its own visibility, customization and address",
  id: { resolve: (site: Site) => site.id },
  load: async (ids: string[], { core }) => Promise.all(ids.map(async (id) => (await loadReadableSite(core, id)) ?? notFound("site", id))),
  fields: (t) => ({
    title: t.exposeString("title", { description: "Title of the site (2 to 128 characters)" }),
    type: t.field({ description: "The site's plan", type: SiteType, resolve: (s) => siteTypeOf(s.type) }),
    visibility: t.field({
      description: "Who can open the published site",
      type: SiteVisibility,
      resolve: (s) => siteVisibilityOf(s.visibility),
    }),
    published: t.exposeBoolean("published", { description: "Whether the site is live for the audience set by visibility" }),
    hostname: t.exposeString("hostname", { description: "Custom hostname the site is served on; null when none", nullable: true }),
    basename: t.exposeString("basename", { description: "Path prefix of the site under its hostname; null when none", nullable: true }),
    proxy: t.exposeString("proxy", { nullable: true, description: "Origin the site is proxied from (domain and path)" }),
    adaptiveContent: t.exposeBoolean("adaptiveContent", {
      description: "Whether adaptive content is on: site spaces and sections shown by conditions over visitors' claims",
    }),
    agentsContext: t.field({
      description: "Whether the site's content is included in AI agents' context",
      type: SiteAgentsContext,
      resolve: (s) => agentsContextOf(s.agentsContext),
    }),
    searchSynonyms: t.field({
      description: "Groups of words or phrases the site's search treats as one",
      type: "JSON",
      resolve: (s) => s.searchSynonyms as string[][],
    }),
    createdAt: t.expose("createdAt", { description: "When the site was created", type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { description: "When the site's settings last changed", type: "DateTime" }),
    organization: t.field({ description: "The organization the site belongs to", type: OrganizationRef, resolve: (s) => s.organizationId }),
    siteSpaceCount: t.int({
      description: "Number of site spaces in the site",
      resolve: async (s, _args, { core }) => (await siteLoaders(core).siteSpaces.load(s.id)).length,
    }),
    structureType: t.string({
      description: "sections when the site has sections, else siteSpaces",
      resolve: async (s, _args, { core }) => ((await siteLoaders(core).sections.load(s.id)).length ? "sections" : "siteSpaces"),
    }),
    urls: t.field({
      description: "Addresses of the site",
      type: SiteUrls,
      resolve: (s, _args, { core }) => ({
        location: core.urls.api(`/orgs/${s.organizationId}/sites/${s.id}`),
        app: core.urls.app(`/o/${s.organizationId}/sites/${s.id}`),
        preview: joinUrl(siteBaseUrl(core, s), ""),
        published: s.published ? publishedUrlOf(core, s, "") : null,
      }),
    }),
    permissions: t.field({
      description: "What the caller may do with the site",
      type: SitePermissions,
      // What `authorize` would allow, rule by rule: a member's role on the site (grants included),
      // an installation token's integration scopes (policy.ts `tokenScopes`).
      resolve: async (s, _args, { core }) => {
        const target = { site: s };
        const [view, edit, create, admin, installIntegration, viewAdaptiveSchema, editAdaptiveSchema] = await Promise.all([
          may(core, "site.read", target),
          may(core, "site.editStructure", target),
          core.viewer.installationId ? false : may(core, "site.create", { organizationId: s.organizationId }),
          may(core, "site.configure", target),
          may(core, "integration.installOnSite", target),
          may(core, "site.readAdaptiveSchema", target),
          may(core, "site.updateAdaptiveSchema", target),
        ]);
        return { view, access: view, edit, create, admin, installIntegration, viewAdaptiveSchema, editAdaptiveSchema };
      },
    }),
    customization: t.field({
      type: "JSON",
      description: "The whole customization settings: defaults, then what was set",
      resolve: (s) => siteCustomization(s),
    }),
    adaptiveSchema: t.field({
      description: "The schema of visitors' claims that conditions may use",
      type: builder.simpleObject("SiteAdaptiveSchema", {
        description: "The draft-07 JSON Schema of the visitor claims a site's conditions may use",
        fields: (a) => ({
          jsonSchema: a.field({ description: "The JSON Schema: boolean claims, unsigned claims under `unsigned`", type: "JSON" }),
          updatedAt: a.field({ description: "When the schema last changed", type: "DateTime" }),
        }),
      }),
      resolve: (s, _args, { core }) => readAdaptiveSchema(core, s),
    }),
    templateConditions: t.field({
      type: [
        builder.simpleObject("SiteTemplateCondition", {
          description: "A ready-made condition on one claim of the adaptive schema",
          fields: (c) => ({
            description: c.string({ description: "What the condition checks, for a person" }),
            condition: c.string({ description: "The condition expression, to use as a site space's or section's condition" }),
          }),
        }),
      ],
      description: "Conditions built from the adaptive schema's claims",
      resolve: async (s, _args, { core }) => templateConditions((await readAdaptiveSchema(core, s)).jsonSchema),
    }),
  }),
});

const structureFields = {
  siteSpaceUrl: async (core: CoreContext, row: SiteSpace) => {
    const structure = await structureOfRow(core, row);
    return structure.site.published ? publishedUrlOf(core, structure.site, siteSpacePathOf(structure, row)) : null;
  },
};

export const SiteSpaceRef = builder.loadableNodeRef("SiteSpace", {
  id: { resolve: (row: SiteSpace) => row.id },
  load: async (ids: string[], { core }: { core: CoreContext }) =>
    Promise.all(ids.map(async (id) => (await loadReadableStructureRow(core, "siteSpace", id)) ?? notFound("site space", id))),
});

SiteSpaceRef.implement({
  description: "A site space: one space shown in a site, at a path, possibly one variant among others of a section",
  fields: (t) => ({
    path: t.exposeString("path", { description: "Path of the site space in the site's URLs (1 to 100 characters)" }),
    condition: t.exposeString("condition", {
      description: "Expression over visitors' claims deciding whether a visitor sees it (adaptive content); null: everyone does",
      nullable: true,
    }),
    default: t.exposeBoolean("isDefault", { description: "The default site space of its section (or of the site)" }),
    hidden: t.exposeBoolean("hidden", { description: "true: not listed among the published site's variants" }),
    site: t.field({ description: "The site it belongs to", type: SiteRef, resolve: (row) => row.siteId }),
    section: t.field({
      description: "The section it is a variant of; null in a site without sections",
      type: SiteSectionRef,
      nullable: true,
      resolve: (row) => row.sectionId,
    }),
    space: t.field({ description: "The space it shows", type: SpaceRef, resolve: (row) => row.spaceId }),
    title: t.string({
      description: "The space's title",
      resolve: async (row, _args, { core }) => (await core.loaders.space.load(row.spaceId))?.title ?? "",
    }),
    urls: t.field({
      description: "Where it is published",
      type: PublishedUrls,
      resolve: async (row, _args, { core }) => ({ published: await structureFields.siteSpaceUrl(core, row) }),
    }),
    effectiveCustomization: t.field({
      type: "JSON",
      description: "The site's customization with this site space's overrides (the site's alone when it has none)",
      resolve: async (row, _args, { core }) => siteSpaceCustomization((await structureOfRow(core, row)).site, row),
    }),
    customization: t.field({
      type: "JSON",
      nullable: true,
      description: "The site's customization with this site space's overrides; null when it has none",
      resolve: async (row, _args, { core }) => {
        if (row.customization == null) return null;
        const site = (await structureOfRow(core, row)).site;
        return mergeCustomization(siteCustomization(site), row.customization as Customization);
      },
    }),
  }),
});

export const SiteSectionRef = builder.loadableNodeRef("SiteSection", {
  id: { resolve: (row: SiteSection) => row.id },
  load: async (ids: string[], { core }: { core: CoreContext }) =>
    Promise.all(ids.map(async (id) => (await loadReadableStructureRow(core, "section", id)) ?? notFound("section", id))),
});

SiteSectionRef.implement({
  description: "A section of a site (shown as a tab): one or more site spaces, its variants",
  fields: (t) => ({
    title: t.exposeString("title", { description: "Title of the section (2 to 128 characters)" }),
    description: t.exposeString("description", { description: "Short description of the section; null when none", nullable: true }),
    icon: t.exposeString("icon", { description: "Icon name of the section; null when none", nullable: true }),
    path: t.exposeString("path", { description: "Path of the section in the site's URLs" }),
    condition: t.exposeString("condition", {
      description: "Expression over visitors' claims deciding whether a visitor sees it (adaptive content); null: everyone does",
      nullable: true,
    }),
    default: t.exposeBoolean("isDefault", { description: "Whether this is the site's default section (the one at the site's root URL)" }),
    site: t.field({ description: "The site it belongs to", type: SiteRef, resolve: (row) => row.siteId }),
    sectionGroup: t.field({
      description: "The group it is in; null at the root",
      type: SiteSectionGroupRef,
      nullable: true,
      resolve: (row) => row.sectionGroupId,
    }),
    siteSpaces: t.field({
      type: [SiteSpaceRef],
      description: "The section's site spaces (its variants), in order",
      resolve: async (row, _args, { core }) => siteSpacesIn(await structureOfRow(core, row), row.id),
    }),
    urls: t.field({
      description: "Where it is published",
      type: PublishedUrls,
      resolve: async (row, _args, { core }) => {
        const structure = await structureOfRow(core, row);
        return { published: structure.site.published ? publishedUrlOf(core, structure.site, sectionPathOf(structure, row)) : null };
      },
    }),
  }),
});

export const SiteSectionGroupRef = builder.loadableNodeRef("SiteSectionGroup", {
  id: { resolve: (row: SiteSectionGroup) => row.id },
  load: async (ids: string[], { core }: { core: CoreContext }) =>
    Promise.all(ids.map(async (id) => (await loadReadableStructureRow(core, "sectionGroup", id)) ?? notFound("section group", id))),
});

SiteSectionGroupRef.implement({
  description: "A named group of a site's sections (a dropdown among the tabs)",
  fields: (t) => ({
    title: t.exposeString("title", { description: "Title of the group" }),
    icon: t.exposeString("icon", { description: "Icon name of the group; null when none", nullable: true }),
    site: t.field({ description: "The site it belongs to", type: SiteRef, resolve: (row) => row.siteId }),
    sections: t.field({
      description: "The sections in the group, in order",
      type: [SiteSectionRef],
      resolve: async (row, _args, { core }) => sectionsOfGroup(await structureOfRow(core, row), row.id),
    }),
    externalLinks: t.field({
      description: "The live external links in the group, in order (shown after its sections)",
      type: [SiteExternalLinkRef],
      resolve: async (row, _args, { core }) =>
        sortByKey(await siteLoaders(core).liveExternalLinks.load(row.siteId)).filter((link) => link.sectionGroupId === row.id),
    }),
  }),
});

/** A link of the site's header; its fields are defined with its mutations (site-extras.ts). */
export const SiteExternalLinkRef = builder.objectRef<SiteExternalLink>("SiteExternalLink");

const SiteStructureItem = builder.unionType("SiteStructureItem", {
  description: "An item of a site's structure: a site space, a section, a section group or an external link",
  types: [SiteSpaceRef, SiteSectionRef, SiteSectionGroupRef, SiteExternalLinkRef],
  resolveType: (item: { id: string }) =>
    item.id.startsWith("ssp_")
      ? SiteSpaceRef
      : item.id.startsWith("sxl_")
        ? SiteExternalLinkRef
        : isGroup(item)
          ? SiteSectionGroupRef
          : SiteSectionRef,
});

const SiteStructureObject = builder.simpleObject("SiteStructure", {
  description: "The root of a site's structure, in order",
  fields: (t) => ({
    type: t.string({ description: "sections, or siteSpaces for a site without sections" }),
    items: t.field({
      type: [SiteStructureItem],
      description: "Root items in order: sections and groups, then the live external links outside groups; or site spaces",
    }),
  }),
});

type StructureItem = SiteSection | SiteSectionGroup | SiteSpace | SiteExternalLink;

/**
 * The root of the structure: sections and groups, then the live external links outside groups
 * (where the site's header shows them: after the sections, in their order), or the root site
 * spaces. With `claims`, only the links whose condition holds for them.
 */
async function rootOf(core: CoreContext, structure: Structure, claims?: Record<string, unknown>) {
  if (!structure.sections.length) return { type: "siteSpaces", items: siteSpacesIn(structure, null) as StructureItem[] };
  const links = sortByKey(await siteLoaders(core).liveExternalLinks.load(structure.site.id)).filter(
    (link) => !link.sectionGroupId && (!claims || conditionHolds(link.condition, claims)),
  );
  return { type: "sections", items: [...structure.root, ...links] as StructureItem[] };
}

builder.objectField(SiteRef, "structure", (t) =>
  t.field({
    description: "The site's structure: its sections and groups, or its site spaces when it has no sections",
    type: SiteStructureObject,
    args: { claims: t.arg({ type: "JSON", description: "The visitor's claims the conditions are evaluated on; absent: all items" }) },
    resolve: async (site, { claims }, { core }) => {
      if (claims == null) return rootOf(core, await structureOf(core, site));
      const visitorClaims = claims as Record<string, unknown>;
      return rootOf(core, await readStructure(core, site.organizationId, site.id, visitorClaims), visitorClaims);
    },
  }),
);

const connectionOf = <T extends { id: string }>(items: T[], args: { first?: number | null; after?: string | null }) =>
  toConnection(pageInMemory(items, args, (item) => item.id));

builder.objectFields(SiteRef, (t) => ({
  siteSpaces: t.connection({
    description: "The site's site spaces, in structure order",
    type: SiteSpaceRef,
    args: { default: t.arg.boolean({ description: "true: only default site spaces; false: only the others" }) },
    resolve: async (site, args, { core }) => connectionOf(await readSiteSpaces(core, site.organizationId, site.id, args.default), args),
  }),
  sections: t.connection({
    description: "The site's sections, in structure order",
    type: SiteSectionRef,
    resolve: async (site, args, { core }) => connectionOf(await readSections(core, site.organizationId, site.id), args),
  }),
  sectionGroups: t.connection({
    description: "The site's section groups, in structure order",
    type: SiteSectionGroupRef,
    resolve: async (site, args, { core }) => connectionOf(await readSectionGroups(core, site.organizationId, site.id), args),
  }),
}));

const SiteConnection = builder.connectionObject({ type: SiteRef, name: "SiteConnection" }, { name: "SiteEdge" });

builder.objectField(OrganizationRef, "sites", (t) =>
  t.connection(
    {
      description: "The organization's sites the caller may read",
      type: SiteRef,
      args: {
        space: t.arg.id({ description: "Only sites showing this space" }),
        title: t.arg.string({ description: "Only sites whose title contains this" }),
        published: t.arg.boolean({ description: "Only published (true) or unpublished (false) sites" }),
        type: t.arg({ type: [SiteType], description: "Only sites of one of these types (plans)" }),
      },
      resolve: async (o, args, { core }) => toConnection(await listSites(core, o.id, args, args)),
    },
    SiteConnection,
  ),
);

builder.objectField(SpaceRef, "sites", (t) =>
  t.field({
    type: [SiteRef],
    description: "Sites showing the space (empty for callers who cannot read the organization's sites)",
    resolve: (space, _args, { core }) => sitesOfSpace(core, space),
  }),
);

builder.queryField("site", (t) =>
  t.field({
    description: "A site by id; not found when the caller cannot read it",
    type: SiteRef,
    args: {
      id: t.arg.id({ required: true, description: "The site's id" }),
      organization: t.arg.id({ description: "When given, the site must be one of its" }),
      shareKey: t.arg.string({ description: "The key of an active share link of the site: its published URLs then carry it" }),
    },
    resolve: async (_root, { id, organization, shareKey }, { core }) => {
      const site = await requireSite(core, organization, id, "site.read");
      if (shareKey != null) await presentShareKey(core, site, shareKey);
      return site;
    },
  }),
);

export const SiteShareLinkRef = builder.objectRef<SiteShareLink>("SiteShareLink").implement({
  description: "A secret link opening a share-link site; its key is the shareKey readers present",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the share link" }),
    name: t.exposeString("name", { description: "Name of the link, for its admins (0 to 50 characters)" }),
    active: t.exposeBoolean("active", { description: "false: revoked, it opens nothing" }),
    key: t.exposeString("key", { description: "The secret key: the shareKey that opens the site" }),
    createdAt: t.expose("createdAt", { description: "When the link was created", type: "DateTime" }),
    urls: t.field({
      description: "Addresses opening the site with this link",
      type: builder.simpleObject("SiteShareLinkUrls", {
        description: "Addresses of a share link",
        fields: (u) => ({ published: u.string({ description: "Opens the site with the link's key" }) }),
      }),
      resolve: (link, _args, { core }) => ({ published: shareLinkUrl(core, link) }),
    }),
  }),
});

const SitePublishingAuthRef = builder.simpleObject("SitePublishingAuth", {
  description: "How visitors of a visitor-auth site authenticate: JWTs signed (HS256) with privateKey",
  fields: (t) => ({
    backend: t.string({ description: "custom" }),
    privateKey: t.string({ description: "Signs visitors' JWTs; regenerating it invalidates every token signed before" }),
    fallbackURL: t.string({ nullable: true, description: "Where a visitor without a valid token is sent" }),
    logoutURL: t.string({ description: "Where visitors are sent to log out; null when none", nullable: true }),
  }),
});

builder.objectField(SiteRef, "search", (t) =>
  t.connection(
    {
      type: SearchSpaceRef,
      description:
        "The site's published content matching `query`, as a visitor with `claims` sees it (site spaces whose condition fails are not searched); nothing for an unpublished site",
      args: {
        query: t.arg.string({ required: true }),
        scope: t.arg({
          type: "JSON",
          description:
            "The published API's SiteSearchScope: { mode: default | specific | all, currentSiteSpace, restrictTo, siteSpaceIds }",
        }),
        claims: t.arg({ type: "JSON", description: "The visitor's claims the conditions are evaluated on (default: none)" }),
      },
      resolve: async (site, args, { core }) =>
        toConnection(
          await searchSite(
            core,
            site.organizationId,
            site.id,
            { query: args.query, scope: args.scope, claims: args.claims as Record<string, unknown> | null },
            args,
          ),
        ),
    },
    SearchSpaceConnection,
  ),
);

builder.objectField(SiteRef, "siteSpace", (t) =>
  t.field({
    type: SiteSpaceRef,
    description: "One of the site's site spaces (NOT_FOUND for any other id)",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (site, { id }, { core }) => {
      const row = (await structureOf(core, site)).siteSpaces.find((siteSpace) => siteSpace.id === id);
      if (!row) throw notFound("site space", id);
      return row;
    },
  }),
);

builder.objectField(SiteRef, "publishingAuth", (t) =>
  t.field({
    type: SitePublishingAuthRef,
    description: "Visitor-auth sites only (400 otherwise); admins only",
    resolve: (site, _args, { core }) => readPublishingAuth(core, site.organizationId, site.id),
  }),
);

builder.objectField(SiteRef, "shareLinks", (t) =>
  t.connection({
    type: SiteShareLinkRef,
    description: "The site's share links, oldest first (admins only)",
    args: { search: t.arg.string({ description: "Only links whose name contains this, or whose key is this" }) },
    resolve: async (site, args, { core }) => toConnection(await listShareLinks(core, site.organizationId, site.id, args, args.search)),
  }),
);

// ---------------------------------------------------------------------------------------------
// Mutations. Every input names the site; `organization`, when given, must be the site's.

const SitePayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ site: p.field({ type: SiteRef, description: "The site, as it is now" }) }),
  });
const SiteSpacePayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ siteSpace: p.field({ type: SiteSpaceRef, description: "The site space, as it is now" }) }),
  });
const SectionPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ section: p.field({ type: SiteSectionRef, description: "The section, as it is now" }) }),
  });
const GroupPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ sectionGroup: p.field({ type: SiteSectionGroupRef, description: "The section group, as it is now" }) }),
  });
const DeletedPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ deletedId: p.id({ description: "Id of the deleted item" }) }),
  });

const siteField = "The site";
const organizationField = "When given, the site must be of this organization (not found otherwise)";

const PositionInput = builder.inputType("SiteStructurePositionInput", {
  description: "Where to move an item among its siblings: next to the item with this id (default: last)",
  fields: (f) => ({
    before: f.id({ description: "Id of the sibling to move it before" }),
    after: f.id({ description: "Id of the sibling to move it after" }),
  }),
});

const StructurePointerInput = builder.inputType("SiteStructurePointerInput", {
  description: "One item of a site's structure, by kind and id",
  fields: (f) => ({
    type: f.string({ required: true, description: "site-space, site-section or site-section-group" }),
    id: f.id({ description: "Id of the item", required: true }),
  }),
});

builder.mutationFields((t) => ({
  createSite: t.field({
    description: "Creates a site (unpublished) in an organization, with the given spaces as its site spaces",
    type: SitePayload("CreateSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteInput", {
          description: inputDescription("CreateSiteInput"),
          fields: (f) => ({
            organization: f.id({ description: "The organization to create the site in", required: true }),
            title: f.string({ description: "Title (2 to 128 characters; default: Untitled site)" }),
            visibility: f.field({ description: "Who can open it once published (default: PUBLIC)", type: SiteVisibility }),
            type: f.field({ description: "Its plan (default: BASIC)", type: SiteType }),
            spaces: f.idList({ description: "Spaces to add to the site, in order" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await createSite(core, { ...input, organizationId: input.organization }) }),
  }),
  updateSite: t.field({
    description: "Changes the site's settings; what is left out is unchanged",
    type: SitePayload("UpdateSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteInput", {
          description: inputDescription("UpdateSiteInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            title: f.string({ description: "New title (2 to 128 characters)" }),
            visibility: f.field({ description: "Who can open the published site", type: SiteVisibility }),
            basename: f.string({ description: "null removes it" }),
            hostname: f.string({ description: "Custom hostname, unique across the service; null removes it" }),
            proxy: f.string({ description: "Proxy origin (domain and path); null removes it" }),
            adaptiveContent: f.boolean({ description: "Turns adaptive content on or off" }),
            agentsContext: f.field({ description: "Whether the site's content is in AI agents' context", type: SiteAgentsContext }),
            defaultSiteSpace: f.id({ description: "Id of the site space to make the default (in a site with sections, of its section)" }),
            defaultSiteSection: f.id({ description: "Id of the section to make the default" }),
            searchSynonyms: f.field({
              description:
                'Groups of words or phrases the site\'s search treats as one, e.g. [["login", "sign in"]] (2 to 20 entries a group, at most 500 groups); replaces the groups set before',
              type: "JSON",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, ...patch } }, { core }) => ({
      site: await updateSite(
        core,
        organization,
        site,
        nullMeansUnchanged(patch, [
          "title",
          "visibility",
          "adaptiveContent",
          "agentsContext",
          "defaultSiteSpace",
          "defaultSiteSection",
          "searchSynonyms",
        ]),
      ),
    }),
  }),
  deleteSite: t.field({
    description: "Deletes the site, its structure and its share links (the spaces stay)",
    type: DeletedPayload("DeleteSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteInput", {
          description: inputDescription("DeleteSiteInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSite(core, input.organization, input.site);
      return { deletedId: input.site };
    },
  }),
  publishSite: t.field({
    description: "Makes the site live for the audience its visibility sets",
    type: SitePayload("PublishSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PublishSiteInput", {
          description: inputDescription("PublishSiteInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await setSitePublished(core, input.organization, input.site, true) }),
  }),
  unpublishSite: t.field({
    description: "Takes the site offline: its published URLs open nothing",
    type: SitePayload("UnpublishSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UnpublishSiteInput", {
          description: inputDescription("UnpublishSiteInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await setSitePublished(core, input.organization, input.site, false) }),
  }),
  updateSiteAdaptiveSchema: t.field({
    description: "Replaces the schema of visitors' claims that conditions may use",
    type: SitePayload("UpdateSiteAdaptiveSchemaPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteAdaptiveSchemaInput", {
          description: inputDescription("UpdateSiteAdaptiveSchemaInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            jsonSchema: f.field({
              description: "The new draft-07 JSON Schema of visitors' claims (boolean claims; unsigned ones under `unsigned`)",
              type: "JSON",
              required: true,
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      site: await updateAdaptiveSchema(core, input.organization, input.site, input.jsonSchema),
    }),
  }),

  addSiteSpace: t.field({
    description: "Adds a space to the site as a site space",
    type: SiteSpacePayload("AddSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSpaceInput", {
          description: inputDescription("AddSiteSpaceInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            space: f.id({ description: "The space to show in the site", required: true }),
            section: f.id({ description: "Default: the default section, or the root of a site without sections" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteSpace: await addSiteSpace(core, input.organization, input.site, { spaceId: input.space, sectionId: input.section }),
    }),
  }),
  updateSiteSpace: t.field({
    description: "Changes a site space; what is left out is unchanged",
    type: SiteSpacePayload("UpdateSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSpaceInput", {
          description: inputDescription("UpdateSiteSpaceInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The site space to change", required: true }),
            path: f.string({ description: "New path (1 to 100 characters)" }),
            condition: f.string({ description: "null removes it" }),
            space: f.id({ description: "The space the site space shows" }),
            hidden: f.boolean({ description: "true leaves it out of the published site's variants" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, id, space, ...patch } }, { core }) => ({
      siteSpace: await updateSiteSpace(core, organization, site, id, {
        ...nullMeansUnchanged(patch, ["path", "hidden"]),
        ...(space != null ? { spaceId: space } : {}),
      }),
    }),
  }),
  deleteSiteSpace: t.field({
    description: "Removes a site space from the site; a section left without site spaces is removed too",
    type: DeletedPayload("DeleteSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSpaceInput", {
          description: inputDescription("DeleteSiteSpaceInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The site space to remove (the space itself stays; a section left empty goes too)", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSiteSpace(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  moveSiteSpace: t.field({
    description: "Moves a site space among its siblings",
    type: SiteSpacePayload("MoveSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSpaceInput", {
          description: inputDescription("MoveSiteSpaceInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The site space to move", required: true }),
            position: f.field({ description: "Where to move it among its siblings (default: last)", type: PositionInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteSpace: await moveSiteSpace(core, input.organization, input.site, input.id, input.position),
    }),
  }),

  addSiteSection: t.field({
    description: "Adds a section to the site, with a space as its first site space",
    type: SectionPayload("AddSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSectionInput", {
          description: inputDescription("AddSiteSectionInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            space: f.id({ required: true, description: "The section's first site space" }),
            title: f.string({ description: "Default: the space's title" }),
            icon: f.string({ description: "Icon name of the section" }),
            sectionGroup: f.id({ description: "The group to add the section to (default: the root)" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      section: await addSection(core, input.organization, input.site, {
        spaceId: input.space,
        title: input.title,
        icon: input.icon,
        siteSectionGroupId: input.sectionGroup,
      }),
    }),
  }),
  updateSiteSection: t.field({
    description: "Changes a section; what is left out is unchanged",
    type: SectionPayload("UpdateSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSectionInput", {
          description: inputDescription("UpdateSiteSectionInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The section to change", required: true }),
            title: f.string({ description: "New title (2 to 128 characters)" }),
            path: f.string({ description: "New path of the section in the site's URLs" }),
            defaultSiteSpace: f.id({ description: "Id of the section's site space to make its default" }),
            condition: f.string({ description: "null removes it" }),
            icon: f.string({ description: "null removes it" }),
            description: f.string({ description: "null removes it" }),
            sectionGroup: f.id({ description: "A section group of the site to put the section in (last); null takes it out of its group" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, id, ...patch } }, { core }) => ({
      section: await updateSection(core, organization, site, id, nullMeansUnchanged(patch, ["title", "path", "defaultSiteSpace"])),
    }),
  }),
  deleteSiteSection: t.field({
    description: "Removes a section and its site spaces from the site",
    type: DeletedPayload("DeleteSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSectionInput", {
          description: inputDescription("DeleteSiteSectionInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The section to remove, with its site spaces", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSection(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  moveSiteSection: t.field({
    description: "Moves a section among the root items or into another group",
    type: SectionPayload("MoveSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSectionInput", {
          description: inputDescription("MoveSiteSectionInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The section to move", required: true }),
            position: f.field({
              description: "Next to which section or group (it joins that item's group, or the root); default: last at the root",
              type: PositionInput,
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      section: await moveSection(core, input.organization, input.site, input.id, input.position),
    }),
  }),

  addSiteSectionGroup: t.field({
    description: "Adds a section group, optionally gathering existing sections",
    type: GroupPayload("AddSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSectionGroupInput", {
          description: inputDescription("AddSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            title: f.string({ description: "Title of the group", required: true }),
            icon: f.string({ description: "Icon name of the group" }),
            sections: f.idList({ description: "Sections to put in the group; it stands where the first of them stood" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await addSectionGroup(core, input.organization, input.site, {
        title: input.title,
        icon: input.icon,
        sections: input.sections,
      }),
    }),
  }),
  updateSiteSectionGroup: t.field({
    description: "Changes a section group's title or icon",
    type: GroupPayload("UpdateSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSectionGroupInput", {
          description: inputDescription("UpdateSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The group to change", required: true }),
            title: f.string({ description: "New title" }),
            icon: f.string({ description: "null removes it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, id, ...patch } }, { core }) => ({
      sectionGroup: await updateSectionGroup(core, organization, site, id, nullMeansUnchanged(patch, ["title"])),
    }),
  }),
  deleteSiteSectionGroup: t.field({
    description: "Removes a section group; its sections stay, at the root",
    type: DeletedPayload("DeleteSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSectionGroupInput", {
          description: inputDescription("DeleteSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The group to remove (its sections stay, at the root)", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSectionGroup(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  addSectionToSiteSectionGroup: t.field({
    description: "Puts a section into a section group",
    type: GroupPayload("AddSectionToSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSectionToSiteSectionGroupInput", {
          description: inputDescription("AddSectionToSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The group", required: true }),
            section: f.id({ description: "The section to put in the group", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await addSectionToGroup(core, input.organization, input.site, input.id, input.section),
    }),
  }),
  removeSectionFromSiteSectionGroup: t.field({
    description: "Takes a section out of a section group, back to the root",
    type: GroupPayload("RemoveSectionFromSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveSectionFromSiteSectionGroupInput", {
          description: inputDescription("RemoveSectionFromSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The group", required: true }),
            section: f.id({ description: "The section to take out of the group (it goes back to the root)", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await removeSectionFromGroup(core, input.organization, input.site, input.id, input.section),
    }),
  }),
  moveSiteSectionGroup: t.field({
    description: "Moves a section group among the root items",
    type: GroupPayload("MoveSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSectionGroupInput", {
          description: inputDescription("MoveSiteSectionGroupInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The group to move", required: true }),
            position: f.field({
              description: "Next to which root item (a section outside groups, or a group); default: last",
              type: PositionInput,
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await moveSectionGroup(core, input.organization, input.site, input.id, input.position),
    }),
  }),
  updateSiteCustomization: t.field({
    description: "Replaces the site's customization settings (checked against the published schema)",
    type: SitePayload("UpdateSiteCustomizationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteCustomizationInput", {
          description: inputDescription("UpdateSiteCustomizationInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            customization: f.field({
              type: "JSON",
              required: true,
              description: "The whole settings (SiteCustomizationSettingsInput of the published API)",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      site: await updateSiteCustomization(core, input.organization, input.site, input.customization),
    }),
  }),
  overrideSiteSpaceCustomization: t.field({
    description: "Sets a site space's customization overrides, merged over the site's",
    type: SiteSpacePayload("OverrideSiteSpaceCustomizationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("OverrideSiteSpaceCustomizationInput", {
          description: inputDescription("OverrideSiteSpaceCustomizationInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The site space", required: true }),
            customization: f.field({
              type: "JSON",
              required: true,
              description: "Settings overriding the site's for this site space; null resets one",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteSpace: await overrideSiteSpaceCustomization(core, input.organization, input.site, input.id, input.customization),
    }),
  }),
  deleteSiteSpaceCustomization: t.field({
    description: "Removes a site space's customization overrides: it uses the site's again",
    type: builder.simpleObject("DeleteSiteSpaceCustomizationPayload", {
      description: payloadDescription("DeleteSiteSpaceCustomizationPayload"),
      fields: (p) => ({ existed: p.boolean({ description: "false when it had no override" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSpaceCustomizationInput", {
          description: inputDescription("DeleteSiteSpaceCustomizationInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The site space whose override is removed", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      existed: await deleteSiteSpaceCustomization(core, input.organization, input.site, input.id),
    }),
  }),
  updateSitePublishingAuth: t.field({
    description: "Changes how visitors of a visitor-auth site authenticate (admins)",
    type: builder.simpleObject("UpdateSitePublishingAuthPayload", {
      description: payloadDescription("UpdateSitePublishingAuthPayload"),
      fields: (p) => ({
        publishingAuth: p.field({ description: "The publishing authentication, as it is now", type: SitePublishingAuthRef }),
      }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSitePublishingAuthInput", {
          description: inputDescription("UpdateSitePublishingAuthInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            backend: f.string({ description: "custom" }),
            fallbackURL: f.string({ description: "null removes it; absent leaves it" }),
            logoutURL: f.string({ description: "null removes it; absent leaves it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, ...patch } }, { core }) => ({
      publishingAuth: await updatePublishingAuth(core, organization, site, patch),
    }),
  }),
  regenerateSitePublishingAuth: t.field({
    description: "Replaces the key signing visitors' JWTs: every token signed with the old one stops working",
    type: builder.simpleObject("RegenerateSitePublishingAuthPayload", {
      description: payloadDescription("RegenerateSitePublishingAuthPayload"),
      fields: (p) => ({
        publishingAuth: p.field({ description: "The publishing authentication, with its new key", type: SitePublishingAuthRef }),
      }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RegenerateSitePublishingAuthInput", {
          description: inputDescription("RegenerateSitePublishingAuthInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      publishingAuth: await regeneratePublishingAuth(core, input.organization, input.site),
    }),
  }),
  createSiteShareLink: t.field({
    description: "Creates a share link opening the site (admins)",
    type: builder.simpleObject("CreateSiteShareLinkPayload", {
      description: payloadDescription("CreateSiteShareLinkPayload"),
      fields: (p) => ({ shareLink: p.field({ description: "The new share link", type: SiteShareLinkRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteShareLinkInput", {
          description: inputDescription("CreateSiteShareLinkInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            name: f.string({ required: true, description: "0 to 50 characters" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      shareLink: await createShareLink(core, input.organization, input.site, { name: input.name }),
    }),
  }),
  updateSiteShareLink: t.field({
    description: "Renames, revokes or reactivates a share link",
    type: builder.simpleObject("UpdateSiteShareLinkPayload", {
      description: payloadDescription("UpdateSiteShareLinkPayload"),
      fields: (p) => ({ shareLink: p.field({ description: "The share link, as it is now", type: SiteShareLinkRef }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteShareLinkInput", {
          description: inputDescription("UpdateSiteShareLinkInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The share link to change", required: true }),
            name: f.string({ description: "New name (0 to 50 characters)" }),
            active: f.boolean({ description: "false revokes the link" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      shareLink: await updateShareLink(core, input.organization, input.site, input.id, { name: input.name, active: input.active }),
    }),
  }),
  deleteSiteShareLink: t.field({
    description: "Deletes a share link; it opens nothing anymore",
    type: builder.simpleObject("DeleteSiteShareLinkPayload", {
      description: payloadDescription("DeleteSiteShareLinkPayload"),
      fields: (p) => ({
        deletedId: p.id({ description: "Id of the deleted share link" }),
        existed: p.boolean({ description: "false when there was no such link" }),
      }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteShareLinkInput", {
          description: inputDescription("DeleteSiteShareLinkInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            id: f.id({ description: "The share link to delete", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      deletedId: input.id,
      existed: await deleteShareLink(core, input.organization, input.site, input.id),
    }),
  }),
  sortSiteStructure: t.field({
    description: "Moves any item of the site's structure (site space, section or group) before or after another",
    type: builder.simpleObject("SortSiteStructurePayload", {
      description: payloadDescription("SortSiteStructurePayload"),
      fields: (p) => ({ item: p.field({ description: "The moved item, as it is now", type: SiteStructureItem }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SortSiteStructureInput", {
          description: inputDescription("SortSiteStructureInput"),
          fields: (f) => ({
            site: f.id({ description: siteField, required: true }),
            organization: f.id({ description: organizationField }),
            item: f.field({ description: "The item to move", type: StructurePointerInput, required: true }),
            before: f.field({ description: "The item to move it before", type: StructurePointerInput }),
            after: f.field({ description: "The item to move it after", type: StructurePointerInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      item: await sortStructure(core, input.organization, input.site, input.item, { before: input.before, after: input.after }),
    }),
  }),
}));
