// Environment → typed configuration, read once at start-up and validated with zod, so a bad value
// stops the start with one message naming every wrong variable instead of misbehaving later.
//
// To add a setting: one entry in `variables` (its zod type, its default, `.describe()` with what
// it means: the table of docs/configuration.md is checked against these), then its field in `Config` and
// `toConfig`. Nothing else reads `process.env`.
import { readFileSync } from "node:fs";
import { z } from "zod";

/** An empty value counts as unset (so `FOO=` in a compose file means the default). */
const optional = <T extends z.ZodType>(type: T) => z.preprocess((value) => (value === "" ? undefined : value), type.optional());

/** `true`/`false` (also 1/0, yes/no), or undefined when unset, for defaults that depend on others. */
const optionalFlag = () =>
  optional(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((value) => ["true", "false", "1", "0", "yes", "no"].includes(value), {
        message: "expected true or false (or 1/0, yes/no)",
      })
      .transform((value) => value === "true" || value === "1" || value === "yes"),
  );

/** `true`/`false`, also `1`/`0` and `yes`/`no`; anything else is refused rather than guessed. */
const flag = (fallback: boolean) => optionalFlag().transform((value) => value ?? fallback);

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `expected a whole number from ${min} to ${max}`);

const httpUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    message: "expected an absolute http:// or https:// URL",
  });

/**
 * A signing or sealing key: 32 characters or more, and not a placeholder left from an example
 * (a word like "change me" or "example", or a run of few distinct characters), which would let
 * anyone who read the same example forge file URLs or open sealed credentials.
 */
const PLACEHOLDER = /change.?(it|me|this)|placeholder|example|secret|password|your.?key|x{8}|0{8}/i;
const secretKey = () =>
  z
    .string()
    .min(32, "must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)")
    .refine((value) => value.length < 32 || (!PLACEHOLDER.test(value) && new Set(value).size >= 10), {
      message: "looks like a placeholder, not a random key: use e.g. the output of `openssl rand -hex 32`",
    });

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The OpenAI-compatible endpoint Ask generates answers with (ASK_MODEL_*; src/core/ask/model.ts). */
export interface AskModel {
  /** The endpoint's base URL (`…/v1`); `/chat/completions` is appended. */
  url: string;
  /** The model to ask for. */
  name: string;
  /** Sent as `Authorization: Bearer`; none when unset. */
  key?: string;
  /** Deadline of one answer, from the call to its last token. */
  timeoutMs: number;
  /** Calls under way at once in this instance; past it, answers are extractive. */
  concurrency: number;
}

/** Bounds of GraphQL requests (src/graphql/plugins/use-graphql-limits.ts, use-execution-deadline.ts). */
export interface GraphQLLimits {
  /** Deepest selection (fields within fields; introspection is not counted). */
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  /**
   * Fields of one response name in one selection set, fragments merged (validation compares each
   * pair of them, so many repeats of one field would stall the event loop while staying small).
   */
  maxRepeatedFields: number;
  /** Lexical tokens of a document: bounds the work of parsing it. */
  maxTokens: number;
  /** Largest document (`query` text), in bytes. */
  maxDocumentBytes: number;
  /** Largest JSON request body of /graphql (variables carry page markdown: 10 MiB per batch). */
  maxBodyBytes: number;
  /** Bodies above this are read only once their bearer token is known good. */
  anonymousBodyBytes: number;
  /** Estimated cost (each field 1, times `first` or the default page size for lists, times `ids`). */
  maxCost: number;
  /** Most ids in one `nodes(ids:)`. */
  maxNodeIds: number;
  /** Wall-clock deadline of one operation's execution, REST routes included. */
  executionTimeoutMs: number;
}

/** Organizations one user may create through `createOrganization` (ORGANIZATIONS_PER_USER_MAX). */
export const DEFAULT_ORGANIZATIONS_PER_USER_MAX = 10;

