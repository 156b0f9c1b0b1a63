// The realtime event bus of one instance (in Services, one per app): it receives the rows every
// committed transaction wrote (the database's `realtime` notifications, of this instance and of
// the others sharing the PostgreSQL database), folds them into one event per channel and
// transaction, and hands each event to the subscriptions open on that channel here.
//
// Bounds: subscriptions per token and per instance (settings), events waiting per subscription
// (a consumer that falls behind is cut off with an error, not buffered without bound).
// Access: the token and the caller's access are checked when a subscription opens, and again,
// before anything more is sent, when a write may have changed them (the token revoked or
// changed, a membership, grant or team of the caller, the object's place or deletion): a
// subscription that lost its access ends with the error of the check.
import type { CoreContext } from "../context.ts";
import type { Viewer } from "../auth/tokens.ts";
import { DomainError, tooMany, unauthenticated } from "../errors.ts";
import { type ChannelIds, channelKey, checkChannel, KINDS_BY_TABLE, type Opened, type RowChange, type ServedChannel } from "./channels.ts";

// The bus reads callers' contexts and the channels' rules, which read most of core: it adds itself
// to Services here, so that context.ts imports none of that.
declare module "../context.ts" {
  interface Services {
    /** Realtime subscriptions open on this instance, and the events of committed writes they get (src/core/realtime). */
    realtime: RealtimeBus;
  }
}

export interface RealtimeLimits {
  /** Subscriptions one API token may hold open on one instance. */
  maxPerToken: number;
  /** Subscriptions one instance holds open, all tokens together. */
  maxPerInstance: number;
  /** Events waiting to be sent to one subscription; one more cuts it off. */
  maxQueuedEvents: number;
  /** How often an idle event stream (SSE on /graphql, the REST twin) gets a comment line. */
  heartbeatMs: number;
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  maxPerToken: 100,
  maxPerInstance: 10_000,
  maxQueuedEvents: 100,
  heartbeatMs: 12_000,
};

/** One event of a channel: what one committed transaction changed of what the channel covers. */
export interface ChannelEvent {
  /** The channel kind (`space-content`). */
  channel: string;
  /** The ids the channel was opened with, as given. */
  ids: ChannelIds;
  /** When this instance received the commit's notifications. */
  at: Date;
  /** Who made the change, when the rows record it (author, poster, reviewer, merger). */
  actorId: string | null;
  /** The new revision, for changes of a space's or change request's content. */
  revisionId: string | null;
  /** The rows the transaction wrote that the channel covers. */
  changes: readonly RowChange[];
}

/**
 * Where a transport writes a subscription's events at once (an SSE connection on /graphql), while
 * its consumer waits for one and nothing else is pending: the bytes of one event are rendered once
 * for all the subscriptions with the same `key` (the same document, variables and channel ids),
 * so that sending one event to many subscribers costs one rendering and a write each
 * (docs/adr/0002-event-stream-fan-out.md).
 */
export interface DirectSink {
  /** Subscriptions with the same key get the same bytes for one event. */
  readonly key: string;
  /** The bytes of `event`, or null when they cannot be shared (the event then goes the usual way). */
  render(event: ChannelEvent): Uint8Array | null;
  /** Writes them; false, writing nothing, when the connection is backed up (the event then waits in the bounded queue). */
  write(bytes: Uint8Array): boolean;
}

/** How a subscription's events render as the API's result (JSON), or null where they cannot be shared; `key` names what renders the same. */
export interface EventRenderer {
  readonly key: string;
  render(event: ChannelEvent): string | null;
}

/**
 * Offered on a request's context by a transport that can write a subscription's events at once
 * (src/http/plugins/use-event-stream.ts); the API layer that opens the subscription hands it the
 * subscription and how its events render.
 */
export type DirectEvents = (subscription: Subscription, renderer: EventRenderer) => void;

/** What a subscription yields: an event, or (last) the error that ended it. */
export type ChannelItem = { event: ChannelEvent; error?: undefined } | { error: DomainError; event?: undefined };

interface Grouped {
  channel: ServedChannel;
  key: string;
  changes: RowChange[];
}

/** Tables whose writes may change what a caller may see (the token, memberships, grants, teams, installations). */
const ACCESS_TABLES: ReadonlySet<string> = new Set([
  "ApiToken",
  "Member",
  "PermissionGrant",
  "TeamMember",
  "Team",
  "Organization",
  "IntegrationInstallation",
  "IntegrationSpaceInstallation",
  "IntegrationSiteInstallation",
]);
/** Columns of content and sites that decide who may see them. */
const ACCESS_FIELDS: ReadonlySet<string> = new Set(["parentId", "defaultLevel", "deletedAt", "organizationId"]);
/** Objects a channel is opened on: their deletion, or a change of those columns, ends what can no longer be seen. */
const ACCESS_OBJECTS: ReadonlySet<string> = new Set([
  "Space",
  "Collection",
  "Site",
  "ChangeRequest",
  "Comment",
  "OpenAPISpec",
  "TranslationSettings",
]);

