// The authors' MCP server, at /v1/mcp, for holders of an API token: its tools are generated from
// the REST route table, one per served route whose published operation is flagged
// `x-gitbook-mcp`, named by its operationId and taking the operation's parameters and body as
// published. A tool call is sent to the REST route itself, in process, through the whole request
// pipeline (rate limit per token, authentication, the route's checks, its GraphQL document, the
// execution deadline): REST, GraphQL and MCP cannot drift apart, and a call does nothing a REST
// request with the same token could not. Streamable HTTP (the official SDK's web-standard
// transport), stateless, answering JSON, as the published sites' MCP servers (src/http/site-mcp.ts).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Plugin } from "graphql-yoga";
import type { Services } from "../src/core/context.ts";
import { DomainError, quote } from "../src/core/errors.ts";
import { readTextUpTo } from "../src/http/body.ts";
import { errorResponse } from "../src/http/errors.ts";
import { MAX_BODY_BYTES } from "./index.ts";
import { publishedOperations, publishedSpec, shape, type OpenApiSpec, type Operation } from "./openapi.ts";
import type { RestRoute } from "./route.ts";

export const AUTHOR_MCP_PATH = "/v1/mcp";

export interface AuthorMcpLimits {
  /** A tool call not answered within this is given up (its REST request aborted) and answered as an error. */
  callTimeoutMs: number;
  /** A tool's answer (the REST body) beyond this many bytes is cut, with a note saying so. */
  answerMaxBytes: number;
}

export const DEFAULT_AUTHOR_MCP_LIMITS: AuthorMcpLimits = { callTimeoutMs: 30_000, answerMaxBytes: 256 * 1024 };

/**
 * A tool's input schema keeps the published schemas it references (as `$defs`) up to about this
 * size, nearest first; those beyond it are left open (any value, described by name): the REST
 * route checks them all the same. The published body of a change request's content reaches ~60 KB.
 */
const INPUT_SCHEMA_MAX_BYTES = 16 * 1024;

/** One generated tool: what the client sees, and the REST request it becomes. */
interface AuthorTool {
  tool: Tool;
  method: RestRoute["method"];
  /** The published path, `/spaces/{spaceId}`. */
  path: string;
  pathParams: string[];
  /** The path parameter the route takes as its trailing `*` (a page path): its slashes stay. */
  wildcard?: string;
  queryParams: string[];
  takesBody: boolean;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: unknown;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** `#/components/<kind>/<name>` of `spec`, or undefined. */
function component(spec: OpenApiSpec, ref: string): unknown {
  const [hash, components, kind, name] = ref.split("/");
  return hash === "#" && components === "components" ? spec.components?.[kind]?.[name] : undefined;
}

/** Every `$ref` string below `node`. */
function refsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsOf(item, found);
  else if (isObject(node))
    for (const key in node) {
      if (key === "$ref" && typeof node[key] === "string") found.push(node[key]);
      else refsOf(node[key], found);
    }
  return found;
}

/** Keys of an OpenAPI schema that say nothing a tool's caller needs (samples, extensions, OpenAPI-only keywords). */
const DROPPED_KEY = /^(x-.*|example|examples|discriminator|externalDocs|xml)$/;
/** Keys whose value maps names to schemas (its names are data, never dropped). */
const SCHEMA_MAP = /^(properties|patternProperties|dependentSchemas|\$defs)$/;
/** Keys whose value is a value, not a schema: copied as it is. */
const VALUE_KEY = /^(default|const|enum|required)$/;

/** The schema without the dropped keys, each `$ref` renamed by `rename` or, when left out, described by name. */
function cleaned(node: unknown, rename: (ref: string) => string | undefined): unknown {
  if (Array.isArray(node)) return node.map((item) => cleaned(item, rename));
  if (!isObject(node)) return node;
  const kept: Json = {};
  for (const key in node) {
    const value = node[key];
    if (key === "$ref" && typeof value === "string") {
      const local = rename(value);
      if (local) kept.$ref = local;
      else kept.description ??= `A ${value.split("/").pop()} of the published API (its schema is left out here to keep this one small)`;
    } else if (DROPPED_KEY.test(key)) continue;
    else if (VALUE_KEY.test(key)) kept[key] = value;
    else if (SCHEMA_MAP.test(key) && isObject(value))
      kept[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, cleaned(schema, rename)]));
    else kept[key] = cleaned(value, rename);
  }
  return kept;
}

