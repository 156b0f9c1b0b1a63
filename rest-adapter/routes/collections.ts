// /v1/collections routes and the organization's collection list.
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, ListInfo, listBody, pageVariables, present, restEnum, typedRoute, type RestRoute } from "../route.ts";
import { restSpace, SpaceFields } from "./spaces.ts";
import { defaultLevelInput, positionInput } from "./content-tree-fields.ts";

export const CollectionFields = graphql(`
  fragment CollectionFields on Collection {
    id title description defaultLevel
    organization { id }
    parent { id }
    urls { location app }
    permissions { view admin viewInviteLinks create }
  }`);

export function restCollection(c: FragmentOf<typeof CollectionFields>) {
  return {
    object: "collection",
    ...compact({ id: c.id, title: c.title, description: c.description, parent: c.parent?.id }),
    organization: c.organization.id,
    defaultLevel: restEnum(c.defaultLevel),
    urls: c.urls,
    permissions: c.permissions,
  };
}

export const collectionRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/collections/:collectionId",
    action: "collection.read",
    document: graphql(`query GetCollection($id: ID!) { collection(id: $id) { ...CollectionFields } }`, [CollectionFields]),
    variables: ({ params }) => ({ id: params.collectionId }),
    status: 200,
    body: (data) => restCollection(data.collection),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/collections/:collectionId",
    action: "collection.delete",
    document: graphql(`
      mutation DeleteCollection($id: ID!) { deleteCollection(input: { id: $id }) { deletedCollectionId } }`),
    variables: ({ params }) => ({ id: params.collectionId }),
    status: 205,
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/collections/:collectionId",
    action: "collection.update",
    document: graphql(
      `mutation UpdateCollection($input: UpdateCollectionInput!) {
        updateCollection(input: $input) { collection { ...CollectionFields } }
      }`,
      [CollectionFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        id: params.collectionId,
        ...present(body, ["title", "description"]),
        ...("defaultLevel" in body ? { defaultLevel: defaultLevelInput(body.defaultLevel) } : {}),
      },
    }),
    status: 200,
    body: (data) => restCollection(data.updateCollection.collection),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/collections/:collectionId/spaces",
    action: "collection.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListCollectionSpaces($id: ID!, $first: Int, $after: String) {
        collection(id: $id) {
          spaces(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...SpaceFields } }
        }
      }`,
      [SpaceFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.collectionId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.collection.spaces, restSpace),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/collections/:collectionId/move",
    action: "collection.move",
    document: graphql(
      `mutation MoveCollection($input: MoveCollectionInput!) {
        moveCollection(input: $input) { collection { ...CollectionFields } }
      }`,
      [CollectionFields],
    ),
    variables: ({ params, body }) => ({
      input: { id: params.collectionId, ...present(body, ["parent"]), position: positionInput(body.position) },
    }),
    status: 200,
    body: (data) => restCollection(data.moveCollection.collection),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/collections/:collectionId/transfer",
    action: "collection.transfer",
    document: graphql(
      `mutation TransferCollection($input: TransferCollectionInput!) {
        transferCollection(input: $input) { collection { ...CollectionFields } }
      }`,
      [CollectionFields],
    ),
    variables: ({ params, body }) => ({ input: { id: params.collectionId, organization: body.organization } }),
    status: 200,
    body: (data) => restCollection(data.transferCollection.collection),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/collections",
    action: "organization.read",
    query: { page: "string", limit: "limit", nested: "boolean" },
    document: graphql(
      `query ListOrganizationCollections($id: ID!, $first: Int, $after: String, $nested: Boolean) {
        organization(id: $id) {
          collections(first: $first, after: $after, nested: $nested) { totalCount pageInfo { ...ListInfo } nodes { ...CollectionFields } }
        }
      }`,
      [CollectionFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, nested: query.nested, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.collections, restCollection),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/collections",
    action: "organization.createContent",
    document: graphql(
      `mutation CreateCollection($input: CreateCollectionInput!) {
        createCollection(input: $input) { collection { ...CollectionFields } }
      }`,
      [CollectionFields],
    ),
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, ...present(body, ["title", "parent"]) } }),
    status: 201,
    body: (data) => restCollection(data.createCollection.collection),
  }),
];
