// The /v1 REST surface as a Yoga plugin, the way Yoga's SOFA plugin works: each request is
// matched against the route table and run as its GraphQL operation through Yoga's own enveloped
// pipeline (context with auth, execution, error masking), so both doors behave the same.
import { useGraphQlJit } from "@envelop/graphql-jit";
import FindMyWay, { type HTTPMethod } from "find-my-way";
import { GraphQLError, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import type { Plugin, YogaServerInstance } from "graphql-yoga";
import { findInputProblem, unsafeTextReason } from "../src/core/input.ts";
import { readTextUpTo } from "../src/http/body.ts";
import { errorResponse, statusOf } from "../src/http/errors.ts";
import { RestInputError, type QueryParamType, type RestRequest, type RestRoute } from "./route.ts";
import { quote } from "../src/core/errors.ts";
import { isThenable } from "../src/core/thenable.ts";

const PREFIX = "/v1";
/** Request bodies above this are refused (413) before they are read. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_LIMIT = 1000;
const METHODS: HTTPMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

interface CompiledRoute extends RestRoute {
  parsed: DocumentNode;
  subscription: boolean;
}

/** Parses and validates every route's document against the schema: a broken route fails the start. */
export function compileRoutes(routes: RestRoute[], schema: GraphQLSchema): CompiledRoute[] {
  return routes.map((route) => {
    let parsed: DocumentNode;
    try {
      parsed = parse(route.document);
    } catch (error) {
      // A syntax error names no route on its own: say which one is broken.
      throw new Error(`REST route ${route.method} ${route.path}: invalid operation: ${(error as Error).message}`);
    }
    const errors = validate(schema, parsed);
    if (errors.length) {
      throw new Error(`REST route ${route.method} ${route.path}: invalid operation: ${errors.map((e) => e.message).join("; ")}`);
    }
    const subscription = parsed.definitions.some((node) => node.kind === "OperationDefinition" && node.operation === "subscription");
    if (subscription ? route.stream === undefined : route.stream === "last") {
      throw new Error(`REST route ${route.method} ${route.path}: a subscription is answered as a stream (stream: events or last)`);
    }
    return { ...route, parsed, subscription };
  });
}

function parseQuery(url: URL, declared: Record<string, QueryParamType> = {}): RestRequest["query"] | Response {
  const query: RestRequest["query"] = {};
  // No query string: every parameter is absent (no URLSearchParams made).
  if (url.search === "") return query;
  for (const [name, type] of Object.entries(declared)) {
    if (type === "string[]") {
      const values = url.searchParams
        .getAll(name)
        .flatMap((value) => value.split(","))
        .filter((value) => value !== "");
      const unsafe = values.map(unsafeTextReason).find(Boolean);
      if (unsafe) return errorResponse(400, `${name} ${unsafe}`);
      if (values.length) query[name] = values;
      continue;
    }
    const raw = url.searchParams.get(name);
    if (raw === null) continue;
    const unsafe = unsafeTextReason(raw);
    if (unsafe) return errorResponse(400, `${name} ${unsafe}`);
    if (type === "limit") {
      const limit = Number(raw);
      if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) {
        return errorResponse(400, `limit must be an integer between 1 and ${MAX_LIMIT} (got ${quote(raw)})`);
      }
      query[name] = limit;
    } else if (type === "boolean") {
      if (raw !== "true" && raw !== "false") return errorResponse(400, `${name} must be true or false (got ${quote(raw)})`);
      query[name] = raw === "true";
    } else {
      query[name] = raw;
    }
  }
  return query;
}

/** Methods whose body, if any, is not read: their operation takes no input from it. */
const hasNoBody = (method: string) => method === "GET" || method === "HEAD" || method === "DELETE";

async function readBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown> | Response> {
  if (hasNoBody(request.method)) return {};
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > maxBytes) return errorResponse(413, `Request body is larger than ${maxBytes} bytes`);
  const text = await readTextUpTo(request, maxBytes);
  // The rest of that body is left unread on the connection: close it rather than reuse it.
  if (text === null) return errorResponse(413, `Request body is larger than ${maxBytes} bytes`, { Connection: "close" });
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResponse(400, "Request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return errorResponse(400, "Request body must be a JSON object");
  }
  const problem = findInputProblem(body, "");
  if (problem) return errorResponse(400, problem.message);
  return body as Record<string, unknown>;
}

