// /v1/orgs/{organizationId}/sites routes: sites, site spaces, sections and section groups.
import { AGENTS_CONTEXTS, SITE_TYPES, SITE_VISIBILITIES } from "../../src/core/sites/index.ts";
import { graphql, type FragmentOf } from "../graphql.ts";
import {
  compact,
  graphqlEnum,
  ListInfo,
  listBody,
  pageVariables,
  present,
  RestInputError,
  restEnum,
  type RestRequest,
  type RestRoute,
  stringOf,
  typedRoute,
} from "../route.ts";
import { restSearchPage, SearchPageFields } from "./search.ts";
import { restSpace, SpaceFields } from "./spaces.ts";

export const SiteFields = graphql(`
  fragment SiteFields on Site {
    id title type visibility published hostname basename proxy adaptiveContent agentsContext createdAt
    siteSpaceCount ads
    urls { location app preview published }
    permissions { view access edit create admin installIntegration viewAdaptiveSchema editAdaptiveSchema }
  }`);

export const SiteSpaceFields = graphql(
  `
  fragment SiteSpaceFields on SiteSpace {
    id path condition default hidden title
    section { id }
    space { ...SpaceFields }
    urls { published }
  }`,
  [SpaceFields],
);

const SectionFields = graphql(
  `
  fragment SectionFields on SiteSection {
    id title description icon path condition default
    sectionGroup { id }
    siteSpaces { ...SiteSpaceFields }
    urls { published }
  }`,
  [SiteSpaceFields],
);

export const ExternalLinkFields = graphql(`
  fragment ExternalLinkFields on SiteExternalLink {
    id
    title
    localizedTitle
    description
    localizedDescription
    icon
    url
    # aliased: in the structure union it stands beside SiteSection.sectionGroup, an object
    groupId: sectionGroup
    draft
    condition
  }
`);

export const restExternalLink = (link: FragmentOf<typeof ExternalLinkFields>) => ({
  object: "site-external-link",
  id: link.id,
  title: link.title,
  ...compact({
    localizedTitle: link.localizedTitle,
    description: link.description,
    localizedDescription: link.localizedDescription,
    icon: link.icon,
  }),
  url: link.url,
  ...compact({ sectionGroup: link.groupId }),
  draft: link.draft,
  ...compact({ condition: link.condition }),
});

const GroupFields = graphql(
  `
  fragment GroupFields on SiteSectionGroup {
    id title icon
    sections { ...SectionFields }
    externalLinks { ...ExternalLinkFields }
  }`,
  [SectionFields, ExternalLinkFields],
);

/** Every structure item, told apart by `__typename`. */
const ItemFields = graphql(
  `
  fragment ItemFields on SiteStructureItem {
    __typename
    ... on SiteSpace { ...SiteSpaceFields }
    ... on SiteSection { ...SectionFields }
    ... on SiteSectionGroup { ...GroupFields }
    ... on SiteExternalLink { ...ExternalLinkFields }
  }`,
  [SiteSpaceFields, SectionFields, GroupFields, ExternalLinkFields],
);

export function restSite(s: FragmentOf<typeof SiteFields>) {
  return {
    object: "site",
    id: s.id,
    type: restEnum(s.type),
    appliedType: restEnum(s.type),
    title: s.title,
    visibility: restEnum(s.visibility),
    // Sites have no access levels of their own here: the organization's roles apply.
    defaultLevel: "inherit",
    permissions: s.permissions,
    published: s.published,
    siteSpaces: s.siteSpaceCount,
    createdAt: s.createdAt,
    ...compact({ hostname: s.hostname, basename: s.basename }),
    ...(s.proxy ? { proxy: { origin: s.proxy, target: s.urls.preview } } : {}),
    adaptiveContent: { enabled: s.adaptiveContent },
    ads: s.ads,
    agentsContext: restEnum(s.agentsContext),
    features: [],
    urls: compact(s.urls),
  };
}

