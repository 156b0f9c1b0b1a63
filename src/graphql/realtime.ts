// Realtime: the published API's channels as GraphQL subscriptions (`channel`), over Server-Sent
// Events (Yoga, graphql-sse's distinct connections) and WebSocket (graphql-ws) on /graphql. The
// channel table, the checks and the bounds are src/core/realtime's; here the types and the
// stream: each typed event is resolved with a fresh context (fresh loaders and access), as a new
// query would be.
import { createHash } from "node:crypto";
import { contextCacheSymbol } from "@pothos/core";
import { type DocumentNode, execute, type GraphQLResolveInfo, Kind, print } from "graphql";
import type { ChannelIds, RowChange } from "../core/realtime/channels.ts";
import { CHANNEL_PARAMS } from "../core/realtime/channels.ts";
import type { ChannelEvent, ChannelItem, Subscription } from "../core/realtime/bus.ts";
import { builder, type GraphQLContext } from "./builder.ts";
import { UserRef } from "./organizations.ts";

const OPERATIONS: Record<RowChange["op"], string> = { insert: "created", update: "updated", delete: "deleted" };

export const ChannelChangeRef = builder.objectRef<RowChange>("ChannelChange").implement({
  description: "One object a committed write created, changed or deleted, of those the channel covers",
  fields: (t) => ({
    object: t.string({
      description: "Its type, by table name (`Space`, `ChangeRequest`, `Comment`, `SiteSpace`, …)",
      resolve: (c) => c.table,
    }),
    id: t.string({
      description: "Its id (null for rows keyed by other ids, such as a reaction or a requested reviewer)",
      nullable: true,
      resolve: (c) => c.row.id ?? null,
    }),
    change: t.string({ description: "`created`, `updated` or `deleted`", resolve: (c) => OPERATIONS[c.op] }),
    fields: t.stringList({
      description: "For `updated`: the names of the fields that changed (stored columns); null otherwise",
      nullable: true,
      resolve: (c) => (c.fields ? [...c.fields] : null),
    }),
  }),
});

// Its fields read nothing but the event (not the caller, not the database): one event's result is
// rendered once for every subscriber with the same document, variables and ids (renderer below).
export const ChannelEventRef = builder.objectRef<ChannelEvent>("ChannelEvent").implement({
  description: "What one committed write changed of what a channel covers (one event per channel and transaction)",
  fields: (t) => ({
    channel: t.string({ description: "The channel kind, as subscribed (`space-content`)", resolve: (e) => e.channel }),
    ids: t.field({ type: "JSON", description: "The ids the channel was subscribed with, as given", resolve: (e) => e.ids }),
    at: t.field({ type: "DateTime", description: "When this instance received the committed write", resolve: (e) => e.at }),
    actor: t.id({
      description: "The user who made the change, when the changed rows record it (author, poster, reviewer, merger); else null",
      nullable: true,
      resolve: (e) => e.actorId,
    }),
    revision: t.id({
      description: "The new revision, when the change moved a space's or change request's head; else null",
      nullable: true,
      resolve: (e) => e.revisionId,
    }),
    changes: t.field({ type: [ChannelChangeRef], description: "The objects created, changed or deleted", resolve: (e) => [...e.changes] }),
  }),
});

const ChannelInputRef = builder.inputType("ChannelInput", {
  description:
    'A channel of the published API (`APIChannel`): its kind and the ids it names, with the published names (`{ channel: "space-content", space: "spc_…" }`)',
  fields: (t) => ({
    channel: t.string({
      required: true,
      description: "The channel kind (`space-content`, `site-structure`, …); docs/realtime.md lists them",
    }),
    ...Object.fromEntries(CHANNEL_PARAMS.map((name) => [name, t.string({ description: `The ${name} id, for channels that name one` })])),
  }),
});

builder.subscriptionType({
  description:
    "Realtime: events of committed writes, over Server-Sent Events (`Accept: text/event-stream`) or WebSocket (`graphql-transport-ws`) on /graphql",
});

/**
 * The events of `subscription` for one GraphQL subscription, ended by the consumer (return: at
 * once, even while waiting for an event, where an async generator's return would wait for the
 * next one) or the subscription (error, shutdown). The caller's access is not queried per event:
 * the bus checks it anew when a write may have changed it (the token, a membership, grant or
 * team, the object's place or deletion) and sends nothing more before that check passes (bus.ts).
 * `fresh`: the events' fields read data (typed subscriptions), so each event gets fresh loaders
 * and access, as a new query would; the `channel` event's fields read nothing but the event.
 */
