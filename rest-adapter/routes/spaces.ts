// /v1/spaces routes and the organization's space list and creation.
import { SPACE_EDIT_MODES } from "../../src/core/spaces/index.ts";
import { compact, graphqlEnum, listBody, pageVariables, present, restEnum, type RestRoute } from "../route.ts";
import { defaultLevelInput, positionInput } from "./collections.ts";

export const SPACE_FIELDS = /* GraphQL */ `
  fragment SpaceFields on Space {
    id title emoji visibility createdAt updatedAt deletedAt editMode revision defaultLevel mergeRules
    organization { id }
    parent { id }
    comments: openCommentCount changeRequests: changeRequestCount
    changeRequestsOpen: openChangeRequestCount changeRequestsDraft: draftChangeRequestCount
    urls { location app published public icon }
    permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review installIntegration }
  }`;

export function restSpace(s: any) {
  return {
    object: "space",
    ...compact({ ...s, organization: undefined, parent: undefined, urls: undefined }),
    visibility: restEnum(s.visibility),
    editMode: restEnum(s.editMode),
    defaultLevel: restEnum(s.defaultLevel),
    organization: s.organization.id,
    ...compact({ parent: s.parent?.id }),
    urls: compact(s.urls),
    mergeRules: s.mergeRules,
  };
}

const spacePayload = (name: string) => (data: any) => restSpace(data[name].space);

const spaceMutation = (name: string, inputType: string) => /* GraphQL */ `
  mutation ${name[0].toUpperCase()}${name.slice(1)}($input: ${inputType}!) {
    ${name}(input: $input) { space { ...SpaceFields } }
  }
  ${SPACE_FIELDS}`;

export const spaceRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/spaces/:spaceId",
    action: "space.read",
    // shareKey only matters for share-link sites, which do not exist yet; it is accepted.
    query: { shareKey: "string" },
    document: /* GraphQL */ `
      query GetSpace($id: ID!) { space(id: $id) { ...SpaceFields } }
      ${SPACE_FIELDS}`,
    variables: ({ params }) => ({ id: params.spaceId }),
    status: 200,
    body: (data) => restSpace(data.space),
  },
  {
    method: "DELETE",
    path: "/v1/spaces/:spaceId",
    action: "space.delete",
    document: /* GraphQL */ `mutation DeleteSpace($id: ID!) { deleteSpace(input: { id: $id }) { deletedSpaceId } }`,
    variables: ({ params }) => ({ id: params.spaceId }),
    status: 205,
  },
  {
    method: "PATCH",
    path: "/v1/spaces/:spaceId",
    action: "space.rename",
    document: spaceMutation("updateSpace", "UpdateSpaceInput"),
    variables: ({ params, body }) => ({
      input: {
        id: params.spaceId,
        ...present(body, ["title", "emoji", "mergeRules"]),
        ...("editMode" in body ? { editMode: graphqlEnum("editMode", body.editMode, SPACE_EDIT_MODES) } : {}),
        ...("defaultLevel" in body ? { defaultLevel: defaultLevelInput(body.defaultLevel) } : {}),
      },
    }),
    status: 200,
    body: spacePayload("updateSpace"),
  },
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/duplicate",
    action: "space.duplicate",
    document: spaceMutation("duplicateSpace", "DuplicateSpaceInput"),
    variables: ({ params }) => ({ input: { id: params.spaceId } }),
    status: 201,
    body: spacePayload("duplicateSpace"),
  },
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/restore",
    action: "space.restore",
    document: spaceMutation("restoreSpace", "RestoreSpaceInput"),
    variables: ({ params }) => ({ input: { id: params.spaceId } }),
    status: 200,
    body: spacePayload("restoreSpace"),
  },
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/move",
    action: "space.move",
    document: spaceMutation("moveSpace", "MoveSpaceInput"),
    variables: ({ params, body }) => ({
      input: { id: params.spaceId, ...present(body, ["parent"]), position: positionInput(body.position) },
    }),
    status: 200,
    body: spacePayload("moveSpace"),
  },
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/transfer",
    action: "space.transfer",
    document: spaceMutation("transferSpace", "TransferSpaceInput"),
    variables: ({ params, body }) => ({ input: { id: params.spaceId, organization: body.organization } }),
    status: 200,
    body: spacePayload("transferSpace"),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/spaces",
    action: "organization.read",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListOrganizationSpaces($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          spaces(first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...SpaceFields }
          }
        }
      }
      ${SPACE_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.spaces, restSpace),
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/spaces",
    action: "organization.createContent",
    document: spaceMutation("createSpace", "CreateSpaceInput"),
    variables: ({ params, body }) => ({
      input: {
        organization: params.organizationId,
        ...present(body, ["title", "emoji", "parent"]),
        ...("editMode" in body ? { editMode: graphqlEnum("editMode", body.editMode, SPACE_EDIT_MODES) } : {}),
      },
    }),
    status: 201,
    body: spacePayload("createSpace"),
  },
];