/** How long the rows of one transaction are waited for after its last one arrived, before its events go out. */
const FOLD_MS = 2;

export class RealtimeBus {
  private readonly subscribers = new Map<string, Set<Subscription>>();
  private readonly byUser = new Map<string, Set<Subscription>>();
  private readonly byOrganization = new Map<string, Set<Subscription>>();
  private readonly byToken = new Map<string, number>();
  private open = 0;
  private closed = false;
  /** The rows of the transaction being received, and its id. */
  private pending: RowChange[] = [];
  private pendingTx: string | undefined;
  private pendingSince = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Counters for /metrics. */
  readonly stats = { sent: 0, dropped: 0, refused: 0, cutOff: 0, transactions: 0 };
  /**
   * Called after every fold of a transaction: its events' count, when its first row arrived
   * (`performance.now()`) and the channels it reached (the bench's "commit → last event" starts there).
   */
  onPublish?: (published: { events: number; receivedAt: number; channels: string[] }) => void;

  constructor(
    readonly limits: RealtimeLimits,
    /** A fresh context (fresh loaders and access) for a viewer: every check reads the database anew. */
    readonly contextFor: (viewer: Viewer) => CoreContext,
  ) {}

  get openSubscriptions(): number {
    return this.open;
  }

  /**
   * Opens a subscription of the caller to a channel: the input checked (400 naming the field),
   * the caller's access checked as the queries check it (404 for what they cannot see, the same
   * as unknown; 403 without the role), the bounds (429). Nothing is opened when any fails.
   */
  async subscribe(ctx: CoreContext, input: Record<string, unknown>): Promise<Subscription> {
    if (this.closed) throw new DomainError("CONFLICT", "The server is shutting down; subscribe on another instance");
    try {
      const { channel, ids } = checkChannel(input);
      const token = await this.tokenOf(ctx.viewer);
      const opened = await channel.open(ctx, ids);
      // Checked after the awaits: concurrent subscribes of one token cannot pass the bound together.
      if (this.open >= this.limits.maxPerInstance) {
        throw tooMany(`This instance holds its maximum of ${this.limits.maxPerInstance} subscriptions: retry later or on another instance`);
      }
      const held = this.byToken.get(ctx.viewer.tokenId) ?? 0;
      if (held >= this.limits.maxPerToken) {
        throw tooMany(`This token holds its maximum of ${this.limits.maxPerToken} open subscriptions: close one first`);
      }
      if (this.closed) throw new DomainError("CONFLICT", "The server is shutting down; subscribe on another instance");
      const subscription = new Subscription(this, channel, ids, opened, ctx.viewer, token.expiresAt);
      this.add(subscription);
      return subscription;
    } catch (error) {
      this.stats.refused++;
      throw error;
    }
  }

  /** The token behind a viewer, read anew (not from the token cache): a revoked or expired one is refused. */
  async tokenOf(viewer: Viewer): Promise<{ expiresAt: Date | null }> {
    const ctx = this.contextFor(viewer);
    const token = await ctx.prisma.apiToken.findUnique({ where: { id: viewer.tokenId }, select: { userId: true, expiresAt: true } });
    if (!token || token.userId !== viewer.userId) throw unauthenticated("The API token was revoked");
    if (token.expiresAt && token.expiresAt.getTime() <= ctx.clock.now().getTime()) {
      throw unauthenticated(`API token expired at ${token.expiresAt.toISOString()}: create a new one`);
    }
    return token;
  }

