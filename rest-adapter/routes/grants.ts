// Permission routes of the published API (`…/permissions…`), for every kind of content that has
// them: `permissionRoutes` builds the rows of one kind from its path and GraphQL names, as
// comments.ts does for its two bases. Invite answers 204; update 204; remove 205, or 204 when
// the user or team had no grant there (the published statuses). `permission` is the effective
// role on the item (users) or the highest grant (teams); GraphQL also says where it comes from.
import { print } from "graphql";
import { ROLES } from "../../src/auth/roles.ts";
import type { FragmentOf } from "../graphql.ts";
import {
  type Connection,
  graphqlEnum,
  ListInfo,
  listBody,
  pageVariables,
  RestInputError,
  restEnum,
  type RestRequest,
  type RestRoute,
} from "../route.ts";
import { restUser, UserFields } from "./members.ts";
import { restTeam, TeamFields } from "./teams.ts";

export interface PermissionRoutesOf {
  /** The item's path: `/v1/spaces/:spaceId`. */
  prefix: string;
  /** The path parameter holding the item's id. */
  param: string;
  /** The GraphQL root field and input field naming the item: `space`. */
  field: string;
  /** The GraphQL type name: `Space` (mutations `setSpaceGrant`, `inviteToSpace`). */
  typeName: string;
  /** The operations of the permission matrix: `space.grant`, `space.listPermissions`. */
  grant: RestRoute["action"];
  listPermissions: RestRoute["action"];
}

const LIST_QUERY = { page: "string", limit: "limit" } as const;

const roleIn = (field: string, value: unknown) => graphqlEnum(field, value, ROLES);

/** A list of ids (or e-mails) in a body; absent stays absent. */
function idList(field: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) throw new RestInputError(`${field} must be a list of ids`);
  return value as string[];
}

/** `role` of a body: required; null (guest) removes a grant. */
function requiredRole(body: RestRequest["body"]) {
  if (!("role" in body)) throw new RestInputError(`role is required: one of ${ROLES.join(", ")}, or null to remove the grant`);
  return roleIn("role", body.role);
}

// The documents below are built per kind of item, so gql.tada cannot read their result types; these
// are written from their selections instead.
const USER_FIELDS = `${print(UserFields)}\n${print(ListInfo)}`;
const TEAM_FIELDS = `${print(TeamFields)}\n${print(ListInfo)}`;
const USER_PERMISSIONS = "totalCount pageInfo { ...ListInfo } nodes { role user { ...UserFields } }";
type UserPermission = { role: string | null; user: FragmentOf<typeof UserFields> };
type TeamPermission = { role: string | null; team: FragmentOf<typeof TeamFields> };
/** `data` of an operation on the item: its root field (`space`, `collection`…) holds `Selection`. */
type OnItem<Selection> = Record<string, Selection>;

const restUserPermission = (node: UserPermission) => ({ permission: restEnum(node.role), user: restUser(node.user) });

