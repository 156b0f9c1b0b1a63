// Builds the whole service: one Yoga instance serving GraphQL at /graphql, with the REST
// adapter plugged into the same pipeline for /v1, and the pages and endpoints for operating it.
import { AskModelGate } from "./core/ask/model.ts";
import { createRevisionCache } from "./core/content/cache.ts";
import { TokenVerifier } from "./core/auth/tokens.ts";
import { useDeferStream } from "@graphql-yoga/plugin-defer-stream";
import { usePrometheus } from "@graphql-yoga/plugin-prometheus";
import type { RequestListener } from "node:http";
import { createYoga, type GraphiQLOptions } from "graphql-yoga";
import { Counter, Gauge, Registry } from "prom-client";
import {
  DEFAULT_GRAPHQL_LIMITS,
  DEFAULT_INTEGRATION_SETTINGS,
  DEFAULT_ORGANIZATIONS_PER_USER_MAX,
  DEFAULT_VISITOR_TOKEN_MAX_LIFETIME_SECONDS,
  type Config,
} from "./config.ts";
import { systemClock, type Clock } from "./core/clock.ts";
import { createCoreContext, type Services } from "./core/context.ts";
import { DEFAULT_REALTIME_LIMITS, RealtimeBus, type RealtimeLimits } from "./core/realtime/bus.ts";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./core/import/limits.ts";
import { ImportTracker } from "./core/import/progress.ts";
import { registerImportRunJobs } from "./core/import/runs.ts";
import { registerAskVectorJobs } from "./core/ask/vectors.ts";
import { AskVectorModels, type AskVectorLimits } from "./core/ask/vector-models.ts";
import { publicOnly } from "./core/import/net.ts";
import { DEFAULT_INSIGHTS_LIMITS, InsightsRecorder, type InsightsLimits } from "./core/insights/index.ts";
import { IntegrationRuntime } from "./core/integrations/runtime.ts";
import { HtmlSession } from "./infra/html-worker/session.ts";
import { LsaWorkers } from "./infra/lsa-trainer.ts";
import { SandboxPool } from "./infra/workerd-sandbox.ts";
import { JobQueue, type JobQueueOptions } from "./core/jobs/index.ts";
import { DEFAULT_OPENAPI_LIMITS } from "./core/openapi/limits.ts";
import { registerOpenAPIJobs } from "./core/openapi/index.ts";
import { operationBlock } from "./core/openapi/reference.ts";
import { OPERATION_EMBED_LANGUAGE } from "./core/openapi/embed.ts";
import { integrationBlock } from "./core/integrations/blocks.ts";
import { INTEGRATION_EMBED_LANGUAGE } from "./core/integrations/embed.ts";
import { useIntegrationEndpoints } from "./http/plugins/use-integration-endpoints.ts";
import { useEventStream } from "./http/plugins/use-event-stream.ts";
import { publishedPageScripts } from "./core/integrations/site-scripts.ts";
import { useIntegrationScripts } from "./http/plugins/use-integration-scripts.ts";
import { Signer } from "./core/signer.ts";
import { Urls } from "./core/urls.ts";
import type { Database } from "./db/client.ts";
import type { GraphQLContext } from "./graphql/builder.ts";
import { useAuth } from "./graphql/plugins/use-auth.ts";
import { useOperatorToken } from "./http/plugins/use-operator-token.ts";
import { useSites } from "./http/plugins/use-sites.ts";
import { isSiteRequest } from "./http/site-requests.ts";
import { SiteCache } from "./core/sites/serve.ts";
import { SiteRendering } from "./core/sites/assets.ts";
import { maskError, useBoundedErrorMessages } from "./graphql/plugins/use-error-masking.ts";
import { useExecutionDeadline } from "./graphql/plugins/use-execution-deadline.ts";
import { useFileDownloads } from "./http/plugins/use-file-downloads.ts";
import { useStorageUploads } from "./http/plugins/use-storage-uploads.ts";
import { useGit } from "./http/plugins/use-git.ts";
import { DEFAULT_GIT_LIMITS, GitRepositories, type GitLimits } from "./core/git/repository.ts";
import { registerGitSyncJobs } from "./core/git/sync.ts";
import { gitSyncKey } from "./core/git/sync-settings.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { useGraphQLLimits } from "./graphql/plugins/use-graphql-limits.ts";
import { useHealth } from "./http/plugins/use-health.ts";
import { useInputBoundary } from "./graphql/plugins/use-input-boundary.ts";
import { useIntrospectionToggle } from "./graphql/plugins/use-introspection-toggle.ts";
import { DEFAULT_RATE_LIMITS, useRateLimit } from "./http/plugins/use-rate-limit.ts";
import { useSecurityHeaders } from "./http/plugins/use-security-headers.ts";
import { usePages } from "./http/plugins/use-pages.ts";
import { usePdfDownloads } from "./http/plugins/use-pdf-downloads.ts";
import { useRequestLog } from "./http/plugins/use-request-log.ts";
import { DEFAULT_LLMS_FULL_MAX_BYTES, type TxtResolver } from "./core/sites/policy.ts";
import { systemTxtResolver } from "./infra/dns.ts";
import { useHeaderGuard } from "./http/header-guard.ts";
import { useLoaderRelease } from "./graphql/plugins/use-loader-release.ts";
import { useCompiledExecution } from "./graphql/plugins/use-compiled-execution.ts";
import { useAutomaticPersistedQueries } from "./graphql/plugins/use-automatic-persisted-queries.ts";
import { checkedStore, usePersistedOperations, type PersistedOperationsConfig } from "./graphql/plugins/use-persisted-operations.ts";
import { schema } from "./graphql/schema.ts";
import { createHttpServer } from "./http/client-error.ts";
import { attachWebSocket } from "./http/websocket.ts";
import { useRealtimeChannels } from "./http/plugins/use-realtime-channels.ts";
import { guardRequestHooks } from "./http/guard.ts";
import type { ServerTimeouts } from "./http/server-options.ts";
import { silentLogger, yogaLogger, type Logger } from "./logger.ts";
import { useRestAdapter } from "../rest-adapter/index.ts";
import { openApiDocument, useNotImplemented } from "../rest-adapter/openapi.ts";
import { DEFAULT_AUTHOR_MCP_LIMITS, useAuthorMcp, type AuthorMcpLimits } from "../rest-adapter/mcp.ts";
import { routes } from "../rest-adapter/routes/index.ts";
import packageJson from "../package.json" with { type: "json" };

