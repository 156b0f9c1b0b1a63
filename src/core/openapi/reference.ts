// API reference on published pages: an `openapi-operation` embed (src/core/openapi/embed.ts)
// rendered as the operation of the spec's latest version: method and path, summary and
// description, parameters (the path item's and the operation's), request body and responses
// with their schemas (properties, types, required, descriptions) and an example (the spec's own,
// or one built from the schema). `$ref`s are followed inside a file and to the version's other
// files; a cycle is shown once, not followed again.
//
// The loader reads the spec of the site's organization by slug; a spec's `visibility` is about
// who may fetch its raw file, not about the pages that show it, so private specs render too.
// A missing spec, version or operation renders a short notice instead of failing the page.
import type { OpenAPISpecVersion } from "../../generated/prisma/client.ts";
import type { Services } from "../context.ts";
import { type BlockContext, escapeHtml, type FencedBlockKind } from "../sites/render.ts";
import { type OperationEmbed, parseOperationEmbed } from "./embed.ts";
import { versionTexts } from "./index.ts";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => !!value && typeof value === "object" && !Array.isArray(value);

/** Deepest schema nesting shown (a bigger one is cut with "…"). */
const MAX_SCHEMA_DEPTH = 6;

export interface ResolvedParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema?: Json;
  example?: unknown;
}

export interface ResolvedOperation {
  embed: OperationEmbed;
  summary?: string;
  description?: string;
  deprecated: boolean;
  parameters: ResolvedParameter[];
  requestBody?: { required: boolean; description?: string; content: { type: string; schema?: Json; example?: unknown }[] };
  responses: { status: string; description?: string; content: { type: string; schema?: Json; example?: unknown }[] }[];
}

export type LoadedOperation = { operation: ResolvedOperation } | { missing: string };

// ---------------------------------------------------------------------------------------------
// $ref resolution over the files of one version

class Files {
  constructor(private readonly files: Map<string, unknown>) {}

  /** The value a `$ref` names, seen from `from` (a file path), and the file it is in. */
  resolve(ref: string, from: string): { value: unknown; file: string } | null {
    const [external, pointer = ""] = ref.split("#", 2) as [string, string?];
    const file = external ? joinPath(from, external) : from;
    let value = this.files.get(file);
    if (value === undefined) return null;
    for (const raw of pointer.split("/").slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(value)) value = value[Number(key)];
      else if (isObject(value)) value = value[key];
      else return null;
      if (value === undefined) return null;
    }
    return { value, file };
  }

  /** `value` with every `$ref` replaced by what it names (a cycle or a dangling ref is marked). */
  deref(value: unknown, file: string, seen: string[] = [], depth = 0): unknown {
    if (depth > 40) return { description: "…" };
    if (Array.isArray(value)) return value.map((item) => this.deref(item, file, seen, depth + 1));
    if (!isObject(value)) return value;
    if (typeof value.$ref === "string") {
      const key = `${file}#${value.$ref}`;
      if (seen.includes(key)) return { "x-circular": value.$ref };
      const target = this.resolve(value.$ref, file);
      if (!target) return { "x-unresolved": value.$ref };
      return this.deref(target.value, target.file, [...seen, key], depth + 1);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deref(v, file, seen, depth + 1)]));
  }
}

