// A REST route is a table row: method + path → one hand-written GraphQL operation, how the
// request becomes its variables, the success status, and how `data` becomes the body.

import type { TadaDocumentNode } from "gql.tada";
import { print } from "graphql";
import type { Action } from "../src/core/auth/policy.ts";
import { graphql, type FragmentOf } from "./graphql.ts";
import { quote } from "../src/core/errors.ts";

/** `string[]`: repeated (`authors=a&authors=b`, as the official client sends arrays) or comma-separated. */
export type QueryParamType = "string" | "boolean" | "limit" | "string[]";

export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, string | number | boolean | string[] | undefined>;
  body: Record<string, unknown>;
  /** The request headers the route names in `headers`, by lowercase name. */
  headers?: Record<string, string | undefined>;
}

export interface RestRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** find-my-way syntax: `/v1/spaces/:spaceId`. */
  path: string;
  /**
   * The operation of the permission matrix (src/core/auth/policy.ts) the route performs; its
   * resolvers enforce it, and the matrix test checks every route against it for every role.
   * `partner`: the ad partner's routes, for the key the service is configured with (X-GitBook-Partner-Key), no role.
   */
  action: Action | "viewer" | "partner";
  /** Largest JSON body of this route (default MAX_BODY_BYTES, 1 MiB): publishing an integration carries its script. */
  maxBodyBytes?: number;
  /** Request headers the route reads (lowercase names), given to `variables` as `headers`. */
  headers?: string[];
  /** Query parameters the route reads, parsed and checked before the operation runs. */
  query?: Record<string, QueryParamType>;
  document: string;
  variables: (request: RestRequest) => Record<string, unknown>;
  status: 200 | 201 | 204 | 205;
  /**
   * When the status depends on what the operation did (removed something: 205, nothing to remove:
   * 204; PUT that created: 201, that updated: 200).
   */
  statusOf?: (data: unknown) => Status;
  /** The response body from `data`; routes answering 204/205 have none. */
  body?: (data: unknown) => unknown;
  /**
   * How a streamed answer is sent. `events`: as `text/event-stream`, one `data:` event per result
   * of the subscription (its `body`), or per item of the query's `body` (a list), then an event
   * `done` (or `error` with the error envelope), as the official client reads them. `last`: the
   * subscription run to its end, its last result's `body` answered as JSON.
   */
  stream?: "events" | "last";
  /**
   * The API path (below `/v1`) of what a 201 created, for its `Location` header, when its body
   * has no `urls.location` (which is used otherwise): `/orgs/…/share-links/…`.
   */
  location?: (body: unknown, request: RestRequest) => string;
}

type Status = 200 | 201 | 204 | 205;

/** A row whose functions take the operation's result type (`Data`) and the body they make (`Body`). */
type RouteOf<Document, Data, Body> = Omit<RestRoute, "document" | "body" | "statusOf" | "location"> & {
  document: Document;
  body?: (data: Data) => Body;
  statusOf?: (data: Data) => Status;
  location?: (body: Body, request: RestRequest) => string;
};

/**
 * A row whose document is typed (rest-adapter/graphql.ts): its `body` gets the operation's result
 * type, so the compiler checks every field it reads.
 */
export function typedRoute<Result, Variables, Body>(route: RouteOf<TadaDocumentNode<Result, Variables>, Result, Body>): RestRoute {
  return builtRoute<Result, Body>({ ...route, document: print(route.document) });
}

/**
 * A row whose document is built at run time (one per kind of item), so gql.tada cannot read its
 * result: `Data` is written from its selection instead. The engine hands each function what the
 * operation answered (Data) and what `body` made of it (Body).
 */
export function builtRoute<Data, Body = unknown>(route: RouteOf<string, Data, Body>): RestRoute {
  return {
    ...route,
    body: route.body as RestRoute["body"],
    statusOf: route.statusOf as RestRoute["statusOf"],
    location: route.location as RestRoute["location"],
  };
}

/** Connection args of a list route: REST `page` is the cursor, `limit` the page size. */
export const pageVariables = (query: RestRequest["query"]) => ({ first: query.limit, after: query.page });

/** The list query shape: every list route asks its connection for `totalCount pageInfo { ...ListInfo } nodes`. */
export const ListInfo = graphql(`fragment ListInfo on PageInfo { hasNextPage endCursor }`);

export interface Connection<Node> {
  nodes: Node[];
  totalCount: number;
  pageInfo: FragmentOf<typeof ListInfo>;
}

/** The REST list envelope (`items`, `count`, `next.page`) from a GraphQL connection. */
export function listBody<Node>(connection: Connection<Node>, toItem: (node: Node) => unknown) {
  return {
    items: connection.nodes.map(toItem),
    count: connection.totalCount,
    ...(connection.pageInfo.hasNextPage && connection.pageInfo.endCursor ? { next: { page: connection.pageInfo.endCursor } } : {}),
  };
}

/** GraphQL enum value (SHARE_LINK) → REST value (share-link). */
export function restEnum(value: string | null): string | null {
  return value === null ? null : value.toLowerCase().replace(/_/g, "-");
}

/** A REST input that cannot be translated to the operation's variables: answered with 400. */
export class RestInputError extends Error {}

const EVALUATED = ["true", "false", "deterministic-only"];

/**
 * `format` as the operation's two include flags (`$markdown`, `$document`), `fallback` when
 * absent (pages default to the document tree, comments to markdown, as the published API has
 * them); `evaluated`, where a route takes it, checked.
 */
export function formatVariables({ query }: RestRequest, fallback: "document" | "markdown") {
  const formats = fallback === "document" ? ["document", "markdown"] : ["markdown", "document"];
  const format = query.format ?? fallback;
  if (typeof format !== "string" || !formats.includes(format)) {
    throw new RestInputError(`format must be one of ${formats.join(", ")} (got ${quote(format)})`);
  }
  if (query.evaluated !== undefined && !EVALUATED.includes(String(query.evaluated))) {
    throw new RestInputError(`evaluated must be one of ${EVALUATED.join(", ")} (got ${quote(query.evaluated)})`);
  }
  return { markdown: format === "markdown", document: format === "document" };
}

/**
 * REST value → GraphQL enum value, for inputs; null passes (GraphQL decides if it may be null).
 * Anything else outside `allowed` is refused here: its GraphQL spelling (ADMIN) is no REST value.
 */
export function graphqlEnum(field: string, value: unknown, allowed: readonly string[]): unknown {
  if (value === null) return null;
  if (typeof value === "string" && allowed.includes(value)) return value.toUpperCase().replace(/-/g, "_");
  throw new RestInputError(`${field} must be one of ${allowed.join(", ")} (got ${quote(value)})`);
}

/** A string field of a body as it came; another type becomes its JSON text, for the core to refuse by name. */
export const stringOf = (value: unknown) => (typeof value === "string" || value == null ? value : JSON.stringify(value));

/** Drops the keys whose value is null or undefined: optional REST fields are absent, not null. */
export function compact<T extends Record<string, unknown>>(object: T): Partial<T> {
  // A loop rather than entries/filter/fromEntries (and for-in rather than Object.keys, no array of
  // keys): it runs several times per item of every list. Its objects are plain data (JSON, results).
  const kept: Record<string, unknown> = {};
  for (const key in object) if (object[key] != null) kept[key] = object[key];
  return kept as Partial<T>;
}

/** Picks the keys present in a REST body, so absent stays absent (unchanged) and null stays null. */
export function present(body: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(keys.filter((key) => key in body).map((key) => [key, body[key]]));
}