/**
 * `properties` with the published schemas they reference as `$defs`, breadth first (nearest
 * first) while the whole stays within INPUT_SCHEMA_MAX_BYTES; a reference to one left out is an
 * open schema that names it.
 */
function withDefinitions(properties: Json, spec: OpenApiSpec): { properties: Record<string, object>; $defs?: Json } {
  const included = new Map<string, unknown>();
  let size = JSON.stringify(properties).length;
  const queue = refsOf(properties);
  const seen = new Set(queue);
  while (queue.length > 0) {
    const ref = queue.shift()!;
    const target = component(spec, ref);
    if (target === undefined) continue;
    const bytes = JSON.stringify(target).length;
    if (size + bytes > INPUT_SCHEMA_MAX_BYTES) continue;
    size += bytes;
    included.set(ref, target);
    for (const next of refsOf(target)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  const nameOf = (ref: string) => ref.split("/").pop()!;
  const rename = (ref: string) => (included.has(ref) ? `#/$defs/${nameOf(ref)}` : undefined);
  const result: { properties: Record<string, object>; $defs?: Json } = {
    properties: cleaned(properties, rename) as Record<string, object>,
  };
  if (included.size > 0) result.$defs = Object.fromEntries([...included].map(([ref, target]) => [nameOf(ref), cleaned(target, rename)]));
  return result;
}

function parametersOf(operation: Operation, spec: OpenApiSpec): Parameter[] {
  const listed = (operation.parameters ?? []) as Json[];
  return listed.map((parameter) => (typeof parameter.$ref === "string" ? component(spec, parameter.$ref) : parameter) as Parameter);
}

function toolOf(route: RestRoute, path: string, operation: Operation, spec: OpenApiSpec): AuthorTool {
  const name = operation.operationId!;
  // Headers (a `Prefer`) are left out: no route reads them.
  const parameters = parametersOf(operation, spec).filter((parameter) => parameter.in === "path" || parameter.in === "query");
  const properties: Json = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[parameter.name] = {
      ...(isObject(parameter.schema) ? parameter.schema : {}),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.in === "path" || parameter.required) required.push(parameter.name);
  }
  const requestBody = operation.requestBody as
    | { required?: boolean; description?: string; content?: Record<string, { schema?: unknown }> }
    | undefined;
  const bodySchema = requestBody?.content?.["application/json"]?.schema;
  if (isObject(bodySchema)) {
    properties.body = {
      ...bodySchema,
      description: requestBody?.description ?? "The JSON body of the request, as the published API takes it",
    };
    if (requestBody?.required) required.push("body");
  }
  const summary = typeof operation.summary === "string" ? operation.summary : undefined;
  const description = typeof operation.description === "string" ? operation.description : undefined;
  const rest = `${route.method} /v1${path}`;
  const inputSchema = { type: "object" as const, ...withDefinitions(properties, spec), required, additionalProperties: false };
  const pathParams = parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
  return {
    tool: {
      name,
      ...(summary ? { title: summary } : {}),
      // The REST route it runs: the same call can be made over REST, and its reference documents it.
      description: [summary, description, `Runs ${rest} of the REST API with your token; answers its JSON.`].filter(Boolean).join("\n\n"),
      inputSchema,
      annotations: { readOnlyHint: route.method === "GET", destructiveHint: route.method === "DELETE" },
    },
    method: route.method,
    path,
    pathParams,
    wildcard: route.path.endsWith("*") ? pathParams.at(-1) : undefined,
    queryParams: parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name),
    takesBody: isObject(bodySchema),
  };
}

