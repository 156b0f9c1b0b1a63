// Creating an organization (POST /v1/orgs), invite links, invitations by e-mail, joining, users by
// id and the notifications token.
import { graphql, type FragmentOf } from "../graphql.ts";
import { ROLES } from "../../src/core/auth/roles.ts";
import { quote } from "../../src/core/errors.ts";
import { graphqlEnum, listBody, ListInfo, pageVariables, restEnum, RestInputError, type RestRoute, typedRoute } from "../route.ts";
import { OrganizationFields, restOrganization } from "./organizations.ts";

const LinkInviteFields = graphql(`fragment LinkInviteFields on LinkInvite { id role redundant }`);

/** The published InviteLinkToOrganization. */
function restLinkInvite(i: FragmentOf<typeof LinkInviteFields>) {
  return { object: "invite", id: i.id, role: restEnum(i.role), redundant: i.redundant };
}

const ProfileFields = graphql(`fragment UserProfileFields on UserProfile { id displayName email photoURL urls { location } }`);

/** The published User: the e-mail address on the caller's own account only. */
function restProfile(u: FragmentOf<typeof ProfileFields>) {
  return {
    object: "user",
    id: u.id,
    displayName: u.displayName,
    ...(u.email ? { email: u.email } : {}),
    ...(u.photoURL ? { photoURL: u.photoURL } : {}),
    urls: u.urls,
  };
}

/** A role or level of a body: a member role or null (guest). */
const role = (field: string, value: unknown) => graphqlEnum(field, value, ROLES);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The published CreateOrganizationInvite: invites to the organization only (see docs/decisions.md). */
function linkInviteRole(body: Record<string, unknown>): unknown {
  if ("space" in body || "collection" in body) {
    const field = "space" in body ? "space" : "collection";
    throw new RestInputError(
      `${field}: invite links to a single space or collection are not served; create an organization invite link ({ role }) and grant access to the ${field}`,
    );
  }
  if (!("role" in body)) throw new RestInputError("role is required (a member role, or null for guests)");
  return role("role", body.role);
}

function emailItems(value: unknown) {
  if (!Array.isArray(value)) throw new RestInputError("emails must be an array of e-mail addresses or { email, role } objects");
  return value.map((item, index) => {
    if (typeof item === "string") return { email: item };
    if (isObject(item) && typeof item.email === "string" && "role" in item) {
      return { email: item.email, role: role(`emails[${index}].role`, item.role) };
    }
    throw new RestInputError(`emails[${index}] must be an e-mail address or an object { email, role } (got ${quote(item)})`);
  });
}

