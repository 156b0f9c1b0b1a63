/**
 * Contract-test helper: checks our `/v1` REST responses against the published
 * GitBook OpenAPI 3.1 description (node_modules/@gitbook/api/spec/openapi.json).
 *
 * - OpenAPI 3.1 schemas are JSON Schema 2020-12, so we use `ajv/dist/2020`
 *   with `strict: false` (the spec carries `discriminator`, `example`, `x-*`…
 *   which Ajv must ignore) and `allErrors: true` (report every problem).
 * - The whole spec is registered once under SPEC_ID; each response schema is
 *   compiled lazily (first use) as `{ $ref: SPEC_ID#/paths/.../schema }` and
 *   cached, so the spec's internal `#/components/...` refs resolve naturally.
 *
 * Formats: ajv-formats provides every standard format the spec uses
 * (date-time, date, uri, uuid, email, byte, int32). Custom formats registered
 * here, accepting any string, because they are GitBook-specific and have no
 * machine-checkable definition (an unknown format makes Ajv throw at compile):
 *   - `emoji` (schema Emoji: "Unicode codepoint or character of the emoji")
 *   - `icon`  (schema Icon:  "Name of the icon", e.g. "gear")
 * Those are the only two non-standard formats in @gitbook/api 0.202.0; any
 * other unknown format found in the spec at load time is also registered as
 * "any string" (see registerUnknownFormats) so a spec bump can't break tests.
 *
 * Rules applied by validateResponse (see its doc comment):
 *   declared status → its JSON schema; else `default`; else for 4xx/5xx the
 *   generic error envelope `{ error: { code: <status>, message } }`; a 2xx/3xx
 *   status the operation does not declare is itself a violation.
 *   204 / 205 must have an empty body.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { GitBookAPI } from "@gitbook/api";

// ---------------------------------------------------------------------------
// Spec loading
// ---------------------------------------------------------------------------

const SPEC_ID = "https://api.gitbook.com/openapi.json";
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"] as const;
const NO_CONTENT_STATUSES = new Set([204, 205]);

type JsonObject = Record<string, any>;

interface OpenAPISpec {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: JsonObject; responses: JsonObject; [k: string]: any };
  [k: string]: any;
}

interface RouteEntry {
  template: string;
  segments: string[]; // '' marks a parameter segment (e.g. `{spaceId}`)
  operations: Map<string, JsonObject>; // lowercased method → operation object
}

let specCache: OpenAPISpec | undefined;
let routesCache: RouteEntry[] | undefined;
let ajvCache: InstanceType<typeof Ajv2020> | undefined;
const validatorCache = new Map<string, ValidateFunction>();

/** The published OpenAPI document, parsed once. */
export function getSpec(): OpenAPISpec {
  if (!specCache) {
    const require = createRequire(import.meta.url);
    const file = require.resolve("@gitbook/api/spec/openapi.json");
    specCache = applyErrata(JSON.parse(readFileSync(file, "utf8")) as OpenAPISpec);
  }
  return specCache;
}

/**
 * Corrections of schemas no response can satisfy, each named with its reason:
 * - RevisionSemanticChangePageEdited.attributes is a `oneOf` of the document, group and link
 *   attribute schemas, which allow extra properties and share `title`, `emoji` (and `slug`):
 *   every attributes object matches two or three of them, so `oneOf` always fails. Taken as the
 *   `anyOf` it means.
 * - Translation: the contract (contract.md, "OpenAPI and translation resources") answers its
 *   `TranslationSettings` at the published translation paths, not the published `Translation`
 *   (a sync of one language); the contract wins, so those responses are checked against it.
 * - PlainObject has no `type: object`: every non-object value matches it, so under the `oneOf` of
 *   its own additionalProperties a string matches both it and `string`, and any plain object with
 *   a string value fails. Taken as the object it describes (src/core/integrations/contentkit.ts
 *   reads it the same way).
 */
function applyErrata(spec: OpenAPISpec): OpenAPISpec {
  const schemas = (spec as unknown as { components: { schemas: Record<string, JsonObject> } }).components.schemas;
  schemas.Translation = {
    type: "object",
    additionalProperties: false,
    required: ["object", "id", "title", "languages", "createdAt", "updatedAt", "permissions", "urls"],
    properties: {
      object: { type: "string", enum: ["translation-settings"] },
      id: { type: "string" },
      title: { type: "string", minLength: 1, maxLength: 100 },
      languages: { type: "array", items: { type: "string" } },
      createdAt: { type: "string", format: "date-time" },
      updatedAt: { type: "string", format: "date-time" },
      permissions: {
        type: "object",
        required: ["view", "edit"],
        properties: { view: { type: "boolean" }, edit: { type: "boolean" } },
      },
      urls: { type: "object", required: ["location"], properties: { location: { type: "string", format: "uri" } } },
    },
  };
  const attributes = (schemas.RevisionSemanticChangePageEdited?.properties as JsonObject | undefined)?.attributes as JsonObject | undefined;
  if (attributes?.oneOf) {
    attributes.anyOf = attributes.oneOf;
    delete attributes.oneOf;
  }
  if (schemas.PlainObject && !schemas.PlainObject.type) schemas.PlainObject.type = "object";
  return spec;
}

