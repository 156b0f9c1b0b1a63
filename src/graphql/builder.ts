// The Pothos builder and its plugins. No types here: each domain file adds its own.
import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import RelayPlugin from "@pothos/plugin-relay";
import SimpleObjectsPlugin from "@pothos/plugin-simple-objects";
import type { RequestBudget } from "../core/budget.ts";
import type { CoreContext } from "../core/context.ts";
import type { DirectEvents } from "../core/realtime/bus.ts";
import { notFound } from "../core/errors.ts";
import { entityOfId } from "../core/ids.ts";

export interface GraphQLContext {
  core: CoreContext;
  /** What this request costs and what is left of its budget: set by the limit plugins, read by `rateLimit`. */
  budget?: RequestBudget;
  /** Set by a transport that can write a `channel` subscription's events at once (SSE on /graphql). */
  directEvents?: DirectEvents;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    ID: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
  Connection: { totalCount: number };
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [RelayPlugin, DataloaderPlugin, SimpleObjectsPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: "omit",
    nodesOnConnection: { description: "The items of this page (the nodes of `edges`, without cursors)" },
    cursorType: "String",
    // One id across both surfaces: the node id is the REST id, its prefix names the type.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => decodeNodeId(globalID),
    // Descriptions of the types and fields the plugin generates for every list and node.
    nodeTypeOptions: { description: "An object with a globally unique id (its prefix names the type), readable with `node(id:)`" },
    idFieldOptions: { description: "Globally unique id, the same as the REST id (`org_…`, `spc_…`)" },
    nodeQueryOptions: { description: "The object with this id, of any type implementing Node; not found when the caller cannot see it" },
    nodesQueryOptions: { description: "The objects with these ids, in the same order; null for each one not found or not visible" },
    pageInfoTypeOptions: { description: "Where a page of a list stands: whether more items follow, and the cursors to fetch them" },
    hasNextPageFieldOptions: { description: "Whether more items follow this page (fetch them with `after: endCursor`)" },
    hasPreviousPageFieldOptions: { description: "Always false: lists page forward only" },
    startCursorFieldOptions: { description: "Cursor of the first item of this page; null when the page is empty" },
    endCursorFieldOptions: { description: "Cursor of the last item of this page, for `after`; null when the page is empty" },
    defaultConnectionTypeOptions: {
      description: "One page of a list: its items (as nodes, or as edges with cursors), where it stands, and the total count",
    },
    defaultEdgeTypeOptions: { description: "One item of a list page, with the cursor to continue after it" },
    edgesFieldOptions: { description: "The items of this page, each with its cursor" },
    nodesFieldOptions: { description: "The items of this page" },
    pageInfoFieldOptions: { description: "Whether more items follow, and the cursors to fetch them" },
    cursorFieldOptions: { description: "Opaque cursor of this item: pass it as `after` to continue after it" },
    nodeFieldOptions: { description: "The item" },
  },
});

/**
 * An id whose prefix names no node type is not found, like any id the caller cannot see (left
 * through, Pothos would fail with "<type> has not been implemented").
 */
function decodeNodeId(globalID: string): { typename: string; id: string } {
  const typename = entityOfId(globalID);
  if (!typename || !isNodeType(typename)) throw notFound("node", globalID);
  return { typename, id: globalID };
}

/** Whether `typename` is an object type implementing Node (pages and reusable contents have ids but are not nodes). */
function isNodeType(typename: string): boolean {
  if (!builder.configStore.hasConfig(typename)) return false;
  const config = builder.configStore.getTypeConfig(typename);
  if (config.kind !== "Object") return false;
  const node = builder.configStore.getTypeConfig(builder.nodeInterfaceRef());
  return config.interfaces.some((iface) => builder.configStore.getTypeConfig(iface).name === node.name);
}

builder.queryType({
  description: "Reads. Everything starts from `viewer` (the caller), or from an object's id (`organization`, `space`, `node`, …)",
});
builder.mutationType({
  description: "Writes. Each mutation takes one `input` object and answers a payload with what it changed",
});

builder.scalarType("DateTime", {
  description: "An ISO 8601 date-time string",
  serialize: (value) => (value as Date).toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError("DateTime must be an ISO 8601 date-time string");
    return date;
  },
});

builder.scalarType("JSON", {
  description: "Any JSON value (maps of variables, document trees)",
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.globalConnectionField("totalCount", (t) =>
  t.int({ description: "Total number of items in the list, across all pages", resolve: (parent) => parent.totalCount }),
);