/** How far ahead a visitor token's `exp` may be (issue 28): a week. */
export const DEFAULT_VISITOR_TOKEN_MAX_LIFETIME_SECONDS = 7 * 24 * 3600;

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = {
  maxDepth: 15,
  maxAliases: 30,
  maxDirectives: 50,
  maxRepeatedFields: 50,
  maxTokens: 5000,
  maxDocumentBytes: 64 * 1024,
  maxBodyBytes: 24 * 1024 * 1024,
  anonymousBodyBytes: 64 * 1024,
  maxCost: 50_000,
  maxNodeIds: 100,
  executionTimeoutMs: 5000,
};

const GRAPHQL_LIMIT_VARIABLES = {
  GRAPHQL_MAX_DEPTH: ["maxDepth", 1, 1000, "Deepest GraphQL selection, fields within fields; introspection not counted"],
  GRAPHQL_MAX_ALIASES: ["maxAliases", 1, 10_000, "Most aliases in one GraphQL document"],
  GRAPHQL_MAX_DIRECTIVES: ["maxDirectives", 1, 10_000, "Most directives in one GraphQL document"],
  GRAPHQL_MAX_REPEATED_FIELDS: [
    "maxRepeatedFields",
    2,
    10_000,
    "Most fields of one response name in one GraphQL selection set, fragments merged",
  ],
  GRAPHQL_MAX_TOKENS: ["maxTokens", 10, 1_000_000, "Most lexical tokens in one GraphQL document (parsing stops there)"],
  GRAPHQL_MAX_DOCUMENT_BYTES: ["maxDocumentBytes", 1024, 100 * 1024 * 1024, "Largest GraphQL document (`query`), in bytes (413 above)"],
  GRAPHQL_MAX_BODY_BYTES: [
    "maxBodyBytes",
    1024,
    1024 * 1024 * 1024,
    "Largest JSON body of `/graphql`, in bytes (413 above; variables carry page markdown)",
  ],
  GRAPHQL_ANONYMOUS_BODY_BYTES: [
    "anonymousBodyBytes",
    0,
    1024 * 1024 * 1024,
    "Bodies of `/graphql` above this many bytes are read only after their token checks out (401 before)",
  ],
  GRAPHQL_MAX_COST: [
    "maxCost",
    1,
    1_000_000_000,
    "Largest estimated cost of a GraphQL operation: each field 1, lists multiply what they select by `first` (default 50) or the number of `ids`",
  ],
  GRAPHQL_MAX_NODE_IDS: ["maxNodeIds", 1, 100_000, "Most ids in one `nodes(ids:)`"],
  EXECUTION_TIMEOUT_MS: [
    "executionTimeoutMs",
    10,
    600_000,
    "Deadline of one operation (GraphQL or REST), and on PostgreSQL each statement's `statement_timeout`: it is stopped and answered 503 `EXECUTION_TIMEOUT`",
  ],
} as const satisfies Record<string, [keyof GraphQLLimits, number, number, string]>;

function graphqlLimitVariables() {
  return Object.fromEntries(
    Object.entries(GRAPHQL_LIMIT_VARIABLES).map(([name, [key, min, max, meaning]]) => [
      name,
      optional(integer(min, max))
        .transform((value) => value ?? DEFAULT_GRAPHQL_LIMITS[key])
        .describe(`${meaning} (default ${DEFAULT_GRAPHQL_LIMITS[key]}).`),
    ]),
  ) as unknown as Record<keyof typeof GRAPHQL_LIMIT_VARIABLES, z.ZodType<number>>;
}

export interface IntegrationSettings {
  /** CPU time of one event in a sandbox. */
  cpuMs: number;
  /** Growth of a sandbox's resident memory above its start. */
  memoryMb: number;
  /** Wall-clock bound of one delivery (sandbox or tunnel). */
  timeoutMs: number;
  /** Deliveries of one event (the first and its retries). */
  eventAttempts: number;
  /** Warm sandboxes kept (least recently used stopped first). */
  maxSandboxes: number;
  /** Hosts scripts may fetch besides this service. */
  allowedHosts: string[];
  /** Largest request body delivered to a script through its public endpoint (larger: 413). */
  endpointMaxRequestBytes: number;
  /** Largest response body a script may answer through its public endpoint (larger: 502). */
  endpointMaxResponseBytes: number;
  /** Records of public-endpoint requests kept per integration (older ones are deleted as new ones come). */
  endpointEventsKept: number;
}

