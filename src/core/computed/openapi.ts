// The built-in `builtin:openapi` computed source: documents and pages made from an OpenAPI
// specification of the space's organization (its latest processed version). Operations become
// the `openapi-operation` embeds published pages render as an API reference
// (src/core/openapi/embed.ts), so what is computed is what an editor could have written by hand.
import { badInput, conflict, DomainError, quote } from "../errors.ts";
import { HTTP_METHODS, type OperationEmbed, operationEmbedMarkdown } from "../openapi/embed.ts";
import { resolveOperation } from "../openapi/reference.ts";

/** Operations and tags of one specification, in the order the entry file gives them. */
export interface SpecIndex {
  slug: string;
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  operations: (OperationEmbed & { tag: string; summary: string })[];
  schemas: [string, unknown][];
  parsed: { path: string; value: unknown }[];
}

/** Operations under no tag are shown under this one (the published API says nothing of them). */
export const UNTAGGED = "default";
/** Models written into one document; the rest are counted in a closing line. */
export const MODELS_MAX = 200;
/** Bytes of markdown one computed document may hold (as a page's body). */
export const COMPUTED_DOCUMENT_MAX_BYTES = 1024 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : "");

/** Reads operations, tags and models of a version's parsed files (entry first). */
export function indexSpec(slug: string, parsed: { path: string; value: unknown }[]): SpecIndex {
  const entry = parsed[0]?.value;
  if (!isObject(entry)) throw conflict(`source.dependencies.spec: the OpenAPI specification ${quote(slug)} has no content`);
  const info = isObject(entry.info) ? entry.info : {};
  const tags = new Map<string, string>();
  for (const tag of Array.isArray(entry.tags) ? entry.tags : []) {
    if (isObject(tag) && typeof tag.name === "string" && !tags.has(tag.name)) tags.set(tag.name, text(tag.description));
  }
  const operations: SpecIndex["operations"] = [];
  for (const [path, item] of Object.entries(isObject(entry.paths) ? entry.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const tag = Array.isArray(operation.tags) && typeof operation.tags[0] === "string" ? operation.tags[0] : UNTAGGED;
      if (!tags.has(tag)) tags.set(tag, "");
      operations.push({ spec: slug, method, path, tag, summary: text(operation.summary) });
    }
  }
  const components = isObject(entry.components) ? entry.components : {};
  return {
    slug,
    info: { title: text(info.title) || slug, version: text(info.version), description: text(info.description) },
    // Tags without operations are still pages: a spec may describe a tag before its operations exist.
    tags: [...tags].map(([name, description]) => ({ name, description })),
    operations,
    schemas: Object.entries(isObject(components.schemas) ? components.schemas : {}),
    parsed,
  };
}

const join = (...parts: string[]) => parts.filter((part) => part.trim() !== "").join("\n\n");

function requireTag(spec: SpecIndex, name: string) {
  const tag = spec.tags.find((candidate) => candidate.name === name);
  if (!tag) throw badInput(`source.props.page: the specification ${quote(spec.slug)} has no tag ${quote(name)}`);
  return tag;
}

export const operationsMarkdown = (spec: SpecIndex, tag: string) =>
  join(...spec.operations.filter((operation) => operation.tag === tag).map(operationEmbedMarkdown));

export function modelsMarkdown(spec: SpecIndex): string {
  const shown = spec.schemas.slice(0, MODELS_MAX);
  const sections = shown.map(([name, schema]) =>
    join(`## ${name}`, isObject(schema) ? text(schema.description) : "", `\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\``),
  );
  const rest = spec.schemas.length - shown.length;
  return join(...sections, rest > 0 ? `And ${rest} more models.` : "");
}

export const infoMarkdown = (spec: SpecIndex) => join(spec.info.description, spec.info.version ? `Version: \`${spec.info.version}\`` : "");

