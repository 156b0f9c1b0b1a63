// Typed subscription of a space's content: each new head revision (an edit, a merge, an import,
// a revert, a translation run) with the pages, files and reusable contents it changed since the
// previous event, read through the same loaders and checks as the queries.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import { checkChannel } from "../../core/realtime/channels.ts";
import { CHANGES_MAX_LIMIT, revisionChanges } from "../../core/reviews/index.ts";
import { readSpace } from "../../core/spaces/index.ts";
import { builder } from "../builder.ts";
import { RevisionRef } from "../content.ts";
import { eventOrError, mapItems, RealtimeEventRef, typedEvents } from "../realtime.ts";
import { RevisionChangeRef } from "../reviews.ts";
import { SpaceRef } from "../spaces.ts";

type SpaceContentEvent = ChannelEvent & { spaceId: string; previousRevisionId: string | null; revisionId: string };

const SpaceContentEventRef = builder.objectRef<SpaceContentEvent>("SpaceContentEvent").implement({
  description: "A new head revision of a space's content, and what it changed since the previous event",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    space: t.field({ type: SpaceRef, description: "The space, as it stands now", resolve: (e) => e.spaceId }),
    revision: t.field({ type: RevisionRef, description: "The new head revision", resolve: (e) => e.revisionId }),
    previousRevision: t.id({
      nullable: true,
      description: "The head revision before (at subscribe time for the first event): `changes` are counted from it",
      resolve: (e) => e.previousRevisionId,
    }),
    changes: t.field({
      type: builder.simpleObject("RevisionChanges", {
        description: "What a revision changes against an earlier one: pages, files and reusable contents created, edited or removed",
        fields: (c) => ({
          changes: c.field({ type: [RevisionChangeRef], description: "One entry per page, file or reusable content changed" }),
          more: c.int({ description: "How many changes were left out beyond the limit" }),
        }),
      }),
      description: "What changed from `previousRevision` to `revision`: pages (tree order), files, reusable contents, variables",
      args: { limit: t.arg.int({ description: `At most this many changes (default 10, at most ${CHANGES_MAX_LIMIT})` }) },
      resolve: (e, { limit }, { core }) => revisionChanges(core, e.spaceId, e.previousRevisionId, e.revisionId, limit),
    }),
  }),
});

builder.subscriptionField("spaceContent", (t) =>
  t.field({
    type: SpaceContentEventRef,
    description:
      "Each new head revision of a space (channel `space-content`), with the space and the revision as queries read them. Refused at subscribe time as `channel` is",
    args: { space: t.arg.id({ required: true, description: "Id of the space" }) },
    subscribe: async (_root, args, context) => {
      const ids = { space: String(args.space) };
      checkChannel({ channel: "space-content", ...ids });
      // The head before subscribing: the first event's changes are counted from it, so none is missed.
      let previous: string | null = (await readSpace(context.core, ids.space)).space.revisionId;
      const events = await typedEvents(context, "space-content", ids);
      return mapItems(events, (item) => {
        if (item.error) return item;
        if (!item.event.revisionId) return null;
        const previousRevisionId = previous;
        previous = item.event.revisionId;
        return { event: { ...item.event, spaceId: ids.space, previousRevisionId, revisionId: item.event.revisionId } };
      });
    },
    resolve: (item) => eventOrError(item) as SpaceContentEvent,
  }),
);
