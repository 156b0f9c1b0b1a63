// Typed subscription of the comments of a space or of one change request: each comment or reply
// posted, edited, resolved, reacted to or deleted, carried as the queries read it.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import type { RowChange } from "../../core/realtime/channels.ts";
import { builder } from "../builder.ts";
import { CommentRef, CommentReplyRef } from "../comments.ts";
import { eventOrError, RealtimeEventRef, typedEvents } from "../realtime.ts";

interface CommentChange {
  id: string;
  change: "created" | "updated" | "deleted";
  /** The comment (thread) the change is in. */
  threadId: string;
  /** The reply changed, when it is one. */
  replyId: string | null;
}

const CHANGE: Record<RowChange["op"], CommentChange["change"]> = { insert: "created", update: "updated", delete: "deleted" };

/** The comments and replies a write changed, once each (a reaction counts as an update of what it reacts to). */
export function commentChanges(changes: readonly RowChange[]): CommentChange[] {
  const byId = new Map<string, CommentChange>();
  for (const { table, op, row } of changes) {
    const id = table === "Comment" ? row.id : row.commentId;
    if (!id) continue;
    const change = table === "Comment" ? CHANGE[op] : "updated";
    const known = byId.get(id);
    // A row created and changed in one write is created; deleted wins over all.
    if (known && (known.change === "deleted" || (known.change === "created" && change !== "deleted"))) continue;
    byId.set(id, { id, change, threadId: row.parentId ?? id, replyId: row.parentId ? id : null });
  }
  return [...byId.values()];
}

const CommentChangeRef = builder.objectRef<CommentChange>("CommentChange").implement({
  description: "A comment or reply a write created, updated (edited, resolved, reacted to) or deleted",
  fields: (t) => ({
    id: t.id({ description: "Id of the comment or reply", resolve: (c) => c.id }),
    change: t.string({ description: "`created`, `updated` or `deleted`", resolve: (c) => c.change }),
    comment: t.field({
      type: CommentRef,
      nullable: true,
      description: "The comment, or the comment replied to, as it stands now; null when it was deleted",
      resolve: (c) => (c.change === "deleted" && !c.replyId ? null : c.threadId),
    }),
    reply: t.field({
      type: CommentReplyRef,
      nullable: true,
      description: "The reply, as it stands now, when the change is of a reply; null otherwise or when it was deleted",
      resolve: (c) => (c.replyId && c.change !== "deleted" ? c.replyId : null),
    }),
  }),
});

const CommentsEventRef = builder.objectRef<ChannelEvent>("CommentsEvent").implement({
  description: "Comments and replies one write changed",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    comments: t.field({
      type: [CommentChangeRef],
      description: "Each comment or reply changed",
      resolve: (e) => commentChanges(e.changes),
    }),
  }),
});

builder.subscriptionField("comments", (t) =>
  t.field({
    type: CommentsEventRef,
    description:
      "The comments and replies of a space (channel `space-comments`, those on its change requests included), or of one change request (`space-change-request-comments`). Refused at subscribe time as `channel` is",
    args: {
      space: t.arg.id({ required: true, description: "Id of the space" }),
      changeRequest: t.arg.id({ description: "Only the comments of this change request of the space" }),
    },
    subscribe: (_root, args, context) =>
      args.changeRequest == null
        ? typedEvents(context, "space-comments", { space: String(args.space) })
        : typedEvents(context, "space-change-request-comments", { space: String(args.space), changeRequest: String(args.changeRequest) }),
    resolve: (item) => eventOrError(item),
  }),
);
