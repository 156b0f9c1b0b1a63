// Sites: types, queries and mutations (site spaces, sections, section groups, publishing).
import { agentsContextOf, siteTypeOf, siteVisibilityOf } from "../core/storage-types.ts";
import type { Site, SiteSection, SiteSectionGroup, SiteShareLink, SiteSpace } from "../generated/prisma/client.ts";
import { atLeast } from "../auth/roles.ts";
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
import { adaptiveSchemaOf, templateConditions, updateAdaptiveSchema } from "../core/sites/adaptive.ts";
import { siteLoaders } from "../core/sites/loaders.ts";
import { readPublishingAuth, regeneratePublishingAuth, updatePublishingAuth } from "../core/sites/publishing-auth.ts";
import { createShareLink, deleteShareLink, listShareLinks, presentShareKey, publishedUrlOf, shareLinkUrl, updateShareLink } from "../core/sites/share-links.ts";
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
import { enumName, toConnection } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

function enumOf<T extends string>(name: string, values: readonly T[]) {
  return builder.enumType(name, {
    values: Object.fromEntries(values.map((value) => [enumName(value), { value }])) as Record<string, { value: T }>,
  });
}

export const SiteVisibility = enumOf("SiteVisibility", SITE_VISIBILITIES);
export const SiteType = enumOf("SiteType", SITE_TYPES);
export const SiteAgentsContext = enumOf("SiteAgentsContext", AGENTS_CONTEXTS);

/** The structure of the row's site, read once per request and site. */
async function structureOfRow(core: CoreContext, row: { siteId: string }): Promise<Structure> {
  const site = await siteLoaders(core).site.load(row.siteId);
  if (!site) throw notFound("site", row.siteId);
  return structureOf(core, site);
}

const SitePermissions = builder.simpleObject("SitePermissions", {
  fields: (t) => ({
    view: t.boolean(),
    access: t.boolean(),
    edit: t.boolean(),
    create: t.boolean(),
    admin: t.boolean(),
    installIntegration: t.boolean(),
    viewAdaptiveSchema: t.boolean(),
    editAdaptiveSchema: t.boolean(),
  }),
});

const SiteUrls = builder.simpleObject("SiteUrls", {
  fields: (t) => ({
    location: t.string(),
    app: t.string(),
    preview: t.string(),
    published: t.string({ nullable: true, description: "Only when the site is published" }),
  }),
});

const PublishedUrls = builder.simpleObject("SitePublishedUrls", {
  fields: (t) => ({ published: t.string({ nullable: true, description: "Only when the site is published" }) }),
});