function joinPath(from: string, relative: string): string {
  const parts = (from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "").split("/").filter(Boolean);
  for (const part of relative.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** The operation an embed names in the parsed files of a version (entry first), resolved. */
export function resolveOperation(parsed: { path: string; value: unknown }[], embed: OperationEmbed): LoadedOperation {
  const entry = parsed[0];
  if (!entry || !isObject(entry.value)) return { missing: "the specification has no content" };
  const files = new Files(new Map(parsed.map((file) => [file.path, file.value])));
  const paths = entry.value.paths;
  const rawItem = isObject(paths) ? paths[embed.path] : undefined;
  const item = files.deref(rawItem, entry.path) as Json | undefined;
  const operation = isObject(item) ? item[embed.method] : undefined;
  if (!isObject(item) || !isObject(operation))
    return { missing: `the specification has no operation ${embed.method.toUpperCase()} ${embed.path}` };

  const parameters = new Map<string, ResolvedParameter>();
  for (const raw of [...asArray(item.parameters), ...asArray(operation.parameters)]) {
    if (!isObject(raw) || typeof raw.name !== "string") continue;
    const location = typeof raw.in === "string" ? raw.in : "query";
    parameters.set(`${location}:${raw.name}`, {
      name: raw.name,
      in: location,
      required: raw.required === true || location === "path",
      description: str(raw.description),
      schema: isObject(raw.schema) ? raw.schema : undefined,
      example: raw.example ?? firstExample(raw.examples) ?? (isObject(raw.schema) ? raw.schema.example : undefined),
    });
  }
  const contentOf = (content: unknown) =>
    isObject(content)
      ? Object.entries(content).map(([type, media]) => {
          const m = isObject(media) ? media : {};
          const schema = isObject(m.schema) ? m.schema : undefined;
          return { type, schema, example: m.example ?? firstExample(m.examples) ?? (schema ? exampleOf(schema) : undefined) };
        })
      : [];
  const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
  return {
    operation: {
      embed,
      summary: str(operation.summary),
      description: str(operation.description),
      deprecated: operation.deprecated === true,
      parameters: [...parameters.values()],
      requestBody: body
        ? { required: body.required === true, description: str(body.description), content: contentOf(body.content) }
        : undefined,
      responses: Object.entries(isObject(operation.responses) ? operation.responses : {}).map(([status, response]) => {
        const r = isObject(response) ? response : {};
        return { status, description: str(r.description), content: contentOf(r.content) };
      }),
    },
  };
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
const firstExample = (examples: unknown) => {
  if (!isObject(examples)) return undefined;
  const first = Object.values(examples)[0];
  return isObject(first) ? first.value : undefined;
};

/** An example of a schema: its own `example`, `default` or first `enum` value, else one by type. */
export function exampleOf(schema: Json, depth = 0): unknown {
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (depth > MAX_SCHEMA_DEPTH || schema["x-circular"]) return undefined;
  const variant = [schema.oneOf, schema.anyOf].find(Array.isArray)?.[0];
  if (isObject(variant)) return exampleOf(variant, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.filter(isObject).map((part) => exampleOf(part, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" || isObject(schema.properties)) {
    return Object.fromEntries(
      Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([key, value]) => [
        key,
        isObject(value) ? exampleOf(value, depth + 1) : null,
      ]),
    );
  }
  if (type === "array") return isObject(schema.items) ? [exampleOf(schema.items, depth + 1)] : [];
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return true;
  if (type === "string") return schema.format === "date-time" ? "2024-01-01T00:00:00Z" : "string";
  return null;
}

// ---------------------------------------------------------------------------------------------
// Loading (before the render)

/** The latest version of the organization's spec `slug`, its files parsed. */
async function parsedVersion(
  services: Services,
  organizationId: string,
  slug: string,
): Promise<{ missing: string } | { parsed: { path: string; value: unknown }[] }> {
  const spec = await services.prisma.openAPISpec.findUnique({
    where: { organizationId_slug: { organizationId, slug } },
    select: { lastVersionId: true },
  });
  if (!spec) return { missing: `there is no OpenAPI specification "${slug}"` };
  const version: OpenAPISpecVersion | null = spec.lastVersionId
    ? await services.prisma.openAPISpecVersion.findUnique({ where: { id: spec.lastVersionId } })
    : null;
  if (!version) return { missing: `the OpenAPI specification "${slug}" has not been processed yet` };
  const { parse } = await import("yaml");
  const texts = await versionTexts(services, version);
  return {
    parsed: texts.map((file) => ({
      path: file.path,
      value: file.format === "json" ? JSON.parse(file.text) : parse(file.text, { maxAliasCount: 1000 }),
    })),
  };
}

export async function loadOperation(content: string, _info: string, context: BlockContext): Promise<LoadedOperation | null> {
  const embed = parseOperationEmbed(content);
  if (!embed) return null;
  const version = await parsedVersion(context.services, context.organizationId, embed.spec);
  if ("missing" in version) return { missing: version.missing };
  return resolveOperation(version.parsed, embed);
}

// ---------------------------------------------------------------------------------------------
// HTML

const e = (value: unknown) => escapeHtml(String(value));

function typeOf(schema: Json): string {
  if (schema["x-circular"]) return `${String(schema["x-circular"]).split("/").pop()} (circular)`;
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : typeof schema.type === "string" ? schema.type : undefined;
  if (type === "array" && isObject(schema.items)) return `array of ${typeOf(schema.items)}`;
  if (type) return schema.format ? `${type} (${schema.format})` : type;
  if (Array.isArray(schema.oneOf)) return "one of";
  if (Array.isArray(schema.anyOf)) return "any of";
  if (Array.isArray(schema.allOf)) return "all of";
  if (isObject(schema.properties)) return "object";
  return "any";
}

/** A schema as a nested list of its properties (type, required, description, enum). */
export function schemaHtml(schema: Json, depth = 0): string {
  if (depth > MAX_SCHEMA_DEPTH) return "<p>…</p>";
  const item = Array.isArray(schema.type) ? schema : schema.type === "array" && isObject(schema.items) ? schema.items : schema;
  const parts: string[] = [];
  const merged = Array.isArray(item.allOf)
    ? Object.assign({}, ...item.allOf.filter(isObject).map((p) => (isObject(p.properties) ? p.properties : {})))
    : {};
  const properties = { ...merged, ...(isObject(item.properties) ? item.properties : {}) } as Record<string, unknown>;
  const required = new Set([
    ...asArray(item.required),
    ...(Array.isArray(item.allOf) ? item.allOf.filter(isObject).flatMap((p) => asArray(p.required)) : []),
  ]);
  if (Object.keys(properties).length) {
    parts.push('<ul class="openapi-schema">');
    for (const [name, raw] of Object.entries(properties)) {
      const property = isObject(raw) ? raw : {};
      const nested =
        isObject(property.properties) || (isObject(property.items) && isObject(property.items.properties)) || Array.isArray(property.allOf);
      parts.push(
        `<li><code class="openapi-property">${e(name)}</code> <span class="openapi-type">${e(typeOf(property))}</span>` +
          (required.has(name) ? ' <span class="openapi-required">required</span>' : "") +
          (typeof property.description === "string" ? ` <span class="openapi-description">${e(property.description)}</span>` : "") +
          (Array.isArray(property.enum)
            ? ` <span class="openapi-enum">one of ${property.enum.map((v) => `<code>${e(JSON.stringify(v))}</code>`).join(", ")}</span>`
            : "") +
          (nested ? schemaHtml(property, depth + 1) : "") +
          "</li>",
      );
    }
    parts.push("</ul>");
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    if (!Array.isArray(item[key])) continue;
    parts.push(`<p>${key === "oneOf" ? "One of" : "Any of"}:</p><ol class="openapi-variants">`);
    for (const variant of item[key].filter(isObject))
      parts.push(`<li><span class="openapi-type">${e(variant.title ?? typeOf(variant))}</span>${schemaHtml(variant, depth + 1)}</li>`);
    parts.push("</ol>");
  }
  return parts.join("");
}

const exampleHtml = (example: unknown) =>
  example === undefined
    ? ""
    : `<pre class="openapi-example"><code class="language-json">${e(typeof example === "string" ? example : JSON.stringify(example, null, 2))}</code></pre>`;

function mediaHtml(content: { type: string; schema?: Json; example?: unknown }[]): string {
  return content
    .map(
      (media) =>
        `<div class="openapi-media"><p><code>${e(media.type)}</code>${media.schema ? ` <span class="openapi-type">${e(typeOf(media.schema))}</span>` : ""}</p>` +
        (media.schema ? schemaHtml(media.schema) : "") +
        exampleHtml(media.example) +
        "</div>",
    )
    .join("");
}

export function operationHtml(loaded: LoadedOperation, embed: OperationEmbed): string {
  const head = `<span class="openapi-method openapi-method-${e(embed.method)}">${e(embed.method.toUpperCase())}</span> <code class="openapi-path">${e(embed.path)}</code>`;
  if ("missing" in loaded) {
    return `<section class="openapi-operation openapi-missing" data-spec="${e(embed.spec)}"><p>${head}</p><p>This API reference is not available: ${e(loaded.missing)}.</p></section>`;
  }
  const op = loaded.operation;
  const out = [`<section class="openapi-operation" data-spec="${e(embed.spec)}">`, `<h3 class="openapi-title">${head}</h3>`];
  if (op.deprecated) out.push('<p class="openapi-deprecated">Deprecated</p>');
  if (op.summary) out.push(`<p class="openapi-summary"><strong>${e(op.summary)}</strong></p>`);
  if (op.description) out.push(`<p class="openapi-description">${e(op.description)}</p>`);
  if (op.parameters.length) {
    out.push(
      '<h4>Parameters</h4><table class="openapi-parameters"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>',
    );
    for (const p of op.parameters) {
      out.push(
        `<tr><td><code>${e(p.name)}</code></td><td>${e(p.in)}</td><td>${p.schema ? e(typeOf(p.schema)) : ""}</td><td>${p.required ? "required" : "optional"}</td>` +
          `<td>${p.description ? e(p.description) : ""}${p.example !== undefined ? ` Example: <code>${e(JSON.stringify(p.example))}</code>` : ""}</td></tr>`,
      );
    }
    out.push("</tbody></table>");
  }
  if (op.requestBody) {
    out.push(`<h4>Request body${op.requestBody.required ? " (required)" : ""}</h4>`);
    if (op.requestBody.description) out.push(`<p>${e(op.requestBody.description)}</p>`);
    out.push(mediaHtml(op.requestBody.content));
  }
  if (op.responses.length) {
    out.push('<h4>Responses</h4><div class="openapi-responses">');
    for (const response of op.responses) {
      out.push(
        `<div class="openapi-response"><h5><span class="openapi-status">${e(response.status)}</span>${response.description ? ` ${e(response.description)}` : ""}</h5>${mediaHtml(response.content)}</div>`,
      );
    }
    out.push("</div>");
  }
  out.push("</section>");
  return out.join("");
}

function renderOperation(content: string, _info: string, loaded?: unknown): string {
  const embed = parseOperationEmbed(content);
  if (!embed) return `<pre><code>${e(content)}</code></pre>`;
  return operationHtml((loaded as LoadedOperation | null | undefined) ?? { missing: "it could not be loaded" }, embed);
}

/** Makes published pages render `openapi-operation` blocks as API references (called by createApp). */
/** The fenced block of an OpenAPI operation on published pages (`services.siteExtensions.blocks`). */
export const operationBlock: FencedBlockKind = { render: renderOperation, load: loadOperation };