export function restSiteSpace(s: FragmentOf<typeof SiteSpaceFields>) {
  return {
    object: "site-space",
    id: s.id,
    path: s.path,
    ...compact({ section: s.section?.id, condition: s.condition }),
    space: restSpace(s.space),
    title: s.title,
    default: s.default,
    draft: false,
    hidden: s.hidden,
    urls: compact(s.urls),
  };
}

export function restSection(s: FragmentOf<typeof SectionFields>) {
  return {
    object: "site-section",
    id: s.id,
    title: s.title,
    ...compact({ description: s.description, icon: s.icon, condition: s.condition, sectionGroup: s.sectionGroup?.id }),
    default: s.default,
    draft: false,
    path: s.path,
    siteSpaces: s.siteSpaces.map(restSiteSpace),
    urls: compact(s.urls),
  };
}

export function restGroup(g: FragmentOf<typeof GroupFields>) {
  const sections = g.sections.map(restSection);
  return {
    object: "site-section-group",
    id: g.id,
    title: g.title,
    ...compact({ icon: g.icon }),
    draft: false,
    sections,
    // The published children: the group's sections, then its external links.
    children: [...sections, ...g.externalLinks.map(restExternalLink)],
  };
}

export function restItem(item: FragmentOf<typeof ItemFields>) {
  switch (item.__typename) {
    case "SiteSpace":
      return restSiteSpace(item);
    case "SiteSection":
      return restSection(item);
    case "SiteExternalLink":
      return restExternalLink(item);
    default:
      return restGroup(item);
  }
}

export const restStructure = (structure: { type: string; items: FragmentOf<typeof ItemFields>[] }) => ({
  type: structure.type,
  structure: structure.items.map(restItem),
});

const prefix = "/v1/orgs/:organizationId/sites/:siteId";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

/** A REST position (`{ before: { type, <field>: id } }`) → the ids GraphQL takes. */
function positionInput(position: unknown, field: string) {
  if (position == null) return null;
  if (typeof position !== "object") throw new RestInputError("position must be an object with before or after");
  const id = (pointer: unknown) => {
    if (pointer == null) return null;
    const { [field]: named, id: plain } = pointer as Record<string, unknown>;
    const value = named ?? plain;
    if (typeof value !== "string") throw new RestInputError(`position: a pointer needs its ${field}`);
    return value;
  };
  const { before, after } = position as Record<string, unknown>;
  return { before: id(before), after: id(after) };
}

function pointerInput(pointer: unknown, field: string) {
  if (pointer == null) return null;
  const { type, id } = (pointer ?? {}) as Record<string, unknown>;
  if (typeof type !== "string" || typeof id !== "string") throw new RestInputError(`${field} must be { type, id }`);
  return { type, id };
}

/** The site of a read route, with the share key it was given (its published URLs then carry it). */
const siteRead = ({ params, query }: RestRequest) => ({ ...site(params), shareKey: query.shareKey });

const ShareLinkFields = graphql(`
  fragment ShareLinkFields on SiteShareLink { id name active createdAt urls { published } }`);

const PublishingAuthFields = graphql(`
  fragment PublishingAuthFields on SitePublishingAuth { backend privateKey fallbackURL logoutURL }`);

export const restPublishingAuth = (auth: FragmentOf<typeof PublishingAuthFields>) => ({
  object: "publishing-auth",
  backend: auth.backend,
  privateKey: auth.privateKey,
  ...compact({ fallbackURL: auth.fallbackURL, logoutURL: auth.logoutURL }),
});

export const restShareLink = (link: FragmentOf<typeof ShareLinkFields>) => ({
  object: "share-link",
  id: link.id,
  createdAt: link.createdAt,
  name: link.name,
  active: link.active,
  urls: link.urls,
});