/**
 * The variables without their undefined values, at any depth: what GraphQL over HTTP receives,
 * since JSON has no undefined. A row's `variables` writes `order: query.order` for an absent
 * parameter; left in, graphql-js and graphql-jit both coerce the variable to null, so the field's
 * argument default (`order: ListOrder = desc`) never applied, and graphql-jit also gave null to an
 * input field with a default (graphql-js applies that one). Omitted, both apply the schema's defaults.
 */
export function definedValues<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : definedValues(item))) as T;
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) kept[key] = definedValues(field);
  }
  return kept as T;
}

/**
 * The `Location` of a 201 (the published API lists it on its create routes): the created
 * resource's `urls.location`, else the API URL the route builds from the request and body.
 */
function locationOf(route: RestRoute, body: unknown, request: RestRequest, contextValue: Record<string, unknown>): string | undefined {
  const own = (body as { urls?: { location?: unknown } } | null)?.urls?.location;
  if (typeof own === "string") return own;
  if (!route.location) return undefined;
  // The GraphQL context's core carries the URLs built from PUBLIC_URL, as `urls.location` has them.
  const { core } = contextValue as { core: { urls: { api(path: string): string } } };
  return core.urls.api(route.location(body, request));
}

export function useRestAdapter(routes: RestRoute[]): Plugin {
  let yoga: YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
  const router = FindMyWay({ ignoreTrailingSlash: true });

  async function run(route: CompiledRoute, params: Record<string, string>, request: Request, url: URL): Promise<Response> {
    for (const name in params) {
      const unsafe = unsafeTextReason(params[name]);
      if (unsafe) return errorResponse(400, `${name} ${unsafe}`);
    }
    const query = parseQuery(url, route.query);
    if (query instanceof Response) return query;
    // A request without a body goes on without a promise (issue 15).
    const body = hasNoBody(request.method) ? {} : await readBody(request, route.maxBodyBytes);
    if (body instanceof Response) return body;
    let variableValues: Record<string, unknown>;
    try {
      const headers = route.headers && Object.fromEntries(route.headers.map((name) => [name, request.headers.get(name) ?? undefined]));
      variableValues = definedValues(route.variables({ params, query, body, ...(headers ? { headers } : {}) }));
    } catch (error) {
      if (error instanceof RestInputError) return errorResponse(400, error.message);
      throw error;
    }
    const { contextFactory, execute, subscribe, schema } = yoga.getEnveloped({
      request,
      params: { query: route.document, variables: variableValues },
    });
    let result;
    let contextValue: Record<string, unknown>;
    try {
      // Built without a promise when every context hook is synchronous (a token the cache knows).
      const context = contextFactory();
      contextValue = isThenable(context) ? await context : context;
      result = await (route.subscription ? subscribe : execute)({ schema, document: route.parsed, variableValues, contextValue });
    } catch (error) {
      if (error instanceof GraphQLError) return errorResponse(statusOf(error), error.message);
      throw error;
    }
    // Variables that do not coerce (a bogus enum value, a wrong type) make a request error: the
    // result is `{ errors }` without `data`, and the client gets its 400 like any other error.
    if (Symbol.asyncIterator in result) return streamed(route, result as AsyncIterable<ExecutionResult>);
    const [firstError] = result.errors ?? [];
    if (firstError) return errorResponse(statusOf(firstError), firstError.message);
    if (route.stream === "events") return eventStream(itemsOf(route.body!(result.data) as unknown[]));
    const status = route.statusOf?.(result.data) ?? route.status;
    const { Response: YogaResponse } = yoga.fetchAPI;
    if (!route.body) return new YogaResponse(null, { status });
    const responseBody = route.body(result.data);
    const location = status === 201 ? locationOf(route, responseBody, { params, query, body }, contextValue) : undefined;
    // Yoga's own Response (as its GraphQL answers use): its string body is written to the socket
    // as it is, where the global Response's body is a web stream the server pumps chunk by chunk
    // (a ReadableStream, a reader and their promises per request: issue 15). Same bytes and type.
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (location) headers.Location = location;
    return new YogaResponse(JSON.stringify(responseBody), { status, headers });
  }

  /**
   * A subscription's answer. Its first result decides the status: an error before any answer is
   * the error envelope, as for any route; after it, an error is the stream's `error` event.
   */
  async function streamed(route: CompiledRoute, results: AsyncIterable<ExecutionResult>): Promise<Response> {
    const iterator = results[Symbol.asyncIterator]();
    const stop = () => void Promise.resolve(iterator.return?.()).catch(() => {});
    const bodies: unknown[] = [];
    for (;;) {
      let next: IteratorResult<ExecutionResult>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (error instanceof GraphQLError) return errorResponse(statusOf(error), error.message);
        throw error;
      }
      if (next.done) break;
      const [error] = next.value.errors ?? [];
      if (error) {
        stop();
        return errorResponse(statusOf(error), error.message);
      }
      bodies.push(route.body!(next.value.data));
      if (route.stream === "events") break;
    }
    if (route.stream === "last") {
      const last = bodies.at(-1);
      if (last === undefined) return errorResponse(503, "The answer ended before it was complete; retry later");
      return new yoga.fetchAPI.Response(JSON.stringify(last), { status: route.status, headers: { "Content-Type": "application/json" } });
    }
    async function* rest(): AsyncGenerator<unknown> {
      yield* bodies;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        const [error] = next.value.errors ?? [];
        if (error) throw error;
        yield route.body!(next.value.data);
      }
    }
    return eventStream(rest(), stop);
  }

  async function* itemsOf(items: unknown[]): AsyncGenerator<unknown> {
    yield* items;
  }

  /** `text/event-stream` of `bodies`: a `data:` event each, then `done`, or `error` with the envelope. */
  function eventStream(bodies: AsyncIterator<unknown>, stop = () => {}): Response {
    const encoder = new TextEncoder();
    const event = (name: string | null, data: unknown) =>
      encoder.encode(`${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
    const stream = new yoga.fetchAPI.ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await bodies.next();
          if (next.done) {
            controller.enqueue(event("done", {}));
            controller.close();
          } else {
            controller.enqueue(event(null, next.value));
          }
        } catch (error) {
          const status = error instanceof GraphQLError ? statusOf(error) : 500;
          const message = error instanceof GraphQLError && status < 500 ? error.message : "The answer could not be completed";
          controller.enqueue(event("error", { error: { code: status, message } }));
          controller.close();
          stop();
        }
      },
      cancel: stop,
    });
    return new yoga.fetchAPI.Response(stream, {
      status: 200,
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Content-Encoding": "none" },
    });
  }

  // The routes' documents are fixed and parsed once: graphql-jit compiles each into a function on
  // first use (cached by the document object), instead of graphql-js interpreting it every time.
  const routeDocuments = new WeakSet<DocumentNode>();
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(useGraphQlJit({}, { enableIf: (args) => routeDocuments.has(args.document) }) as Plugin);
    },
    onYogaInit({ yoga: instance }) {
      yoga = instance as typeof yoga;
      for (const route of compileRoutes(routes, instance.getEnveloped().schema)) {
        // Subscriptions are left to graphql-js (use-compiled-execution.ts does the same).
        if (!route.subscription) routeDocuments.add(route.parsed);
        router.on(route.method as HTTPMethod, route.path, (_req, _res, params) => params as never, { route });
      }
    },
    // Not async: a request outside /v1 passes without a promise.
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== PREFIX && !url.pathname.startsWith(`${PREFIX}/`)) return;
      return answer(request, url, endResponse);
    },
  };

  async function answer(request: Request, url: URL, endResponse: (response: Response) => void) {
    // HEAD is the GET route's answer without its body (same status and headers).
    const head = request.method === "HEAD";
    const match = router.find((head ? "GET" : request.method) as HTTPMethod, url.pathname);
    if (match) {
      const { route } = match.store as { route: CompiledRoute };
      const response = await run(route, match.params as Record<string, string>, request, url);
      endResponse(head ? new yoga.fetchAPI.Response(null, { status: response.status, headers: response.headers }) : response);
      return;
    }
    const allowed = METHODS.filter((method) => router.find(method, url.pathname));
    if (allowed.includes("GET")) allowed.splice(allowed.indexOf("GET") + 1, 0, "HEAD");
    endResponse(
      allowed.length
        ? errorResponse(405, `Method ${request.method} is not allowed on ${quote(url.pathname)}; use ${allowed.join(", ")}`, {
            Allow: allowed.join(", "),
          })
        : errorResponse(404, `No route ${request.method} ${quote(url.pathname)}`),
    );
  }
}
