// Builds the whole service: one Yoga instance serving GraphQL at /graphql, with the REST
// adapter plugged into the same pipeline for /v1.
import { createYoga } from "graphql-yoga";
import { DEFAULT_GRAPHQL_LIMITS, type Config } from "./config.ts";
import { systemClock, type Clock } from "./core/clock.ts";
import type { Services } from "./core/context.ts";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./core/import/limits.ts";
import { Signer } from "./core/signer.ts";
import { JobQueue, type JobQueueOptions } from "./core/jobs/index.ts";
import { Urls } from "./core/urls.ts";
import type { Database } from "./db/client.ts";
import type { GraphQLContext } from "./graphql/builder.ts";
import { useAuth } from "./graphql/plugins/use-auth.ts";
import { maskError } from "./graphql/plugins/use-error-masking.ts";
import { useExecutionDeadline } from "./graphql/plugins/use-execution-deadline.ts";
import { useFileDownloads } from "./graphql/plugins/use-file-downloads.ts";
import { useGraphQLLimits } from "./graphql/plugins/use-graphql-limits.ts";
import { useInputBoundary } from "./graphql/plugins/use-input-boundary.ts";
import { usePdfDownloads } from "./graphql/plugins/use-pdf-downloads.ts";
import { schema } from "./graphql/schema.ts";
import { guardRequestHooks } from "./http/guard.ts";
import { useRestAdapter } from "../rest-adapter/index.ts";
import { routes } from "../rest-adapter/routes/index.ts";

/** The settings the app itself uses: PUBLIC_URL is required, the others have their defaults. */
export type AppConfig = Pick<Config, "publicUrl"> &
  Partial<Pick<Config, "filesSecret" | "corsOrigins" | "importAllowPrivateHosts">> & {
    graphqlLimits?: Partial<Config["graphqlLimits"]>;
    /** Bounds of website imports other than the private-host policy (tests lower the timeouts). */
    importLimits?: Partial<ImportLimits>;
  };

export interface AppOptions {
  database: Database;
  config: AppConfig;
  clock?: Clock;
  /** Worker settings of the job queue (tests shorten the poll). */
  jobs?: Partial<Omit<JobQueueOptions, "clock">>;
  /** Start the job worker (default true); `close()` stops it. */
  startJobs?: boolean;
}

/** The composition root: every setting reaches the rest of the code from here. */
export function createApp({ database, config, clock = systemClock, jobs: jobOptions, startJobs = true }: AppOptions) {
  const jobs = new JobQueue(database.prisma, { ...jobOptions, clock });
  const services: Services = {
    prisma: database.prisma,
    clock,
    urls: new Urls(config.publicUrl),
    signer: new Signer(config.filesSecret, clock),
    importLimits: {
      ...DEFAULT_IMPORT_LIMITS,
      allowPrivateHosts: config.importAllowPrivateHosts ?? DEFAULT_IMPORT_LIMITS.allowPrivateHosts,
      ...config.importLimits,
    },
    jobs,
  };
  const graphqlLimits = { ...DEFAULT_GRAPHQL_LIMITS, ...config.graphqlLimits };
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Documentation publishing API", defaultQuery: DEFAULT_QUERY },
    landingPage: false,
    cors: corsOptions(config.corsOrigins ?? []),
    maskedErrors: { maskError },
    plugins: [
      useInputBoundary(),
      useGraphQLLimits(services, graphqlLimits),
      useExecutionDeadline(graphqlLimits.executionTimeoutMs),
      useAuth(services),
      useFileDownloads(services),
      usePdfDownloads(services),
      useRestAdapter(routes),
    ].map((plugin) => guardRequestHooks(plugin)),
  });
  if (startJobs) jobs.start();
  /** Stops the job worker (running jobs are released for the next start); the database stays open. */
  const close = () => jobs.stop();
  return { yoga, services, jobs, close };
}

export type App = ReturnType<typeof createApp>;

/**
 * Yoga's default reflects any origin with credentials; here no origin is allowed unless listed
 * in CORS_ORIGINS, and `*` allows any origin without credentials.
 */
function corsOptions(origins: string[]) {
  if (origins.length === 0) return false;
  if (origins.includes("*")) return { origin: "*", credentials: false };
  return { origin: origins, credentials: true };
}

const DEFAULT_QUERY = /* GraphQL */ `# Add the header {"Authorization": "Bearer <token>"} below, then run:
query {
  viewer {
    displayName
    organizations(first: 10) {
      totalCount
      nodes { id title spaces(first: 10) { nodes { id title emoji } } }
    }
  }
}
`;