export function permissionRoutes(of: PermissionRoutesOf): RestRoute[] {
  const { prefix, param, field, typeName } = of;
  const PERMISSIONS = `${prefix}/permissions`;
  const id = ({ params }: RestRequest) => params[param];
  const onItem = (selection: string) => `${field}(id: $id) { ${selection} }`;
  /** PATCH and DELETE of one user's or team's grant: `setXGrant` with the subject named by the path. */
  const setGrant = (subject: "user" | "team", method: "PATCH" | "DELETE"): RestRoute => {
    const name = subject === "user" ? "User" : "Team";
    const idParam = subject === "user" ? "userId" : "teamId";
    return {
      method,
      path: `${PERMISSIONS}/${subject}s/:${idParam}`,
      action: of.grant,
      document: /* GraphQL */ `
        mutation ${method === "PATCH" ? "Update" : "Remove"}${name}PermissionIn${typeName}($input: Set${typeName}GrantInput!) {
          set${typeName}Grant(input: $input) { previousRole }
        }`,
      variables: (request) => ({
        input: { [field]: id(request), [subject]: request.params[idParam], role: method === "PATCH" ? requiredRole(request.body) : null },
      }),
      status: 204,
      ...(method === "DELETE"
        ? { statusOf: (data: OnItem<{ previousRole: string | null }>) => (data[`set${typeName}Grant`].previousRole ? 205 : 204) }
        : {}),
    };
  };

  return [
    {
      method: "POST",
      path: PERMISSIONS,
      action: of.grant,
      document: /* GraphQL */ `
        mutation InviteTo${typeName}($input: InviteTo${typeName}Input!) { inviteTo${typeName}(input: $input) { ${field} { id } } }`,
      variables: (request) => ({
        input: {
          [field]: id(request),
          role: requiredRole(request.body),
          users: idList("users", request.body.users),
          teams: idList("teams", request.body.teams),
        },
      }),
      status: 204,
    },
    {
      method: "GET",
      path: `${PERMISSIONS}/users`,
      action: of.listPermissions,
      query: LIST_QUERY,
      document: /* GraphQL */ `
        query ListUserPermissionsIn${typeName}($id: ID!, $first: Int, $after: String) {
          ${onItem(`userPermissions(first: $first, after: $after) { ${USER_PERMISSIONS} }`)}
        }
        ${USER_FIELDS}`,
      variables: (request) => ({ id: id(request), ...pageVariables(request.query) }),
      status: 200,
      body: (data: OnItem<{ userPermissions: Connection<UserPermission> }>) => listBody(data[field].userPermissions, restUserPermission),
    },
    setGrant("user", "PATCH"),
    setGrant("user", "DELETE"),
    {
      method: "GET",
      path: `${PERMISSIONS}/teams`,
      action: of.listPermissions,
      query: LIST_QUERY,
      document: /* GraphQL */ `
        query ListTeamPermissionsIn${typeName}($id: ID!, $first: Int, $after: String) {
          ${onItem(`teamPermissions(first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { role team { ...TeamFields } }
          }`)}
        }
        ${TEAM_FIELDS}`,
      variables: (request) => ({ id: id(request), ...pageVariables(request.query) }),
      status: 200,
      body: (data: OnItem<{ teamPermissions: Connection<TeamPermission> }>) =>
        listBody(data[field].teamPermissions, (node) => ({ permission: restEnum(node.role), team: restTeam(node.team) })),
    },
    setGrant("team", "PATCH"),
    setGrant("team", "DELETE"),
    {
      method: "GET",
      path: `${PERMISSIONS}/aggregate`,
      action: of.listPermissions,
      query: { ...LIST_QUERY, role: "string" },
      document: /* GraphQL */ `
        query ListPermissionsAggregateIn${typeName}($id: ID!, $first: Int, $after: String, $role: MemberRole) {
          ${onItem(`usersWithAccess(first: $first, after: $after, role: $role) { ${USER_PERMISSIONS} }`)}
        }
        ${USER_FIELDS}`,
      variables: (request) => ({
        id: id(request),
        ...pageVariables(request.query),
        role: request.query.role === undefined ? undefined : roleIn("role", request.query.role),
      }),
      status: 200,
      body: (data: OnItem<{ usersWithAccess: Connection<UserPermission> }>) => listBody(data[field].usersWithAccess, restUserPermission),
    },
  ];
}

export const grantRoutes: RestRoute[] = [
  ...permissionRoutes({
    prefix: "/v1/spaces/:spaceId",
    param: "spaceId",
    field: "space",
    typeName: "Space",
    grant: "space.grant",
    listPermissions: "space.listPermissions",
  }),
  ...permissionRoutes({
    prefix: "/v1/collections/:collectionId",
    param: "collectionId",
    field: "collection",
    typeName: "Collection",
    grant: "collection.grant",
    listPermissions: "collection.listPermissions",
  }),
];