/** The markdown of a document the published `ComputedContentSourceDocumentOpenAPI` props name. */
export function openAPIDocumentMarkdown(spec: SpecIndex, props: Record<string, unknown>): string {
  const doc = props.doc;
  const page = props.page;
  const needPage = () => {
    if (typeof page !== "string" || page === "") throw badInput(`source.props.page is required for doc ${quote(doc)} (a non-empty string)`);
    return page;
  };
  switch (doc) {
    case "models":
      return modelsMarkdown(spec);
    case "info":
      needPage();
      return infoMarkdown(spec);
    case "tag":
      return requireTag(spec, needPage()).description;
    case "operations":
      return operationsMarkdown(spec, requireTag(spec, needPage()).name);
    case "operation": {
      const path = needPage();
      const method = props.method;
      if (method === "hook")
        throw badInput("source.props.method: webhooks (hook) are not computed here; operations of the specification's paths are");
      if (typeof method !== "string" || !(HTTP_METHODS as readonly string[]).includes(method))
        throw badInput(`source.props.method must be one of ${HTTP_METHODS.join(", ")} (got ${quote(method)})`);
      const embed = { spec: spec.slug, method: method as OperationEmbed["method"], path };
      const resolved = resolveOperation(spec.parsed, embed);
      if ("missing" in resolved) throw badInput(`source.props.page: ${resolved.missing}`);
      return operationEmbedMarkdown(embed);
    }
    default:
      throw badInput(`source.props.doc must be one of models, operations, info, operation, tag (got ${quote(doc)})`);
  }
}

/** A page of a computed revision before it gets its id: what it is and where it stands. */
export interface PlannedPage {
  key: string;
  kind: "document" | "link";
  title: string;
  markdown?: string;
  href?: string;
  pages: PlannedPage[];
}

/** The pages the published `ComputedContentSourceRevisionOpenAPI` props ask for. */
export function openAPIRevisionPages(spec: SpecIndex, props: Record<string, unknown>, downloadURL: string): PlannedPage[] {
  if (typeof props.models !== "boolean") throw badInput("source.props.models is required (a boolean)");
  const grouping = props.grouping ?? "by-tag";
  if (grouping !== "by-tag" && grouping !== "by-operation")
    throw badInput(`source.props.grouping must be by-tag or by-operation (got ${quote(grouping)})`);
  if (props.downloadLink !== undefined && typeof props.downloadLink !== "boolean")
    throw badInput("source.props.downloadLink must be a boolean");
  const pages: PlannedPage[] = spec.tags.map((tag) => {
    const operations = spec.operations.filter((operation) => operation.tag === tag.name);
    if (grouping === "by-tag")
      return {
        key: `tag:${tag.name}`,
        kind: "document",
        title: tag.name,
        markdown: join(tag.description, operationsMarkdown(spec, tag.name)),
        pages: [],
      };
    return {
      key: `tag:${tag.name}`,
      kind: "document",
      title: tag.name,
      markdown: tag.description,
      pages: operations.map((operation) => ({
        key: `operation:${operation.method}:${operation.path}`,
        kind: "document",
        title: operation.summary || `${operation.method.toUpperCase()} ${operation.path}`,
        markdown: operationEmbedMarkdown(operation),
        pages: [],
      })),
    };
  });
  if (props.models) pages.push({ key: "models", kind: "document", title: "Models", markdown: modelsMarkdown(spec), pages: [] });
  if (props.downloadLink)
    pages.push({ key: "download", kind: "link", title: "Download the OpenAPI specification", href: downloadURL, pages: [] });
  return pages;
}

export function checkDocumentSize(markdown: string, what: string): string {
  const bytes = Buffer.byteLength(markdown, "utf8");
  if (bytes > COMPUTED_DOCUMENT_MAX_BYTES)
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `${what} would be ${bytes} bytes of markdown, more than the ${COMPUTED_DOCUMENT_MAX_BYTES} a document may hold`,
    );
  return markdown;
}