function getRoutes(): RouteEntry[] {
  if (!routesCache) {
    routesCache = Object.entries(getSpec().paths).map(([template, item]) => {
      const operations = new Map<string, JsonObject>();
      for (const m of HTTP_METHODS) {
        if (item[m] && typeof item[m] === "object") operations.set(m, item[m]);
      }
      return {
        template,
        segments: splitPath(template).map((s) => (/^\{[^}]+\}$/.test(s) ? "" : s)),
        operations,
      };
    });
  }
  return routesCache;
}

function getAjv(): InstanceType<typeof Ajv2020> {
  if (!ajvCache) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addFormat("emoji", true);
    ajv.addFormat("icon", true);
    registerUnknownFormats(ajv, getSpec());
    // Register the whole document so `#/components/...` refs resolve against it.
    ajv.addSchema({ ...getSpec(), $id: SPEC_ID });
    ajvCache = ajv;
  }
  return ajvCache;
}

/** Safety net: any format Ajv doesn't know (beyond emoji/icon) is accepted as any value. */
function registerUnknownFormats(ajv: InstanceType<typeof Ajv2020>, spec: OpenAPISpec): void {
  const seen = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!node || typeof node !== "object") return;
    const obj = node as JsonObject;
    if (typeof obj.format === "string" && typeof obj.type === "string") seen.add(obj.format);
    for (const v of Object.values(obj)) walk(v);
  };
  walk(spec.components);
  walk(spec.paths);
  for (const f of seen) {
    if (!ajv.formats[f]) ajv.addFormat(f, true);
  }
}

// ---------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------

function splitPath(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Path of `url` relative to the spec server (`{host}/v1`): query string dropped,
 * a leading `/v1` stripped (when present), trailing slash dropped.
 */
export function toSpecPath(url: string | URL): string {
  const pathname = new URL(String(url), "http://spec.invalid").pathname;
  let path = pathname === "/v1" ? "/" : pathname.startsWith("/v1/") ? pathname.slice(3) : pathname;
  if (path.length > 1 && path.endsWith("/")) path = path.replace(/\/+$/, "") || "/";
  return path;
}

export interface OperationMatch {
  operationId: string;
  /** Path template as written in the spec, e.g. `/spaces/{spaceId}`. */
  template: string;
  method: string;
}

/**
 * The spec operation serving `method` + `path` (`path` may be a full URL, may
 * carry `/v1` and a query string). Among templates that match and define the
 * method, literal segments win over parameters, compared left to right
 * (`.../versions/latest` beats `.../versions/{versionId}`).
 * Returns undefined when the spec has no such operation.
 */
export function findOperation(method: string, path: string | URL): OperationMatch | undefined {
  const found = matchRoute(method, path);
  if (!found) return undefined;
  return { operationId: found.operation.operationId, template: found.route.template, method: found.method };
}

function matchRoute(method: string, path: string | URL): { route: RouteEntry; operation: JsonObject; method: string } | undefined {
  const m = method.toLowerCase();
  const segments = splitPath(toSpecPath(path)).map(safeDecode);
  let best: RouteEntry | undefined;
  for (const route of getRoutes()) {
    if (route.segments.length !== segments.length || !route.operations.has(m)) continue;
    if (!route.segments.every((s, i) => s === "" || s === segments[i])) continue;
    if (!best || moreSpecific(route, best)) best = route;
  }
  return best ? { route: best, operation: best.operations.get(m)!, method: m } : undefined;
}

function moreSpecific(a: RouteEntry, b: RouteEntry): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = a.segments[i] !== "";
    const bLiteral = b.segments[i] !== "";
    if (aLiteral !== bLiteral) return aLiteral;
  }
  return false;
}

// Requests whose route is not in the spec (we serve some extra routes).
const unmatched = new Set<string>();

/** `"METHOD /path"` of every request validateResponse could not map to a spec operation. */
export function getUnmatchedRoutes(): string[] {
  return [...unmatched];
}

