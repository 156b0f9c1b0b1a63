// /v1/orgs/{organizationId}/members routes, link invites, ping, organizations by e-mail domain
// and the caller (`/v1/user`).
import { graphql, type FragmentOf } from "../graphql.ts";
import { ROLES } from "../../src/core/auth/roles.ts";
import { MEMBER_SORTS } from "../../src/core/members/index.ts";
import { graphqlEnum, listBody, ListInfo, pageVariables, restEnum, type RestRoute, typedRoute } from "../route.ts";
import { OrganizationFields, restOrganization } from "./organizations.ts";
import { SpaceFields, restSpace } from "./spaces.ts";
import { restTeam, TeamFields } from "./team-fields.ts";

export const UserFields = graphql(`
  fragment UserFields on User { id displayName email photoURL urls { location } }`);

export const MemberFields = graphql(
  `
  fragment MemberFields on Member {
    id role disabled joinedAt lastSeenAt sso spaces teams sites
    user { ...UserFields }
  }`,
  [UserFields],
);

export function restUser(u: FragmentOf<typeof UserFields>) {
  return {
    object: "user",
    id: u.id,
    displayName: u.displayName,
    email: u.email,
    ...(u.photoURL ? { photoURL: u.photoURL } : {}),
    urls: u.urls,
  };
}

export function restMember(m: FragmentOf<typeof MemberFields>) {
  return {
    object: "member",
    id: m.id,
    role: restEnum(m.role),
    user: restUser(m.user),
    disabled: m.disabled,
    joinedAt: m.joinedAt,
    ...(m.lastSeenAt ? { lastSeenAt: m.lastSeenAt } : {}),
    sso: m.sso,
    spaces: m.spaces,
    teams: m.teams,
    sites: m.sites,
  };
}

const memberVariables = ({ params }: { params: Record<string, string> }) => ({ organization: params.organizationId, user: params.userId });

export const memberRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/members",
    action: "member.list",
    query: { page: "string", limit: "limit", order: "string", role: "string", search: "string", sort: "string" },
    document: graphql(
      `query ListMembers(
        $id: ID!, $first: Int, $after: String, $role: MemberRoleFilter, $search: String, $sort: MemberSort, $order: ListOrder
      ) {
        organization(id: $id) {
          members(first: $first, after: $after, role: $role, search: $search, sort: $sort, order: $order) {
            totalCount pageInfo { ...ListInfo } nodes { ...MemberFields }
          }
        }
      }`,
      [MemberFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      ...pageVariables(query),
      role: query.role === undefined ? undefined : graphqlEnum("role", query.role, [...ROLES, "guest"]),
      search: query.search,
      sort: query.sort === undefined ? undefined : graphqlEnum("sort", query.sort, MEMBER_SORTS),
      order: query.order === undefined ? undefined : graphqlEnum("order", query.order, ["asc", "desc"]),
    }),
    status: 200,
    body: (data) => listBody(data.organization.members, restMember),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/members/:userId",
    action: "member.read",
    document: graphql(`query GetMember($id: ID!, $user: ID!) { organization(id: $id) { member(user: $user) { ...MemberFields } } }`, [
      MemberFields,
    ]),
    variables: ({ params }) => ({ id: params.organizationId, user: params.userId }),
    status: 200,
    body: (data) => restMember(data.organization.member),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId/members/:userId",
    action: "member.update",
    document: graphql(`mutation UpdateMember($input: UpdateMemberInput!) { updateMember(input: $input) { member { ...MemberFields } } }`, [
      MemberFields,
    ]),
    variables: ({ params, body }) => ({
      input: { ...memberVariables({ params }), ...("role" in body ? { role: graphqlEnum("role", body.role, ROLES) } : {}) },
    }),
    status: 200,
    body: (data) => restMember(data.updateMember.member),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/members/:userId",
    action: "member.remove",
    document: graphql(`mutation RemoveMember($input: RemoveMemberInput!) { removeMember(input: $input) { removedUserId } }`),
    variables: ({ params }) => ({ input: memberVariables({ params }) }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/members/:userId/sso",
    action: "member.setSso",
    document: graphql(`mutation SetMemberSso($input: SetMemberSsoInput!) { setMemberSso(input: $input) { member { ...MemberFields } } }`, [
      MemberFields,
    ]),
    variables: ({ params }) => ({ input: memberVariables({ params }) }),
    status: 200,
    body: (data) => restMember(data.setMemberSso.member),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/members/:userId/spaces",
    action: "member.read",
    query: { page: "string", limit: "limit", order: "string" },
    document: graphql(
      `query ListMemberSpaces($id: ID!, $user: ID!, $first: Int, $after: String, $order: ListOrder) {
        organization(id: $id) {
          member(user: $user) {
            spaceAccess(first: $first, after: $after, order: $order) {
              totalCount pageInfo { ...ListInfo } nodes { permission space { ...SpaceFields } }
            }
          }
        }
      }`,
      [SpaceFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      user: params.userId,
      ...pageVariables(query),
      order: query.order === undefined ? undefined : graphqlEnum("order", query.order, ["asc", "desc"]),
    }),
    status: 200,
    body: (data) =>
      listBody(data.organization.member.spaceAccess, (item) => ({ permission: restEnum(item.permission), space: restSpace(item.space) })),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/members/:userId/teams",
    action: "member.read",
    query: { page: "string", limit: "limit", title: "string" },
    document: graphql(
      `query ListMemberTeams($id: ID!, $user: ID!, $first: Int, $after: String, $title: String) {
        organization(id: $id) {
          member(user: $user) {
            teamMemberships(first: $first, after: $after, title: $title) {
              totalCount pageInfo { ...ListInfo } nodes { role team { ...TeamFields } }
            }
          }
        }
      }`,
      [TeamFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, user: params.userId, ...pageVariables(query), title: query.title }),
    status: 200,
    body: (data) =>
      listBody(data.organization.member.teamMemberships, (item) => ({ team: restTeam(item.team), member: { role: restEnum(item.role) } })),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/ping",
    action: "organization.ping",
    document: graphql(
      `mutation PingOrganization($input: PingOrganizationInput!) { pingOrganization(input: $input) { member { lastSeenAt } } }`,
    ),
    variables: ({ params }) => ({ input: { organization: params.organizationId } }),
    status: 200,
    // No visitor claims exist yet: nothing to attach to the user.
    body: () => ({}),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/link-invites/:inviteId",
    action: "invite.manage",
    document: graphql(
      `mutation DeleteLinkInvite($input: DeleteLinkInviteInput!) { deleteLinkInvite(input: $input) { deletedLinkInviteId } }`,
    ),
    variables: ({ params }) => ({ input: { organization: params.organizationId, id: params.inviteId } }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/email-domains/:emailDomain/orgs",
    action: "viewer",
    document: graphql(
      `query OrganizationsForEmailDomain($domain: String!) {
        organizationsForEmailDomain(emailDomain: $domain) { ...OrganizationFields }
      }`,
      [OrganizationFields],
    ),
    variables: ({ params }) => ({ domain: params.emailDomain }),
    status: 200,
    body: (data) => ({ organizations: data.organizationsForEmailDomain.map(restOrganization) }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/user",
    action: "viewer",
    document: graphql(`query GetAuthenticatedUser { viewer { ...UserFields } }`, [UserFields]),
    variables: () => ({}),
    status: 200,
    body: (data) => restUser(data.viewer),
  }),
];
