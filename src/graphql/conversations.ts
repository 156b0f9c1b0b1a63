// Agent conversations of a change request: the list (always empty: no agent runs here to start
// one) and the rename and delete mutations, which check the caller's access for real and then
// find no conversation (src/core/conversations).
import {
  type AgentConversation,
  CONVERSATION_TITLE_MAX,
  changeRequestConversations,
  deleteChangeRequestConversation,
  renameChangeRequestConversation,
} from "../core/conversations/index.ts";
import { pageInMemory } from "../core/pagination.ts";
import { builder } from "./builder.ts";
import { ChangeRequestRef } from "./change-requests.ts";
import { payloadDescription, toConnection } from "./common.ts";

export const AgentConversationRef = builder.objectRef<AgentConversation>("AgentConversation").implement({
  description: "A session in which an agent edited a change request's content (none is started in this service)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The client-generated id of the conversation" }),
    title: t.string({
      nullable: true,
      description: "Title, generated from the first message; null until generated",
      resolve: (c) => c.title ?? null,
    }),
    shared: t.exposeBoolean("shared", { description: "Whether everyone who can read the change request sees it, not only its creator" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the conversation started" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the conversation last changed" }),
  }),
});

const AgentConversationConnection = builder.connectionObject(
  { type: AgentConversationRef, name: "AgentConversationConnection" },
  { name: "AgentConversationEdge" },
);

builder.objectFields(ChangeRequestRef, (t) => ({
  conversations: t.connection(
    {
      type: AgentConversationRef,
      description: "Agent conversations that edited the change request: none, as no agent runs in this service",
      resolve: (changeRequest, args) => toConnection(pageInMemory(changeRequestConversations(changeRequest), args, (c) => c.id)),
    },
    AgentConversationConnection,
  ),
}));

const conversationFields = (
  f: PothosSchemaTypes.InputFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, "InputObject">,
) => ({
  space: f.id({ required: true, description: "Id of the space" }),
  changeRequest: f.id({ required: true, description: "Id or number of the change request" }),
  conversation: f.id({ required: true, description: "Id of the conversation" }),
});

builder.mutationFields((t) => ({
  updateChangeRequestConversation: t.field({
    type: builder.simpleObject("UpdateChangeRequestConversationPayload", {
      description: payloadDescription("UpdateChangeRequestConversationPayload"),
      fields: (p) => ({ conversation: p.field({ type: AgentConversationRef, description: "The conversation, renamed" }) }),
    }),
    description: `Renames an agent conversation of a change request (a title of 1 to ${CONVERSATION_TITLE_MAX} characters); needs edit on the space`,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateChangeRequestConversationInput", {
          description: "Input of the updateChangeRequestConversation mutation",
          fields: (f) => ({
            ...conversationFields(f),
            title: f.string({ required: true, description: `The new title, 1 to ${CONVERSATION_TITLE_MAX} characters` }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      conversation: await renameChangeRequestConversation(
        core,
        { spaceId: input.space, changeRequest: input.changeRequest, conversationId: input.conversation },
        input.title,
      ),
    }),
  }),
  deleteChangeRequestConversation: t.field({
    type: builder.simpleObject("DeleteChangeRequestConversationPayload", {
      description: payloadDescription("DeleteChangeRequestConversationPayload"),
      fields: (p) => ({ deletedConversationId: p.id({ description: "Id of the conversation deleted" }) }),
    }),
    description: "Deletes an agent conversation of a change request; needs edit on the space",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteChangeRequestConversationInput", {
          description: "Input of the deleteChangeRequestConversation mutation",
          fields: (f) => conversationFields(f),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      deletedConversationId: await deleteChangeRequestConversation(core, {
        spaceId: input.space,
        changeRequest: input.changeRequest,
        conversationId: input.conversation,
      }),
    }),
  }),
}));
