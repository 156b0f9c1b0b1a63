// /v1/collections routes and the organization's collection list.
import { ROLES } from "../../src/auth/roles.ts";
import { compact, graphqlEnum, listBody, pageVariables, present, restEnum, type RestRoute } from "../route.ts";
import { SPACE_FIELDS, restSpace } from "./spaces.ts";

export const COLLECTION_FIELDS = /* GraphQL */ `
  fragment CollectionFields on Collection {
    id title description defaultLevel
    organization { id }
    parent { id }
    urls { location app }
    permissions { view admin viewInviteLinks create }
  }`;

export function restCollection(c: any) {
  return {
    object: "collection",
    ...compact({ id: c.id, title: c.title, description: c.description, parent: c.parent?.id }),
    organization: c.organization.id,
    defaultLevel: restEnum(c.defaultLevel),
    urls: c.urls,
    permissions: c.permissions,
  };
}

/** `defaultLevel` in a REST body: a role, "inherit" or null (both inherit). */
export const defaultLevelInput = (value: unknown) =>
  value === "inherit" ? null : graphqlEnum("defaultLevel", value, [...ROLES, "inherit"]);

/** REST position pointers (`{ type: "space", space }`, `{ type: "collection", collection }`) → ids. */
export function positionInput(position: unknown) {
  if (typeof position !== "object" || position === null) return position;
  const pointer = (value: any) =>
    value && typeof value === "object" && typeof (value.space ?? value.collection) === "string" ? (value.space ?? value.collection) : value;
  const { before, after } = position as Record<string, unknown>;
  return compact({ before: pointer(before), after: pointer(after) });
}

const collectionPayload = (name: string) => (data: any) => restCollection(data[name].collection);

export const collectionRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/collections/:collectionId",
    action: "collection.read",
    document: /* GraphQL */ `
      query GetCollection($id: ID!) { collection(id: $id) { ...CollectionFields } }
      ${COLLECTION_FIELDS}`,
    variables: ({ params }) => ({ id: params.collectionId }),
    status: 200,
    body: (data) => restCollection(data.collection),
  },
  {
    method: "DELETE",
    path: "/v1/collections/:collectionId",
    action: "collection.delete",
    document: /* GraphQL */ `
      mutation DeleteCollection($id: ID!) { deleteCollection(input: { id: $id }) { deletedCollectionId } }`,
    variables: ({ params }) => ({ id: params.collectionId }),
    status: 205,
  },
  {
    method: "PATCH",
    path: "/v1/collections/:collectionId",
    action: "collection.update",
    document: /* GraphQL */ `
      mutation UpdateCollection($input: UpdateCollectionInput!) {
        updateCollection(input: $input) { collection { ...CollectionFields } }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ params, body }) => ({
      input: {
        id: params.collectionId,
        ...present(body, ["title", "description"]),
        ...("defaultLevel" in body ? { defaultLevel: defaultLevelInput(body.defaultLevel) } : {}),
      },
    }),
    status: 200,
    body: collectionPayload("updateCollection"),
  },
  {
    method: "GET",
    path: "/v1/collections/:collectionId/spaces",
    action: "collection.read",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListCollectionSpaces($id: ID!, $first: Int, $after: String) {
        collection(id: $id) {
          spaces(first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...SpaceFields }
          }
        }
      }
      ${SPACE_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.collectionId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.collection.spaces, restSpace),
  },
  {
    method: "POST",
    path: "/v1/collections/:collectionId/move",
    action: "collection.move",
    document: /* GraphQL */ `
      mutation MoveCollection($input: MoveCollectionInput!) {
        moveCollection(input: $input) { collection { ...CollectionFields } }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ params, body }) => ({
      input: { id: params.collectionId, ...present(body, ["parent"]), position: positionInput(body.position) },
    }),
    status: 200,
    body: collectionPayload("moveCollection"),
  },
  {
    method: "POST",
    path: "/v1/collections/:collectionId/transfer",
    action: "collection.transfer",
    document: /* GraphQL */ `
      mutation TransferCollection($input: TransferCollectionInput!) {
        transferCollection(input: $input) { collection { ...CollectionFields } }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ params, body }) => ({ input: { id: params.collectionId, organization: body.organization } }),
    status: 200,
    body: collectionPayload("transferCollection"),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/collections",
    action: "organization.read",
    query: { page: "string", limit: "limit", nested: "boolean" },
    document: /* GraphQL */ `
      query ListOrganizationCollections($id: ID!, $first: Int, $after: String, $nested: Boolean) {
        organization(id: $id) {
          collections(first: $first, after: $after, nested: $nested) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...CollectionFields }
          }
        }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.organizationId, nested: query.nested ?? true, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.collections, restCollection),
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/collections",
    action: "organization.createContent",
    document: /* GraphQL */ `
      mutation CreateCollection($input: CreateCollectionInput!) {
        createCollection(input: $input) { collection { ...CollectionFields } }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, ...present(body, ["title", "parent"]) } }),
    status: 201,
    body: collectionPayload("createCollection"),
  },
];
