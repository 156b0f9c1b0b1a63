// Recording insight events without making anyone wait: `record` puts an event in a buffer of
// this instance and returns; the buffer is written in batches (one INSERT per batch) when it holds
// `batchSize` events or `flushIntervalMs` after its first event. Bounded: at most `maxBuffered`
// events wait; more are dropped and counted (`stats.dropped`), never queued without bound. One
// write at a time; an event of a site deleted meanwhile is skipped by the INSERT itself.
import { Prisma, type PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";

/** One event as stored (the columns of `InsightEvent`, camelCase). */
export interface InsightEventRow {
  siteId: string;
  type: string;
  timestamp: Date;
  visitorId: string;
  sessionId: string;
  url: string;
  urlPath: string;
  displayContext: string;
  siteSectionId: string | null;
  siteSpaceId: string | null;
  siteShareKey: string | null;
  spaceId: string | null;
  pageId: string | null;
  revisionId: string | null;
  visitorBrowser: string;
  visitorDevice: string;
  visitorOS: string;
  visitorBot: string | null;
  visitorLanguage: string | null;
  visitorAuthenticated: boolean | null;
  visitorClaims: Record<string, unknown> | null;
  referrer: string | null;
  referrerDomain: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  data: Record<string, unknown>;
}

export interface InsightsLimits {
  /** Events waiting to be written on this instance; more are dropped (and counted). */
  maxBuffered: number;
  /** Events written by one INSERT. */
  batchSize: number;
  /** How long the first event of a batch waits for others before the batch is written. */
  flushIntervalMs: number;
}

export const DEFAULT_INSIGHTS_LIMITS: InsightsLimits = { maxBuffered: 10_000, batchSize: 500, flushIntervalMs: 1_000 };

const COLUMNS = [
  ["siteId", "text"],
  ["type", "text"],
  ["timestamp", "timestamp(3)"],
  ["visitorId", "text"],
  ["sessionId", "text"],
  ["url", "text"],
  ["urlPath", "text"],
  ["displayContext", "text"],
  ["siteSectionId", "text"],
  ["siteSpaceId", "text"],
  ["siteShareKey", "text"],
  ["spaceId", "text"],
  ["pageId", "text"],
  ["revisionId", "text"],
  ["visitorBrowser", "text"],
  ["visitorDevice", "text"],
  ["visitorOS", "text"],
  ["visitorBot", "text"],
  ["visitorLanguage", "text"],
  ["visitorAuthenticated", "boolean"],
  ["visitorClaims", "jsonb"],
  ["referrer", "text"],
  ["referrerDomain", "text"],
  ["utmSource", "text"],
  ["utmMedium", "text"],
  ["utmCampaign", "text"],
  ["utmTerm", "text"],
  ["utmContent", "text"],
  ["data", "jsonb"],
] as const satisfies readonly (readonly [keyof InsightEventRow, string])[];

const NAMES = Prisma.raw(COLUMNS.map(([name]) => `"${name}"`).join(", "));
const RECORD = Prisma.raw(COLUMNS.map(([name, type]) => `"${name}" ${type}`).join(", "));
const SELECTED = Prisma.raw(COLUMNS.map(([name]) => `e."${name}"`).join(", "));

export class InsightsRecorder {
  readonly stats = { recorded: 0, written: 0, dropped: 0, failed: 0 };
  /** Rows, or what makes one: a view's row is made when its batch is written, not while the view waits. */
  private buffer: (InsightEventRow | (() => InsightEventRow))[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly limits: InsightsLimits,
    private readonly logger?: Logger,
  ) {}

  /** Events waiting to be written. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** How many more events the buffer takes now (a batch that needs more is refused whole, not cut). */
  get room(): number {
    return this.closed ? 0 : Math.max(0, this.limits.maxBuffered - this.buffer.length);
  }

  /** Takes the event for a later batch; never waits, never throws. False when it was dropped (buffer full, or closed). */
  record(event: InsightEventRow | (() => InsightEventRow)): boolean {
    if (this.closed || this.buffer.length >= this.limits.maxBuffered) {
      this.stats.dropped++;
      return false;
    }
    this.buffer.push(event);
    this.stats.recorded++;
    if (this.buffer.length >= this.limits.batchSize) this.schedule(0);
    else this.schedule(this.limits.flushIntervalMs);
    return true;
  }

  /** Writes everything buffered now (tests, and `close`); resolves when it is written (or failed). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing || this.buffer.length) {
      if (this.writing) await this.writing;
      else await this.write();
    }
  }

  /** Writes what is buffered; later events are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private schedule(delayMs: number) {
    if (this.writing) return; // the write in progress schedules the next one
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.write();
    }, delayMs).unref();
  }

  private write(): Promise<void> {
    if (this.writing) return this.writing;
    const batch = this.buffer.splice(0, this.limits.batchSize);
    if (!batch.length) return Promise.resolve();
    this.writing = this.insert(batch).finally(() => {
      this.writing = null;
      if (this.buffer.length && !this.timer) this.schedule(this.buffer.length >= this.limits.batchSize ? 0 : this.limits.flushIntervalMs);
    });
    return this.writing;
  }

  private async insert(batch: (InsightEventRow | (() => InsightEventRow))[]) {
    try {
      const rows = JSON.stringify(
        batch.flatMap((made) => {
          try {
            const event = typeof made === "function" ? made() : made;
            return [{ ...event, timestamp: event.timestamp.toISOString() }];
          } catch {
            this.stats.failed++; // one event that cannot be made costs only itself
            return [];
          }
        }),
      );
      const written = await this.prisma.$executeRaw(Prisma.sql`
        INSERT INTO "InsightEvent" (${NAMES})
        SELECT ${SELECTED} FROM jsonb_to_recordset(${rows}::jsonb) AS e(${RECORD})
        WHERE EXISTS (SELECT 1 FROM "Site" s WHERE s.id = e."siteId")`);
      this.stats.written += written;
    } catch (error) {
      // Insights are not worth failing anything for: the batch is counted and logged, the server goes on.
      this.stats.failed += batch.length;
      this.logger?.warn({ err: error, events: batch.length }, "insight events could not be written");
    }
  }
}