export function clearUnmatchedRoutes(): void {
  unmatched.clear();
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

function pointerToken(key: string): string {
  return encodeURIComponent(key.replace(/~/g, "~0").replace(/\//g, "~1"));
}

interface ResolvedResponse {
  /** The response object (after following a `#/components/responses/X` ref). */
  response: JsonObject;
  /** JSON pointer (URI-fragment encoded) to that response object in the spec. */
  pointer: string;
  /** Which key of `responses` was used: the status, `NXX`, or `default`. */
  key: string;
}

function resolveResponse(template: string, method: string, operation: JsonObject, status: number): ResolvedResponse | undefined {
  const responses: JsonObject = operation.responses ?? {};
  const wildcard = `${String(status)[0]}XX`;
  const key = [String(status), wildcard, wildcard.toLowerCase(), "default"].find((k) => k in responses);
  if (!key) return undefined;
  let response = responses[key] as JsonObject;
  let pointer = `#/paths/${pointerToken(template)}/${method}/responses/${pointerToken(key)}`;
  for (let hops = 0; typeof response.$ref === "string" && hops < 10; hops++) {
    const ref: string = response.$ref;
    if (!ref.startsWith("#/")) throw new Error(`Unsupported external response $ref ${ref}`);
    pointer =
      "#/" +
      ref
        .slice(2)
        .split("/")
        .map((t) => encodeURIComponent(t))
        .join("/");
    response = ref
      .slice(2)
      .split("/")
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<any>((node, t) => node?.[t], getSpec());
    if (!response) throw new Error(`Dangling response $ref ${ref}`);
  }
  return { response, pointer, key };
}

function jsonMediaType(content: JsonObject | undefined): string | undefined {
  if (!content) return undefined;
  return Object.keys(content).find((t) => t === "application/json" || /\+json$|\/json\b/.test(t));
}

function compile(pointer: string, errorStatus?: number): ValidateFunction {
  const cacheKey = `${pointer}|${errorStatus ?? ""}`;
  let validate = validatorCache.get(cacheKey);
  if (!validate) {
    const ref = { $ref: SPEC_ID + pointer };
    const schema =
      errorStatus === undefined
        ? ref
        : {
            allOf: [
              ref,
              // The API puts the HTTP status in `error.code`.
              { properties: { error: { properties: { code: { const: errorStatus } } } } },
            ],
          };
    validate = getAjv().compile(schema);
    validatorCache.set(cacheKey, validate);
  }
  return validate;
}

function formatError(e: ErrorObject): string {
  const where = e.instancePath || "(root)";
  let extra = "";
  if (e.keyword === "enum") extra = ` ${JSON.stringify((e.params as any).allowedValues)}`;
  else if (e.keyword === "const") extra = ` ${JSON.stringify((e.params as any).allowedValue)}`;
  else if (e.keyword === "additionalProperties") extra = ` '${(e.params as any).additionalProperty}'`;
  return `${where} ${e.message}${extra}`;
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === "";
}

export interface ValidateOptions {
  /** Response Content-Type header; when given, JSON responses must be `application/json`. */
  contentType?: string | null;
}

/**
 * Validate one response against the spec. `body` is the parsed JSON body
 * (`undefined` or `''` = empty body). Returns readable violations, `[]` when valid.
 *
 * - Operation not in the spec → `[]`, and recorded (see getUnmatchedRoutes / findOperation).
 * - Schema used: the status's response, else `NXX`, else `default`, else (4xx/5xx only)
 *   the generic `#/components/schemas/Error` envelope. For 4xx/5xx, `error.code` must
 *   equal the HTTP status. A 1xx–3xx status the operation doesn't declare is a violation.
 * - 204/205: body must be empty. Other responses declaring no content are not checked;
 *   non-JSON content (text/event-stream) is not checked.
 */
export function validateResponse(
  method: string,
  url: string | URL,
  status: number,
  body: unknown,
  options: ValidateOptions = {},
): string[] {
  const match = matchRoute(method, url);
  if (!match) {
    unmatched.add(`${method.toUpperCase()} ${new URL(String(url), "http://spec.invalid").pathname}`);
    return [];
  }
  const { route, operation, method: m } = match;
  const violations: string[] = [];

  if (NO_CONTENT_STATUSES.has(status)) {
    if (!isEmptyBody(body)) violations.push(`status ${status} must have an empty body, got ${preview(body)}`);
  }

  const resolved = resolveResponse(route.template, m, operation, status);
  const isError = status >= 400;
  let pointer: string;
  if (resolved) {
    if (NO_CONTENT_STATUSES.has(status)) return violations;
    const media = jsonMediaType(resolved.response.content);
    if (!media) {
      // Declared without JSON content: nothing to validate (e.g. 202 Accepted, SSE streams).
      return violations;
    }
    pointer = `${resolved.pointer}/content/${pointerToken(media)}/schema`;
    if (!resolved.response.content[media]?.schema) return violations;
  } else if (isError) {
    pointer = "#/components/schemas/Error";
    if (!getSpec().components.schemas.Error) return violations;
  } else {
    const declared = Object.keys(operation.responses ?? {}).join(", ");
    violations.push(`status ${status} is not declared for ${operation.operationId} (declared: ${declared})`);
    return violations;
  }

  if (isEmptyBody(body)) {
    violations.push(`expected a JSON body for status ${status}, got an empty body`);
    return violations;
  }
  if (options.contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(options.contentType ?? "")) {
    violations.push(`content-type must be application/json, got ${JSON.stringify(options.contentType)}`);
  }

  const validate = compile(pointer, isError ? status : undefined);
  if (!validate(body)) {
    const seen = new Set<string>();
    for (const e of validate.errors ?? []) {
      const msg = formatError(e);
      if (!seen.has(msg)) {
        seen.add(msg);
        violations.push(msg);
      }
    }
  }
  return violations;
}

function preview(body: unknown): string {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text === undefined ? String(body) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

// ---------------------------------------------------------------------------
// Checked client
// ---------------------------------------------------------------------------

export type CheckedClient = GitBookAPI & {
  /** Every violation seen so far, `"METHOD /v1/path -> status: message"`. */
  violations: string[];
  /** Requests that did not map to a spec operation, `"METHOD /v1/path"`. */
  unmatched: string[];
};

/**
 * Official `GitBookAPI` client whose fetch checks every response against the spec.
 * The client's base URL is `${endpoint without trailing slash}/v1` (done by the
 * GitBookAPI constructor), so pass the server origin, e.g. `http://127.0.0.1:4567`.
 * On a violation the call rejects with an Error naming method, path, status and
 * the violations (they're also appended to `client.violations`). Valid non-2xx
 * responses surface as the client's usual `GitBookAPIError`.
 */
export function createClient(options: { endpoint: string; token?: string; fetch?: typeof fetch }): CheckedClient {
  const violations: string[] = [];
  const unmatchedHere: string[] = [];
  const doFetch = options.fetch ?? globalThis.fetch;
  const normalizedEndpoint = options.endpoint.replace(/\/+$/, "");
  const basePath = new URL(normalizedEndpoint).pathname.replace(/\/+$/, "") + "/v1";

  const checkedFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const response = await doFetch(input, init);

    // Path as the spec sees it: relative to `${endpoint}/v1`, re-prefixed with `/v1`.
    const specUrl =
      url.pathname.startsWith(basePath + "/") || url.pathname === basePath ? "/v1" + url.pathname.slice(basePath.length) : url.pathname;
    const shownPath = url.pathname + url.search;

    if (!findOperation(method, specUrl)) {
      unmatchedHere.push(`${method} ${url.pathname}`);
      unmatched.add(`${method} ${url.pathname}`);
      return response;
    }

    const contentType = response.headers.get("content-type");
    if (contentType && /^text\/event-stream/i.test(contentType)) return response; // don't drain streams

    const text = await response.clone().text();
    const found: string[] = [];
    let body: unknown = undefined;
    if (NO_CONTENT_STATUSES.has(response.status)) {
      body = text; // '' when empty, raw text otherwise
    } else if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        found.push(`body is not valid JSON: ${preview(text)}`);
      }
    }
    found.push(
      ...validateResponse(method, specUrl, response.status, body, {
        contentType: text.length > 0 ? contentType : undefined,
      }),
    );
    if (found.length > 0) {
      const op = findOperation(method, specUrl)!;
      const head = `${method} ${shownPath} -> ${response.status} (${op.operationId} ${op.template})`;
      for (const v of found) violations.push(`${head}: ${v}`);
      throw new Error(`OpenAPI contract violation: ${head}\n${found.map((v) => `  - ${v}`).join("\n")}`);
    }
    return response;
  };

  const client = new GitBookAPI({
    endpoint: normalizedEndpoint,
    authToken: options.token,
    serviceBinding: { fetch: checkedFetch as typeof fetch },
  });
  return Object.assign(client, { violations, unmatched: unmatchedHere });
}

/** Violations of `value` against a component schema of the published spec (the events of a stream). */
export function validateComponent(name: string, value: unknown): string[] {
  const validate = compile(`#/components/schemas/${name}`);
  return validate(value) ? [] : (validate.errors ?? []).map(formatError);
}
