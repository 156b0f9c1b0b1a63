// Permission routes of the published API (`…/permissions…`), for every kind of content that has
// them: `permissionRoutes` builds the rows of one kind from its path and GraphQL names, as
// comments.ts does for its two bases. Invite answers 204; update 204; remove 205, or 204 when
// the user or team had no grant there (the published statuses). `permission` is the effective
// role on the item (users) or the highest grant (teams); GraphQL also says where it comes from.
// Sites live under their organization's path (`/v1/orgs/{organizationId}/sites/{siteId}`): their
// rows pass the organization along (another organization's site is 404), and their aggregate
// says where each user's role comes from (`origin`, `disabled`), as the published
// `UserSitePermission` has it.
import { print } from "graphql";
import { ROLES } from "../../src/core/auth/roles.ts";
import { ACCESS_SORTS } from "../../src/core/grants/index.ts";
import type { FragmentOf } from "../graphql.ts";
import {
  builtRoute,
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
import { restTeam, TeamFields } from "./team-fields.ts";

export interface PermissionRoutesOf {
  /** The item's path: `/v1/spaces/:spaceId`. */
  prefix: string;
  /** The path parameter holding the item's id. */
  param: string;
  /** The path parameter naming the item's organization, when the path has one (sites). */
  organizationParam?: string;
  /** The aggregate's items carry `origin` and `disabled` (sites). */
  origins?: boolean;
  /** The GraphQL root field and input field naming the item: `space`. */
  field: string;
  /** The GraphQL type name: `Space` (mutations `setSpaceGrant`, `inviteToSpace`). */
  typeName: "Space" | "Collection" | "Site";
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
type Source = { kind: "ORGANIZATION" | "DEFAULT_LEVEL" | "USER" | "TEAM"; team: { id: string } | null };
type TeamPermission = { role: string | null; team: FragmentOf<typeof TeamFields> };
/** `data` of an operation on the item: its root field (`space`, `collection`…) holds `Selection`. */
type OnItem<Selection> = Record<string, Selection>;

const restUserPermission = (node: UserPermission) => ({ permission: restEnum(node.role), user: restUser(node.user) });

/**
 * The published `UserSitePermissionOrigin` of a user's role on a site, from its highest source:
 * the organization role, or a grant on the site to the user (`member`) or to a team (`team`).
 * Only enabled members are listed, so `disabled` is false.
 */
function restSitePermission(node: UserPermission & { sources: Source[] }, organizationId: string, siteId: string) {
  const [source] = node.sources;
  const origin =
    source?.kind === "USER" || source?.kind === "TEAM"
      ? { type: "site", site: siteId, reason: source.kind === "USER" ? "member" : "team", ...(source.team ? { team: source.team.id } : {}) }
      : source?.kind === "DEFAULT_LEVEL"
        ? { type: "site", site: siteId, reason: "default" }
        : { type: "organization", organization: organizationId };
  return Object.assign(restUserPermission(node), { origin, disabled: false });
}

const USER_SITE_PERMISSIONS =
  "totalCount pageInfo { ...ListInfo } nodes { role user { ...UserFields } sources { kind team { id } } lastSeenAt }";

/** The aggregate of a space or collection: everyone with access, `role` filters the effective role; by user id. */
function aggregateRoute(of: PermissionRoutesOf): RestRoute {
  const { prefix, param, field, typeName } = of;
  return builtRoute<OnItem<{ usersWithAccess: Connection<UserPermission> }>>({
    method: "GET",
    path: `${prefix}/permissions/aggregate`,
    action: of.listPermissions,
    query: { ...LIST_QUERY, role: "string" },
    document: /* GraphQL */ `
      query ListPermissionsAggregateIn${typeName}($id: ID!, $first: Int, $after: String, $role: MemberRole) {
        ${field}(id: $id) { usersWithAccess(first: $first, after: $after, role: $role) { ${USER_PERMISSIONS} } }
      }
      ${USER_FIELDS}`,
    variables: (request) => ({
      id: request.params[param],
      ...pageVariables(request.query),
      role: request.query.role === undefined ? undefined : roleIn("role", request.query.role),
    }),
    status: 200,
    body: (data) => listBody(data[field].usersWithAccess, restUserPermission),
  });
}

/**
 * The aggregate of a site (`listPermissionsAggregateInSite`): its published parameters `order`
 * (`listOrder`, default desc), `role` (`memberRoleFilter`: a role, or `guest`), `search`
 * (`memberSearch`), `sort` (`memberSort`, default joinedAt) and `team`; each item says where its
 * role comes from, and when the user was last seen.
 */
function siteAggregateRoute(of: PermissionRoutesOf): RestRoute {
  const { prefix, param, field, typeName, organizationParam } = of;
  return builtRoute<
    OnItem<{
      id: string;
      organization: { id: string };
      usersWithAccess: Connection<UserPermission & { sources: Source[]; lastSeenAt: string | null }>;
    }>
  >({
    method: "GET",
    path: `${prefix}/permissions/aggregate`,
    action: of.listPermissions,
    query: { ...LIST_QUERY, order: "string", role: "string", search: "string", sort: "string", team: "string" },
    document: /* GraphQL */ `
      query ListPermissionsAggregateIn${typeName}(
        $id: ID!, $organization: ID, $first: Int, $after: String,
        $role: MemberRoleFilter, $search: String, $team: ID, $sort: AccessSort, $order: ListOrder
      ) {
        ${field}(id: $id, organization: $organization) {
          id organization { id }
          usersWithAccess(first: $first, after: $after, role: $role, search: $search, team: $team, sort: $sort, order: $order) {
            ${USER_SITE_PERMISSIONS}
          }
        }
      }
      ${USER_FIELDS}`,
    variables: ({ params, query }) => ({
      id: params[param],
      organization: organizationParam ? params[organizationParam] : undefined,
      ...pageVariables(query),
      role: query.role === undefined ? undefined : graphqlEnum("role", query.role, [...ROLES, "guest"]),
      search: query.search,
      team: query.team,
      sort: query.sort === undefined ? undefined : graphqlEnum("sort", query.sort, ACCESS_SORTS),
      order: query.order === undefined ? undefined : graphqlEnum("order", query.order, ["asc", "desc"]),
    }),
    status: 200,
    body: (data) => {
      const item = data[field];
      return listBody(item.usersWithAccess, (node) => ({
        ...restSitePermission(node, item.organization.id, item.id),
        ...(node.lastSeenAt ? { lastSeenAt: node.lastSeenAt } : {}),
      }));
    },
  });
}

export function permissionRoutes(of: PermissionRoutesOf): RestRoute[] {
  const { prefix, param, field, typeName, organizationParam } = of;
  const PERMISSIONS = `${prefix}/permissions`;
  const id = ({ params }: RestRequest) => params[param];
  /** The organization the path names (sites), as GraphQL takes it: variables and input fields. */
  const organization = ({ params }: RestRequest) => (organizationParam ? { organization: params[organizationParam] } : {});
  const organizationArg = organizationParam ? ", $organization: ID" : "";
  const onItem = (selection: string) => `${field}(id: $id${organizationParam ? ", organization: $organization" : ""}) { ${selection} }`;
  /** PATCH and DELETE of one user's or team's grant: `setXGrant` with the subject named by the path. */
  const setGrant = (subject: "user" | "team", method: "PATCH" | "DELETE"): RestRoute => {
    const name = subject === "user" ? "User" : "Team";
    const idParam = subject === "user" ? "userId" : "teamId";
    return builtRoute<OnItem<{ previousRole: string | null }>>({
      method,
      path: `${PERMISSIONS}/${subject}s/:${idParam}`,
      action: of.grant,
      document: /* GraphQL */ `
        mutation ${method === "PATCH" ? "Update" : "Remove"}${name}PermissionIn${typeName}($input: Set${typeName}GrantInput!) {
          set${typeName}Grant(input: $input) { previousRole }
        }`,
      variables: (request) => ({
        input: {
          [field]: id(request),
          ...organization(request),
          [subject]: request.params[idParam],
          role: method === "PATCH" ? requiredRole(request.body) : null,
        },
      }),
      status: 204,
      ...(method === "DELETE" ? { statusOf: (data) => (data[`set${typeName}Grant`].previousRole ? 205 : 204) } : {}),
    });
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
          ...organization(request),
          role: requiredRole(request.body),
          users: idList("users", request.body.users),
          teams: idList("teams", request.body.teams),
        },
      }),
      status: 204,
    },
    builtRoute<OnItem<{ userPermissions: Connection<UserPermission> }>>({
      method: "GET",
      path: `${PERMISSIONS}/users`,
      action: of.listPermissions,
      query: LIST_QUERY,
      document: /* GraphQL */ `
        query ListUserPermissionsIn${typeName}($id: ID!${organizationArg}, $first: Int, $after: String) {
          ${onItem(`userPermissions(first: $first, after: $after) { ${USER_PERMISSIONS} }`)}
        }
        ${USER_FIELDS}`,
      variables: (request) => ({ id: id(request), ...organization(request), ...pageVariables(request.query) }),
      status: 200,
      body: (data) => listBody(data[field].userPermissions, restUserPermission),
    }),
    setGrant("user", "PATCH"),
    setGrant("user", "DELETE"),
    builtRoute<OnItem<{ teamPermissions: Connection<TeamPermission> }>>({
      method: "GET",
      path: `${PERMISSIONS}/teams`,
      action: of.listPermissions,
      query: LIST_QUERY,
      document: /* GraphQL */ `
        query ListTeamPermissionsIn${typeName}($id: ID!${organizationArg}, $first: Int, $after: String) {
          ${onItem(`teamPermissions(first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { role team { ...TeamFields } }
          }`)}
        }
        ${TEAM_FIELDS}`,
      variables: (request) => ({ id: id(request), ...organization(request), ...pageVariables(request.query) }),
      status: 200,
      body: (data) => listBody(data[field].teamPermissions, (node) => ({ permission: restEnum(node.role), team: restTeam(node.team) })),
    }),
    setGrant("team", "PATCH"),
    setGrant("team", "DELETE"),
    of.origins ? siteAggregateRoute(of) : aggregateRoute(of),
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
  ...permissionRoutes({
    prefix: "/v1/orgs/:organizationId/sites/:siteId",
    param: "siteId",
    organizationParam: "organizationId",
    origins: true,
    field: "site",
    typeName: "Site",
    grant: "site.grant",
    listPermissions: "site.listPermissions",
  }),
];