export const DEFAULT_INTEGRATION_SETTINGS: IntegrationSettings = {
  cpuMs: 1000,
  memoryMb: 128,
  timeoutMs: 10_000,
  eventAttempts: 3,
  maxSandboxes: 8,
  allowedHosts: [],
  endpointMaxRequestBytes: 1024 * 1024,
  endpointMaxResponseBytes: 5 * 1024 * 1024,
  endpointEventsKept: 1000,
};

/** Every environment variable the service reads, with its rule and meaning. */
export const variables = {
  // An empty PORT is refused, not read as 0 (which would listen on a random port).
  PORT: integer(0, 65535).default(4000).describe("HTTP port (0: any free port)."),
  HOST: optional(z.string().trim().min(1))
    .transform((value) => value ?? "127.0.0.1")
    .describe("Interface to listen on: `127.0.0.1` (default) serves this machine only, `0.0.0.0` every interface (the container sets it)."),
  PUBLIC_URL: optional(httpUrl).describe("Base of every absolute URL in responses (`urls.*`); default `http://localhost:$PORT`."),
  DATABASE_URL: optional(
    z
      .string()
      .trim()
      .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), {
        message: "expected a postgres:// or postgresql:// URL, e.g. postgresql://user:password@host:5432/database",
      }),
  ).describe("PostgreSQL connection string; unset, the embedded database in `DATA_DIR` is used."),
  DATABASE_CONNECT_TIMEOUT_MS: optional(integer(100, 600_000))
    .transform((value) => value ?? 10_000)
    .describe("How long to wait for PostgreSQL to accept a connection before giving up with an error (default 10000)."),
  DATA_DIR: optional(z.string())
    .transform((value) => value ?? "./data")
    .describe("Directory of the embedded database (default `./data`). One process per directory."),
  SEED_DEMO: flag(true).describe("`false` skips the demo organization on first start (default `true`)."),
  DATABASE_DIRECT_READS: flag(true).describe(
    "`false` sends the hottest reads through Prisma's `$queryRaw` rather than straight to its driver adapter (default `true`; src/db/raw-query.ts).",
  ),
  FILES_SECRET: optional(secretKey()).describe(
    "Key that signs file download URLs (at least 32 characters); unset, a random key per start.",
  ),
  IMPORT_ALLOW_PRIVATE_HOSTS: flag(false).describe(
    "`true` lets imports and OpenAPI spec fetches reach loopback, private, link-local and other non-public addresses (default `false`: only for local use).",
  ),
  OPENAPI_REFETCH_INTERVAL_HOURS: optional(integer(1, 8760))
    .transform((value) => value ?? 24)
    .describe("How often an OpenAPI specification published from a URL is fetched again, in hours (default 24)."),
  GIT_SYNC_KEY: optional(secretKey()).describe(
    "Key that seals the credentials of Git Sync remotes in the database (at least 32 characters); unset, a random key per start (stored credentials then stop working after a restart).",
  ),
  ASK_MODEL_URL: optional(httpUrl).describe(
    "Base URL of an OpenAI-compatible endpoint (`https://api.example.com/v1`) Ask sends the retrieved passages to (`/chat/completions`, streamed) for a generated answer; unset, Ask answers extractively.",
  ),
  ASK_MODEL_NAME: optional(z.string().trim().min(1).max(200)).describe("The model Ask asks for; needed with ASK_MODEL_URL."),
  ASK_MODEL_KEY: optional(z.string().trim().min(1).max(4096)).describe("Sent as `Authorization: Bearer` to ASK_MODEL_URL; default none."),
  ASK_MODEL_TIMEOUT_MS: optional(integer(100, 300_000))
    .transform((value) => value ?? 20_000)
    .describe(
      "Deadline of one generated answer, from the call to its last token, in ms (default 20000); past it, the answer so far is kept or Ask answers extractively.",
    ),
  ASK_MODEL_CONCURRENCY: optional(integer(1, 1000))
    .transform((value) => value ?? 8)
    .describe("Generated answers under way at once in one instance (default 8); more questions get the extractive answer."),
  ADS_PARTNER_KEY: optional(secretKey()).describe(
    "The key (at least 32 characters) the ad partner presents as X-GitBook-Partner-Key on the partner's ads routes; unset, there is no partner and those routes refuse every call.",
  ),
  GIT_SYNC_REPOSITORIES: optional(z.string()).describe(
    'The repositories Git Sync installations may connect to, as JSON: `[{"id": 1, "provider": "github", "url": "https://user:token@github.com/acme/docs.git"}]` (ids are the published repositoryId / projectId; credentials in the URL are used for that repository); default none.',
  ),
  GIT_DATA_DIR: optional(z.string().trim())
    .transform((value) => value ?? "")
    .describe("Where the Git repositories of spaces are kept (a cache, rebuilt from the revisions); default `<DATA_DIR>/git`."),
  GIT_TIMEOUT_MS: optional(integer(1000, 3_600_000))
    .transform((value) => value ?? 120_000)
    .describe("Deadline of every Git operation (building a repository, a clone's pack, indexing a push), in ms (default 120000)."),
  GIT_MAX_FILES: optional(integer(10, 10_000_000))
    .transform((value) => value ?? 20_000)
    .describe("Most files in one revision's Git tree or one pushed tree (default 20000)."),
  GIT_MAX_FILE_BYTES: optional(integer(1024, 1024 * 1024 * 1024))
    .transform((value) => value ?? 10 * 1024 * 1024)
    .describe("Largest file in a push, in bytes (default 10485760)."),
  GIT_MAX_PUSH_BYTES: optional(integer(1024, 16 * 1024 * 1024 * 1024))
    .transform((value) => value ?? 200 * 1024 * 1024)
    .describe("Largest Git request body (a push's pack), in bytes (default 209715200); larger is refused with 413."),
  GIT_MAX_REPOSITORY_BYTES: optional(integer(1024, 1024 * 1024 * 1024 * 1024))
    .transform((value) => value ?? 1024 * 1024 * 1024)
    .describe("Largest tree of one revision (all its files), in bytes (default 1073741824)."),
  INTEGRATION_CPU_MS: optional(integer(10, 60_000))
    .transform((value) => value ?? 1000)
    .describe(
      "CPU time one integration event may use in its sandbox, in ms (default 1000); above, the sandbox is stopped and the event fails.",
    ),
  INTEGRATION_MEMORY_MB: optional(integer(32, 4096))
    .transform((value) => value ?? 128)
    .describe("Memory an integration's sandbox may grow by, in MB (default 128); above, it is stopped and its events fail."),
  INTEGRATION_TIMEOUT_MS: optional(integer(100, 600_000))
    .transform((value) => value ?? 10_000)
    .describe("Wall-clock bound of one delivery to a sandbox or a development tunnel, in ms (default 10000)."),
  INTEGRATION_EVENT_ATTEMPTS: optional(integer(1, 20))
    .transform((value) => value ?? 3)
    .describe("Deliveries of one integration event before it stays failed (default 3), retried after 1 s, 4 s, 16 s …"),
  INTEGRATION_MAX_SANDBOXES: optional(integer(1, 256))
    .transform((value) => value ?? 8)
    .describe("Warm integration sandboxes kept at once (one per integration version; least recently used stopped first; default 8)."),
  INTEGRATION_ALLOWED_HOSTS: optional(z.string())
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    )
    .describe("Comma-separated hosts (`api.example.com`) integration scripts may fetch besides this service's API. Default: none."),
  INTEGRATION_ENDPOINT_MAX_REQUEST_BYTES: optional(integer(0, 100 * 1024 * 1024))
    .transform((value) => value ?? 1024 * 1024)
    .describe("Largest request body sent to an integration's public endpoint, in bytes (default 1048576); larger is refused with 413."),
  INTEGRATION_ENDPOINT_MAX_RESPONSE_BYTES: optional(integer(0, 100 * 1024 * 1024))
    .transform((value) => value ?? 5 * 1024 * 1024)
    .describe("Largest response body a script may answer through its public endpoint, in bytes (default 5242880); larger is a 502."),
  INTEGRATION_ENDPOINT_EVENTS_KEPT: optional(integer(1, 1_000_000))
    .transform((value) => value ?? 1000)
    .describe("Records of requests to an integration's public endpoint kept in its events (default 1000); older ones are deleted."),
  CORS_ORIGINS: optional(z.string())
    .transform((value, context) => {
      const origins = (value ?? "")
        .split(",")
        .map((origin) => origin.trim())
        .filter(Boolean);
      for (const origin of origins) {
        if (origin !== "*" && !(URL.canParse(origin) && new URL(origin).origin === origin)) {
          context.addIssue({
            code: "custom",
            message: `"${origin}" is not an origin like https://docs.example.com (no path, no trailing slash) or *`,
          });
        }
      }
      return origins;
    })
    .describe(
      "Comma-separated origins allowed to call the API from a browser (`*`: any, without credentials). Default: none (same origin only).",
    ),
  LOG_LEVEL: optional(z.enum(LOG_LEVELS))
    .transform((value) => value ?? "info")
    .describe(`Log level: ${LOG_LEVELS.join(", ")} (default \`info\`).`),
  SHUTDOWN_TIMEOUT_MS: optional(integer(0, 600_000))
    .transform((value) => value ?? 10_000)
    .describe("On SIGTERM/SIGINT, how long requests under way may finish before the process exits anyway (default 10000)."),
  ...graphqlLimitVariables(),
  NODE_ENV: optional(z.string().trim())
    .transform((value) => value ?? "development")
    .describe("`production` turns GraphiQL and introspection off unless `GRAPHIQL_ENABLED` / `INTROSPECTION_ENABLED` say otherwise."),
  GRAPHIQL_ENABLED: optionalFlag().describe("GraphiQL at `/graphql` in a browser (default: on, off when `NODE_ENV=production`)."),
  INTROSPECTION_ENABLED: optionalFlag().describe(
    "GraphQL introspection (`__schema`, `__type`) (default: on, off when `NODE_ENV=production`).",
  ),
  PERSISTED_OPERATIONS_FILE: optional(z.string().trim()).describe(
    "A JSON file of persisted operations (`sha256 hex of the document` → document) a frontend's build registers; `/graphql` runs one by `extensions.persistedQuery.sha256Hash`.",
  ),
  PERSISTED_OPERATIONS_ONLY: optionalFlag().describe(
    "Only persisted operations run on `/graphql`: a document sent as text is refused (400); needs `PERSISTED_OPERATIONS_FILE` (default off).",
  ),
  RATE_LIMIT_PER_TOKEN: optional(integer(1, 10_000_000))
    .transform((value) => value ?? 1200)
    .describe("Requests per window for one API token (default 1200); 429 with `Retry-After` above."),
  RATE_LIMIT_PER_ADDRESS: optional(integer(1, 10_000_000))
    .transform((value) => value ?? 300)
    .describe("Requests per window from one client address without a token (default 300)."),
  RATE_LIMIT_CREDENTIAL_FAILURES: optional(integer(1, 10_000_000))
    .transform((value) => value ?? 30)
    .describe(
      "Refused share keys and visitor tokens per window from one client address (default 30); further site requests carrying one get 429.",
    ),
  ORGANIZATIONS_PER_USER_MAX: optional(integer(0, 100_000))
    .transform((value) => value ?? DEFAULT_ORGANIZATIONS_PER_USER_MAX)
    .describe(`Organizations one user may create through the API (default ${DEFAULT_ORGANIZATIONS_PER_USER_MAX}); 0 turns creation off.`),
  VISITOR_TOKEN_MAX_LIFETIME_SECONDS: optional(integer(60, 366 * 86_400))
    .transform((value) => value ?? DEFAULT_VISITOR_TOKEN_MAX_LIFETIME_SECONDS)
    .describe(
      "A visitor token (visitor-auth sites) must carry `exp`, at most this many seconds ahead (default 604800, 7 days); `nbf` and `iat` are honoured.",
    ),
  RATE_LIMIT_WINDOW_SECONDS: optional(integer(1, 86_400))
    .transform((value) => value ?? 60)
    .describe("Length of the rate-limit window in seconds (default 60)."),
  HEADERS_TIMEOUT_MS: optional(integer(100, 600_000))
    .transform((value) => value ?? 10_000)
    .describe("A client must send its request headers within this (default 10000); 408 and closed otherwise."),
  REQUEST_TIMEOUT_MS: optional(integer(100, 3_600_000))
    .transform((value) => value ?? 60_000)
    .describe("A client must send its whole request, body included, within this (default 60000); 408 and closed otherwise."),
  REALTIME_MAX_SUBSCRIPTIONS_PER_TOKEN: optional(integer(1, 1_000_000))
    .transform((value) => value ?? 100)
    .describe("Realtime subscriptions one API token may hold open on one instance (default 100); 429 above."),
  REALTIME_MAX_SUBSCRIPTIONS: optional(integer(1, 10_000_000))
    .transform((value) => value ?? 10_000)
    .describe("Realtime subscriptions one instance holds open, all tokens together (default 10000); 429 above."),
  REALTIME_MAX_QUEUED_EVENTS: optional(integer(1, 100_000))
    .transform((value) => value ?? 100)
    .describe("Events waiting for one subscription's slow consumer (default 100); one more ends the subscription with an error."),
} satisfies Record<string, z.ZodType>;

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  /** Interface the HTTP server listens on. */
  host: string;
  /** Base of every absolute URL the API returns (`urls.*`), without a trailing slash. */
  publicUrl: string;
  /** PostgreSQL connection string; when unset the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  databaseConnectTimeoutMs: number;
  /** The hottest reads go straight to Prisma's driver adapter (raw-query.ts); false: through `$queryRaw`. */
  databaseDirectReads: boolean;
  /** Directory of the embedded database. */
  dataDir: string;
  /** Create the demo organization on first start of an empty database. */
  seedDemo: boolean;
  /**
   * Key of the HMAC that signs file download URLs. Unset: a random key made at start-up, so URLs
   * handed out before a restart, or by another instance, stop working (set it in production).
   */
  filesSecret: string | undefined;
  /** Seals the credentials of Git Sync remotes (src/core/git/sync.ts). Unset: a random key per start. */
  gitSyncKey: string | undefined;
  /** The ad partner's key (src/core/sites/ads.ts); none: no partner. */
  adsPartnerKey?: string;
  /** The model generating Ask's answers (src/core/ask/model.ts); unset: extractive answers. */
  askModel?: AskModel;
  /** GIT_SYNC_REPOSITORIES: the repositories Git Sync installations may connect to. */
  gitSyncRepositories: GitSyncRepositoryConfig[];
  importAllowPrivateHosts: boolean;
  /** URL-sourced OpenAPI specs are fetched again this often. */
  openapiRefetchIntervalHours: number;
  /** Sandboxes and deliveries of integration scripts (src/infra/workerd-sandbox.ts). */
  integrations: IntegrationSettings;
  /** Git over HTTP (src/core/git/repository.ts). */
  git: { dataDir: string; timeoutMs: number; maxFiles: number; maxFileBytes: number; maxPushBytes: number; maxRepositoryBytes: number };
  /** Origins allowed by CORS; empty: none; `["*"]`: any, without credentials. */
  corsOrigins: string[];
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  graphqlLimits: GraphQLLimits;
  graphiqlEnabled: boolean;
  introspectionEnabled: boolean;
  /** Persisted operations on /graphql (src/graphql/plugins/use-persisted-operations.ts). */
  persistedOperations?: { store: Record<string, string>; only: boolean };
  rateLimits: { perToken: number; perAddress: number; windowSeconds: number; credentialFailuresPerAddress?: number };
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  visitorTokenMaxLifetimeSeconds: number;
  organizationsPerUserMax: number;
  /** Bounds of realtime subscriptions (src/core/realtime/bus.ts). */
  realtime: { maxPerToken: number; maxPerInstance: number; maxQueuedEvents: number };
}

