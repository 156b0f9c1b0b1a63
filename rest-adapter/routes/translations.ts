// /v1/orgs/{organizationId}/translations routes: the contract's TranslationSettings (a title and
// language codes), which wins over the published API's `Translation` at the same paths, and the
// published `POST …/{translationId}/run` (204), which runs the translation.
import { listBody, pageVariables, RestInputError, type RestRequest, type RestRoute } from "../route.ts";

const FIELDS = /* GraphQL */ `
  fragment TranslationSettingsFields on TranslationSettings {
    id title languages createdAt updatedAt permissions { view edit } urls { location }
  }`;

const restTranslation = (translation: any) => ({
  object: "translation-settings",
  id: translation.id,
  title: translation.title,
  languages: translation.languages,
  createdAt: translation.createdAt,
  updatedAt: translation.updatedAt,
  permissions: translation.permissions,
  urls: translation.urls,
});

/** `title` (required) and `languages` (optional, a list of strings) as the operation's input. */
function settingsOf(body: RestRequest["body"]) {
  if (body.title == null) throw new RestInputError("title is required");
  if (typeof body.title !== "string") throw new RestInputError("title must be a string");
  if (body.languages != null && (!Array.isArray(body.languages) || body.languages.some((code) => typeof code !== "string"))) {
    throw new RestInputError("languages must be a list of language codes (strings)");
  }
  return { title: body.title, ...(body.languages != null ? { languages: body.languages as string[] } : {}) };
}

const GET = /* GraphQL */ `
  query GetTranslation($organization: ID!, $id: ID!) { organization(id: $organization) { translation(id: $id) { ...TranslationSettingsFields } } }
  ${FIELDS}`;

export const translationRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/translations",
    action: "translation.read",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListTranslations($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          translations(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ...TranslationSettingsFields } }
        }
      }
      ${FIELDS}`,
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.translations, restTranslation),
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/translations",
    action: "translation.manage",
    document: /* GraphQL */ `
      mutation CreateTranslation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { ...TranslationSettingsFields } } }
      ${FIELDS}`,
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, ...settingsOf(body) } }),
    status: 201,
    body: (data) => restTranslation(data.createTranslation.translation),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.read",
    document: GET,
    variables: ({ params }) => ({ organization: params.organizationId, id: params.translationId }),
    status: 200,
    body: (data) => restTranslation(data.organization.translation),
  },
  {
    method: "PUT",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.manage",
    document: /* GraphQL */ `
      mutation PutTranslation($input: UpdateTranslationInput!) { updateTranslation(input: $input) { translation { ...TranslationSettingsFields } } }
      ${FIELDS}`,
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, id: params.translationId, ...settingsOf(body) } }),
    status: 200,
    body: (data) => restTranslation(data.updateTranslation.translation),
  },
  {
    method: "DELETE",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.manage",
    document: /* GraphQL */ `
      mutation DeleteTranslation($input: DeleteTranslationInput!) { deleteTranslation(input: $input) { deletedId } }`,
    variables: ({ params }) => ({ input: { organization: params.organizationId, id: params.translationId } }),
    status: 205,
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/translations/:translationId/run",
    action: "translation.run",
    document: /* GraphQL */ `
      mutation RunTranslation($input: RunTranslationInput!) { runTranslation(input: $input) { translation { id } } }`,
    variables: ({ params }) => ({ input: { organization: params.organizationId, translation: params.translationId } }),
    status: 204,
  },
];