export function eventsOf(
  subscription: Subscription,
  context: GraphQLContext,
  { fresh = false }: { fresh?: boolean } = {},
): AsyncIterableIterator<ChannelItem> {
  const bus = context.core.realtime;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const result = await subscription.next();
      if (fresh && result.value?.event) {
        // Fresh loaders for each event: the core's, and Pothos' (its per-context caches are keyed by
        // this symbol's value when the context has one: a new key, a new set of loaders).
        context.core = bus.contextFor(context.core.viewer);
        (context as { [contextCacheSymbol]?: object })[contextCacheSymbol] = {};
      }
      return result;
    },
    return: () => subscription.return(),
    throw: (error: unknown) => subscription.throw(error),
  };
}

/** `events` with each item mapped, or left out (null); the consumer's return ends `events` at once. */
export function mapItems(
  events: AsyncIterableIterator<ChannelItem>,
  map: (item: ChannelItem) => ChannelItem | null,
): AsyncIterableIterator<ChannelItem> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      for (;;) {
        const result = await events.next();
        if (result.done) return result;
        const mapped = map(result.value);
        if (mapped) return { done: false, value: mapped };
      }
    },
    return: () => events.return!(),
    throw: (error: unknown) => events.throw!(error),
  };
}

/**
 * Opens a typed subscription (`spaceContent`, `changeRequest`, …) on its published channel: the
 * same checks and bounds as `channel` at subscribe time, the same checks again when a write may
 * have changed the caller's access, and a fresh context per event, so the event's fields are
 * read by the same loaders and permission checks as a new query.
 */
export async function typedEvents(context: GraphQLContext, channel: string, ids: ChannelIds): Promise<AsyncIterableIterator<ChannelItem>> {
  const subscription = await context.core.realtime.subscribe(context.core, { channel, ...ids });
  return eventsOf(subscription, context, { fresh: true });
}

/** The fields every typed event has: when, by whom, and which objects the write changed. */
export const RealtimeEventRef = builder.interfaceRef<ChannelEvent>("RealtimeEvent").implement({
  description: "An event of a typed subscription: one committed write that changed what it watches",
  fields: (t) => ({
    at: t.field({ type: "DateTime", description: "When this instance received the committed write", resolve: (e) => e.at }),
    actor: t.field({
      type: UserRef,
      nullable: true,
      description: "Who made the change, when the changed rows record it and the caller may see that user; else null",
      resolve: async (e, _args, { core }) => {
        if (!e.actorId) return null;
        const shown = e.actorId === core.viewer.userId || (await core.loaders.coMember.load(e.actorId));
        return shown ? e.actorId : null;
      },
    }),
    changed: t.field({
      type: [ChannelChangeRef],
      description: "The objects the write created, updated or deleted, of those the subscription watches",
      resolve: (e) => [...e.changes],
    }),
  }),
});

/** The event of an item, or the error that ended its subscription (as the last event of the stream). */
export function eventOrError(item: ChannelItem): ChannelEvent {
  // The domain error itself: the error mask (use-error-masking.ts) gives it its code and status.
  if (item.error) throw item.error;
  return item.event;
}

builder.subscriptionField("channel", (t) =>
  t.field({
    type: ChannelEventRef,
    description:
      "The events of a published channel: one per committed write that changes what it covers. Refused at subscribe time (400 naming the field, 404, 403, 429) with no stream opened",
    args: { channel: t.arg({ type: ChannelInputRef, required: true }) },
    subscribe: async (_root, args, context, info) => {
      const subscription = await context.core.realtime.subscribe(context.core, args.channel as Record<string, unknown>);
      if (context.directEvents && !subscription.channel.visible) context.directEvents(subscription, renderer(info, subscription));
      return eventsOf(subscription, context);
    },
    resolve: (item: ChannelItem) => eventOrError(item),
  }),
);

/**
 * How a `channel` subscription's events render: its operation executed on the event, as the
 * subscription would per event, but with an empty context (the event's fields read nothing else,
 * and a field that did would fail here and send its event the usual way). `key`: the operation,
 * its variables and the channel ids, which decide the result.
 */
function renderer(info: GraphQLResolveInfo, subscription: Subscription) {
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [info.operation, ...Object.values(info.fragments)] };
  const text = info.operation.loc?.source.body ?? document.definitions.map((definition) => print(definition)).join("\n");
  const key = createHash("sha256")
    .update(JSON.stringify([text, info.operation.name?.value ?? null, info.variableValues, subscription.ids]))
    .digest("base64");
  return {
    key,
    render(event: ChannelEvent): string | null {
      const result = execute({
        schema: info.schema,
        document,
        rootValue: { event } satisfies ChannelItem,
        contextValue: {},
        variableValues: info.variableValues,
      });
      if ("then" in result || result.errors?.length) return null;
      return JSON.stringify(result);
    },
  };
}