/** Every wrong variable at once, one per line, each naming the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const schema = z.object(variables);

/** Never echoed in an error: they hold passwords or keys. */
const SECRETS: ReadonlySet<string> = new Set([
  "DATABASE_URL",
  "FILES_SECRET",
  "GIT_SYNC_KEY",
  "GIT_SYNC_REPOSITORIES",
  "ADS_PARTNER_KEY",
  "ASK_MODEL_KEY",
]);

/**
 * This process's environment with `extra` added, for a child process that needs variables of its
 * own (git: a remote's credentials, a commit's identity). Here because this module alone reads
 * `process.env`.
 */
export function childEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input = Object.fromEntries(Object.keys(variables).map((name) => [name, env[name]]));
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        const given = env[name];
        const shown = given === undefined || SECRETS.has(name) ? "" : ` (got ${JSON.stringify(given)})`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  const value = parsed.data;
  if (value.ASK_MODEL_URL && !value.ASK_MODEL_NAME) {
    throw new ConfigError(["ASK_MODEL_NAME: needed with ASK_MODEL_URL (the model to ask for)"]);
  }
  if (value.PERSISTED_OPERATIONS_ONLY && !value.PERSISTED_OPERATIONS_FILE) {
    throw new ConfigError(["PERSISTED_OPERATIONS_ONLY: needs PERSISTED_OPERATIONS_FILE (no operation could run)"]);
  }
  let persistedOperations: Config["persistedOperations"];
  if (value.PERSISTED_OPERATIONS_FILE) {
    let store: unknown;
    try {
      store = JSON.parse(readFileSync(value.PERSISTED_OPERATIONS_FILE, "utf8"));
    } catch (error) {
      throw new ConfigError([`PERSISTED_OPERATIONS_FILE: ${(error as Error).message}`]);
    }
    if (typeof store !== "object" || store === null || Array.isArray(store)) {
      throw new ConfigError(["PERSISTED_OPERATIONS_FILE: expected a JSON object of sha256 hash → document"]);
    }
    persistedOperations = { store: store as Record<string, string>, only: value.PERSISTED_OPERATIONS_ONLY ?? false };
  }
  return {
    persistedOperations,
    port: value.PORT,
    host: value.HOST,
    publicUrl: (value.PUBLIC_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, ""),
    databaseUrl: value.DATABASE_URL,
    databaseConnectTimeoutMs: value.DATABASE_CONNECT_TIMEOUT_MS,
    databaseDirectReads: value.DATABASE_DIRECT_READS,
    dataDir: value.DATA_DIR,
    seedDemo: value.SEED_DEMO,
    filesSecret: value.FILES_SECRET,
    gitSyncKey: value.GIT_SYNC_KEY,
    adsPartnerKey: value.ADS_PARTNER_KEY,
    askModel: value.ASK_MODEL_URL
      ? {
          url: value.ASK_MODEL_URL,
          name: value.ASK_MODEL_NAME!,
          key: value.ASK_MODEL_KEY,
          timeoutMs: value.ASK_MODEL_TIMEOUT_MS,
          concurrency: value.ASK_MODEL_CONCURRENCY,
        }
      : undefined,
    gitSyncRepositories: gitSyncRepositoriesOf(value.GIT_SYNC_REPOSITORIES),
    importAllowPrivateHosts: value.IMPORT_ALLOW_PRIVATE_HOSTS,
    openapiRefetchIntervalHours: value.OPENAPI_REFETCH_INTERVAL_HOURS,
    git: {
      dataDir: value.GIT_DATA_DIR || `${value.DATA_DIR}/git`,
      timeoutMs: value.GIT_TIMEOUT_MS,
      maxFiles: value.GIT_MAX_FILES,
      maxFileBytes: value.GIT_MAX_FILE_BYTES,
      maxPushBytes: value.GIT_MAX_PUSH_BYTES,
      maxRepositoryBytes: value.GIT_MAX_REPOSITORY_BYTES,
    },
    integrations: {
      cpuMs: value.INTEGRATION_CPU_MS,
      memoryMb: value.INTEGRATION_MEMORY_MB,
      timeoutMs: value.INTEGRATION_TIMEOUT_MS,
      eventAttempts: value.INTEGRATION_EVENT_ATTEMPTS,
      maxSandboxes: value.INTEGRATION_MAX_SANDBOXES,
      allowedHosts: value.INTEGRATION_ALLOWED_HOSTS,
      endpointMaxRequestBytes: value.INTEGRATION_ENDPOINT_MAX_REQUEST_BYTES,
      endpointMaxResponseBytes: value.INTEGRATION_ENDPOINT_MAX_RESPONSE_BYTES,
      endpointEventsKept: value.INTEGRATION_ENDPOINT_EVENTS_KEPT,
    },
    corsOrigins: value.CORS_ORIGINS,
    logLevel: value.LOG_LEVEL,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    graphqlLimits: Object.fromEntries(
      Object.entries(GRAPHQL_LIMIT_VARIABLES).map(([name, [key]]) => [key, value[name as keyof typeof GRAPHQL_LIMIT_VARIABLES]]),
    ) as unknown as GraphQLLimits,
    graphiqlEnabled: value.GRAPHIQL_ENABLED ?? value.NODE_ENV !== "production",
    introspectionEnabled: value.INTROSPECTION_ENABLED ?? value.NODE_ENV !== "production",
    rateLimits: {
      perToken: value.RATE_LIMIT_PER_TOKEN,
      perAddress: value.RATE_LIMIT_PER_ADDRESS,
      credentialFailuresPerAddress: value.RATE_LIMIT_CREDENTIAL_FAILURES,
      windowSeconds: value.RATE_LIMIT_WINDOW_SECONDS,
    },
    headersTimeoutMs: value.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
    visitorTokenMaxLifetimeSeconds: value.VISITOR_TOKEN_MAX_LIFETIME_SECONDS,
    organizationsPerUserMax: value.ORGANIZATIONS_PER_USER_MAX,
    realtime: {
      maxPerToken: value.REALTIME_MAX_SUBSCRIPTIONS_PER_TOKEN,
      maxPerInstance: value.REALTIME_MAX_SUBSCRIPTIONS,
      maxQueuedEvents: value.REALTIME_MAX_QUEUED_EVENTS,
    },
  };
}

