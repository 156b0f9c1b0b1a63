// The service itself: what the published `GET /v1/` (getApiInformation) answers.
import { builder } from "./builder.ts";

const ApiInformationRef = builder.simpleObject("ApiInformation", {
  description: "The release of this service",
  fields: (t) => ({
    version: t.string({ description: "Version of this service (its package's)" }),
    build: t.string({ description: "When this server started, ISO 8601 (its build has no date of its own)" }),
  }),
});

builder.queryField("apiInformation", (t) =>
  t.field({
    description: "The release of this service",
    type: ApiInformationRef,
    resolve: (_root, _args, { core }) => core.release,
  }),
);
