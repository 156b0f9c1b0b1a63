// Agent conversations of a change request (the published AgentConversation): the sessions in which
// an agent edited the change request's content. No agent runs in this service, so nothing starts
// one and a change request has none: its list is empty and every conversation id is unknown. The
// access checks are the real ones, so a caller learns what a caller of a service with an agent
// would (another organization's change request is unknown, a reader lists, an editor renames and
// deletes).
import type { ChangeRequest } from "../../generated/prisma/client.ts";
import { requireChangeRequest } from "../change-requests/access.ts";
import type { CoreContext } from "../context.ts";
import { notFound } from "../errors.ts";
import { checkLength } from "../validate.ts";

export interface AgentConversation {
  id: string;
  /** Absent until generated from the first message. */
  title?: string;
  shared: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A conversation's title, as a rename gives it. */
export const CONVERSATION_TITLE_MAX = 256;

/** The conversations of a change request (read by a caller who may read it): none, with no agent to start one. */
export function changeRequestConversations(_changeRequest: ChangeRequest): AgentConversation[] {
  return [];
}

export interface ConversationTarget {
  spaceId: string;
  /** The change request's id or number. */
  changeRequest: string;
  conversationId: string;
}

/** Renames a conversation of a change request (`edit` on the space; the title is checked before the id). */
export async function renameChangeRequestConversation(
  ctx: CoreContext,
  target: ConversationTarget,
  title: string,
): Promise<AgentConversation> {
  await requireChangeRequest(ctx, target.spaceId, target.changeRequest, "changeRequest.updateConversation");
  checkLength("title", title, { min: 1, max: CONVERSATION_TITLE_MAX });
  // A change request has no conversation (see above): every id is unknown.
  throw notFound("conversation", target.conversationId);
}

/** Deletes a conversation of a change request (`edit` on the space). */
export async function deleteChangeRequestConversation(ctx: CoreContext, target: ConversationTarget): Promise<string> {
  await requireChangeRequest(ctx, target.spaceId, target.changeRequest, "changeRequest.deleteConversation");
  throw notFound("conversation", target.conversationId);
}