/** One repository of GIT_SYNC_REPOSITORIES. */
export interface GitSyncRepositoryConfig {
  id: number;
  provider: "github" | "gitlab";
  /** The Git remote, credentials (`user:password@`) included when it has them. */
  url: string;
}

const GIT_SYNC_REPOSITORY = z
  .object({
    id: z.number().int().positive(),
    provider: z.enum(["github", "gitlab"]),
    url: z.string().url(),
  })
  .strict();

function gitSyncRepositoriesOf(json: string | undefined): GitSyncRepositoryConfig[] {
  if (!json?.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ConfigError(["GIT_SYNC_REPOSITORIES: expected JSON (an array of { id, provider, url })"]);
  }
  const result = z.array(GIT_SYNC_REPOSITORY).safeParse(parsed);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map(
        (issue) => `GIT_SYNC_REPOSITORIES${issue.path.map((part) => `[${JSON.stringify(part)}]`).join("")}: ${issue.message}`,
      ),
    );
  }
  const seen = new Set<string>();
  for (const repository of result.data) {
    const key = `${repository.provider}:${repository.id}`;
    if (seen.has(key)) throw new ConfigError([`GIT_SYNC_REPOSITORIES: ${repository.provider} repository ${repository.id} is listed twice`]);
    seen.add(key);
  }
  return result.data;
}