export const SiteRef = builder.loadableNode("Site", {
  id: { resolve: (site: Site) => site.id },
  load: async (ids: string[], { core }) => Promise.all(ids.map(async (id) => (await loadReadableSite(core, id)) ?? notFound("site", id))),
  fields: (t) => ({
    title: t.exposeString("title"),
    type: t.field({ type: SiteType, resolve: (s) => siteTypeOf(s.type) }),
    visibility: t.field({ type: SiteVisibility, resolve: (s) => siteVisibilityOf(s.visibility) }),
    published: t.exposeBoolean("published"),
    hostname: t.exposeString("hostname", { nullable: true }),
    basename: t.exposeString("basename", { nullable: true }),
    proxy: t.exposeString("proxy", { nullable: true, description: "Origin the site is proxied from (domain and path)" }),
    adaptiveContent: t.exposeBoolean("adaptiveContent"),
    agentsContext: t.field({ type: SiteAgentsContext, resolve: (s) => agentsContextOf(s.agentsContext) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    organization: t.field({ type: OrganizationRef, resolve: (s) => s.organizationId }),
    siteSpaceCount: t.int({ resolve: async (s, _args, { core }) => (await siteLoaders(core).siteSpaces.load(s.id)).length }),
    structureType: t.string({
      description: "sections when the site has sections, else siteSpaces",
      resolve: async (s, _args, { core }) => ((await siteLoaders(core).sections.load(s.id)).length ? "sections" : "siteSpaces"),
    }),
    urls: t.field({
      type: SiteUrls,
      resolve: (s, _args, { core }) => ({
        location: core.urls.api(`/orgs/${s.organizationId}/sites/${s.id}`),
        app: core.urls.app(`/o/${s.organizationId}/sites/${s.id}`),
        preview: joinUrl(siteBaseUrl(core, s), ""),
        published: s.published ? publishedUrlOf(core, s, "") : null,
      }),
    }),
    permissions: t.field({
      type: SitePermissions,
      resolve: async (s, _args, { core }) => {
        const role = await core.access.organizationRole(s.organizationId);
        return {
          view: atLeast(role, "read"),
          access: atLeast(role, "read"),
          edit: atLeast(role, "edit"),
          create: atLeast(role, "create"),
          admin: atLeast(role, "admin"),
          installIntegration: atLeast(role, "admin"),
          viewAdaptiveSchema: atLeast(role, "read"),
          editAdaptiveSchema: atLeast(role, "admin"),
        };
      },
    }),
    customization: t.field({
      type: "JSON",
      description: "The whole customization settings: defaults, then what was set",
      resolve: (s) => siteCustomization(s),
    }),
    adaptiveSchema: t.field({
      type: builder.simpleObject("SiteAdaptiveSchema", {
        fields: (a) => ({ jsonSchema: a.field({ type: "JSON" }), updatedAt: a.field({ type: "DateTime" }) }),
      }),
      resolve: (s) => adaptiveSchemaOf(s),
    }),
    templateConditions: t.field({
      type: [builder.simpleObject("SiteTemplateCondition", { fields: (c) => ({ description: c.string(), condition: c.string() }) })],
      description: "Conditions built from the adaptive schema's claims",
      resolve: (s) => templateConditions(adaptiveSchemaOf(s).jsonSchema),
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
  fields: (t) => ({
    path: t.exposeString("path"),
    condition: t.exposeString("condition", { nullable: true }),
    default: t.exposeBoolean("isDefault", { description: "The default site space of its section (or of the site)" }),
    hidden: t.exposeBoolean("hidden"),
    site: t.field({ type: SiteRef, resolve: (row) => row.siteId }),
    section: t.field({ type: SiteSectionRef, nullable: true, resolve: (row) => row.sectionId }),
    space: t.field({ type: SpaceRef, resolve: (row) => row.spaceId }),
    title: t.string({
      description: "The space's title",
      resolve: async (row, _args, { core }) => (await core.loaders.space.load(row.spaceId))?.title ?? "",
    }),
    urls: t.field({ type: PublishedUrls, resolve: async (row, _args, { core }) => ({ published: await structureFields.siteSpaceUrl(core, row) }) }),
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
  fields: (t) => ({
    title: t.exposeString("title"),
    description: t.exposeString("description", { nullable: true }),
    icon: t.exposeString("icon", { nullable: true }),
    path: t.exposeString("path"),
    condition: t.exposeString("condition", { nullable: true }),
    default: t.exposeBoolean("isDefault"),
    site: t.field({ type: SiteRef, resolve: (row) => row.siteId }),
    sectionGroup: t.field({ type: SiteSectionGroupRef, nullable: true, resolve: (row) => row.sectionGroupId }),
    siteSpaces: t.field({
      type: [SiteSpaceRef],
      description: "The section's site spaces (its variants), in order",
      resolve: async (row, _args, { core }) => siteSpacesIn(await structureOfRow(core, row), row.id),
    }),
    urls: t.field({
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
  fields: (t) => ({
    title: t.exposeString("title"),
    icon: t.exposeString("icon", { nullable: true }),
    site: t.field({ type: SiteRef, resolve: (row) => row.siteId }),
    sections: t.field({
      type: [SiteSectionRef],
      resolve: async (row, _args, { core }) => sectionsOfGroup(await structureOfRow(core, row), row.id),
    }),
  }),
});

const SiteStructureItem = builder.unionType("SiteStructureItem", {
  types: [SiteSpaceRef, SiteSectionRef, SiteSectionGroupRef],
  resolveType: (item: { id: string }) => (item.id.startsWith("ssp_") ? SiteSpaceRef : isGroup(item) ? SiteSectionGroupRef : SiteSectionRef),
});

const SiteStructureObject = builder.simpleObject("SiteStructure", {
  fields: (t) => ({
    type: t.string({ description: "sections, or siteSpaces for a site without sections" }),
    items: t.field({ type: [SiteStructureItem], description: "Root items in order: sections and groups, or site spaces" }),
  }),
});

/** The root of the structure a visitor sees: sections and groups, or the root site spaces. */
function rootOf(structure: Structure) {
  return structure.sections.length
    ? { type: "sections", items: structure.root as (SiteSection | SiteSectionGroup | SiteSpace)[] }
    : { type: "siteSpaces", items: siteSpacesIn(structure, null) as (SiteSection | SiteSectionGroup | SiteSpace)[] };
}

builder.objectField(SiteRef, "structure", (t) =>
  t.field({
    type: SiteStructureObject,
    args: { claims: t.arg({ type: "JSON", description: "The visitor's claims the conditions are evaluated on; absent: all items" }) },
    resolve: async (site, { claims }, { core }) => {
      if (claims == null) return rootOf(await structureOf(core, site));
      return rootOf(await readStructure(core, site.organizationId, site.id, claims as Record<string, unknown>));
    },
  }),
);

const connectionOf = <T extends { id: string }>(items: T[], args: { first?: number | null; after?: string | null }) =>
  toConnection(pageInMemory(items, args, (item) => item.id));

builder.objectFields(SiteRef, (t) => ({
  siteSpaces: t.connection({
    type: SiteSpaceRef,
    args: { default: t.arg.boolean({ description: "true: only default site spaces; false: only the others" }) },
    resolve: async (site, args, { core }) => connectionOf(await readSiteSpaces(core, site.organizationId, site.id, args.default), args),
  }),
  sections: t.connection({
    type: SiteSectionRef,
    resolve: async (site, args, { core }) => connectionOf(await readSections(core, site.organizationId, site.id), args),
  }),
  sectionGroups: t.connection({
    type: SiteSectionGroupRef,
    resolve: async (site, args, { core }) => connectionOf(await readSectionGroups(core, site.organizationId, site.id), args),
  }),
}));

const SiteConnection = builder.connectionObject({ type: SiteRef, name: "SiteConnection" }, { name: "SiteEdge" });

builder.objectField(OrganizationRef, "sites", (t) =>
  t.connection({
    type: SiteRef,
    args: {
      space: t.arg.id({ description: "Only sites showing this space" }),
      title: t.arg.string({ description: "Only sites whose title contains this" }),
      published: t.arg.boolean(),
    },
    resolve: async (o, args, { core }) => toConnection(await listSites(core, o.id, args, args)),
  }, SiteConnection),
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
    type: SiteRef,
    args: {
      id: t.arg.id({ required: true }),
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
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    active: t.exposeBoolean("active", { description: "false: revoked, it opens nothing" }),
    key: t.exposeString("key"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    urls: t.field({
      type: builder.simpleObject("SiteShareLinkUrls", { fields: (u) => ({ published: u.string({ description: "Opens the site with the link's key" }) }) }),
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
    logoutURL: t.string({ nullable: true }),
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
        scope: t.arg({ type: "JSON", description: "The published API's SiteSearchScope: { mode: default | specific | all, currentSiteSpace, restrictTo, siteSpaceIds }" }),
        claims: t.arg({ type: "JSON", description: "The visitor's claims the conditions are evaluated on (default: none)" }),
      },
      resolve: async (site, args, { core }) =>
        toConnection(await searchSite(core, site.organizationId, site.id, { query: args.query, scope: args.scope, claims: args.claims as Record<string, unknown> | null }, args)),
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

const SitePayload = (name: string) => builder.simpleObject(name, { fields: (p) => ({ site: p.field({ type: SiteRef }) }) });
const SiteSpacePayload = (name: string) => builder.simpleObject(name, { fields: (p) => ({ siteSpace: p.field({ type: SiteSpaceRef }) }) });
const SectionPayload = (name: string) => builder.simpleObject(name, { fields: (p) => ({ section: p.field({ type: SiteSectionRef }) }) });
const GroupPayload = (name: string) => builder.simpleObject(name, { fields: (p) => ({ sectionGroup: p.field({ type: SiteSectionGroupRef }) }) });
const DeletedPayload = (name: string) => builder.simpleObject(name, { fields: (p) => ({ deletedId: p.id() }) });

const PositionInput = builder.inputType("SiteStructurePositionInput", {
  description: "Where to move an item among its siblings: next to the item with this id (default: last)",
  fields: (f) => ({ before: f.id(), after: f.id() }),
});

const StructurePointerInput = builder.inputType("SiteStructurePointerInput", {
  fields: (f) => ({ type: f.string({ required: true, description: "site-space, site-section or site-section-group" }), id: f.id({ required: true }) }),
});


builder.mutationFields((t) => ({
  createSite: t.field({
    type: SitePayload("CreateSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteInput", {
          fields: (f) => ({
            organization: f.id({ required: true }),
            title: f.string(),
            visibility: f.field({ type: SiteVisibility }),
            type: f.field({ type: SiteType }),
            spaces: f.idList({ description: "Spaces to add to the site, in order" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await createSite(core, { ...input, organizationId: input.organization }) }),
  }),
  updateSite: t.field({
    type: SitePayload("UpdateSitePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            title: f.string(),
            visibility: f.field({ type: SiteVisibility }),
            basename: f.string({ description: "null removes it" }),
            hostname: f.string({ description: "Custom hostname, unique across the service; null removes it" }),
            proxy: f.string({ description: "Proxy origin (domain and path); null removes it" }),
            adaptiveContent: f.boolean(),
            agentsContext: f.field({ type: SiteAgentsContext }),
            defaultSiteSpace: f.id(),
            defaultSiteSection: f.id(),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, ...patch } }, { core }) => ({
      site: await updateSite(core, organization, site, nullMeansUnchanged(patch, ["title", "visibility", "adaptiveContent", "agentsContext", "defaultSiteSpace", "defaultSiteSection"])),
    }),
  }),
  deleteSite: t.field({
    type: DeletedPayload("DeleteSitePayload"),
    args: { input: t.arg({ required: true, type: builder.inputType("DeleteSiteInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id() }) }) }) },
    resolve: async (_root, { input }, { core }) => {
      await deleteSite(core, input.organization, input.site);
      return { deletedId: input.site };
    },
  }),
  publishSite: t.field({
    type: SitePayload("PublishSitePayload"),
    args: { input: t.arg({ required: true, type: builder.inputType("PublishSiteInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id() }) }) }) },
    resolve: async (_root, { input }, { core }) => ({ site: await setSitePublished(core, input.organization, input.site, true) }),
  }),
  unpublishSite: t.field({
    type: SitePayload("UnpublishSitePayload"),
    args: { input: t.arg({ required: true, type: builder.inputType("UnpublishSiteInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id() }) }) }) },
    resolve: async (_root, { input }, { core }) => ({ site: await setSitePublished(core, input.organization, input.site, false) }),
  }),
  updateSiteAdaptiveSchema: t.field({
    type: SitePayload("UpdateSiteAdaptiveSchemaPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteAdaptiveSchemaInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), jsonSchema: f.field({ type: "JSON", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await updateAdaptiveSchema(core, input.organization, input.site, input.jsonSchema) }),
  }),

  addSiteSpace: t.field({
    type: SiteSpacePayload("AddSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSpaceInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            space: f.id({ required: true }),
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
    type: SiteSpacePayload("UpdateSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSpaceInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            id: f.id({ required: true }),
            path: f.string(),
            condition: f.string({ description: "null removes it" }),
            space: f.id({ description: "The space the site space shows" }),
            hidden: f.boolean(),
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
    type: DeletedPayload("DeleteSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSpaceInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSiteSpace(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  moveSiteSpace: t.field({
    type: SiteSpacePayload("MoveSiteSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSpaceInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), position: f.field({ type: PositionInput }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ siteSpace: await moveSiteSpace(core, input.organization, input.site, input.id, input.position) }),
  }),

  addSiteSection: t.field({
    type: SectionPayload("AddSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSectionInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            space: f.id({ required: true, description: "The section's first site space" }),
            title: f.string({ description: "Default: the space's title" }),
            icon: f.string(),
            sectionGroup: f.id(),
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
    type: SectionPayload("UpdateSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSectionInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            id: f.id({ required: true }),
            title: f.string(),
            path: f.string(),
            defaultSiteSpace: f.id(),
            condition: f.string({ description: "null removes it" }),
            icon: f.string({ description: "null removes it" }),
            description: f.string({ description: "null removes it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, id, ...patch } }, { core }) => ({
      section: await updateSection(core, organization, site, id, nullMeansUnchanged(patch, ["title", "path", "defaultSiteSpace"])),
    }),
  }),
  deleteSiteSection: t.field({
    type: DeletedPayload("DeleteSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSectionInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSection(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  moveSiteSection: t.field({
    type: SectionPayload("MoveSiteSectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSectionInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), position: f.field({ type: PositionInput }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ section: await moveSection(core, input.organization, input.site, input.id, input.position) }),
  }),

  addSiteSectionGroup: t.field({
    type: GroupPayload("AddSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSiteSectionGroupInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), title: f.string({ required: true }), icon: f.string(), sections: f.idList() }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await addSectionGroup(core, input.organization, input.site, { title: input.title, icon: input.icon, sections: input.sections }),
    }),
  }),
  updateSiteSectionGroup: t.field({
    type: GroupPayload("UpdateSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteSectionGroupInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), title: f.string(), icon: f.string({ description: "null removes it" }) }),
        }),
      }),
    },
    resolve: async (_root, { input: { site, organization, id, ...patch } }, { core }) => ({
      sectionGroup: await updateSectionGroup(core, organization, site, id, nullMeansUnchanged(patch, ["title"])),
    }),
  }),
  deleteSiteSectionGroup: t.field({
    type: DeletedPayload("DeleteSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSectionGroupInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteSectionGroup(core, input.organization, input.site, input.id);
      return { deletedId: input.id };
    },
  }),
  addSectionToSiteSectionGroup: t.field({
    type: GroupPayload("AddSectionToSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("AddSectionToSiteSectionGroupInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), section: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await addSectionToGroup(core, input.organization, input.site, input.id, input.section),
    }),
  }),
  removeSectionFromSiteSectionGroup: t.field({
    type: GroupPayload("RemoveSectionFromSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveSectionFromSiteSectionGroupInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), section: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await removeSectionFromGroup(core, input.organization, input.site, input.id, input.section),
    }),
  }),
  moveSiteSectionGroup: t.field({
    type: GroupPayload("MoveSiteSectionGroupPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSiteSectionGroupInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }), position: f.field({ type: PositionInput }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      sectionGroup: await moveSectionGroup(core, input.organization, input.site, input.id, input.position),
    }),
  }),
  updateSiteCustomization: t.field({
    type: SitePayload("UpdateSiteCustomizationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteCustomizationInput", {
          fields: (f) => ({
            site: f.id({ required: true }),
            organization: f.id(),
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
    type: SiteSpacePayload("OverrideSiteSpaceCustomizationPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("OverrideSiteSpaceCustomizationInput", {
          fields: (f) => ({
            site: f.id({ required: true }),
            organization: f.id(),
            id: f.id({ required: true }),
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
    type: builder.simpleObject("DeleteSiteSpaceCustomizationPayload", {
      fields: (p) => ({ existed: p.boolean({ description: "false when it had no override" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteSpaceCustomizationInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      existed: await deleteSiteSpaceCustomization(core, input.organization, input.site, input.id),
    }),
  }),
  updateSitePublishingAuth: t.field({
    type: builder.simpleObject("UpdateSitePublishingAuthPayload", { fields: (p) => ({ publishingAuth: p.field({ type: SitePublishingAuthRef }) }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSitePublishingAuthInput", {
          fields: (f) => ({
            site: f.id({ required: true }),
            organization: f.id(),
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
    type: builder.simpleObject("RegenerateSitePublishingAuthPayload", { fields: (p) => ({ publishingAuth: p.field({ type: SitePublishingAuthRef }) }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RegenerateSitePublishingAuthInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id() }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ publishingAuth: await regeneratePublishingAuth(core, input.organization, input.site) }),
  }),
  createSiteShareLink: t.field({
    type: builder.simpleObject("CreateSiteShareLinkPayload", { fields: (p) => ({ shareLink: p.field({ type: SiteShareLinkRef }) }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteShareLinkInput", {
          fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), name: f.string({ required: true, description: "0 to 50 characters" }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ shareLink: await createShareLink(core, input.organization, input.site, { name: input.name }) }),
  }),
  updateSiteShareLink: t.field({
    type: builder.simpleObject("UpdateSiteShareLinkPayload", { fields: (p) => ({ shareLink: p.field({ type: SiteShareLinkRef }) }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteShareLinkInput", {
          fields: (f) => ({
            site: f.id({ required: true }),
            organization: f.id(),
            id: f.id({ required: true }),
            name: f.string(),
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
    type: builder.simpleObject("DeleteSiteShareLinkPayload", {
      fields: (p) => ({ deletedId: p.id(), existed: p.boolean({ description: "false when there was no such link" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteShareLinkInput", { fields: (f) => ({ site: f.id({ required: true }), organization: f.id(), id: f.id({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ deletedId: input.id, existed: await deleteShareLink(core, input.organization, input.site, input.id) }),
  }),
  sortSiteStructure: t.field({
    type: builder.simpleObject("SortSiteStructurePayload", { fields: (p) => ({ item: p.field({ type: SiteStructureItem }) }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SortSiteStructureInput", {
          fields: (f) => ({
            site: f.id({ required: true }), organization: f.id(),
            item: f.field({ type: StructurePointerInput, required: true }),
            before: f.field({ type: StructurePointerInput }),
            after: f.field({ type: StructurePointerInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      item: await sortStructure(core, input.organization, input.site, input.item, { before: input.before, after: input.after }),
    }),
  }),
}));