/** The tools of `routes`: each served route whose published operation is flagged `x-gitbook-mcp`, sorted by name. */
export function authorTools(routes: RestRoute[], spec: OpenApiSpec = publishedSpec()): AuthorTool[] {
  const published = publishedOperations(spec);
  const tools: AuthorTool[] = [];
  for (const route of routes) {
    const match = published.get(shape(route.method, route.path));
    if (match?.operation["x-gitbook-mcp"] !== true || typeof match.operation.operationId !== "string") continue;
    tools.push(toolOf(route, match.path, match.operation, spec));
  }
  return tools.sort((a, b) => a.tool.name.localeCompare(b.tool.name));
}

/** A path segment that would change the path it is put in (`..` climbs, empty collapses). */
const UNSAFE_SEGMENT = /^\.{0,2}$/;

/** The REST request of a call's arguments, or the message naming the argument that cannot make one. */
function requestOf(tool: AuthorTool, args: Json): { path: string; search: URLSearchParams; body?: string } | string {
  const known = [...tool.pathParams, ...tool.queryParams, ...(tool.takesBody ? ["body"] : [])];
  for (const name in args) {
    if (!known.includes(name)) return `${quote(name)} is not an argument of ${tool.tool.name} (it takes ${known.join(", ") || "none"})`;
  }
  let path = tool.path;
  for (const name of tool.pathParams) {
    const value = args[name];
    if (typeof value !== "string" && typeof value !== "number") return `${name} is required: a string`;
    const segments = name === tool.wildcard ? String(value).split("/") : [String(value)];
    if (segments.some((segment) => UNSAFE_SEGMENT.test(segment))) return `${name} is not a valid ${name} (got ${quote(value)})`;
    path = path.replace(`{${name}}`, segments.map(encodeURIComponent).join("/"));
  }
  const search = new URLSearchParams();
  for (const name of tool.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
        return `${name} must be a string, a number, a boolean or a list of them (got ${quote(JSON.stringify(value))})`;
      }
      search.append(name, String(item));
    }
  }
  const body = args.body;
  if (body === undefined) return { path, search };
  if (!isObject(body)) return `body must be a JSON object (got ${quote(JSON.stringify(body))})`;
  return { path, search, body: JSON.stringify(body) };
}

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

/** `answer` cut to `maxBytes` of UTF-8 (never inside a character), with a note saying how much there was. */
function capped(answer: string, maxBytes: number, what: string): string {
  const bytes = Buffer.from(answer);
  if (bytes.byteLength <= maxBytes) return answer;
  const cut = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  return `${cut}\n\n[Cut: the answer of ${what} is ${bytes.byteLength} bytes, more than the ${maxBytes} a tool answers. Ask for less (a smaller limit, then the next page), or call the REST route.]`;
}

export interface AuthorMcpOptions {
  services: Services;
  routes: RestRoute[];
  limits: AuthorMcpLimits;
  /** Answers a request through the app's whole pipeline (its server adapter's `fetch`), as if it came from the client. */
  fetch(request: Request, serverContext: unknown): Promise<Response>;
  /** The request id of the log line, sent with each REST request a call makes, so both lines share it. */
  requestIdOf?(request: Request): string | undefined;
}

