// /v1/spaces/:spaceId/change-requests/:changeRequestId/conversations…: a change request's agent
// conversations (GraphQL `ChangeRequest.conversations`, `updateChangeRequestConversation`,
// `deleteChangeRequestConversation`). No agent runs here: the list is empty and every
// conversation id is unknown (404), after the caller's access is checked.
import { graphql, type ResultOf } from "../graphql.ts";
import { compact, listBody, ListInfo, pageVariables, typedRoute, stringOf, type RestRoute } from "../route.ts";
import { LIST_QUERY } from "./links.ts";

const CR = "/v1/spaces/:spaceId/change-requests/:changeRequestId";

const ConversationFields = graphql(`fragment AgentConversationFields on AgentConversation { id title shared createdAt updatedAt }`);

/** The published AgentConversation (a change request's: no `changeRequest`, its context is the change request). */
const restConversation = (c: ResultOf<typeof ConversationFields>) => ({
  object: "agent-conversation",
  id: c.id,
  ...compact({ title: c.title }),
  shared: c.shared,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const conversationInput = (params: Record<string, string>) => ({
  space: params.spaceId,
  changeRequest: params.changeRequestId,
  conversation: params.conversationId,
});

export const conversationRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: `${CR}/conversations`,
    action: "changeRequest.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListChangeRequestConversations($space: ID!, $changeRequest: ID!, $first: Int, $after: String) {
        space(id: $space) {
          changeRequest(id: $changeRequest) {
            conversations(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...AgentConversationFields } }
          }
        }
      }`,
      [ConversationFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ space: params.spaceId, changeRequest: params.changeRequestId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.space.changeRequest.conversations, restConversation),
  }),
  typedRoute({
    method: "PATCH",
    path: `${CR}/conversations/:conversationId`,
    action: "changeRequest.updateConversation",
    document: graphql(
      `mutation UpdateChangeRequestConversation($input: UpdateChangeRequestConversationInput!) {
        updateChangeRequestConversation(input: $input) { conversation { ...AgentConversationFields } }
      }`,
      [ConversationFields],
    ),
    variables: ({ params, body }) => ({ input: { ...conversationInput(params), title: stringOf(body.title) } }),
    status: 200,
    body: (data) => restConversation(data.updateChangeRequestConversation.conversation),
  }),
  typedRoute({
    method: "DELETE",
    path: `${CR}/conversations/:conversationId`,
    action: "changeRequest.deleteConversation",
    document: graphql(
      `mutation DeleteChangeRequestConversation($input: DeleteChangeRequestConversationInput!) {
        deleteChangeRequestConversation(input: $input) { deletedConversationId }
      }`,
    ),
    variables: ({ params }) => ({ input: conversationInput(params) }),
    status: 205,
  }),
];
