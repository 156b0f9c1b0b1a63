// GET /v1/: the published API information (release version and date).
import { graphql } from "../graphql.ts";
import { type RestRoute, typedRoute } from "../route.ts";

export const systemRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/",
    action: "viewer",
    document: graphql(`query GetApiInformation { apiInformation { version build } }`),
    variables: () => ({}),
    status: 200,
    body: (data) => data.apiInformation,
  }),
];
