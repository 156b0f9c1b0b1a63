// The REST reference: an OpenAPI 3.1 document of the routes this service serves, generated from
// the route table (so it cannot drift from what is served). A route that is also in the
// published GitBook API takes the published operation (summary, parameters, schemas); a route
// beyond it gets a description from the table (parameters, status, the GraphQL document it runs).
// Also: the published operations that are not built, answered with 501 by `useNotImplemented`.
import { createRequire } from "node:module";
import FindMyWay, { type HTTPMethod } from "find-my-way";
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../src/http/errors.ts";
import type { RestRoute } from "./route.ts";

const require = createRequire(import.meta.url);

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** An operation of an OpenAPI document: the fields read here, the rest copied as they are. */
export interface Operation {
  operationId?: string;
  security?: unknown;
  [field: string]: unknown;
}

type PathItem = Partial<Record<(typeof HTTP_METHODS)[number], Operation>>;

/** An OpenAPI document: its operations by path and method, its components by kind and name. */
export interface OpenApiSpec {
  paths: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown>>;
  [field: string]: unknown;
}

/** The published GitBook API (`@gitbook/api`), read once. */
export function publishedSpec(): OpenApiSpec {
  return require("@gitbook/api/spec/openapi.json") as OpenApiSpec;
}

/** `/v1/spaces/:spaceId/content/path/*` → `/spaces/{spaceId}/content/path/{pagePath}` (published spelling). */
function openApiPath(route: RestRoute): string {
  return route.path
    .replace(/^\/v1/, "")
    .replace(/:(\w+)/g, "{$1}")
    .replace(/\*$/, "{pagePath}");
}

/** Method + path with parameter names erased, to compare routes whatever their names. */
export const shape = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/^\/v1/, "").replace(/\{\w+\}|:\w+|\*$/g, "{}")}`;

export function publishedOperations(spec: OpenApiSpec): Map<string, { path: string; method: string; operation: Operation }> {
  const operations = new Map<string, { path: string; method: string; operation: Operation }>();
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) operations.set(shape(method, path), { path, method, operation });
    }
  }
  return operations;
}

const QUERY_SCHEMAS = {
  string: { type: "string" },
  boolean: { type: "boolean" },
  limit: { type: "integer", minimum: 1, maximum: 1000 },
  "string[]": { type: "array", items: { type: "string" } },
} as const;

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: { type: "object", required: ["code", "message"], properties: { code: { type: "integer" }, message: { type: "string" } } },
  },
};

function operationName(document: string): string | undefined {
  return document.match(/\b(?:query|mutation)\s+([A-Za-z_]\w*)/)?.[1];
}

function beyondOperation(route: RestRoute, path: string): Operation {
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  const queryParams = Object.entries(route.query ?? {}).map(([name, type]) => ({
    name,
    in: "query",
    required: false,
    schema: QUERY_SCHEMAS[type],
  }));
  const name = operationName(route.document);
  return {
    operationId: name
      ? name[0].toLowerCase() + name.slice(1)
      : `${route.method.toLowerCase()}${path.replace(/\W+(\w)?/g, (_, c: string = "") => c.toUpperCase())}`,
    summary: name ?? `${route.method} ${route.path}`,
    description: "Served by this service beyond the published GitBook API.",
    tags: [path.split("/")[1] ?? "other"],
    parameters: [...pathParams, ...queryParams],
    ...(["POST", "PUT", "PATCH"].includes(route.method)
      ? { requestBody: { required: false, content: { "application/json": { schema: { type: "object" } } } } }
      : {}),
    responses: {
      [route.status]: route.body ? { description: "OK", content: { "application/json": { schema: {} } } } : { description: "No content" },
      default: { description: "Error", content: { "application/json": { schema: ERROR_SCHEMA } } },
    },
  };
}

/** Every `#/components/<kind>/<name>` reachable from `roots`, so only what is used is copied. */
function referencedComponents(spec: OpenApiSpec, roots: unknown[]): Record<string, Record<string, unknown>> {
  const components: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const node = queue.pop();
    if (Array.isArray(node)) queue.push(...node);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/") && !seen.has(value)) {
          seen.add(value);
          const [, , kind, name] = value.split("/");
          const target = spec.components?.[kind]?.[name];
          if (target) {
            (components[kind] ??= {})[name] = target;
            queue.push(target);
          }
        } else queue.push(value);
      }
    }
  }
  return components;
}

export interface ReferenceOptions {
  publicUrl: string;
  version: string;
}

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument(routes: RestRoute[], options: ReferenceOptions, spec: OpenApiSpec = publishedSpec()) {
  const published = publishedOperations(spec);
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const match = published.get(shape(route.method, route.path));
    const path = match?.path ?? openApiPath(route);
    const method = route.method.toLowerCase();
    const { security: _published, ...operation } = match?.operation ?? beyondOperation(route, path);
    paths[path] ??= {};
    paths[path][method] = {
      ...operation,
      // The GraphQL operation the route runs: the same request can be sent to /graphql.
      "x-graphql-document": route.document.trim(),
      "x-permission": route.action,
    };
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: "3.1.0",
    info: {
      title: "Documentation publishing service: REST API",
      version: options.version,
      description:
        "The REST routes this service serves, generated from its route table. Each runs a GraphQL operation " +
        "(`x-graphql-document`) of the same service; `x-permission` names its row in the permission matrix. " +
        "Operations of the published GitBook API that are not built answer 501.",
    },
    servers: [{ url: `${options.publicUrl}/v1` }],
    security: [{ bearer: [] }],
    paths: sortedPaths,
    components: {
      ...referencedComponents(spec, [sortedPaths]),
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API token: `Authorization: Bearer dps_…`" } },
    },
  };
}

/** Published operations with no served route of the same method and path shape. */
export function unbuiltOperations(routes: RestRoute[], spec: OpenApiSpec = publishedSpec()) {
  const served = new Set(routes.map((route) => shape(route.method, route.path)));
  return [...publishedOperations(spec).entries()].filter(([key]) => !served.has(key)).map(([, operation]) => operation);
}

/**
 * A request for a published operation that is not built answers 501 with the error envelope
 * (instead of the adapter's 404), naming the operation. Runs before the REST adapter and leaves
 * every served route to it.
 */
export function useNotImplemented(routes: RestRoute[]): Plugin {
  const served = FindMyWay({ ignoreTrailingSlash: true });
  const unbuilt = FindMyWay({ ignoreTrailingSlash: true });
  for (const route of routes) served.on(route.method as HTTPMethod, route.path, () => {});
  for (const { path, method, operation } of unbuiltOperations(routes)) {
    const pattern = `/v1${path.replace(/\{(\w+)\}/g, ":$1")}`;
    const store = { name: operation.operationId ?? `${method.toUpperCase()} ${path}` };
    try {
      unbuilt.on(method.toUpperCase() as HTTPMethod, pattern, () => {}, store);
    } catch {
      // Two published paths that differ only by a parameter's name: the first one answers.
    }
  }
  return {
    onRequest({ request, url, endResponse }) {
      if (!url.pathname.startsWith("/v1/") && url.pathname !== "/v1") return;
      const method = request.method as HTTPMethod;
      if (served.find(method, url.pathname)) return;
      const match = unbuilt.find(method, url.pathname);
      if (!match) return;
      const { name } = match.store as { name: string };
      endResponse(
        errorResponse(501, `${request.method} ${url.pathname} (${name}) is part of the published API but not built in this service`),
      );
    },
  };
}
