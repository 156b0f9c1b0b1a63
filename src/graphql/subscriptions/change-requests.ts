// Typed subscription of a change request: its status, head revision, reviews, requested
// reviewers and merge, each event carrying the change request as the queries read it.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import { builder } from "../builder.ts";
import { ChangeRequestRef } from "../change-requests.ts";
import { eventOrError, RealtimeEventRef, typedEvents } from "../realtime.ts";

const ChangeRequestEventRef = builder.objectRef<ChannelEvent>("ChangeRequestEvent").implement({
  description: "A change of a change request: its status, subject, head revision, a review, a requested reviewer, its merge",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    changeRequest: t.field({
      type: ChangeRequestRef,
      description: "The change request, as it stands now (status, revision, reviews, mergedBy, revisionMerged …)",
      resolve: (e) => e.ids.changeRequest!,
    }),
    revision: t.id({
      nullable: true,
      description: "Its new head revision, when this write moved it; else null",
      resolve: (e) => e.revisionId,
    }),
  }),
});

builder.subscriptionField("changeRequest", (t) =>
  t.field({
    type: ChangeRequestEventRef,
    description:
      "Each change of a change request (channel `space-change-request`), with the change request as queries read it. Refused at subscribe time as `channel` is",
    args: {
      space: t.arg.id({ required: true, description: "Id of the space" }),
      changeRequest: t.arg.id({ required: true, description: "Id of the change request" }),
    },
    subscribe: (_root, args, context) =>
      typedEvents(context, "space-change-request", { space: String(args.space), changeRequest: String(args.changeRequest) }),
    resolve: (item) => eventOrError(item),
  }),
);