const TITLE = "Documentation publishing API";

/** The settings the app itself uses: PUBLIC_URL is required, the others have their defaults. */
export type AppConfig = Pick<Config, "publicUrl"> &
  Partial<
    Pick<
      Config,
      | "filesSecret"
      | "gitSyncKey"
      | "gitSyncRepositories"
      | "corsOrigins"
      | "importAllowPrivateHosts"
      | "graphiqlEnabled"
      | "introspectionEnabled"
      | "rateLimits"
      | "openapiRefetchIntervalHours"
      | "visitorTokenMaxLifetimeSeconds"
      | "organizationsPerUserMax"
      | "adsPartnerKey"
      | "askModel"
    >
  > & {
    /** Bounds of realtime subscriptions (tests lower them). */
    realtime?: Partial<RealtimeLimits>;
    graphqlLimits?: Partial<Config["graphqlLimits"]>;
    /** Bounds of website imports other than the private-host policy (tests lower the timeouts). */
    importLimits?: Partial<ImportLimits>;
    /** Persisted operations on /graphql: the store a frontend's build registers, and whether only they run. */
    persistedOperations?: PersistedOperationsConfig;
    /** Sandboxes and deliveries of integrations (tests lower the limits). */
    integrations?: Partial<Config["integrations"]>;
    /** Custom hostnames' DNS lookups (tests give a table; node:dns otherwise). */
    resolveTxt?: TxtResolver;
    /** Bound of a site's llms-full.txt (tests lower it). */
    llmsFullMaxBytes?: number;
    /** Buffering of insight events (tests lower the flush interval). */
    insights?: Partial<InsightsLimits>;
    /** Git over HTTP: where repositories are kept, deadline and size limits (src/core/git). */
    git?: Partial<GitLimits>;
    /** The authors' MCP server at /v1/mcp: a call's deadline and answer size (tests lower them). */
    mcp?: Partial<AuthorMcpLimits>;
    /** Ask's vector models: dimensions, training bounds, delay and memory (tests lower them). */
    askVectors?: Partial<AskVectorLimits>;
  };