export const inviteRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/orgs",
    action: "viewer",
    query: { withDefaultSite: "boolean", openapiUrl: "string" },
    maxBodyBytes: 64 * 1024,
    document: graphql(
      `mutation CreateOrganization($input: CreateOrganizationInput!) {
        createOrganization(input: $input) { organization { ...OrganizationFields } }
      }`,
      [OrganizationFields],
    ),
    variables: ({ query, body }) => {
      if (query.openapiUrl !== undefined) {
        throw new RestInputError(
          "openapiUrl: importing a specification while creating the organization is not served; publish it afterwards with PUT /v1/orgs/{organizationId}/openapi/{slug}",
        );
      }
      if (body.title !== undefined && typeof body.title !== "string")
        throw new RestInputError(`title must be a string (got ${quote(body.title)})`);
      if (body.emailDomains !== undefined && !Array.isArray(body.emailDomains)) {
        throw new RestInputError(`emailDomains must be an array of domain names (got ${quote(body.emailDomains)})`);
      }
      return {
        input: {
          title: body.title as string,
          emailDomains: body.emailDomains as string[] | undefined,
          withDefaultSite: query.withDefaultSite as boolean | undefined,
        },
      };
    },
    status: 201,
    body: (data) => restOrganization(data.createOrganization.organization),
    location: (organization) => `/orgs/${(organization as { id: string }).id}`,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/invites",
    action: "member.invite",
    maxBodyBytes: 256 * 1024,
    document: graphql(
      `mutation InviteUsersToOrganization($input: InviteUsersToOrganizationInput!) {
        inviteUsersToOrganization(input: $input) { users invited }
      }`,
    ),
    variables: ({ params, body }) => {
      if (body.sso !== undefined && typeof body.sso !== "boolean")
        throw new RestInputError(`sso must be a boolean (got ${quote(body.sso)})`);
      return {
        input: {
          organization: params.organizationId,
          emails: emailItems(body.emails) as never,
          ...("role" in body ? { role: role("role", body.role) as never } : {}),
          sso: body.sso as boolean | undefined,
        },
      };
    },
    status: 200,
    body: (data) => ({ users: data.inviteUsersToOrganization.users, invited: data.inviteUsersToOrganization.invited }),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/invites/:inviteId",
    action: "viewer",
    document: graphql(
      `mutation JoinOrganizationWithInvite($input: JoinOrganizationWithInviteInput!) {
        joinOrganizationWithInvite(input: $input) { organizationId }
      }`,
    ),
    variables: ({ params }) => ({ input: { organization: params.organizationId, invite: params.inviteId } }),
    status: 200,
    body: () => ({}),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/join",
    action: "viewer",
    document: graphql(`mutation JoinOrganization($input: JoinOrganizationInput!) { joinOrganization(input: $input) { organizationId } }`),
    variables: ({ params }) => ({ input: { organization: params.organizationId } }),
    status: 204,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/link-invites",
    action: "invite.manage",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListLinkInvites($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          linkInvites(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...LinkInviteFields } }
        }
      }`,
      [LinkInviteFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.linkInvites, restLinkInvite),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/link-invites",
    action: "invite.manage",
    document: graphql(
      `mutation CreateOrganizationInvite($input: CreateLinkInviteInput!) {
        createLinkInvite(input: $input) { linkInvite { ...LinkInviteFields } }
      }`,
      [LinkInviteFields],
    ),
    variables: ({ params, body }) => ({ input: { organization: params.organizationId, role: linkInviteRole(body) as never } }),
    status: 201,
    body: (data) => restLinkInvite(data.createLinkInvite.linkInvite),
    location: (invite, { params }) => `/orgs/${params.organizationId}/link-invites/${invite.id}`,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/link-invites/:inviteId",
    action: "invite.manage",
    document: graphql(
      `query GetLinkInvite($id: ID!, $invite: ID!) { organization(id: $id) { linkInvite(id: $invite) { ...LinkInviteFields } } }`,
      [LinkInviteFields],
    ),
    variables: ({ params }) => ({ id: params.organizationId, invite: params.inviteId }),
    status: 200,
    body: (data) => restLinkInvite(data.organization.linkInvite),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId/link-invites/:inviteId",
    action: "invite.manage",
    document: graphql(
      `mutation UpdateLinkInvite($input: UpdateLinkInviteInput!) { updateLinkInvite(input: $input) { linkInvite { ...LinkInviteFields } } }`,
      [LinkInviteFields],
    ),
    variables: ({ params, body }) => {
      const field = "role" in body ? "role" : "level" in body ? "level" : null;
      if (!field) throw new RestInputError("role is required (a member role, or null for guests); level is accepted as its synonym");
      return { input: { organization: params.organizationId, id: params.inviteId, role: role(field, body[field]) as never } };
    },
    status: 200,
    body: (data) => restLinkInvite(data.updateLinkInvite.linkInvite),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/users/:userId",
    action: "viewer",
    document: graphql(`query GetUserById($id: ID!) { userProfile(id: $id) { ...UserProfileFields } }`, [ProfileFields]),
    variables: ({ params }) => ({ id: params.userId }),
    status: 200,
    body: (data) => restProfile(data.userProfile),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/users/:userId",
    action: "viewer",
    maxBodyBytes: 16 * 1024,
    document: graphql(`mutation UpdateUserById($input: UpdateUserInput!) { updateUser(input: $input) { user { ...UserProfileFields } } }`, [
      ProfileFields,
    ]),
    variables: ({ params, body }) => {
      for (const field of ["displayName", "photoURL"] as const) {
        if (body[field] !== undefined && typeof body[field] !== "string") {
          throw new RestInputError(`${field} must be a string (got ${quote(body[field])})`);
        }
      }
      return {
        input: { id: params.userId, displayName: body.displayName as string | undefined, photoURL: body.photoURL as string | undefined },
      };
    },
    status: 200,
    body: (data) => restProfile(data.updateUser.user),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/user/notifications/token",
    action: "viewer",
    document: graphql(`mutation CreateUserNotificationsToken { createNotificationsToken { token } }`),
    variables: () => ({}),
    status: 200,
    body: (data) => ({ token: data.createNotificationsToken.token }),
  }),
];
