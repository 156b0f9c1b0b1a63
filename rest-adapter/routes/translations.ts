// /v1/orgs/{organizationId}/translations routes: the contract's TranslationSettings (a title and
// language codes), which wins over the published API's `Translation` at the same paths, and the
// published `POST …/{translationId}/run` (204), which runs the translation.
import { graphql, type FragmentOf } from "../graphql.ts";
import { listBody, ListInfo, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const TranslationSettingsFields = graphql(`
  fragment TranslationSettingsFields on TranslationSettings {
    id title languages createdAt updatedAt permissions { view edit } urls { location }
  }`);

const restTranslation = (translation: FragmentOf<typeof TranslationSettingsFields>) => ({
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

export const translationRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/translations",
    action: "translation.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListTranslations($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          translations(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...TranslationSettingsFields } }
        }
      }`,
      [TranslationSettingsFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.translations, restTranslation),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/translations",
    action: "translation.manage",
    document: graphql(
      `mutation CreateTranslation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { ...TranslationSettingsFields } } }`,
      [TranslationSettingsFields],
    ),
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, ...settingsOf(body) } }),
    status: 201,
    body: (data) => restTranslation(data.createTranslation.translation),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.read",
    document: graphql(
      `query GetTranslation($organization: ID!, $id: ID!) { organization(id: $organization) { translation(id: $id) { ...TranslationSettingsFields } } }`,
      [TranslationSettingsFields],
    ),
    variables: ({ params }) => ({ organization: params.organizationId, id: params.translationId }),
    status: 200,
    body: (data) => restTranslation(data.organization.translation),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.manage",
    document: graphql(
      `mutation PutTranslation($input: UpdateTranslationInput!) { updateTranslation(input: $input) { translation { ...TranslationSettingsFields } } }`,
      [TranslationSettingsFields],
    ),
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, id: params.translationId, ...settingsOf(body) } }),
    status: 200,
    body: (data) => restTranslation(data.updateTranslation.translation),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/translations/:translationId",
    action: "translation.manage",
    document: graphql(`mutation DeleteTranslation($input: DeleteTranslationInput!) { deleteTranslation(input: $input) { deletedId } }`),
    variables: ({ params }) => ({ input: { organization: params.organizationId, id: params.translationId } }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/translations/:translationId/run",
    action: "translation.run",
    document: graphql(`mutation RunTranslation($input: RunTranslationInput!) { runTranslation(input: $input) { translation { id } } }`),
    variables: ({ params }) => ({ input: { organization: params.organizationId, translation: params.translationId } }),
    status: 204,
  }),
];
