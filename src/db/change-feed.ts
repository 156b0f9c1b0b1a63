// Which writes change what published sites are served from, so that readers' views can keep it in
// memory (src/core/sites/serve.ts) and still show every change at once.
//
// - Writes of this process: the database layer (client.ts) looks at each statement Prisma sends;
//   one that writes a table of SITE_TABLES bumps `generation` once it is visible to others (a
//   statement outside a transaction when it has run, one inside when its transaction has ended),
//   so the response of the write is sent after the bump.
// - Writes of other processes sharing a PostgreSQL database: a trigger on each of these tables
//   (migration 20261126000000_site_data_notify; later tables in their own migrations) sends a
//   NOTIFY on SITE_CHANNEL when the writing transaction commits; `listenForChanges` keeps a connection LISTENing and bumps `generation` on
//   each. While that connection is down (and until it is first up), `live` is false: nothing may
//   be kept, and a lost connection bumps `generation` (everything kept so far is dropped).
import pg from "pg";

/**
 * The tables what a reader is served depends on: a site and its structure, share links, the
 * spaces it shows (head revision, title, deletion), the installations of integrations (blocks and
 * scripts on its pages), the organization's custom fonts (a site may use one), the site's redirects, and organizations
 * (whose deletion takes the rest with it).
 */
export const SITE_TABLES = [
  "Organization",
  "Site",
  "SiteSpace",
  "SiteSection",
  "SiteSectionGroup",
  "SiteShareLink",
  "Space",
  "Integration",
  "IntegrationInstallation",
  "IntegrationSpaceInstallation",
  "IntegrationSiteInstallation",
  "CustomFont",
  "SiteRedirect",
  "SiteExternalLink",
] as const;

/** The NOTIFY channel of the triggers on SITE_TABLES. */
export const SITE_CHANNEL = "site_data";

/**
 * The NOTIFY channel of the realtime triggers (migration 20261128000000_realtime_notify): one
 * notification per row written, sent when its transaction commits (src/core/realtime).
 */
export const REALTIME_CHANNEL = "realtime";

const WATCHED: ReadonlySet<string> = new Set(SITE_TABLES);
/** The tables a statement writes: `INSERT INTO "public"."Site"`, `UPDATE "Space"`, `DELETE FROM …`, in CTEs too. */
const WRITE =
  /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|MERGE\s+INTO|TRUNCATE(?:\s+TABLE)?)\s+(?:ONLY\s+)?(?:"?public"?\s*\.\s*)?"?(\w+)"?/gi;
/** How many statement texts `touches` remembers (Prisma sends the same texts again and again). */
const KNOWN_MAX = 5000;

export class ChangeFeed {
  /** Bumped after every change of SITE_TABLES seen: what was read under an older value may be stale. */
  generation = 0;
  /**
   * Whether the changes of every process reach this feed: always on the embedded database (one
   * process); on PostgreSQL while the LISTEN connection is up.
   */
  live: boolean;
  private readonly known = new Map<string, boolean>();
  /** Receivers of the `realtime` notifications (their JSON payloads), of every process sharing the database. */
  private readonly rowListeners = new Set<(payload: string) => void>();

  constructor(live: boolean) {
    this.live = live;
  }

  /** Whether a statement writes one of SITE_TABLES. */
  touches(sql: string): boolean {
    let answer = this.known.get(sql);
    if (answer === undefined) {
      answer = false;
      for (const match of sql.matchAll(WRITE)) {
        if (WATCHED.has(match[1])) {
          answer = true;
          break;
        }
      }
      if (this.known.size >= KNOWN_MAX) this.known.clear();
      this.known.set(sql, answer);
    }
    return answer;
  }

  /** Calls `listener` with the payload of every `realtime` notification; returns the function that stops it. */
  onRows(listener: (payload: string) => void): () => void {
    this.rowListeners.add(listener);
    return () => this.rowListeners.delete(listener);
  }

  /** A `realtime` notification arrived (after its transaction committed). */
  rows(payload: string): void {
    for (const listener of this.rowListeners) listener(payload);
  }

  /** A change became visible (or may have: a lost listener). */
  changed(): void {
    this.generation++;
  }
}

/** How long to wait before listening again after the connection was lost (doubling up to the maximum). */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * Keeps a connection of its own LISTENing on SITE_CHANNEL (PostgreSQL), bumping `feed` on every
 * notification, and reconnecting (with backoff) when it is lost. Resolves once the first attempt
 * has ended, listening or not. Returns the function that stops it.
 */
export async function listenForChanges(
  feed: ChangeFeed,
  options: { connectionString: string; connectTimeoutMs: number; onError?: (error: Error) => void },
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const lost = (which: pg.Client, error?: Error) => {
    if (client !== which) return;
    client = null;
    feed.live = false;
    feed.changed();
    if (error) options.onError?.(error);
    which.end().catch(() => {});
    if (!stopped) {
      timer = setTimeout(() => void connect(), retryMs);
      timer.unref();
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    }
  };

  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs,
      // A connection that dies silently (no FIN) is found out by TCP keepalive.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client = next;
    next.on("notification", (message) => {
      if (message.channel === REALTIME_CHANNEL) feed.rows(message.payload ?? "");
      else feed.changed();
    });
    next.on("error", (error) => lost(next, error));
    next.on("end", () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${REALTIME_CHANNEL}`);
      await next.query(`LISTEN ${SITE_CHANNEL}`);
    } catch (error) {
      lost(next, error as Error);
      return;
    }
    if (client !== next) {
      await next.end().catch(() => {});
      return;
    }
    retryMs = RETRY_MIN_MS;
    // Whatever changed while nobody listened is unknown: everything kept before is dropped.
    feed.changed();
    feed.live = true;
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const last = client;
    client = null;
    feed.live = false;
    feed.changed();
    await last?.end().catch(() => {});
  };
}
