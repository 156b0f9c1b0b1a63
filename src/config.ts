// Environment → typed configuration, read once at start-up.

export interface Config {
  port: number;
  /** Base of every absolute URL the API returns (`urls.*`). */
  publicUrl: string;
  /** PostgreSQL connection string; when unset the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database. */
  dataDir: string;
  /** Create the demo organization on first start of an empty database. */
  seedDemo: boolean;
  /**
   * Key of the HMAC that signs file download URLs. Unset: a random key made at start-up, so URLs
   * handed out before a restart, or by another instance, stop working (set it in production).
   */
  filesSecret: string | undefined;
  /** Bounds of GraphQL requests (src/graphql/plugins/use-graphql-limits.ts). */
  graphqlLimits: GraphQLLimits;
}

export interface GraphQLLimits {
  /** Deepest selection (fields within fields; introspection is not counted). */
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
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

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = {
  maxDepth: 15,
  maxAliases: 30,
  maxDirectives: 50,
  maxTokens: 5000,
  maxDocumentBytes: 64 * 1024,
  maxBodyBytes: 24 * 1024 * 1024,
  anonymousBodyBytes: 64 * 1024,
  maxCost: 50_000,
  maxNodeIds: 100,
  executionTimeoutMs: 5000,
};

/** A positive integer setting, or its default when unset. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const filesSecret = env.FILES_SECRET || undefined;
  if (filesSecret !== undefined && filesSecret.length < 32) {
    throw new Error("FILES_SECRET must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)");
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  return {
    port,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "./data",
    seedDemo: env.SEED_DEMO !== "false",
    filesSecret,
    graphqlLimits: {
      maxDepth: positiveInteger(env, "GRAPHQL_MAX_DEPTH", DEFAULT_GRAPHQL_LIMITS.maxDepth),
      maxAliases: positiveInteger(env, "GRAPHQL_MAX_ALIASES", DEFAULT_GRAPHQL_LIMITS.maxAliases),
      maxDirectives: positiveInteger(env, "GRAPHQL_MAX_DIRECTIVES", DEFAULT_GRAPHQL_LIMITS.maxDirectives),
      maxTokens: positiveInteger(env, "GRAPHQL_MAX_TOKENS", DEFAULT_GRAPHQL_LIMITS.maxTokens),
      maxDocumentBytes: positiveInteger(env, "GRAPHQL_MAX_DOCUMENT_BYTES", DEFAULT_GRAPHQL_LIMITS.maxDocumentBytes),
      maxBodyBytes: positiveInteger(env, "GRAPHQL_MAX_BODY_BYTES", DEFAULT_GRAPHQL_LIMITS.maxBodyBytes),
      anonymousBodyBytes: positiveInteger(env, "GRAPHQL_ANONYMOUS_BODY_BYTES", DEFAULT_GRAPHQL_LIMITS.anonymousBodyBytes),
      maxCost: positiveInteger(env, "GRAPHQL_MAX_COST", DEFAULT_GRAPHQL_LIMITS.maxCost),
      maxNodeIds: positiveInteger(env, "GRAPHQL_MAX_NODE_IDS", DEFAULT_GRAPHQL_LIMITS.maxNodeIds),
      executionTimeoutMs: positiveInteger(env, "EXECUTION_TIMEOUT_MS", DEFAULT_GRAPHQL_LIMITS.executionTimeoutMs),
    },
  };
}
