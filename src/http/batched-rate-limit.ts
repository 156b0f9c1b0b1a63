// A rate limiter that counts in this process and syncs with a shared store in batches, for traffic
// where a statement per request would cost more than the request itself: readers of published
// sites, whose repeated view is one cached statement (issue 10's bench row).
//
// Each `consume` is decided here, with no I/O: the key's total as the shared store last reported
// it (every instance's requests) plus what this process counted since. Every `syncMs` the counts
// gathered since the last sync are added to the store, one `consume(key, n)` per key that had
// requests (two statements on PostgreSQL, whatever n), and the store's answer becomes the key's
// total and window. So the limit holds across instances, late by at most one sync interval: N
// instances can together let through at most N × (what one address sends in `syncMs`) beyond it.
// A store that fails is absorbed by its insurance limiter (rate-limiter-flexible), as for the
// exact limiter.
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

interface Entry {
  /** The key's total in the store's window, as the store last answered (this process's share included). */
  synced: number;
  /** Counted here since the last sync was sent. */
  pending: number;
  /** Sent to the store and not yet answered: still counted, or a slow sync would let them through again. */
  inFlight: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

export class BatchedRateLimiter {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> | null = null;

  constructor(
    private readonly store: RateLimiterAbstract,
    readonly points: number,
    private readonly durationSeconds: number,
    private readonly syncMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  private entryOf(key: string): Entry {
    const now = this.now();
    let entry = this.entries.get(key);
    if (!entry || entry.resetAt <= now) {
      // A sync in flight answers for the entry it was sent from: the new window starts without it.
      entry = { synced: 0, pending: entry?.pending ?? 0, inFlight: 0, resetAt: now + this.durationSeconds * 1000 };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private resultOf(entry: Entry): RateLimiterRes {
    const consumed = entry.synced + entry.inFlight + entry.pending;
    return new RateLimiterRes(Math.max(0, this.points - consumed), Math.max(0, entry.resetAt - this.now()), consumed, consumed === 1);
  }

  /** Counts one request of `key`; rejects with the RateLimiterRes (as rate-limiter-flexible does) beyond the points. */
  consume(key: string): Promise<RateLimiterRes> {
    const result = this.consumeNow(key);
    return result.consumedPoints > this.points ? Promise.reject(result) : Promise.resolve(result);
  }

  /** `consume` without a promise (it does no I/O): the result, over the limit when `consumedPoints` is above `points`. */
  consumeNow(key: string): RateLimiterRes {
    const entry = this.entryOf(key);
    entry.pending++;
    if (this.timer === null) this.timer = setTimeout(() => void this.sync(), this.syncMs).unref();
    return this.resultOf(entry);
  }

  /** The key's state without counting (null when it has none). */
  get(key: string): Promise<RateLimiterRes | null> {
    const entry = this.entries.get(key);
    return Promise.resolve(entry && entry.resetAt > this.now() ? this.resultOf(entry) : null);
  }

  /** Sends what was counted since the last sync to the store (one consume per key), and takes its totals. */
  sync(): Promise<void> {
    this.timer = null;
    const run = (this.syncing ?? Promise.resolve()).then(() => this.send());
    this.syncing = run;
    const done = () => {
      if (this.syncing === run) this.syncing = null;
    };
    run.then(done, done);
    return run;
  }

  private async send(): Promise<void> {
    const batch = [...this.entries].filter(([, entry]) => entry.pending > 0).map(([key, entry]) => ({ key, entry, sent: entry.pending }));
    for (const { entry, sent } of batch) {
      entry.pending -= sent;
      entry.inFlight += sent;
    }
    await Promise.all(
      batch.map(async ({ key, entry, sent }) => {
        let answer: RateLimiterRes;
        try {
          answer = await this.store.consume(key, sent);
        } catch (refusal) {
          if (!(refusal instanceof RateLimiterRes)) {
            entry.inFlight -= sent;
            entry.synced += sent; // the store failed: keep counting here
            return;
          }
          answer = refusal; // over the limit: the store still says by how much
        }
        entry.inFlight -= sent;
        entry.synced = answer.consumedPoints; // what was sent included
        entry.resetAt = this.now() + Math.max(0, answer.msBeforeNext);
      }),
    );
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (entry.resetAt <= now && entry.pending === 0 && entry.inFlight === 0) this.entries.delete(key);
  }
}