/** Serves POST /v1/mcp; placed before the REST adapter and the 501 answers of /v1. */
export function useAuthorMcp({ services, routes, limits, fetch, requestIdOf }: AuthorMcpOptions): Plugin {
  // Generated once per app, from the table it serves, when first asked for (~0.1 s: most apps never are).
  let generated: { byName: Map<string, AuthorTool>; listed: { tools: Tool[] } } | undefined;
  const generate = () => {
    const tools = authorTools(routes);
    return { byName: new Map(tools.map((tool) => [tool.tool.name, tool])), listed: { tools: tools.map((tool) => tool.tool) } };
  };

  /** Runs a call as its REST request, with the caller's token; the REST answer becomes the tool's. */
  async function call(request: Request, serverContext: unknown, name: string, args: Json): Promise<CallToolResult> {
    const tool = (generated ??= generate()).byName.get(name);
    if (!tool) return text(`No tool ${quote(name)} here (tools/list lists them)`, true);
    const built = requestOf(tool, args);
    if (typeof built === "string") return text(built, true);
    const url = new URL(`/v1${built.path}${built.search.size ? `?${built.search}` : ""}`, request.url);
    const headers: Record<string, string> = { authorization: request.headers.get("authorization")! };
    if (built.body !== undefined) headers["content-type"] = "application/json";
    const host = request.headers.get("host");
    if (host) headers.host = host;
    const requestId = requestIdOf?.(request);
    if (requestId) headers["x-request-id"] = requestId;
    const abort = new AbortController();
    const rest = new Request(url, { method: tool.method, headers, body: built.body, signal: abort.signal });
    const what = `${tool.method} ${url.pathname}`;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), limits.callTimeoutMs);
    });
    const answered = fetch(rest, serverContext);
    // Given up at the deadline, its request aborted: whatever it ends with is not waited for.
    answered.catch(() => {});
    try {
      const response = await Promise.race([answered, deadline]);
      if (response === "late") {
        abort.abort();
        return text(
          `${tool.tool.name} did not answer within ${limits.callTimeoutMs} ms and was given up; a change it makes may still be done: read before calling it again`,
          true,
        );
      }
      const answer = await response.text();
      if (response.status >= 400) {
        let message = answer;
        try {
          message = (JSON.parse(answer) as { error: { message: string } }).error.message;
        } catch {
          // Not the envelope: its text, as it came.
        }
        return text(capped(`HTTP ${response.status}: ${message}`, limits.answerMaxBytes, what), true);
      }
      return text(answer ? capped(answer, limits.answerMaxBytes, what) : `HTTP ${response.status}: done, no content`);
    } finally {
      clearTimeout(timer);
    }
  }

  function server(request: Request, serverContext: unknown): McpServer {
    const mcp = new McpServer({ name: "Documentation publishing API", version: "1.0.0" }, { capabilities: { tools: {} } });
    // The SDK's lower-level handlers: the tools' schemas are JSON Schema from the published spec.
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => (generated ??= generate()).listed);
    mcp.server.setRequestHandler(CallToolRequestSchema, ({ params }) => call(request, serverContext, params.name, params.arguments ?? {}));
    return mcp;
  }

  async function answer(request: Request, serverContext: unknown): Promise<Response> {
    // Stateless: no session, so no stream to open (GET) or end (DELETE).
    if (request.method !== "POST")
      return errorResponse(405, "This MCP endpoint takes POST (Streamable HTTP, stateless)", { Allow: "POST" });
    try {
      await services.tokens.authenticate(request.headers.get("authorization"));
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.status, error.message);
      throw error;
    }
    const tooLarge = `Request body is larger than ${MAX_BODY_BYTES} bytes`;
    if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return errorResponse(413, tooLarge);
    const body = await readTextUpTo(request, MAX_BODY_BYTES);
    // The rest of that body is left unread on the connection: close it rather than reuse it.
    if (body === null) return errorResponse(413, tooLarge, { Connection: "close" });
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return errorResponse(400, "Request body is not valid JSON (a JSON-RPC message)");
    }
    // One call per request: a batch would run up to 100 REST requests at once behind one.
    if (Array.isArray(message)) return errorResponse(400, "Send one JSON-RPC message per request: batches are not taken");
    const mcp = server(request, serverContext);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: message });
    } finally {
      await mcp.close();
    }
  }

  return {
    // Not async: any other request passes without a promise.
    onRequest({ request, url, serverContext, endResponse }) {
      if (url.pathname !== AUTHOR_MCP_PATH && url.pathname !== `${AUTHOR_MCP_PATH}/`) return;
      return answer(request, serverContext).then(endResponse);
    },
  };
}