export interface AppOptions {
  database: Database;
  config: AppConfig;
  clock?: Clock;
  /** Worker settings of the job queue (tests shorten the poll). */
  jobs?: Partial<Omit<JobQueueOptions, "clock">>;
  /** Start the job worker (default true); `close()` stops it. */
  startJobs?: boolean;
  logger?: Logger;
  /** The token GraphiQL and the REST reference are prefilled with (the fresh demo's), if any. */
  starterToken?: () => string | undefined;
  /** True while the server shuts down: /ready answers 503 so load balancers stop sending. */
  isDraining?: () => boolean;
  /** The secret of the loopback token endpoint the CLI uses while the server holds the embedded database. */
  operatorSecret?: string;
}

/** The composition root: every setting reaches the rest of the code from here. */
export function createApp({
  database,
  config,
  clock = systemClock,
  jobs: jobOptions,
  startJobs = true,
  logger = silentLogger,
  starterToken = () => undefined,
  isDraining = () => false,
  operatorSecret,
}: AppOptions) {
  const jobs = new JobQueue(database.prisma, { ...jobOptions, clock });
  const urls = new Urls(config.publicUrl);
  const allowPrivateHosts = config.importAllowPrivateHosts ?? DEFAULT_IMPORT_LIMITS.allowPrivateHosts;
  const integrationSettings = { ...DEFAULT_INTEGRATION_SETTINGS, ...config.integrations };
  const integrations = new IntegrationRuntime(
    {
      prisma: database.prisma,
      clock,
      urls,
      jobs,
      tunnelDispatcher: allowPrivateHosts ? undefined : publicOnly,
      sandboxes: new SandboxPool({ ...integrationSettings, apiOrigin: new URL(urls.publicUrl).origin }),
    },
    integrationSettings,
  );
  // Fed by the rows of committed transactions (the database's `realtime` notifications).
  const realtime = new RealtimeBus({ ...DEFAULT_REALTIME_LIMITS, ...config.realtime }, (viewer) => createCoreContext(services, viewer));
  const stopRows = database.changes.onRows((payload) => realtime.receive(payload));
  const askTrainer = new LsaWorkers();
  const services: Services = {
    prisma: database.prisma,
    realtime,
    clock,
    tokens: new TokenVerifier(database.prisma, clock),
    revisions: createRevisionCache(),
    urls,
    signer: new Signer(config.filesSecret, clock),
    importLimits: {
      ...DEFAULT_IMPORT_LIMITS,
      allowPrivateHosts,
      ...config.importLimits,
    },
    openapiLimits: { ...DEFAULT_OPENAPI_LIMITS },
    jobs,
    logger,
    imports: new ImportTracker(),
    htmlReaders: (limits, total) => new HtmlSession(limits, total),
    integrations,
    sites: {
      visitorTokenMaxLifetimeSeconds: config.visitorTokenMaxLifetimeSeconds ?? DEFAULT_VISITOR_TOKEN_MAX_LIFETIME_SECONDS,
      resolveTxt: config.resolveTxt ?? systemTxtResolver(),
      llmsFullMaxBytes: config.llmsFullMaxBytes ?? DEFAULT_LLMS_FULL_MAX_BYTES,
      adsPartnerKey: config.adsPartnerKey,
    },
    insights: new InsightsRecorder(database.prisma, { ...DEFAULT_INSIGHTS_LIMITS, ...config.insights }, logger),
    git: new GitRepositories(database.prisma, {
      ...DEFAULT_GIT_LIMITS,
      // Without a configured directory, a fresh one per app (the repositories are a cache).
      dataDir: join(tmpdir(), "docs-service-git", randomBytes(6).toString("hex")),
      ...config.git,
    }),
    organizations: { maxCreatedPerUser: config.organizationsPerUserMax ?? DEFAULT_ORGANIZATIONS_PER_USER_MAX },
    gitSync: { key: gitSyncKey(config.gitSyncKey), allowPrivateHosts, repositories: config.gitSyncRepositories ?? [] },
    release: { version: packageJson.version, build: clock.now().toISOString() },
    siteRendering: new SiteRendering(),
    askModel: new AskModelGate(config.askModel),
    askVectors: new AskVectorModels(config.askVectors),
    askTrainer,
    siteExtensions: {
      blocks: new Map([
        [OPERATION_EMBED_LANGUAGE, operationBlock],
        [INTEGRATION_EMBED_LANGUAGE, integrationBlock],
      ]),
      pageScripts: [publishedPageScripts],
    },
  };
  const graphqlLimits = { ...DEFAULT_GRAPHQL_LIMITS, ...config.graphqlLimits };
  // One registry per app (not prom-client's global one), so apps in one process do not collide.
  const registry = new Registry();
  registerRealtimeMetrics(registry, realtime);
  /** Rendered pages of published sites (tests read its `renders`: a repeated view renders nothing). */
  const siteCache = new SiteCache(database.changes);
  const compiledExecution = useCompiledExecution();
  const rateLimit = useRateLimit(services, { ...DEFAULT_RATE_LIMITS, ...config.rateLimits }, { shared: database.kind === "postgres" });
  const publicHost = new URL(services.urls.publicUrl).host.toLowerCase();
  const requestLog = useRequestLog({
    logger,
    registry,
    restRoutes: routes,
    isSiteRequest: (request, url) => isSiteRequest(request, url, publicHost),
  });
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: (config.graphiqlEnabled ?? true) && (() => graphiqlOptions(starterToken())),
    renderGraphiQL: cachedGraphiQL(),
    landingPage: false,
    // Every body /graphql reads has its own bound, counted as it arrives: JSON and Yoga's other
    // parsers' by useGraphQLLimits, a multipart upload's declared length by useFileDownloads.
    // Yoga's bound would pipe each body once more through a stream of its own (issue 35).
    maxRequestBodySize: false,
    // Yoga's health check answers any URL that merely ends with its endpoint (`/v1/x/health`
    // too) with an empty 200; no URL ends with a NUL, so it never answers: `useHealth` does.
    healthCheckEndpoint: "\0",
    logging: yogaLogger(logger),
    cors: corsOptions(config.corsOrigins ?? []),
    maskedErrors: { maskError },
    plugins: [
      // Before the request log: a header Node would refuse is dropped (and logged) before the line is written.
      useHeaderGuard({ logger, requestIdOf: requestLog.requestIdOf }),
      requestLog,
      useHealth({ database, registry, isDraining }),
      rateLimit,
      useSecurityHeaders(),
      useOperatorToken(services, operatorSecret),
      // Before the service's own pages: at a site's custom hostname, `/` is the site's home.
      useSites(services, siteCache, rateLimit.credentialFailures),
      usePages({
        title: TITLE,
        openApi: () => openApiDocument(routes, { publicUrl: config.publicUrl, version: packageJson.version }),
        starterToken,
      }),
      usePrometheus({
        registry,
        endpoint: false,
        // Operations by name: counted, timed, and their errors. Every other metric of the plugin
        // is on unless turned off; each phase's histogram, the summary and the deprecated-field
        // counter (a walk of the document with its types on every request) cost /graphql more
        // CPU per request than its execution of a one-space read (issue 35).
        metrics: {
          graphql_envelop_request: true,
          graphql_envelop_request_duration: true,
          graphql_envelop_error_result: true,
          graphql_envelop_deprecated_field: false,
          graphql_envelop_request_time_summary: false,
          graphql_envelop_phase_parse: false,
          graphql_envelop_phase_validate: false,
          graphql_envelop_phase_context: false,
          graphql_envelop_phase_execute: false,
          graphql_envelop_phase_subscribe: false,
          graphql_envelop_schema_change: false,
          graphql_yoga_http_duration: false,
        },
      }),
      useIntrospectionToggle(config.introspectionEnabled ?? true),
      // @defer and @stream (incremental delivery, multipart/mixed or SSE) for a page's slow parts.
      useDeferStream(),
      // Before the limits: a persisted operation's document is known only once its hash is looked up.
      config.persistedOperations?.only
        ? usePersistedOperations(config.persistedOperations, schema)
        : useAutomaticPersistedQueries(config.persistedOperations && checkedStore(config.persistedOperations.store, schema)),
      useInputBoundary(),
      useBoundedErrorMessages(),
      useGraphQLLimits(services, graphqlLimits),
      useAuth(services),
      useFileDownloads(services),
      useStorageUploads(services),
      useGit(services, services.git),
      usePdfDownloads(services),
      useIntegrationScripts(services),
      useIntegrationEndpoints(services),
      useRealtimeChannels(services, { heartbeatMs: realtime.limits.heartbeatMs }),
      // Subscriptions over SSE on /graphql: written through a Node stream (src/http/plugins/use-event-stream.ts).
      useEventStream({ heartbeatMs: realtime.limits.heartbeatMs }),
      // Before the 501 answers and the REST adapter, which answer every other /v1 path.
      useAuthorMcp({
        services,
        routes,
        limits: { ...DEFAULT_AUTHOR_MCP_LIMITS, ...config.mcp },
        // A tool call is its REST request, through every plugin again (rate limit, auth, the route).
        fetch: async (request: Request, serverContext: unknown): Promise<Response> =>
          yoga.fetch(request, serverContext as Record<string, unknown>),
        requestIdOf: requestLog.requestIdOf,
      }),
      useNotImplemented(routes),
      // /graphql documents sent again run compiled (a bounded cache keyed by their text).
      compiledExecution,
      useRestAdapter(routes),
      // After the REST adapter: its graphql-jit plugin replaces the execute function, and the
      // deadline must wrap whichever one runs (its race and its statement scope).
      useExecutionDeadline(graphqlLimits.executionTimeoutMs),
      useLoaderRelease(schema),
    ].map((plugin) => guardRequestHooks(plugin, { logger, requestIdOf: requestLog.requestIdOf })),
  });
  registerOpenAPIJobs(services, { refetchIntervalMs: (config.openapiRefetchIntervalHours ?? 24) * 3_600_000 });
  integrations.register();
  registerGitSyncJobs(services);
  registerImportRunJobs(services);
  registerAskVectorJobs(services);
  if (startJobs) jobs.start();
  /** Stops the job worker (running jobs are released for the next start), the training threads and the integration sandboxes; the database stays open. */
  const close = async () => {
    stopRows();
    realtime.close();
    await services.insights.close();
    await jobs.stop();
    await askTrainer.close();
    await integrations.close();
    // prom-client's default metrics keep a GC observer for the process's lifetime, and through it
    // this registry: emptied, it no longer holds the gauges that read the database.
    registry.clear();
  };
  /**
   * The HTTP server of this app: Node's own answers (request timeout, oversized headers, bytes
   * that are not HTTP) as the error envelope (src/http/client-error.ts), `handler` or Yoga for
   * the rest.
   */
  const createServer = (timeouts: Partial<ServerTimeouts> = {}, handler: RequestListener = yoga) => {
    const server = createHttpServer(timeouts, handler, {
      graphqlEndpoint: yoga.graphqlEndpoint,
      rateLimitHeaders: rateLimit.peekAddress,
      logger,
    });
    // Subscriptions over WebSocket on the same path (graphql-ws); over SSE Yoga serves them itself.
    attachWebSocket(server, yoga, realtime);
    return server;
  };
  return {
    yoga,
    services,
    jobs,
    close,
    registry,
    createServer,
    compiledDocuments: compiledExecution.stats,
    rateLimitHeaders: rateLimit.peekAddress,
    siteCache,
  };
}

