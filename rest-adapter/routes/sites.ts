// /v1/orgs/{organizationId}/sites routes: sites, site spaces, sections and section groups.
import { AGENTS_CONTEXTS, SITE_TYPES, SITE_VISIBILITIES } from "../../src/core/sites/index.ts";
import {
  compact,
  graphqlEnum,
  listBody,
  pageVariables,
  present,
  RestInputError,
  restEnum,
  type RestRequest,
  type RestRoute,
} from "../route.ts";
import { restSpace, SPACE_FIELDS } from "./spaces.ts";
import { restSearchPage, SEARCH_PAGE_FIELDS } from "./search.ts";

export const SITE_FIELDS = /* GraphQL */ `
  fragment SiteFields on Site {
    id title type visibility published hostname basename proxy adaptiveContent agentsContext createdAt
    siteSpaceCount
    urls { location app preview published }
    permissions { view access edit create admin installIntegration viewAdaptiveSchema editAdaptiveSchema }
  }`;

const SITE_SPACE_FIELDS = /* GraphQL */ `
  fragment SiteSpaceFields on SiteSpace {
    id path condition default hidden title
    section { id }
    space { ...SpaceFields }
    urls { published }
  }
  ${SPACE_FIELDS}`;

const SECTION_FIELDS = /* GraphQL */ `
  fragment SectionFields on SiteSection {
    id title description icon path condition default
    sectionGroup { id }
    siteSpaces { ...SiteSpaceFields }
    urls { published }
  }
  ${SITE_SPACE_FIELDS}`;

const GROUP_FIELDS = /* GraphQL */ `
  fragment GroupFields on SiteSectionGroup {
    id title icon
    sections { ...SectionFields }
  }
  ${SECTION_FIELDS}`;

/** Every structure item, told apart by `__typename`. */
const ITEM_FIELDS = /* GraphQL */ `
  fragment ItemFields on SiteStructureItem {
    __typename
    ... on SiteSpace { ...SiteSpaceFields }
    ... on SiteSection { ...SectionFields }
    ... on SiteSectionGroup { ...GroupFields }
  }
  ${GROUP_FIELDS}`;

export function restSite(s: any) {
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
    ads: { status: "pending", submittable: false },
    agentsContext: restEnum(s.agentsContext),
    features: [],
    urls: compact(s.urls),
  };
}

