// /v1/spaces routes and the organization's space list and creation.
import { SPACE_EDIT_MODES } from "../../src/core/spaces/index.ts";
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, graphqlEnum, ListInfo, listBody, pageVariables, present, restEnum, typedRoute, type RestRoute } from "../route.ts";
import { defaultLevelInput, positionInput } from "./content-tree-fields.ts";

export const SpaceFields = graphql(`
  fragment SpaceFields on Space {
    id title emoji visibility createdAt updatedAt deletedAt editMode revision defaultLevel mergeRules
    organization { id }
    parent { id }
    comments: openCommentCount changeRequests: changeRequestCount
    changeRequestsOpen: openChangeRequestCount changeRequestsDraft: draftChangeRequestCount
    urls { location app published public icon }
    permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review installIntegration }
  }`);

type SpaceData = FragmentOf<typeof SpaceFields>;
type RestSpace = Omit<
  Partial<SpaceData>,
  "organization" | "parent" | "urls" | "visibility" | "editMode" | "defaultLevel" | "mergeRules"
> & {
  object: "space";
  visibility: string | null;
  editMode: string | null;
  defaultLevel: string | null;
  organization: string;
  parent?: string;
  urls: Partial<SpaceData["urls"]>;
  mergeRules: SpaceData["mergeRules"];
};

/**
 * A space's REST shape: its fields without the nulls (optional REST fields are absent), enums in
 * their REST spelling, `organization` and `parent` as ids, `urls` without its nulls. Written as one
 * pass that fills one object (issue 15: it runs for every item of a list, where spreading and
 * compacting copied each space five times); the keys come in the order they always had: the
 * selection's order, then what is set after it (a null `defaultLevel` or `mergeRules`, then
 * `organization`, `parent`, `urls`).
 */
export function restSpace(s: SpaceData): RestSpace {
  const item: Record<string, unknown> = { object: "space" };
  for (const key in s) {
    const value = s[key as keyof SpaceData];
    if (value != null && key !== "organization" && key !== "parent" && key !== "urls") item[key] = value;
  }
  item.visibility = restEnum(s.visibility);
  item.editMode = restEnum(s.editMode);
  item.defaultLevel = restEnum(s.defaultLevel);
  item.organization = s.organization.id;
  if (s.parent?.id != null) item.parent = s.parent.id;
  item.urls = compact(s.urls);
  item.mergeRules = s.mergeRules;
  return item as unknown as RestSpace;
}

export const spaceRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId",
    action: "space.read",
    // shareKey: an active share link of a site showing the space; urls.published is then that
    // site's URL of the space, carrying the key (400 for any other key).
    query: { shareKey: "string" },
    document: graphql(`query GetSpace($id: ID!, $shareKey: String) { space(id: $id, shareKey: $shareKey) { ...SpaceFields } }`, [
      SpaceFields,
    ]),
    variables: ({ params, query }) => ({ id: params.spaceId, shareKey: query.shareKey as string | undefined }),
    status: 200,
    body: (data) => restSpace(data.space),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/spaces/:spaceId",
    action: "space.delete",
    document: graphql(`mutation DeleteSpace($id: ID!) { deleteSpace(input: { id: $id }) { deletedSpaceId } }`),
    variables: ({ params }) => ({ id: params.spaceId }),
    status: 205,
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/spaces/:spaceId",
    action: "space.rename",
    document: graphql(`mutation UpdateSpace($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { ...SpaceFields } } }`, [
      SpaceFields,
    ]),
    variables: ({ params, body }) => ({
      input: {
        id: params.spaceId,
        ...present(body, ["title", "emoji", "mergeRules"]),
        ...("editMode" in body ? { editMode: graphqlEnum("editMode", body.editMode, SPACE_EDIT_MODES) } : {}),
        ...("defaultLevel" in body ? { defaultLevel: defaultLevelInput(body.defaultLevel) } : {}),
      },
    }),
    status: 200,
    body: (data) => restSpace(data.updateSpace.space),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/duplicate",
    action: "space.duplicate",
    document: graphql(
      `mutation DuplicateSpace($input: DuplicateSpaceInput!) { duplicateSpace(input: $input) { space { ...SpaceFields } } }`,
      [SpaceFields],
    ),
    variables: ({ params }) => ({ input: { id: params.spaceId } }),
    status: 201,
    body: (data) => restSpace(data.duplicateSpace.space),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/restore",
    action: "space.restore",
    document: graphql(`mutation RestoreSpace($input: RestoreSpaceInput!) { restoreSpace(input: $input) { space { ...SpaceFields } } }`, [
      SpaceFields,
    ]),
    variables: ({ params }) => ({ input: { id: params.spaceId } }),
    status: 200,
    body: (data) => restSpace(data.restoreSpace.space),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/move",
    action: "space.move",
    document: graphql(`mutation MoveSpace($input: MoveSpaceInput!) { moveSpace(input: $input) { space { ...SpaceFields } } }`, [
      SpaceFields,
    ]),
    variables: ({ params, body }) => ({
      input: { id: params.spaceId, ...present(body, ["parent"]), position: positionInput(body.position) },
    }),
    status: 200,
    body: (data) => restSpace(data.moveSpace.space),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/transfer",
    action: "space.transfer",
    document: graphql(`mutation TransferSpace($input: TransferSpaceInput!) { transferSpace(input: $input) { space { ...SpaceFields } } }`, [
      SpaceFields,
    ]),
    variables: ({ params, body }) => ({ input: { id: params.spaceId, organization: body.organization } }),
    status: 200,
    body: (data) => restSpace(data.transferSpace.space),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/spaces",
    action: "organization.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListOrganizationSpaces($id: ID!, $first: Int, $after: String) {
        organization(id: $id) { spaces(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...SpaceFields } } }
      }`,
      [SpaceFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.spaces, restSpace),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/spaces",
    action: "organization.createContent",
    document: graphql(`mutation CreateSpace($input: CreateSpaceInput!) { createSpace(input: $input) { space { ...SpaceFields } } }`, [
      SpaceFields,
    ]),
    variables: ({ params, body }) => ({
      input: {
        organization: params.organizationId,
        ...present(body, ["title", "emoji", "parent"]),
        ...("editMode" in body ? { editMode: graphqlEnum("editMode", body.editMode, SPACE_EDIT_MODES) } : {}),
      },
    }),
    status: 201,
    body: (data) => restSpace(data.createSpace.space),
  }),
];
