// /v1/orgs/{organizationId}/fonts routes: the published custom-fonts operations (list, create with
// PUT, read, update with POST answering 201, delete answering 205). A face's `storageKey` is the
// URL of its file here (src/core/fonts); the answer is the published CustomizationFontDefinition.
import { quote } from "../../src/core/errors.ts";
import { FONT_FACES_MAX, FONT_WEIGHT_MAX, FONT_WEIGHT_MIN } from "../../src/core/fonts/faces.ts";
import { graphql, type FragmentOf } from "../graphql.ts";
import { listBody, ListInfo, pageVariables, RestInputError, type RestRequest, type RestRoute, restEnum, typedRoute } from "../route.ts";

const CustomFontFields = graphql(`
  fragment CustomFontFields on CustomFont {
    id
    custom
    fontFamily
    fontFaces {
      weight
      sources {
        url
        format
      }
    }
    permissions {
      edit
    }
  }
`);

const restFont = (font: FragmentOf<typeof CustomFontFields>) => ({
  id: font.id,
  custom: font.custom,
  fontFamily: font.fontFamily,
  fontFaces: font.fontFaces.map((face) => ({
    weight: face.weight,
    sources: face.sources.map((source) => (source.format ? { url: source.url, format: restEnum(source.format) } : { url: source.url })),
  })),
  permissions: font.permissions,
});

/** The body's fields as the operation's input: types checked here (so the message names the field), rules in the core. */
function fontOf(body: RestRequest["body"], creating: boolean) {
  const input: {
    fontFamily?: string;
    fontFaces?: { weight: number; storageKey: string | null }[];
  } = {};
  if (body.fontFamily != null || creating) {
    if (body.fontFamily == null) throw new RestInputError("fontFamily is required");
    if (typeof body.fontFamily !== "string") throw new RestInputError("fontFamily must be a string");
    input.fontFamily = body.fontFamily;
  }
  if (body.fontFaces != null || creating) {
    if (body.fontFaces == null) throw new RestInputError("fontFaces is required");
    if (!Array.isArray(body.fontFaces)) throw new RestInputError("fontFaces must be a list of faces ({ weight, storageKey })");
    if (body.fontFaces.length > FONT_FACES_MAX)
      throw new RestInputError(`fontFaces: at most ${FONT_FACES_MAX} faces (got ${body.fontFaces.length})`);
    input.fontFaces = body.fontFaces.map((face: unknown, index) => {
      const field = `fontFaces[${index}]`;
      if (typeof face !== "object" || face === null || Array.isArray(face))
        throw new RestInputError(`${field} must be an object { weight, storageKey }`);
      const { weight, storageKey } = face as Record<string, unknown>;
      // GraphQL's Int holds 32 bits: a weight beyond is refused here with the core's words.
      if (typeof weight !== "number" || !Number.isInteger(weight) || Math.abs(weight) > 2 ** 31 - 1) {
        throw new RestInputError(
          `${field}.weight must be a whole number from ${FONT_WEIGHT_MIN} to ${FONT_WEIGHT_MAX} (got ${quote(weight)})`,
        );
      }
      if (!(typeof storageKey === "string" || (storageKey === null && !creating))) {
        throw new RestInputError(
          `${field}.storageKey must be the URL of the font file (a string${creating ? "" : ", or null to remove the weight"})`,
        );
      }
      return { weight, storageKey: storageKey as string | null };
    });
  }
  return input;
}

const location = (body: { id: string }, request: RestRequest) => `/orgs/${request.params.organizationId}/fonts/${body.id}`;

export const fontRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/fonts",
    action: "font.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `
        query ListCustomFonts($id: ID!, $first: Int, $after: String) {
          organization(id: $id) {
            customFonts(first: $first, after: $after) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...CustomFontFields
              }
            }
          }
        }
      `,
      [CustomFontFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      ...pageVariables(query),
    }),
    status: 200,
    body: (data) => listBody(data.organization.customFonts, restFont),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/fonts",
    action: "font.manage",
    document: graphql(
      `
        mutation CreateCustomFont($input: CreateCustomFontInput!) {
          createCustomFont(input: $input) {
            font {
              ...CustomFontFields
            }
          }
        }
      `,
      [CustomFontFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        organization: params.organizationId,
        ...(fontOf(body, true) as Required<ReturnType<typeof fontOf>>),
      },
    }),
    status: 201,
    body: (data) => restFont(data.createCustomFont.font),
    location,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/fonts/:fontId",
    action: "font.read",
    document: graphql(
      `
        query GetCustomFont($organization: ID!, $id: ID!) {
          organization(id: $organization) {
            customFont(id: $id) {
              ...CustomFontFields
            }
          }
        }
      `,
      [CustomFontFields],
    ),
    variables: ({ params }) => ({
      organization: params.organizationId,
      id: params.fontId,
    }),
    status: 200,
    body: (data) => restFont(data.organization.customFont),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/fonts/:fontId",
    action: "font.manage",
    document: graphql(
      `
        mutation UpdateCustomFont($input: UpdateCustomFontInput!) {
          updateCustomFont(input: $input) {
            font {
              ...CustomFontFields
            }
          }
        }
      `,
      [CustomFontFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        organization: params.organizationId,
        id: params.fontId,
        ...fontOf(body, false),
      },
    }),
    // The published API answers an update with 201.
    status: 201,
    body: (data) => restFont(data.updateCustomFont.font),
    location,
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/fonts/:fontId",
    action: "font.manage",
    document: graphql(`
      mutation DeleteCustomFont($input: DeleteCustomFontInput!) {
        deleteCustomFont(input: $input) {
          deletedId
        }
      }
    `),
    variables: ({ params }) => ({
      input: { organization: params.organizationId, id: params.fontId },
    }),
    status: 205,
  }),
];
