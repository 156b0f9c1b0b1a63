// Builds the whole service: one Yoga instance serving GraphQL at /graphql, with the REST
// adapter plugged into the same pipeline for /v1.
import { createYoga } from "graphql-yoga";
import { DEFAULT_GRAPHQL_LIMITS, type Config } from "./config.ts";
import { systemClock, type Clock } from "./core/clock.ts";
import type { Services } from "./core/context.ts";
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

export interface AppOptions {
  database: Database;
  config: Pick<Config, "publicUrl"> & Partial<Pick<Config, "filesSecret">> & { graphqlLimits?: Partial<Config["graphqlLimits"]> };
  clock?: Clock;
}

export function createApp({ database, config, clock = systemClock }: AppOptions) {
  const services: Services = { prisma: database.prisma, clock, urls: new Urls(config.publicUrl) };
  const graphqlLimits = { ...DEFAULT_GRAPHQL_LIMITS, ...config.graphqlLimits };
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Documentation publishing API", defaultQuery: DEFAULT_QUERY },
    landingPage: false,
    maskedErrors: { maskError },
    plugins: [
      useInputBoundary(),
      useGraphQLLimits(services, graphqlLimits),
      useExecutionDeadline(graphqlLimits.executionTimeoutMs),
      useAuth(services),
      useFileDownloads(services, config),
      usePdfDownloads(services),
      useRestAdapter(routes),
    ].map((plugin) => guardRequestHooks(plugin)),
  });
  return { yoga, services };
}

export type App = ReturnType<typeof createApp>;

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