export const siteRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/sites",
    action: "site.list",
    query: { page: "string", limit: "limit", space: "string", title: "string", published: "boolean", type: "string[]" },
    document: graphql(
      `query ListSites($id: ID!, $first: Int, $after: String, $space: ID, $title: String, $published: Boolean, $type: [SiteType!]) {
        organization(id: $id) {
          sites(first: $first, after: $after, space: $space, title: $title, published: $published, type: $type) {
            totalCount pageInfo { ...ListInfo } nodes { ...SiteFields }
          }
        }
      }`,
      [SiteFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      ...pageVariables(query),
      space: query.space,
      title: query.title,
      published: query.published,
      type: (query.type as string[] | undefined)?.map((type) => graphqlEnum("type", type, SITE_TYPES)),
    }),
    status: 200,
    body: (data) => listBody(data.organization.sites, restSite),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/sites",
    action: "site.create",
    document: graphql(`mutation CreateSite($input: CreateSiteInput!) { createSite(input: $input) { site { ...SiteFields } } }`, [
      SiteFields,
    ]),
    variables: ({ params, body }) => ({
      input: {
        organization: params.organizationId,
        ...present(body, ["title", "spaces"]),
        ...("visibility" in body ? { visibility: graphqlEnum("visibility", body.visibility, SITE_VISIBILITIES) } : {}),
        ...("type" in body ? { type: graphqlEnum("type", body.type, SITE_TYPES) } : {}),
      },
    }),
    status: 201,
    body: (data) => restSite(data.createSite.site),
  }),
  typedRoute({
    method: "GET",
    path: prefix,
    action: "site.read",
    document: graphql(`query GetSite($site: ID!, $organization: ID) { site(id: $site, organization: $organization) { ...SiteFields } }`, [
      SiteFields,
    ]),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => restSite(data.site),
  }),
  typedRoute({
    method: "DELETE",
    path: prefix,
    action: "site.delete",
    document: graphql(`mutation DeleteSite($input: DeleteSiteInput!) { deleteSite(input: $input) { deletedId } }`),
    variables: ({ params }) => ({ input: site(params) }),
    status: 205,
  }),
  typedRoute({
    method: "PATCH",
    path: prefix,
    action: "site.configure",
    document: graphql(`mutation UpdateSite($input: UpdateSiteInput!) { updateSite(input: $input) { site { ...SiteFields } } }`, [
      SiteFields,
    ]),
    variables: ({ params, body }) => ({
      input: {
        ...site(params),
        ...present(body, ["title", "basename", "hostname", "proxy", "defaultSiteSpace", "defaultSiteSection"]),
        ...("visibility" in body ? { visibility: graphqlEnum("visibility", body.visibility, SITE_VISIBILITIES) } : {}),
        ...("agentsContext" in body ? { agentsContext: graphqlEnum("agentsContext", body.agentsContext, AGENTS_CONTEXTS) } : {}),
        ...("adaptiveContent" in body ? { adaptiveContent: adaptiveContentInput(body.adaptiveContent) } : {}),
      },
    }),
    status: 200,
    body: (data) => restSite(data.updateSite.site),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/publish`,
    action: "site.publish",
    document: graphql(`mutation PublishSite($input: PublishSiteInput!) { publishSite(input: $input) { site { ...SiteFields } } }`, [
      SiteFields,
    ]),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restSite(data.publishSite.site),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/unpublish`,
    action: "site.publish",
    document: graphql(`mutation UnpublishSite($input: UnpublishSiteInput!) { unpublishSite(input: $input) { site { ...SiteFields } } }`, [
      SiteFields,
    ]),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restSite(data.unpublishSite.site),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/adaptive-schema`,
    action: "site.readAdaptiveSchema",
    document: graphql(`
      query GetSiteAdaptiveSchema($site: ID!, $organization: ID) {
        site(id: $site, organization: $organization) { adaptiveSchema { jsonSchema updatedAt } }
      }`),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => ({ object: "site-adaptive-schema", ...data.site.adaptiveSchema }),
  }),
  typedRoute({
    method: "PUT",
    path: `${prefix}/adaptive-schema`,
    action: "site.updateAdaptiveSchema",
    document: graphql(`
      mutation UpdateSiteAdaptiveSchema($input: UpdateSiteAdaptiveSchemaInput!) {
        updateSiteAdaptiveSchema(input: $input) { site { adaptiveSchema { jsonSchema updatedAt } } }
      }`),
    variables: ({ params, body }) => {
      if (!("jsonSchema" in body)) throw new RestInputError("jsonSchema is required");
      return { input: { ...site(params), jsonSchema: body.jsonSchema } };
    },
    status: 200,
    body: (data) => ({ object: "site-adaptive-schema", ...data.updateSiteAdaptiveSchema.site.adaptiveSchema }),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/adaptive-schema/template-conditions`,
    action: "site.readAdaptiveSchema",
    document: graphql(`
      query ListSiteTemplateConditions($site: ID!, $organization: ID) {
        site(id: $site, organization: $organization) { templateConditions { description condition } }
      }`),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => ({ items: data.site.templateConditions }),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/published`,
    action: "site.read",
    query: { shareKey: "string" },
    document: graphql(
      `query GetPublishedSite($site: ID!, $organization: ID, $shareKey: String) {
        site(id: $site, organization: $organization, shareKey: $shareKey) {
          ...SiteFields
          customization
          structure(claims: {}) { type items { ...ItemFields } }
          customizedSiteSpaces: siteSpaces(first: 1000) { nodes { id customization } }
        }
      }`,
      [SiteFields, ItemFields],
    ),
    variables: siteRead,
    status: 200,
    body: (data) => ({
      object: "published-content-site",
      site: restSite(data.site),
      structure: restStructure(data.site.structure),
      customizations: {
        site: data.site.customization,
        siteSpaces: Object.fromEntries(
          data.site.customizedSiteSpaces.nodes.filter((node) => node.customization).map((node) => [node.id, node.customization]),
        ),
      },
      scripts: [],
    }),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/structure`,
    action: "site.read",
    query: { shareKey: "string" },
    document: graphql(
      `query GetSiteStructure($site: ID!, $organization: ID, $shareKey: String) {
        site(id: $site, organization: $organization, shareKey: $shareKey) { structure { type items { ...ItemFields } } }
      }`,
      [ItemFields],
    ),
    variables: siteRead,
    status: 200,
    body: (data) => restStructure(data.site.structure),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/structure/sort`,
    action: "site.editStructure",
    document: graphql(
      `mutation SortSiteStructure($input: SortSiteStructureInput!) { sortSiteStructure(input: $input) { item { ...ItemFields } } }`,
      [ItemFields],
    ),
    variables: ({ params, body }) => {
      const position = (body.position ?? {}) as Record<string, unknown>;
      if (typeof position !== "object") throw new RestInputError("position must be an object with before or after");
      const item = pointerInput(body.item, "item");
      if (!item) throw new RestInputError("item is required");
      return {
        input: {
          ...site(params),
          item,
          before: pointerInput(position.before, "position.before"),
          after: pointerInput(position.after, "position.after"),
        },
      };
    },
    status: 200,
    body: (data) => restItem(data.sortSiteStructure.item),
  }),

  // Site search
  typedRoute({
    method: "POST",
    path: `${prefix}/search`,
    action: "site.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query SearchSiteContent($site: ID!, $organization: ID, $query: String!, $scope: JSON, $first: Int, $after: String) {
        site(id: $site, organization: $organization) {
          search(query: $query, scope: $scope, claims: {}, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { id title score pages { ...SearchPageFields } }
          }
        }
      }`,
      [SearchPageFields, ListInfo],
    ),
    variables: ({ params, query, body }) => {
      if (typeof body.query !== "string") throw new RestInputError("query is required (a string of at most 512 characters)");
      return { ...site(params), query: body.query, scope: searchScopeOf(body), ...pageVariables(query) };
    },
    status: 200,
    body: (data) => listBody(data.site.search, (space) => ({ type: "space", ...space, pages: space.pages.map(restSearchPage) })),
  }),

  // Customization
  typedRoute({
    method: "GET",
    path: `${prefix}/customization`,
    action: "site.read",
    query: { unmasked: "boolean" },
    document: graphql(`
      query GetSiteCustomization($site: ID!, $organization: ID) { site(id: $site, organization: $organization) { customization } }`),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => data.site.customization,
  }),
  typedRoute({
    method: "PUT",
    path: `${prefix}/customization`,
    action: "site.configure",
    document: graphql(`
      mutation UpdateSiteCustomization($input: UpdateSiteCustomizationInput!) {
        updateSiteCustomization(input: $input) { site { customization } }
      }`),
    variables: ({ params, body }) => ({ input: { ...site(params), customization: body } }),
    status: 200,
    body: (data) => data.updateSiteCustomization.site.customization,
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.read",
    query: { unmasked: "boolean" },
    document: graphql(`
      query GetSiteSpaceCustomization($site: ID!, $organization: ID, $id: ID!) {
        site(id: $site, organization: $organization) { siteSpace(id: $id) { effectiveCustomization } }
      }`),
    variables: ({ params }) => ({ ...site(params), id: params.siteSpaceId }),
    status: 200,
    body: (data) => data.site.siteSpace.effectiveCustomization,
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.configure",
    document: graphql(`
      mutation OverrideSiteSpaceCustomization($input: OverrideSiteSpaceCustomizationInput!) {
        overrideSiteSpaceCustomization(input: $input) { siteSpace { effectiveCustomization } }
      }`),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteSpaceId, customization: body } }),
    status: 200,
    body: (data) => data.overrideSiteSpaceCustomization.siteSpace.effectiveCustomization,
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.configure",
    document: graphql(`
      mutation DeleteSiteSpaceCustomization($input: DeleteSiteSpaceCustomizationInput!) {
        deleteSiteSpaceCustomization(input: $input) { existed }
      }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSpaceId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteSpaceCustomization.existed ? 205 : 204),
  }),

  // Publishing auth (visitor-auth sites)
  typedRoute({
    method: "GET",
    path: `${prefix}/publishing/auth`,
    action: "site.manageAccess",
    document: graphql(
      `query GetSitePublishingAuth($site: ID!, $organization: ID) {
        site(id: $site, organization: $organization) { publishingAuth { ...PublishingAuthFields } }
      }`,
      [PublishingAuthFields],
    ),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => restPublishingAuth(data.site.publishingAuth),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/publishing/auth`,
    action: "site.manageAccess",
    document: graphql(
      `mutation UpdateSitePublishingAuth($input: UpdateSitePublishingAuthInput!) {
        updateSitePublishingAuth(input: $input) { publishingAuth { ...PublishingAuthFields } }
      }`,
      [PublishingAuthFields],
    ),
    variables: ({ params, body }) => {
      for (const field of ["backend", "fallbackURL", "logoutURL"]) {
        if (field in body && body[field] !== null && typeof body[field] !== "string") throw new RestInputError(`${field} must be a string`);
      }
      if (body.backend === null) throw new RestInputError("backend must be custom");
      return { input: { ...site(params), ...present(body, ["backend", "fallbackURL", "logoutURL"]) } };
    },
    status: 200,
    body: (data) => restPublishingAuth(data.updateSitePublishingAuth.publishingAuth),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/publishing/auth/regenerate`,
    action: "site.manageAccess",
    document: graphql(
      `mutation RegenerateSitePublishingAuth($input: RegenerateSitePublishingAuthInput!) {
        regenerateSitePublishingAuth(input: $input) { publishingAuth { ...PublishingAuthFields } }
      }`,
      [PublishingAuthFields],
    ),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restPublishingAuth(data.regenerateSitePublishingAuth.publishingAuth),
  }),

  // Share links
  typedRoute({
    method: "GET",
    path: `${prefix}/share-links`,
    action: "site.manageAccess",
    query: { page: "string", limit: "limit", search: "string" },
    document: graphql(
      `query ListSiteShareLinks($site: ID!, $organization: ID, $first: Int, $after: String, $search: String) {
        site(id: $site, organization: $organization) {
          shareLinks(first: $first, after: $after, search: $search) { totalCount pageInfo { ...ListInfo } nodes { ...ShareLinkFields } }
        }
      }`,
      [ShareLinkFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ ...site(params), ...pageVariables(query), search: query.search }),
    status: 200,
    body: (data) => listBody(data.site.shareLinks, restShareLink),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/share-links`,
    action: "site.manageAccess",
    document: graphql(
      `mutation CreateSiteShareLink($input: CreateSiteShareLinkInput!) {
        createSiteShareLink(input: $input) { shareLink { ...ShareLinkFields } }
      }`,
      [ShareLinkFields],
    ),
    variables: ({ params, body }) => {
      if (typeof body.name !== "string") throw new RestInputError("name is required (a string of at most 50 characters)");
      return { input: { ...site(params), name: body.name } };
    },
    status: 201,
    body: (data) => restShareLink(data.createSiteShareLink.shareLink),
    location: (link, { params }) => `/orgs/${params.organizationId}/sites/${params.siteId}/share-links/${link.id}`,
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/share-links/:shareLinkId`,
    action: "site.manageAccess",
    document: graphql(
      `mutation UpdateSiteShareLink($input: UpdateSiteShareLinkInput!) {
        updateSiteShareLink(input: $input) { shareLink { ...ShareLinkFields } }
      }`,
      [ShareLinkFields],
    ),
    variables: ({ params, body }) => {
      if ("name" in body && typeof body.name !== "string") throw new RestInputError("name must be a string of at most 50 characters");
      if ("active" in body && typeof body.active !== "boolean") throw new RestInputError("active must be a boolean");
      return { input: { ...site(params), id: params.shareLinkId, ...present(body, ["name", "active"]) } };
    },
    status: 200,
    body: (data) => restShareLink(data.updateSiteShareLink.shareLink),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/share-links/:shareLinkId`,
    action: "site.manageAccess",
    document: graphql(`
      mutation DeleteSiteShareLink($input: DeleteSiteShareLinkInput!) { deleteSiteShareLink(input: $input) { existed } }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.shareLinkId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteShareLink.existed ? 205 : 204),
  }),

  // Site spaces
  typedRoute({
    method: "GET",
    path: `${prefix}/site-spaces`,
    action: "site.read",
    query: { shareKey: "string", page: "string", limit: "limit", default: "boolean" },
    document: graphql(
      `query ListSiteSpaces($site: ID!, $organization: ID, $shareKey: String, $first: Int, $after: String, $default: Boolean) {
        site(id: $site, organization: $organization, shareKey: $shareKey) {
          siteSpaces(first: $first, after: $after, default: $default) { totalCount pageInfo { ...ListInfo } nodes { ...SiteSpaceFields } }
        }
      }`,
      [SiteSpaceFields, ListInfo],
    ),
    variables: (request) => ({ ...siteRead(request), ...pageVariables(request.query), default: request.query.default }),
    status: 200,
    body: (data) => listBody(data.site.siteSpaces, restSiteSpace),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/site-spaces`,
    action: "site.editStructure",
    document: graphql(
      `mutation AddSiteSpace($input: AddSiteSpaceInput!) { addSiteSpace(input: $input) { siteSpace { ...SiteSpaceFields } } }`,
      [SiteSpaceFields],
    ),
    variables: ({ params, body }) => ({ input: { ...site(params), space: requiredString(body, "spaceId"), section: body.sectionId } }),
    status: 201,
    body: (data) => restSiteSpace(data.addSiteSpace.siteSpace),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/site-spaces/:siteSpaceId`,
    action: "site.editStructure",
    document: graphql(
      `mutation UpdateSiteSpace($input: UpdateSiteSpaceInput!) { updateSiteSpace(input: $input) { siteSpace { ...SiteSpaceFields } } }`,
      [SiteSpaceFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        ...site(params),
        id: params.siteSpaceId,
        ...present(body, ["path", "condition", "hidden"]),
        ...("spaceId" in body ? { space: body.spaceId } : {}),
      },
    }),
    status: 200,
    body: (data) => restSiteSpace(data.updateSiteSpace.siteSpace),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/site-spaces/:siteSpaceId`,
    action: "site.editStructure",
    document: graphql(`mutation DeleteSiteSpace($input: DeleteSiteSpaceInput!) { deleteSiteSpace(input: $input) { deletedId } }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSpaceId } }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/site-spaces/:siteSpaceId/move`,
    action: "site.editStructure",
    document: graphql(
      `mutation MoveSiteSpace($input: MoveSiteSpaceInput!) { moveSiteSpace(input: $input) { siteSpace { ...SiteSpaceFields } } }`,
      [SiteSpaceFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSpaceId, position: positionInput(body.position, "siteSpace") },
    }),
    status: 200,
    body: (data) => restSiteSpace(data.moveSiteSpace.siteSpace),
  }),

  // Sections
  typedRoute({
    method: "GET",
    path: `${prefix}/sections`,
    action: "site.read",
    query: { shareKey: "string", page: "string", limit: "limit" },
    document: graphql(
      `query ListSiteSections($site: ID!, $organization: ID, $shareKey: String, $first: Int, $after: String) {
        site(id: $site, organization: $organization, shareKey: $shareKey) {
          sections(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...SectionFields } }
        }
      }`,
      [SectionFields, ListInfo],
    ),
    variables: (request) => ({ ...siteRead(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.site.sections, restSection),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/sections`,
    action: "site.editStructure",
    document: graphql(
      `mutation AddSiteSection($input: AddSiteSectionInput!) { addSiteSection(input: $input) { section { ...SectionFields } } }`,
      [SectionFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        ...site(params),
        space: requiredString(body, "spaceId"),
        ...present(body, ["title", "icon"]),
        ...("siteSectionGroupId" in body ? { sectionGroup: body.siteSectionGroupId } : {}),
      },
    }),
    status: 201,
    body: (data) => restSection(data.addSiteSection.section),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/sections/:siteSectionId`,
    action: "site.editStructure",
    document: graphql(
      `mutation UpdateSiteSection($input: UpdateSiteSectionInput!) { updateSiteSection(input: $input) { section { ...SectionFields } } }`,
      [SectionFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        ...site(params),
        id: params.siteSectionId,
        ...present(body, ["title", "path", "defaultSiteSpace", "condition", "icon", "description"]),
        ...("siteSectionGroupId" in body ? { sectionGroup: stringOf(body.siteSectionGroupId) } : {}),
      },
    }),
    status: 200,
    body: (data) => restSection(data.updateSiteSection.section),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/sections/:siteSectionId`,
    action: "site.editStructure",
    document: graphql(`mutation DeleteSiteSection($input: DeleteSiteSectionInput!) { deleteSiteSection(input: $input) { deletedId } }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionId } }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/sections/:siteSectionId/move`,
    action: "site.editStructure",
    document: graphql(
      `mutation MoveSiteSection($input: MoveSiteSectionInput!) { moveSiteSection(input: $input) { section { ...SectionFields } } }`,
      [SectionFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionId, position: positionInput(body.position, "siteSection") },
    }),
    status: 200,
    body: (data) => restSection(data.moveSiteSection.section),
  }),

  // Section groups
  typedRoute({
    method: "GET",
    path: `${prefix}/section-groups`,
    action: "site.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListSiteSectionGroups($site: ID!, $organization: ID, $first: Int, $after: String) {
        site(id: $site, organization: $organization) {
          sectionGroups(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...GroupFields } }
        }
      }`,
      [GroupFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ ...site(params), ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.site.sectionGroups, restGroup),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/section-groups`,
    action: "site.editStructure",
    document: graphql(
      `mutation AddSiteSectionGroup($input: AddSiteSectionGroupInput!) {
        addSiteSectionGroup(input: $input) { sectionGroup { ...GroupFields } }
      }`,
      [GroupFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), title: requiredString(body, "title"), ...present(body, ["icon", "sections"]) },
    }),
    status: 201,
    body: (data) => restGroup(data.addSiteSectionGroup.sectionGroup),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/section-groups/:siteSectionGroupId`,
    action: "site.editStructure",
    document: graphql(
      `mutation UpdateSiteSectionGroup($input: UpdateSiteSectionGroupInput!) {
        updateSiteSectionGroup(input: $input) { sectionGroup { ...GroupFields } }
      }`,
      [GroupFields],
    ),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteSectionGroupId, ...present(body, ["title", "icon"]) } }),
    status: 200,
    body: (data) => restGroup(data.updateSiteSectionGroup.sectionGroup),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/section-groups/:siteSectionGroupId`,
    action: "site.editStructure",
    document: graphql(`
      mutation DeleteSiteSectionGroup($input: DeleteSiteSectionGroupInput!) { deleteSiteSectionGroup(input: $input) { deletedId } }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionGroupId } }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/section-groups/:siteSectionGroupId/sections`,
    action: "site.editStructure",
    document: graphql(
      `mutation AddSectionToSiteSectionGroup($input: AddSectionToSiteSectionGroupInput!) {
        addSectionToSiteSectionGroup(input: $input) { sectionGroup { ...GroupFields } }
      }`,
      [GroupFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionGroupId, section: requiredString(body, "sectionId") },
    }),
    status: 200,
    body: (data) => restGroup(data.addSectionToSiteSectionGroup.sectionGroup),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
    action: "site.editStructure",
    document: graphql(`
      mutation RemoveSectionFromSiteSectionGroup($input: RemoveSectionFromSiteSectionGroupInput!) {
        removeSectionFromSiteSectionGroup(input: $input) { sectionGroup { id } }
      }`),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionGroupId, section: params.siteSectionId } }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/section-groups/:siteSectionGroupId/move`,
    action: "site.editStructure",
    document: graphql(
      `mutation MoveSiteSectionGroup($input: MoveSiteSectionGroupInput!) {
        moveSiteSectionGroup(input: $input) { sectionGroup { ...GroupFields } }
      }`,
      [GroupFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionGroupId, position: positionInput(body.position, "id") },
    }),
    status: 200,
    body: (data) => restGroup(data.moveSiteSectionGroup.sectionGroup),
  }),
];

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== "string" || !value) throw new RestInputError(`${field} is required (a string)`);
  return value;
}

function adaptiveContentInput(value: unknown): boolean {
  const enabled = (value as { enabled?: unknown } | null)?.enabled;
  if (typeof enabled !== "boolean") throw new RestInputError("adaptiveContent must be { enabled: true | false }");
  return enabled;
}

/** The body's `scope`, or the deprecated `mode` (with `siteSpaceIds` or `siteSpaceId`) as a scope. */
function searchScopeOf(body: Record<string, unknown>): unknown {
  if ("scope" in body) return body.scope;
  switch (body.mode) {
    case undefined:
      return "siteSpaceIds" in body ? { mode: "specific", siteSpaceIds: body.siteSpaceIds } : undefined;
    case "all":
      return { mode: "all" };
    case "specific":
      return { mode: "specific", siteSpaceIds: body.siteSpaceIds };
    case "current":
      return { mode: "default", currentSiteSpace: body.siteSpaceId };
    default:
      throw new RestInputError("mode must be one of specific, current, all (deprecated: use scope)");
  }
}