export function restSiteSpace(s: any) {
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

export function restSection(s: any) {
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

export function restGroup(g: any) {
  const sections = g.sections.map(restSection);
  return {
    object: "site-section-group",
    id: g.id,
    title: g.title,
    ...compact({ icon: g.icon }),
    draft: false,
    sections,
    children: sections,
  };
}

export function restItem(item: any) {
  return item.__typename === "SiteSpace" ? restSiteSpace(item) : item.__typename === "SiteSection" ? restSection(item) : restGroup(item);
}

export const restStructure = (structure: any) => ({ type: structure.type, structure: structure.items.map(restItem) });

const prefix = "/v1/orgs/:organizationId/sites/:siteId";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

/** A REST position (`{ before: { type, <field>: id } }`) → the ids GraphQL takes. */
function positionInput(position: unknown, field: string) {
  if (position == null) return null;
  if (typeof position !== "object") throw new RestInputError("position must be an object with before or after");
  const id = (pointer: any) => {
    if (pointer == null) return null;
    const value = pointer[field] ?? pointer.id;
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

const siteQuery = (name: string, selection: string, fragments: string, args = "") => /* GraphQL */ `
  query ${name}($site: ID!, $organization: ID, $shareKey: String${args}) {
    site(id: $site, organization: $organization, shareKey: $shareKey) { ${selection} }
  }
  ${fragments}`;

/** The site of a read route, with the share key it was given (its published URLs then carry it). */
const siteRead = ({ params, query }: RestRequest) => ({ ...site(params), shareKey: query.shareKey });

const SHARE_LINK_FIELDS = /* GraphQL */ `
  fragment ShareLinkFields on SiteShareLink { id name active createdAt urls { published } }`;

const PUBLISHING_AUTH_FIELDS = /* GraphQL */ `
  fragment PublishingAuthFields on SitePublishingAuth { backend privateKey fallbackURL logoutURL }`;

export const restPublishingAuth = (auth: any) => ({
  object: "publishing-auth",
  backend: auth.backend,
  privateKey: auth.privateKey,
  ...compact({ fallbackURL: auth.fallbackURL, logoutURL: auth.logoutURL }),
});

export const restShareLink = (link: any) => ({
  object: "share-link",
  id: link.id,
  createdAt: link.createdAt,
  name: link.name,
  active: link.active,
  urls: link.urls,
});

const mutation = (name: string, inputType: string, selection: string, fragments = "") => /* GraphQL */ `
  mutation ${name[0].toUpperCase()}${name.slice(1)}($input: ${inputType}!) { ${name}(input: $input) { ${selection} } }
  ${fragments}`;

const SITE_MUTATION = (name: string, inputType: string) => mutation(name, inputType, "site { ...SiteFields }", SITE_FIELDS);

export const siteRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/sites",
    action: "site.read",
    query: { page: "string", limit: "limit", space: "string", title: "string", published: "boolean" },
    document: /* GraphQL */ `
      query ListSites($id: ID!, $first: Int, $after: String, $space: ID, $title: String, $published: Boolean) {
        organization(id: $id) {
          sites(first: $first, after: $after, space: $space, title: $title, published: $published) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...SiteFields }
          }
        }
      }
      ${SITE_FIELDS}`,
    variables: ({ params, query }) => ({
      id: params.organizationId,
      ...pageVariables(query),
      space: query.space,
      title: query.title,
      published: query.published,
    }),
    status: 200,
    body: (data) => listBody(data.organization.sites, restSite),
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/sites",
    action: "site.create",
    document: SITE_MUTATION("createSite", "CreateSiteInput"),
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
  },
  {
    method: "GET",
    path: prefix,
    action: "site.read",
    document: siteQuery("GetSite", "...SiteFields", SITE_FIELDS),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => restSite(data.site),
  },
  {
    method: "DELETE",
    path: prefix,
    action: "site.delete",
    document: mutation("deleteSite", "DeleteSiteInput", "deletedId"),
    variables: ({ params }) => ({ input: site(params) }),
    status: 205,
  },
  {
    method: "PATCH",
    path: prefix,
    action: "site.configure",
    document: SITE_MUTATION("updateSite", "UpdateSiteInput"),
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
  },
  {
    method: "POST",
    path: `${prefix}/publish`,
    action: "site.publish",
    document: SITE_MUTATION("publishSite", "PublishSiteInput"),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restSite(data.publishSite.site),
  },
  {
    method: "POST",
    path: `${prefix}/unpublish`,
    action: "site.publish",
    document: SITE_MUTATION("unpublishSite", "UnpublishSiteInput"),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restSite(data.unpublishSite.site),
  },
  {
    method: "GET",
    path: `${prefix}/adaptive-schema`,
    action: "site.read",
    document: siteQuery("GetSiteAdaptiveSchema", "adaptiveSchema { jsonSchema updatedAt }", ""),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => ({ object: "site-adaptive-schema", ...data.site.adaptiveSchema }),
  },
  {
    method: "PUT",
    path: `${prefix}/adaptive-schema`,
    action: "site.configure",
    document: mutation("updateSiteAdaptiveSchema", "UpdateSiteAdaptiveSchemaInput", "site { adaptiveSchema { jsonSchema updatedAt } }"),
    variables: ({ params, body }) => {
      if (!("jsonSchema" in body)) throw new RestInputError("jsonSchema is required");
      return { input: { ...site(params), jsonSchema: body.jsonSchema } };
    },
    status: 200,
    body: (data) => ({ object: "site-adaptive-schema", ...data.updateSiteAdaptiveSchema.site.adaptiveSchema }),
  },
  {
    method: "GET",
    path: `${prefix}/adaptive-schema/template-conditions`,
    action: "site.read",
    document: siteQuery("ListSiteTemplateConditions", "templateConditions { description condition }", ""),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => ({ items: data.site.templateConditions }),
  },
  {
    method: "GET",
    path: `${prefix}/published`,
    action: "site.read",
    query: { shareKey: "string" },
    document: siteQuery(
      "GetPublishedSite",
      `...SiteFields customization
       structure(claims: {}) { type items { ...ItemFields } }
       customizedSiteSpaces: siteSpaces(first: 1000) { nodes { id customization } }`,
      `${SITE_FIELDS} ${ITEM_FIELDS}`,
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
          data.site.customizedSiteSpaces.nodes.filter((node: any) => node.customization).map((node: any) => [node.id, node.customization]),
        ),
      },
      scripts: [],
    }),
  },
  {
    method: "GET",
    path: `${prefix}/structure`,
    action: "site.read",
    query: { shareKey: "string" },
    document: siteQuery("GetSiteStructure", "structure { type items { ...ItemFields } }", ITEM_FIELDS),
    variables: siteRead,
    status: 200,
    body: (data) => restStructure(data.site.structure),
  },
  {
    method: "PATCH",
    path: `${prefix}/structure/sort`,
    action: "site.editStructure",
    document: mutation("sortSiteStructure", "SortSiteStructureInput", "item { ...ItemFields }", ITEM_FIELDS),
    variables: ({ params, body }) => {
      const position = (body.position ?? {}) as Record<string, unknown>;
      if (typeof position !== "object") throw new RestInputError("position must be an object with before or after");
      return {
        input: {
          ...site(params),
          item:
            pointerInput(body.item, "item") ??
            (() => {
              throw new RestInputError("item is required");
            })(),
          before: pointerInput(position.before, "position.before"),
          after: pointerInput(position.after, "position.after"),
        },
      };
    },
    status: 200,
    body: (data) => restItem(data.sortSiteStructure.item),
  },

  // Site search
  {
    method: "POST",
    path: `${prefix}/search`,
    action: "site.read",
    query: { page: "string", limit: "limit" },
    document: siteQuery(
      "SearchSiteContent",
      `search(query: $query, scope: $scope, claims: {}, first: $first, after: $after) {
         totalCount pageInfo { hasNextPage endCursor } nodes { id title score pages { ...SearchPageFields } }
       }`,
      SEARCH_PAGE_FIELDS,
      ", $query: String!, $scope: JSON, $first: Int, $after: String",
    ),
    variables: ({ params, query, body }) => {
      if (typeof body.query !== "string") throw new RestInputError("query is required (a string of at most 512 characters)");
      return { ...site(params), query: body.query, scope: searchScopeOf(body), ...pageVariables(query) };
    },
    status: 200,
    body: (data) => listBody(data.site.search, (space: any) => ({ type: "space", ...space, pages: space.pages.map(restSearchPage) })),
  },

  // Customization
  {
    method: "GET",
    path: `${prefix}/customization`,
    action: "site.read",
    query: { unmasked: "boolean" },
    document: siteQuery("GetSiteCustomization", "customization", ""),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => data.site.customization,
  },
  {
    method: "PUT",
    path: `${prefix}/customization`,
    action: "site.configure",
    document: mutation("updateSiteCustomization", "UpdateSiteCustomizationInput", "site { customization }"),
    variables: ({ params, body }) => ({ input: { ...site(params), customization: body } }),
    status: 200,
    body: (data) => data.updateSiteCustomization.site.customization,
  },
  {
    method: "GET",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.read",
    query: { unmasked: "boolean" },
    document: /* GraphQL */ `
      query GetSiteSpaceCustomization($site: ID!, $organization: ID, $id: ID!) {
        site(id: $site, organization: $organization) { siteSpace(id: $id) { effectiveCustomization } }
      }`,
    variables: ({ params }) => ({ ...site(params), id: params.siteSpaceId }),
    status: 200,
    body: (data) => data.site.siteSpace.effectiveCustomization,
  },
  {
    method: "PATCH",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.configure",
    document: mutation("overrideSiteSpaceCustomization", "OverrideSiteSpaceCustomizationInput", "siteSpace { effectiveCustomization }"),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteSpaceId, customization: body } }),
    status: 200,
    body: (data) => data.overrideSiteSpaceCustomization.siteSpace.effectiveCustomization,
  },
  {
    method: "DELETE",
    path: `${prefix}/site-spaces/:siteSpaceId/customization`,
    action: "site.configure",
    document: mutation("deleteSiteSpaceCustomization", "DeleteSiteSpaceCustomizationInput", "existed"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSpaceId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteSpaceCustomization.existed ? 205 : 204),
  },

  // Publishing auth (visitor-auth sites)
  {
    method: "GET",
    path: `${prefix}/publishing/auth`,
    action: "site.manageAccess",
    document: siteQuery("GetSitePublishingAuth", `publishingAuth { ...PublishingAuthFields }`, PUBLISHING_AUTH_FIELDS),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => restPublishingAuth(data.site.publishingAuth),
  },
  {
    method: "PATCH",
    path: `${prefix}/publishing/auth`,
    action: "site.manageAccess",
    document: mutation(
      "updateSitePublishingAuth",
      "UpdateSitePublishingAuthInput",
      "publishingAuth { ...PublishingAuthFields }",
      PUBLISHING_AUTH_FIELDS,
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
  },
  {
    method: "POST",
    path: `${prefix}/publishing/auth/regenerate`,
    action: "site.manageAccess",
    document: mutation(
      "regenerateSitePublishingAuth",
      "RegenerateSitePublishingAuthInput",
      "publishingAuth { ...PublishingAuthFields }",
      PUBLISHING_AUTH_FIELDS,
    ),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
    body: (data) => restPublishingAuth(data.regenerateSitePublishingAuth.publishingAuth),
  },

  // Share links
  {
    method: "GET",
    path: `${prefix}/share-links`,
    action: "site.manageAccess",
    query: { page: "string", limit: "limit", search: "string" },
    document: siteQuery(
      "ListSiteShareLinks",
      `shareLinks(first: $first, after: $after, search: $search) { totalCount pageInfo { hasNextPage endCursor } nodes { ...ShareLinkFields } }`,
      SHARE_LINK_FIELDS,
      ", $first: Int, $after: String, $search: String",
    ),
    variables: ({ params, query }) => ({ ...site(params), ...pageVariables(query), search: query.search }),
    status: 200,
    body: (data) => listBody(data.site.shareLinks, restShareLink),
  },
  {
    method: "POST",
    path: `${prefix}/share-links`,
    action: "site.manageAccess",
    document: mutation("createSiteShareLink", "CreateSiteShareLinkInput", "shareLink { ...ShareLinkFields }", SHARE_LINK_FIELDS),
    variables: ({ params, body }) => {
      if (typeof body.name !== "string") throw new RestInputError("name is required (a string of at most 50 characters)");
      return { input: { ...site(params), name: body.name } };
    },
    status: 201,
    body: (data) => restShareLink(data.createSiteShareLink.shareLink),
  },
  {
    method: "PATCH",
    path: `${prefix}/share-links/:shareLinkId`,
    action: "site.manageAccess",
    document: mutation("updateSiteShareLink", "UpdateSiteShareLinkInput", "shareLink { ...ShareLinkFields }", SHARE_LINK_FIELDS),
    variables: ({ params, body }) => {
      if ("name" in body && typeof body.name !== "string") throw new RestInputError("name must be a string of at most 50 characters");
      if ("active" in body && typeof body.active !== "boolean") throw new RestInputError("active must be a boolean");
      return { input: { ...site(params), id: params.shareLinkId, ...present(body, ["name", "active"]) } };
    },
    status: 200,
    body: (data) => restShareLink(data.updateSiteShareLink.shareLink),
  },
  {
    method: "DELETE",
    path: `${prefix}/share-links/:shareLinkId`,
    action: "site.manageAccess",
    document: mutation("deleteSiteShareLink", "DeleteSiteShareLinkInput", "existed"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.shareLinkId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteShareLink.existed ? 205 : 204),
  },

  // Site spaces
  {
    method: "GET",
    path: `${prefix}/site-spaces`,
    action: "site.read",
    query: { shareKey: "string", page: "string", limit: "limit", default: "boolean" },
    document: siteQuery(
      "ListSiteSpaces",
      `siteSpaces(first: $first, after: $after, default: $default) {
         totalCount pageInfo { hasNextPage endCursor } nodes { ...SiteSpaceFields }
       }`,
      SITE_SPACE_FIELDS,
      ", $first: Int, $after: String, $default: Boolean",
    ),
    variables: (request) => ({ ...siteRead(request), ...pageVariables(request.query), default: request.query.default }),
    status: 200,
    body: (data) => listBody(data.site.siteSpaces, restSiteSpace),
  },
  {
    method: "POST",
    path: `${prefix}/site-spaces`,
    action: "site.editStructure",
    document: mutation("addSiteSpace", "AddSiteSpaceInput", "siteSpace { ...SiteSpaceFields }", SITE_SPACE_FIELDS),
    variables: ({ params, body }) => ({ input: { ...site(params), space: requiredString(body, "spaceId"), section: body.sectionId } }),
    status: 201,
    body: (data) => restSiteSpace(data.addSiteSpace.siteSpace),
  },
  {
    method: "PATCH",
    path: `${prefix}/site-spaces/:siteSpaceId`,
    action: "site.editStructure",
    document: mutation("updateSiteSpace", "UpdateSiteSpaceInput", "siteSpace { ...SiteSpaceFields }", SITE_SPACE_FIELDS),
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
  },
  {
    method: "DELETE",
    path: `${prefix}/site-spaces/:siteSpaceId`,
    action: "site.editStructure",
    document: mutation("deleteSiteSpace", "DeleteSiteSpaceInput", "deletedId"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSpaceId } }),
    status: 205,
  },
  {
    method: "POST",
    path: `${prefix}/site-spaces/:siteSpaceId/move`,
    action: "site.editStructure",
    document: mutation("moveSiteSpace", "MoveSiteSpaceInput", "siteSpace { ...SiteSpaceFields }", SITE_SPACE_FIELDS),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSpaceId, position: positionInput(body.position, "siteSpace") },
    }),
    status: 200,
    body: (data) => restSiteSpace(data.moveSiteSpace.siteSpace),
  },

  // Sections
  {
    method: "GET",
    path: `${prefix}/sections`,
    action: "site.read",
    query: { shareKey: "string", page: "string", limit: "limit" },
    document: siteQuery(
      "ListSiteSections",
      `sections(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ...SectionFields } }`,
      SECTION_FIELDS,
      ", $first: Int, $after: String",
    ),
    variables: (request) => ({ ...siteRead(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.site.sections, restSection),
  },
  {
    method: "POST",
    path: `${prefix}/sections`,
    action: "site.editStructure",
    document: mutation("addSiteSection", "AddSiteSectionInput", "section { ...SectionFields }", SECTION_FIELDS),
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
  },
  {
    method: "PATCH",
    path: `${prefix}/sections/:siteSectionId`,
    action: "site.editStructure",
    document: mutation("updateSiteSection", "UpdateSiteSectionInput", "section { ...SectionFields }", SECTION_FIELDS),
    variables: ({ params, body }) => ({
      input: {
        ...site(params),
        id: params.siteSectionId,
        ...present(body, ["title", "path", "defaultSiteSpace", "condition", "icon", "description"]),
      },
    }),
    status: 200,
    body: (data) => restSection(data.updateSiteSection.section),
  },
  {
    method: "DELETE",
    path: `${prefix}/sections/:siteSectionId`,
    action: "site.editStructure",
    document: mutation("deleteSiteSection", "DeleteSiteSectionInput", "deletedId"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionId } }),
    status: 205,
  },
  {
    method: "POST",
    path: `${prefix}/sections/:siteSectionId/move`,
    action: "site.editStructure",
    document: mutation("moveSiteSection", "MoveSiteSectionInput", "section { ...SectionFields }", SECTION_FIELDS),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionId, position: positionInput(body.position, "siteSection") },
    }),
    status: 200,
    body: (data) => restSection(data.moveSiteSection.section),
  },

  // Section groups
  {
    method: "GET",
    path: `${prefix}/section-groups`,
    action: "site.read",
    query: { page: "string", limit: "limit" },
    document: siteQuery(
      "ListSiteSectionGroups",
      `sectionGroups(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ...GroupFields } }`,
      GROUP_FIELDS,
      ", $first: Int, $after: String",
    ),
    variables: ({ params, query }) => ({ ...site(params), ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.site.sectionGroups, restGroup),
  },
  {
    method: "POST",
    path: `${prefix}/section-groups`,
    action: "site.editStructure",
    document: mutation("addSiteSectionGroup", "AddSiteSectionGroupInput", "sectionGroup { ...GroupFields }", GROUP_FIELDS),
    variables: ({ params, body }) => ({
      input: { ...site(params), title: requiredString(body, "title"), ...present(body, ["icon", "sections"]) },
    }),
    status: 201,
    body: (data) => restGroup(data.addSiteSectionGroup.sectionGroup),
  },
  {
    method: "PATCH",
    path: `${prefix}/section-groups/:siteSectionGroupId`,
    action: "site.editStructure",
    document: mutation("updateSiteSectionGroup", "UpdateSiteSectionGroupInput", "sectionGroup { ...GroupFields }", GROUP_FIELDS),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteSectionGroupId, ...present(body, ["title", "icon"]) } }),
    status: 200,
    body: (data) => restGroup(data.updateSiteSectionGroup.sectionGroup),
  },
  {
    method: "DELETE",
    path: `${prefix}/section-groups/:siteSectionGroupId`,
    action: "site.editStructure",
    document: mutation("deleteSiteSectionGroup", "DeleteSiteSectionGroupInput", "deletedId"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionGroupId } }),
    status: 205,
  },
  {
    method: "POST",
    path: `${prefix}/section-groups/:siteSectionGroupId/sections`,
    action: "site.editStructure",
    document: mutation(
      "addSectionToSiteSectionGroup",
      "AddSectionToSiteSectionGroupInput",
      "sectionGroup { ...GroupFields }",
      GROUP_FIELDS,
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionGroupId, section: requiredString(body, "sectionId") },
    }),
    status: 200,
    body: (data) => restGroup(data.addSectionToSiteSectionGroup.sectionGroup),
  },
  {
    method: "DELETE",
    path: `${prefix}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
    action: "site.editStructure",
    document: mutation("removeSectionFromSiteSectionGroup", "RemoveSectionFromSiteSectionGroupInput", "sectionGroup { id }"),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteSectionGroupId, section: params.siteSectionId } }),
    status: 205,
  },
  {
    method: "POST",
    path: `${prefix}/section-groups/:siteSectionGroupId/move`,
    action: "site.editStructure",
    document: mutation("moveSiteSectionGroup", "MoveSiteSectionGroupInput", "sectionGroup { ...GroupFields }", GROUP_FIELDS),
    variables: ({ params, body }) => ({
      input: { ...site(params), id: params.siteSectionGroupId, position: positionInput(body.position, "id") },
    }),
    status: 200,
    body: (data) => restGroup(data.moveSiteSectionGroup.sectionGroup),
  },
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
