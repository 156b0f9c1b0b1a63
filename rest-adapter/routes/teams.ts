// /v1/orgs/{organizationId}/teams routes: teams and their members.
import { graphql } from "../graphql.ts";
import { TEAM_MEMBER_ROLES } from "../../src/core/teams/index.ts";
import { graphqlEnum, listBody, ListInfo, pageVariables, present, restEnum, RestInputError, type RestRoute, typedRoute } from "../route.ts";
import { MemberFields, restMember } from "./members.ts";
import { restTeam, TeamFields } from "./team-fields.ts";

const teamRole = (field: string, value: unknown) => graphqlEnum(field, value, TEAM_MEMBER_ROLES);

/** A REST list of strings (user ids or e-mails); anything else is refused naming the field. */
function stringList(field: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new RestInputError(`${field} must be a list of user ids or e-mails`);
  }
  return value as string[];
}

/** REST `memberships` (`{ [userId]: { role } }`) → the operation's list of `{ user, role }`. */
function membershipsInput(value: unknown) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new RestInputError("memberships must be an object of user id → { role }");
  return Object.entries(value as Record<string, unknown>).map(([user, membership]) => {
    const role = membership && typeof membership === "object" ? (membership as { role?: unknown }).role : undefined;
    if (role === undefined) throw new RestInputError(`memberships.${user}.role is required: one of ${TEAM_MEMBER_ROLES.join(", ")}`);
    return { user, role: teamRole(`memberships.${user}.role`, role) };
  });
}

const teamPath = ({ params }: { params: Record<string, string> }) => ({ organization: params.organizationId, team: params.teamId });

export const teamRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/teams",
    action: "team.list",
    query: { page: "string", limit: "limit", title: "string", owner: "string" },
    document: graphql(
      `query ListTeams($id: ID!, $first: Int, $after: String, $title: String, $owner: ID) {
        organization(id: $id) {
          teams(first: $first, after: $after, title: $title, owner: $owner) { totalCount pageInfo { ...ListInfo } nodes { ...TeamFields } }
        }
      }`,
      [TeamFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query), title: query.title, owner: query.owner }),
    status: 200,
    body: (data) => listBody(data.organization.teams, restTeam),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/teams",
    action: "team.create",
    document: graphql(`mutation CreateTeam($input: CreateTeamInput!) { createTeam(input: $input) { team { ...TeamFields } } }`, [
      TeamFields,
    ]),
    variables: ({ params, body }) => {
      if (typeof body.title !== "string") throw new RestInputError("title is required: a string of 1 to 64 characters");
      return { input: { organization: params.organizationId, title: body.title, members: stringList("members", body.members) } };
    },
    status: 201,
    body: (data) => restTeam(data.createTeam.team),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/teams/:teamId",
    action: "team.read",
    document: graphql(`query GetTeam($id: ID!, $team: ID!) { organization(id: $id) { team(id: $team) { ...TeamFields } } }`, [TeamFields]),
    variables: ({ params }) => ({ id: params.organizationId, team: params.teamId }),
    status: 200,
    body: (data) => restTeam(data.organization.team),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId/teams/:teamId",
    action: "team.update",
    document: graphql(`mutation UpdateTeam($input: UpdateTeamInput!) { updateTeam(input: $input) { team { ...TeamFields } } }`, [
      TeamFields,
    ]),
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, id: params.teamId, ...present(body, ["title"]) } }),
    status: 200,
    body: (data) => restTeam(data.updateTeam.team),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/teams/:teamId",
    action: "team.delete",
    document: graphql(`mutation DeleteTeam($input: DeleteTeamInput!) { deleteTeam(input: $input) { deletedTeamId } }`),
    variables: ({ params }) => ({ input: { organization: params.organizationId, id: params.teamId } }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/teams/:teamId/members",
    action: "team.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListTeamMembers($id: ID!, $team: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          team(id: $team) {
            members(first: $first, after: $after) {
              totalCount pageInfo { ...ListInfo } nodes { role member { ...MemberFields } permissions { view } }
            }
          }
        }
      }`,
      [MemberFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, team: params.teamId, ...pageVariables(query) }),
    status: 200,
    body: (data) =>
      listBody(data.organization.team.members, (item) => ({
        organization: restMember(item.member),
        team: { role: restEnum(item.role) },
        permissions: item.permissions,
      })),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/teams/:teamId/members",
    action: "team.manageMembers",
    document: graphql(`mutation UpdateTeamMembers($input: UpdateTeamMembersInput!) { updateTeamMembers(input: $input) { team { id } } }`),
    variables: ({ params, body }) => ({
      input: {
        ...teamPath({ params }),
        add: stringList("add", body.add),
        remove: stringList("remove", body.remove),
        memberships: membershipsInput(body.memberships),
      },
    }),
    status: 204,
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
    action: "team.manageMembers",
    document: graphql(`mutation SetTeamMember($input: SetTeamMemberInput!) { setTeamMember(input: $input) { team { id } } }`),
    variables: ({ params, body }) => ({
      input: { ...teamPath({ params }), user: params.userId, ...(body.role != null ? { role: teamRole("role", body.role) } : {}) },
    }),
    status: 204,
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
    action: "team.manageMembers",
    document: graphql(`mutation RemoveTeamMember($input: RemoveTeamMemberInput!) { removeTeamMember(input: $input) { team { id } } }`),
    variables: ({ params }) => ({ input: { ...teamPath({ params }), user: params.userId } }),
    status: 204,
  }),
];