  /** Checks anew that `subscription`'s caller may still open its channel; the error that ends it if not. */
  async recheck(subscription: Subscription): Promise<DomainError | null> {
    try {
      await this.tokenOf(subscription.viewer);
      await subscription.channel.open(this.contextFor(subscription.viewer), subscription.ids);
      return null;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  /** Whether the caller of `subscription` may see the object of `change` (channels with `visible`). */
  async visible(subscription: Subscription, change: RowChange): Promise<boolean> {
    return subscription.channel.visible ? subscription.channel.visible(this.contextFor(subscription.viewer), change) : true;
  }

  private add(subscription: Subscription): void {
    addTo(this.subscribers, subscription.key, subscription);
    addTo(this.byUser, subscription.viewer.userId, subscription);
    if (subscription.organizationId) addTo(this.byOrganization, subscription.organizationId, subscription);
    this.byToken.set(subscription.viewer.tokenId, (this.byToken.get(subscription.viewer.tokenId) ?? 0) + 1);
    this.open++;
  }

  /** Forgets a subscription (its consumer returned, or it ended). */
  remove(subscription: Subscription): void {
    if (!removeFrom(this.subscribers, subscription.key, subscription)) return;
    removeFrom(this.byUser, subscription.viewer.userId, subscription);
    if (subscription.organizationId) removeFrom(this.byOrganization, subscription.organizationId, subscription);
    const held = (this.byToken.get(subscription.viewer.tokenId) ?? 1) - 1;
    if (held > 0) this.byToken.set(subscription.viewer.tokenId, held);
    else this.byToken.delete(subscription.viewer.tokenId);
    this.open--;
  }

  /**
   * A `realtime` notification (change-feed.ts): one row of a committed transaction. The rows of
   * one transaction arrive together, in a row; they are folded once the next transaction's begin
   * or FOLD_MS pass without more.
   */
  receive(payload: string): void {
    let parsed: { x: string; t: string; o: RowChange["op"]; r: Record<string, string>; f: string[] | null };
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (this.pendingTx !== undefined && parsed.x !== this.pendingTx) this.flush();
    if (this.pendingTx === undefined) this.pendingSince = performance.now();
    this.pendingTx = parsed.x;
    this.pending.push({ table: parsed.t, op: parsed.o, row: parsed.r ?? {}, fields: parsed.f ?? null });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), FOLD_MS);
  }

  /** Sends the events of the transaction received so far. */
  flush(): void {
    clearTimeout(this.timer);
    const changes = this.pending;
    const receivedAt = this.pendingSince;
    this.pending = [];
    this.pendingTx = undefined;
    if (changes.length === 0) return;
    this.stats.transactions++;
    const groups = new Map<string, Grouped>();
    for (const change of changes) {
      if (this.open > 0) this.checkAccess(change);
      for (const channel of KINDS_BY_TABLE.get(change.table) ?? []) {
        for (const key of channel.on[change.table](change)) {
          const name = channelKey(channel.kind, key);
          if (!this.subscribers.has(name)) continue;
          let group = groups.get(name);
          if (!group) groups.set(name, (group = { channel, key: name, changes: [] }));
          group.changes.push(change);
        }
      }
    }
    const at = new Date();
    let events = 0;
    // Who made the transaction: the first row that records it (a new revision's author, a merger, a poster).
    const transactionActor = changes.find((change) => change.row.actorId)?.row.actorId ?? null;
    for (const group of groups.values()) {
      const actorId = group.changes.find((change) => change.row.actorId)?.row.actorId ?? transactionActor;
      let revisionId: string | null = null;
      for (const change of group.changes) if (change.row.revisionId && revisionChange(change)) revisionId = change.row.revisionId;
      // The bytes of this event per direct sink key, rendered by its first subscription that writes directly.
      const rendered = new Map<string, Uint8Array | null>();
      for (const subscription of this.subscribers.get(group.key) ?? []) {
        subscription.push(
          { channel: group.channel.kind, ids: subscription.ids, at, actorId, revisionId, changes: group.changes },
          rendered,
        );
        events++;
      }
    }
    this.onPublish?.({ events, receivedAt, channels: [...groups.keys()] });
  }

  /** A write that may change what callers may see: their subscriptions check their access again. */
  private checkAccess(change: RowChange): void {
    const { table, row } = change;
    const access =
      ACCESS_TABLES.has(table) ||
      (ACCESS_OBJECTS.has(table) && (change.op === "delete" || change.fields?.some((field) => ACCESS_FIELDS.has(field))));
    if (!access) return;
    if (row.userId) for (const subscription of this.byUser.get(row.userId) ?? []) subscription.recheck();
    if (table === "ApiToken") return;
    const organizationId = table === "Organization" ? row.id : row.organizationId;
    if (organizationId) for (const subscription of this.byOrganization.get(organizationId) ?? []) subscription.recheck();
  }

  private readonly closeListeners = new Set<() => void>();

  /** Calls `listener` when the bus closes (transports end their connections); returns the function that stops it. */
  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Ends every subscription (shutdown): each stream completes; no new one opens. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const set of [...this.subscribers.values()]) for (const subscription of [...set]) subscription.end();
    for (const listener of this.closeListeners) listener();
  }
}

/** A change that sets a new revision: a space's or change request's head moving. */
const revisionChange = (change: RowChange) =>
  (change.table === "Space" || change.table === "ChangeRequest") && (change.op === "insert" || change.fields?.includes("revisionId"));

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): boolean {
  const set = map.get(key);
  if (!set?.delete(value)) return false;
  if (set.size === 0) map.delete(key);
  return true;
}

/**
 * One open subscription: an async iterator of its channel's events (and, last, the error that
 * ended it), with a bounded queue. Its consumer (SSE, WebSocket, the REST twin) pulls events as
 * fast as its connection takes them.
 */
