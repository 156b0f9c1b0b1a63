// Site extras of the published API (issue 30): the integrations installed on a site, the
// installations of an organization, and subdomains.
import { graphql } from "../graphql.ts";
import { ExternalLinkFields, restExternalLink, restSiteSpace, SiteSpaceFields } from "./sites.ts";
import { InstallationFields, IntegrationFields, restInstallation, restIntegration } from "./integrations.ts";
import { ListInfo, listBody, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const prefix = "/v1/orgs/:organizationId/sites/:siteId";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

const STRING_FIELDS = ["title", "url", "description", "icon", "parent", "condition"] as const;
const OBJECT_FIELDS = ["localizedTitle", "localizedDescription"] as const;

/** The fields of a create or update body, their types checked so that a message names the field (the core checks values). */
function externalLinkOf(body: RestRequest["body"], creating: boolean) {
  const input: Record<string, unknown> = {};
  for (const key of STRING_FIELDS) {
    if (!(key in body)) continue;
    const value = body[key];
    if (value === null && !(creating && (key === "title" || key === "url" || key === "parent"))) input[key] = null;
    else if (typeof value !== "string") throw new RestInputError(`${key} must be a string`);
    else input[key] = value;
  }
  for (const key of OBJECT_FIELDS) {
    if (!(key in body)) continue;
    const value = body[key];
    if (value !== null && (typeof value !== "object" || Array.isArray(value)))
      throw new RestInputError(`${key} must be an object of language codes to strings`);
    input[key] = value;
  }
  if ("draft" in body) {
    if (typeof body.draft !== "boolean") throw new RestInputError("draft must be a boolean");
    input.draft = body.draft;
  }
  if (creating && typeof input.title !== "string") throw new RestInputError("title is required (2 to 128 characters)");
  if (creating && typeof input.url !== "string") throw new RestInputError("url is required (an absolute http(s) URL)");
  return input;
}

const PARTNER_KEY = "x-gitbook-partner-key";

export const siteExtraRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: `${prefix}/template`,
    action: "site.editStructure",
    document: graphql(`
      mutation ApplySiteTemplate($input: ApplySiteTemplateInput!) {
        applySiteTemplate(input: $input) {
          site {
            id
          }
        }
      }
    `),
    variables: ({ params }) => ({ input: site(params) }),
    status: 200,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/ads`,
    action: "site.configure",
    document: graphql(`
      mutation UpdateSiteAds($input: UpdateSiteAdsInput!) {
        updateSiteAds(input: $input) {
          site {
            id
          }
        }
      }
    `),
    variables: ({ params, body }) => {
      for (const key of ["status", "topic"] as const)
        if (body[key] != null && typeof body[key] !== "string") throw new RestInputError(`${key} must be a string`);
      return { input: { ...site(params), status: body.status as string | undefined, topic: body.topic as string | undefined } };
    },
    status: 204,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/ads/sites",
    action: "partner",
    headers: [PARTNER_KEY],
    query: { page: "string", limit: "limit", status: "string" },
    document: graphql(
      `
        query AdsListSites($partnerKey: String!, $status: String, $first: Int, $after: String) {
          adsPartnerSites(partnerKey: $partnerKey, status: $status, first: $first, after: $after) {
            totalCount
            pageInfo {
              ...ListInfo
            }
            nodes {
              id
              url
              email
              topic
              ads
            }
          }
        }
      `,
      [ListInfo],
    ),
    variables: ({ query, headers }) => ({ partnerKey: headers?.[PARTNER_KEY] ?? "", status: query.status, ...pageVariables(query) }),
    status: 200,
    body: (data) =>
      listBody(data.adsPartnerSites, (node) => {
        const { submittable: _submittable, ...ads } = node.ads as Record<string, unknown>;
        return { id: node.id, url: node.url, email: node.email, topic: node.topic, ...ads };
      }),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/ads/sites/:siteId",
    action: "partner",
    headers: [PARTNER_KEY],
    document: graphql(`
      mutation AdsUpdateSite($input: PartnerUpdateSiteAdsInput!) {
        partnerUpdateSiteAds(input: $input) {
          siteId
        }
      }
    `),
    variables: ({ params, body, headers }) => {
      for (const key of ["status", "zoneId", "reportingId", "reason"] as const)
        if (body[key] != null && typeof body[key] !== "string") throw new RestInputError(`${key} must be a string`);
      if (typeof body.status !== "string") throw new RestInputError("status is required (live, rejected or pending)");
      return {
        input: {
          partnerKey: headers?.[PARTNER_KEY] ?? "",
          site: params.siteId,
          status: body.status,
          zoneId: body.zoneId as string | undefined,
          reportingId: body.reportingId as string | undefined,
          reason: body.reason as string | undefined,
        },
      };
    },
    status: 204,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/site-spaces/:siteSpaceId/duplicate`,
    action: "site.editStructure",
    document: graphql(
      `
        mutation DuplicateSiteSpace($input: DuplicateSiteSpaceInput!) {
          duplicateSiteSpace(input: $input) {
            siteSpace {
              ...SiteSpaceFields
            }
          }
        }
      `,
      [SiteSpaceFields],
    ),
    variables: ({ params, body }) => {
      if (body.draft != null && typeof body.draft !== "boolean") throw new RestInputError("draft must be a boolean");
      return { input: { ...site(params), siteSpace: params.siteSpaceId, draft: body.draft as boolean | undefined } };
    },
    status: 201,
    body: (data) => restSiteSpace(data.duplicateSiteSpace.siteSpace),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/publishing/preview`,
    action: "site.read",
    query: { siteSpace: "string", claims: "string", draft: "boolean", target: "string" },
    document: graphql(`
      query GetSitePreview($site: ID!, $organization: ID, $siteSpace: String, $claims: String, $draft: Boolean, $target: String) {
        site(id: $site, organization: $organization) {
          previewUrl(siteSpace: $siteSpace, claims: $claims, draft: $draft, target: $target)
        }
      }
    `),
    variables: ({ params, query }) => ({
      ...site(params),
      siteSpace: query.siteSpace,
      claims: query.claims,
      draft: query.draft,
      target: query.target,
    }),
    status: 200,
    body: (data) => ({ url: data.site.previewUrl }),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/external-links`,
    action: "site.editStructure",
    document: graphql(
      `
        mutation CreateSiteExternalLink($input: CreateSiteExternalLinkInput!) {
          createSiteExternalLink(input: $input) {
            link {
              ...ExternalLinkFields
            }
          }
        }
      `,
      [ExternalLinkFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), ...(externalLinkOf(body, true) as { title: string; url: string }) },
    }),
    status: 201,
    body: (data) => restExternalLink(data.createSiteExternalLink.link),
    location: (link, { params }) => `/orgs/${params.organizationId}/sites/${params.siteId}/external-links/${link.id}`,
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/external-links/:siteExternalLinkId`,
    action: "site.editStructure",
    document: graphql(
      `
        mutation UpdateSiteExternalLink($input: UpdateSiteExternalLinkInput!) {
          updateSiteExternalLink(input: $input) {
            link {
              ...ExternalLinkFields
            }
          }
        }
      `,
      [ExternalLinkFields],
    ),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteExternalLinkId, ...externalLinkOf(body, false) } }),
    status: 200,
    body: (data) => restExternalLink(data.updateSiteExternalLink.link),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/external-links/:siteExternalLinkId`,
    action: "site.editStructure",
    document: graphql(`
      mutation DeleteSiteExternalLink($input: DeleteSiteExternalLinkInput!) {
        deleteSiteExternalLink(input: $input) {
          existed
        }
      }
    `),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteExternalLinkId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteExternalLink.existed ? 205 : 204),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/integrations`,
    action: "site.read",
    query: { page: "string", limit: "limit", search: "string" },
    document: graphql(
      `
        query ListSiteIntegrations($site: ID!, $organization: ID, $search: String, $first: Int, $after: String) {
          site(id: $site, organization: $organization) {
            integrations(search: $search, first: $first, after: $after) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...IntegrationFields
              }
            }
          }
        }
      `,
      [IntegrationFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      site: params.siteId,
      organization: params.organizationId,
      search: query.search,
      ...pageVariables(query),
    }),
    status: 200,
    body: (data) => listBody(data.site.integrations, restIntegration),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/installations",
    action: "integration.install",
    query: { page: "string", limit: "limit", search: "string" },
    document: graphql(
      `
        query ListOrganizationInstallations($id: ID!, $search: String, $first: Int, $after: String) {
          organization(id: $id) {
            installations(search: $search, first: $first, after: $after) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...InstallationFields
                integration {
                  ...IntegrationFields
                }
              }
            }
          }
        }
      `,
      [InstallationFields, IntegrationFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, search: query.search, ...pageVariables(query) }),
    status: 200,
    body: (data) =>
      listBody(data.organization.installations, (node) => ({
        installation: restInstallation(node),
        integration: restIntegration(node.integration),
      })),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/subdomains/:subdomain",
    action: "organization.read",
    document: graphql(`
      query GetSubdomain($subdomain: String!) {
        subdomain(subdomain: $subdomain) {
          subdomain
          organizationId
          isActive
        }
      }
    `),
    variables: ({ params }) => ({ subdomain: params.subdomain }),
    status: 200,
    body: (data) => ({
      object: "subdomain",
      subdomain: data.subdomain.subdomain,
      target: { type: "organization", organization: data.subdomain.organizationId },
      isActive: data.subdomain.isActive,
    }),
  }),
];