export type App = ReturnType<typeof createApp>;

/** Open subscriptions, events sent and dropped, subscriptions refused and cut off, in /metrics. */
function registerRealtimeMetrics(registry: Registry, bus: RealtimeBus) {
  new Gauge({
    name: "realtime_subscriptions_open",
    help: "Realtime subscriptions open on this instance (SSE, WebSocket and GET /v1/channels)",
    registers: [registry],
    collect() {
      this.set(bus.openSubscriptions);
    },
  });
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  counter("realtime_events_sent_total", "Realtime events sent to subscribers", () => bus.stats.sent);
  counter(
    "realtime_events_dropped_total",
    "Realtime events dropped: queued for a subscription that was cut off or ended",
    () => bus.stats.dropped,
  );
  counter(
    "realtime_subscriptions_refused_total",
    "Realtime subscriptions refused at subscribe time (bad input, access, bounds)",
    () => bus.stats.refused,
  );
  counter(
    "realtime_subscriptions_cut_off_total",
    "Realtime subscriptions ended because their consumer fell too far behind",
    () => bus.stats.cutOff,
  );
}

/**
 * Yoga's default reflects any origin with credentials; here no origin is allowed unless listed
 * in CORS_ORIGINS, and `*` allows any origin without credentials.
 */
function corsOptions(origins: string[]) {
  if (origins.length === 0) return false;
  if (origins.includes("*")) return { origin: "*", credentials: false };
  return { origin: origins, credentials: true };
}

