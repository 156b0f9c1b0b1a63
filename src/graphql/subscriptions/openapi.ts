// Typed subscription of an OpenAPI specification: its processing state, its versions.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import { builder } from "../builder.ts";
import { OpenAPISpecRef } from "../openapi.ts";
import { eventOrError, RealtimeEventRef, typedEvents } from "../realtime.ts";

const OpenAPISpecEventRef = builder.objectRef<ChannelEvent>("OpenAPISpecEvent").implement({
  description: "A change of an OpenAPI specification: its source, its processing state, a new version",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    spec: t.field({
      type: OpenAPISpecRef,
      description: "The specification, as it stands now (processingState, lastVersion, lastProcessedErrors …)",
      resolve: (e) => e.ids.openAPISpec!,
    }),
  }),
});

builder.subscriptionField("openAPISpec", (t) =>
  t.field({
    type: OpenAPISpecEventRef,
    description:
      "Each change of an OpenAPI specification (channel `openapi-spec`), with the specification as queries read it. Refused at subscribe time as `channel` is",
    args: { spec: t.arg.id({ required: true, description: "Id of the specification" }) },
    subscribe: (_root, args, context) => typedEvents(context, "openapi-spec", { openAPISpec: String(args.spec) }),
    resolve: (item) => eventOrError(item),
  }),
);