export class Subscription implements AsyncIterableIterator<ChannelItem> {
  readonly key: string;
  readonly organizationId: string | null;
  private readonly queue: ChannelEvent[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private failure: DomainError | undefined;
  /** An access check under way (or asked for): nothing is sent before it passes. */
  private checking: Promise<void> | undefined;
  private checkAgain = false;
  /** Where its events are written at once, when its transport offers it (writeDirectly). */
  private direct: DirectSink | undefined;

  constructor(
    private readonly bus: RealtimeBus,
    readonly channel: ServedChannel,
    readonly ids: ChannelIds,
    opened: Opened,
    readonly viewer: Viewer,
    private readonly expiresAt: Date | null,
  ) {
    this.key = channelKey(channel.kind, opened.key);
    this.organizationId = opened.organizationId;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /** Writes its events to `sink` at once when it can (see push), rather than handing each to its consumer. */
  writeDirectly(sink: DirectSink): void {
    this.direct = sink;
  }

  /**
   * Queues `event` for the consumer, or writes it at once to the direct sink: only while the
   * consumer waits for an event (none is on its way through the consumer) with nothing queued, no
   * access check under way, the token not expired, and the channel showing every subscriber the
   * same changes; so events keep their order and every check applies. `rendered`: the bytes of
   * this event already rendered for other subscriptions, by sink key.
   */
  push(event: ChannelEvent, rendered?: Map<string, Uint8Array | null>): void {
    if (this.done || this.failure) return;
    const direct = this.direct;
    if (
      direct &&
      this.wake &&
      this.queue.length === 0 &&
      !this.checking &&
      !this.channel.visible &&
      !(this.expiresAt && this.expiresAt.getTime() <= Date.now())
    ) {
      let bytes = rendered?.get(direct.key);
      if (bytes === undefined) {
        bytes = direct.render(event);
        rendered?.set(direct.key, bytes);
      }
      if (bytes && direct.write(bytes)) {
        this.bus.stats.sent++;
        return;
      }
    }
    if (this.queue.length >= this.bus.limits.maxQueuedEvents) {
      this.bus.stats.dropped += this.queue.length + 1;
      this.bus.stats.cutOff++;
      this.queue.length = 0;
      this.fail(
        new DomainError(
          "TOO_MANY_REQUESTS",
          `This subscription fell ${this.bus.limits.maxQueuedEvents} events behind and was cut off: read its events faster, or subscribe again`,
        ),
      );
      return;
    }
    this.queue.push(event);
    this.signal();
  }

  /** Checks the caller's access again before anything more is sent. */
  recheck(): void {
    if (this.done || this.failure) return;
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.checkAgain = false;
        const error = await this.bus.recheck(this).catch(() => null);
        if (error) {
          this.bus.stats.dropped += this.queue.length;
          this.queue.length = 0;
          this.fail(error);
          return;
        }
      } while (this.checkAgain && !this.done);
    };
    this.checking = run().finally(() => {
      this.checking = undefined;
      this.signal();
    });
  }

  /** Ends the subscription with an error (the last item its consumer gets). */
  fail(error: DomainError): void {
    if (this.done || this.failure) return;
    this.failure = error;
    this.bus.remove(this);
    this.signal();
  }

  /** Ends the subscription cleanly (shutdown). */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.bus.stats.dropped += this.queue.length;
    this.queue.length = 0;
    this.bus.remove(this);
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async next(): Promise<IteratorResult<ChannelItem>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.checking) {
        await this.checking;
        continue;
      }
      const event = this.queue.shift();
      if (event) {
        if (this.expiresAt && this.expiresAt.getTime() <= Date.now()) {
          this.fail(unauthenticated(`API token expired at ${this.expiresAt.toISOString()}: create a new one`));
          continue;
        }
        const shown = await this.filter(event);
        if (this.done || this.checking || this.failure) {
          // Its access changed meanwhile: decided again above.
          if (shown && !this.done && !this.failure) this.queue.unshift(shown);
          continue;
        }
        if (!shown) continue;
        this.bus.stats.sent++;
        return { done: false, value: { event: shown } };
      }
      if (this.failure) {
        const error = this.failure;
        this.done = true;
        return { done: false, value: { error } };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** The event with the changes its caller may see (channels listing objects some callers may not see); null when none. */
  private async filter(event: ChannelEvent): Promise<ChannelEvent | null> {
    if (!this.channel.visible) return event;
    const shown: RowChange[] = [];
    for (const change of event.changes) if (await this.bus.visible(this, change)) shown.push(change);
    return shown.length === 0 ? null : shown.length === event.changes.length ? event : { ...event, changes: shown };
  }

  async return(): Promise<IteratorResult<ChannelItem>> {
    this.end();
    return { done: true, value: undefined };
  }

  async throw(error: unknown): Promise<IteratorResult<ChannelItem>> {
    this.end();
    throw error;
  }
}