export const STARTER_QUERY = /* GraphQL */ `# Your organizations, their spaces and the pages in each.
# Press the run button (or Ctrl-Enter). The token is in the Headers tab below.
query Start {
  viewer {
    displayName
    organizations(first: 10) {
      nodes {
        id
        title
        spaces(first: 10) {
          nodes {
            id
            title
            content {
              pages { title path }
            }
          }
        }
      }
    }
  }
}
`;

function graphiqlOptions(token: string | undefined): GraphiQLOptions {
  const headers = JSON.stringify(
    { Authorization: `Bearer ${token ?? "<your token: npm run -s cli -- token --email you@example.com>"}` },
    null,
    2,
  );
  // GraphiQL opens its default tab (a welcome comment) unless tabs are given: the starter query
  // goes in as the one default tab, with its headers.
  return {
    title: TITLE,
    defaultQuery: STARTER_QUERY,
    headers,
    defaultTabs: [{ query: STARTER_QUERY, headers }],
    shouldPersistHeaders: false,
  };
}

/**
 * GraphiQL's page inlines its ~9 MB of assets (no CDN); rendered once per distinct options. Its
 * module is loaded when the page is first asked for: loaded at start, its source and assets kept
 * about 30 MB of every process's heap (RSS) that never serves GraphiQL.
 */
function cachedGraphiQL() {
  const cache = new Map<string, string>();
  return async (options: GraphiQLOptions) => {
    const key = JSON.stringify(options);
    let page = cache.get(key);
    if (page === undefined) {
      const { renderGraphiQL } = await import("@graphql-yoga/render-graphiql");
      // trimmed: the doctype must come first, or browsers render in quirks mode.
      page = renderGraphiQL(options).trim();
      if (cache.size > 4) cache.clear();
      cache.set(key, page);
    }
    return page;
  };
}
