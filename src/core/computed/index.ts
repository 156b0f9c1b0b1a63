// Computed content (the published getComputedDocument and getComputedRevision): a document, or a
// revision's pages, files and reusable contents, computed from a source without storing anything.
// The sources this service has:
//
// - `builtin:openapi`: an OpenAPI specification of the space's organization (openapi.ts);
// - `builtin:translation`: what a translation of the organization made, i.e. the head of one of
//   its target spaces (a page there has the id of its source page, src/core/translations/sync.ts);
// - `integration:<integration>:<source>`: a content source an integration installed on the space
//   declares, computed by its script in the sandbox (a `content_compute_document` or
//   `content_compute_revision` event answered at once, as `ui_render` is), bounded in time and size.
//
// Ids of what is computed derive from the caller's `seed` and where the thing stands, so the same
// seed computes the same ids (the published "Seed to use for the generation of IDs").
import { createHash } from "node:crypto";
import type { Integration, IntegrationInstallation, Space } from "../../generated/prisma/client.ts";
import { contentOf, markdownOf } from "../content/index.ts";
import { markdownToDocument } from "../content/document.ts";
import { downloadUrlOf } from "../content/files.ts";
import { revisionAt } from "../content/target.ts";
import { flatten, slugify, type Content } from "../content/tree.ts";
import type { CoreContext } from "../context.ts";
import { badInput, DomainError, notFound, quote } from "../errors.ts";
import { installedWhere, manifestOf } from "../integrations/installed.ts";
import { readSpec, readVersion, specLocation, versionContent } from "../openapi/index.ts";
import { readSpace, requireSpace } from "../spaces/index.ts";
import { readTranslation, targetsOf } from "../translations/index.ts";
import {
  checkDocumentSize,
  indexSpec,
  openAPIDocumentMarkdown,
  openAPIRevisionPages,
  type PlannedPage,
  type SpecIndex,
} from "./openapi.ts";

export { COMPUTED_DOCUMENT_MAX_BYTES } from "./openapi.ts";

export const SEED_MAX = 200;
/** Bytes of `source` (as JSON) one request may send. */
export const SOURCE_MAX_BYTES = 64 * 1024;
/** Pages of one computed revision. */
export const COMPUTED_PAGES_MAX = 1000;
/** Files of one computed revision. */
export const COMPUTED_FILES_MAX = 1000;
/** Markdown of all the pages of one computed revision. */
export const COMPUTED_REVISION_MAX_BYTES = 10 * 1024 * 1024;
/** Longest a script may take to compute (its sandbox's own timeout may be shorter). */
export const COMPUTE_MAX_MS = 10_000;
/** Bytes of a script's answer. */
export const COMPUTE_ANSWER_MAX_BYTES = 5 * 1024 * 1024;
/** Dependencies of an integration source. */
export const DEPENDENCIES_MAX = 20;

const INTEGRATION_TYPE = /^integration:([^:]+):([^:]+)$/;

/** A computed page, flat (depth first) with where it stands. */
export interface ComputedPage {
  id: string;
  kind: "document" | "group" | "link";
  title: string;
  slug: string;
  path: string;
  parentId: string | null;
  description?: string;
  emoji?: string;
  markdown?: string;
  /** The published JSONDocument, when the source gave one rather than markdown. */
  document?: Record<string, unknown>;
  href?: string;
}

export interface ComputedFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  downloadURL: string;
}

export interface ComputedRevision {
  pages: ComputedPage[];
  files: ComputedFile[];
  reusableContents: { id: string; title: string; documentId: string | null }[];
}

type Kind = "document" | "revision";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** An id of type `prefix` that the seed and `key` decide. */
const seededId = (prefix: string, seed: string, key: string) =>
  `${prefix}_${createHash("sha256").update(seed).update("\0").update(key).digest("base64url").slice(0, 20)}`;

function checkRequest(source: unknown, seed: unknown): { source: Record<string, unknown>; seed: string } {
  if (typeof seed !== "string" || seed === "" || seed.length > SEED_MAX) throw badInput(`seed must be 1 to ${SEED_MAX} characters`);
  if (!isObject(source)) throw badInput("source must be an object { type, props, dependencies }");
  const bytes = Buffer.byteLength(JSON.stringify(source), "utf8");
  if (bytes > SOURCE_MAX_BYTES)
    throw new DomainError("PAYLOAD_TOO_LARGE", `source must be at most ${SOURCE_MAX_BYTES} bytes as JSON (got ${bytes})`);
  if (typeof source.type !== "string")
    throw badInput("source.type is required (builtin:openapi, builtin:translation or integration:<integration>:<source>)");
  if (source.props !== undefined && !isObject(source.props)) throw badInput("source.props must be an object");
  if (source.dependencies !== undefined && !isObject(source.dependencies)) throw badInput("source.dependencies must be an object");
  return { source, seed };
}

const propsOf = (source: Record<string, unknown>) => (source.props ?? {}) as Record<string, unknown>;
const dependenciesOf = (source: Record<string, unknown>) => (source.dependencies ?? {}) as Record<string, unknown>;

/** `dependencies.<name>.ref` of the kind given: its own id field. */
function refOf(
  source: Record<string, unknown>,
  name: string,
  kind: string,
  field: string,
): { ref: Record<string, unknown>; value: unknown } {
  const dependency = dependenciesOf(source)[name];
  if (!isObject(dependency) || !isObject(dependency.ref))
    throw badInput(`source.dependencies.${name} is required: { ref: { kind: ${quote(kind)}, ${field} } }`);
  if (dependency.ref.kind !== kind) throw badInput(`source.dependencies.${name}.ref.kind must be ${quote(kind)}`);
  if (typeof dependency.ref[field] !== "string" || dependency.ref[field] === "")
    throw badInput(`source.dependencies.${name}.ref.${field} is required (a string)`);
  return { ref: dependency.ref, value: dependency.value };
}

// ---------------------------------------------------------------------------------------------
// builtin:openapi

async function openAPISpec(ctx: CoreContext, space: Space, source: Record<string, unknown>) {
  const { ref } = refOf(source, "spec", "openapi", "spec");
  const spec = await readSpec(ctx, space.organizationId, ref.spec as string);
  if (!spec.lastVersionId)
    throw new DomainError(
      "CONFLICT",
      `source.dependencies.spec: the OpenAPI specification ${quote(spec.slug)} has no processed version yet`,
    );
  const version = await readVersion(ctx, spec, "latest");
  const { filesystem } = await versionContent(ctx, spec, version);
  const index: SpecIndex = indexSpec(
    spec.slug,
    Object.entries(filesystem).map(([path, value]) => ({ path, value })),
  );
  return { spec, index, downloadURL: version.sourceURL ?? specLocation(ctx, spec) };
}

// ---------------------------------------------------------------------------------------------
// builtin:translation

/** The target space of the translation the source depends on (the language its value names, or its only one). */
async function translationTarget(ctx: CoreContext, space: Space, source: Record<string, unknown>) {
  const { ref, value } = refOf(source, "translation", "translation", "translation");
  const translation = await readTranslation(ctx, space.organizationId, ref.translation as string);
  const targets = await targetsOf(ctx, translation);
  const language = isObject(value) ? value.language : undefined;
  let target = targets[0];
  if (language !== undefined) {
    const named = targets.find((candidate) => candidate.language === language);
    if (!named) throw badInput(`source.dependencies.translation.value.language: the translation has no target for ${quote(language)}`);
    target = named;
  } else if (targets.length !== 1) {
    throw badInput(
      `source.dependencies.translation: the translation has ${targets.length} target languages; give its value { space, revision, language } naming one`,
    );
  }
  const { space: targetSpace } = await readSpace(ctx, target!.spaceId);
  return revisionAt(ctx, targetSpace);
}

// ---------------------------------------------------------------------------------------------
// integration:<integration>:<source>

type Installed = IntegrationInstallation & { integration: Integration };

async function integrationSource(ctx: CoreContext, space: Space, type: string): Promise<{ installation: Installed; sourceId: string }> {
  const [, name, sourceId] = type.match(INTEGRATION_TYPE)!;
  const installation = await ctx.prisma.integrationInstallation.findFirst({
    where: { ...installedWhere(space.organizationId, space.id), integration: { name } },
    include: { integration: true },
  });
  if (!installation) throw badInput(`source.type: no integration ${quote(name!)} is installed on this space`);
  const declared = (manifestOf(installation.integration).contentSources ?? []) as { id?: unknown }[];
  if (!declared.some((entry) => entry.id === sourceId))
    throw badInput(`source.type: the integration ${quote(name!)} declares no content source ${quote(sourceId!)}`);
  return { installation, sourceId: sourceId! };
}

/** Dependencies resolved here from their refs (a value the caller sent is not trusted). */
async function resolvedDependencies(ctx: CoreContext, space: Space, source: Record<string, unknown>) {
  const entries = Object.entries(dependenciesOf(source));
  if (entries.length > DEPENDENCIES_MAX) throw badInput(`source.dependencies: at most ${DEPENDENCIES_MAX} (got ${entries.length})`);
  const resolved: Record<string, unknown> = {};
  for (const [name, dependency] of entries) {
    const ref = isObject(dependency) && isObject(dependency.ref) ? dependency.ref : null;
    if (ref?.kind === "space" && typeof ref.space === "string") {
      const { space: other } = await readSpace(ctx, ref.space);
      if (other.organizationId !== space.organizationId) throw notFound("space", ref.space);
      resolved[name] = { ref, value: { object: "space", id: other.id, revision: other.revisionId } };
    } else if (ref?.kind === "openapi" && typeof ref.spec === "string") {
      const spec = await readSpec(ctx, space.organizationId, ref.spec);
      resolved[name] = {
        ref,
        value: {
          object: "openapi-spec",
          id: spec.id,
          slug: spec.slug,
          visibility: spec.visibility,
          ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
        },
      };
    } else if (ref?.kind === "translation" && typeof ref.translation === "string") {
      const translation = await readTranslation(ctx, space.organizationId, ref.translation);
      const target = (await targetsOf(ctx, translation)).find((candidate) => candidate.syncedRevisionId);
      resolved[name] = {
        ref,
        value: target ? { space: target.spaceId, revision: target.syncedRevisionId, language: target.language } : null,
      };
    } else {
      throw badInput(`source.dependencies.${name}.ref must name a space, an openapi spec or a translation`);
    }
  }
  return resolved;
}

/** The script's answer to a compute event, parsed; a failure, a timeout or anything too large is a 502 naming it. */
async function computeWithScript(
  ctx: CoreContext,
  space: Space,
  source: Record<string, unknown>,
  kind: Kind,
): Promise<Record<string, unknown>> {
  const { installation, sourceId } = await integrationSource(ctx, space, source.type as string);
  const { integration } = installation;
  const event = {
    type: kind === "document" ? "content_compute_document" : "content_compute_revision",
    installationId: installation.id,
    spaceId: space.id,
    sourceId,
    props: propsOf(source),
    dependencies: await resolvedDependencies(ctx, space, source),
  };
  const failed = (why: string) =>
    new DomainError("BAD_GATEWAY", `The integration ${quote(integration.name)} could not compute ${quote(sourceId)}: ${why}`);
  const limit = Math.min(ctx.integrations.settings.timeoutMs, COMPUTE_MAX_MS);
  let timer: NodeJS.Timeout | undefined;
  const delivered = ctx.integrations.deliver(integration, installation, event);
  delivered.catch(() => {}); // abandoned after the deadline: its failure is nobody's
  const answer = await Promise.race([
    delivered,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(failed(`no answer within ${limit} ms`)), limit);
    }),
  ])
    .catch((error: unknown) => {
      throw error instanceof DomainError ? error : failed((error as Error).message);
    })
    .finally(() => clearTimeout(timer));
  if (answer.status < 200 || answer.status >= 300) throw failed(`it answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  if (answer.body.length > COMPUTE_ANSWER_MAX_BYTES) throw failed(`its answer is larger than ${COMPUTE_ANSWER_MAX_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw failed(`its answer is not JSON: ${quote(answer.body.slice(0, 200))}`);
  }
  if (!isObject(parsed)) throw failed("its answer is not an object");
  return parsed;
}

function checkScriptDocument(value: unknown, fail: (why: string) => Error): Record<string, unknown> {
  if (!isObject(value) || value.object !== "document" || !Array.isArray(value.nodes))
    throw fail("its document is not a JSONDocument { object: 'document', nodes }");
  if (!value.nodes.every((node) => isObject(node) && node.object === "block"))
    throw fail("a top-level node of its document is not a block");
  return { object: "document", data: isObject(value.data) ? value.data : {}, nodes: value.nodes };
}

const HTTP_URL = /^https?:\/\//i;

// ---------------------------------------------------------------------------------------------
// Documents

/** The published JSONDocument the source computes. Needs read access to the space. */
export async function computeDocument(
  ctx: CoreContext,
  spaceId: string,
  input: { source: unknown; seed: unknown },
): Promise<Record<string, unknown>> {
  const space = await requireSpace(ctx, spaceId, "space.read", { allowDeleted: true });
  const { source } = checkRequest(input.source, input.seed);
  const type = source.type as string;
  if (type === "builtin:openapi") {
    const { index } = await openAPISpec(ctx, space, source);
    return markdownToDocument(checkDocumentSize(openAPIDocumentMarkdown(index, propsOf(source)), "the document")) as unknown as Record<
      string,
      unknown
    >;
  }
  if (type === "builtin:translation") {
    const props = propsOf(source);
    if (typeof props.space !== "string" || props.space === "")
      throw badInput("source.props.space is required (the translation's source space)");
    if (typeof props.document !== "string" || props.document === "") throw badInput("source.props.document is required (a document id)");
    const revision = await translationTarget(ctx, space, source);
    const { space: sourceSpace } = await readSpace(ctx, props.space);
    const sourcePage = flatten(contentOf(await revisionAt(ctx, sourceSpace)).pages).find((located) => located.page.body === props.document);
    if (!sourcePage) throw notFound("document", props.document);
    const translated = flatten(contentOf(revision).pages).find((located) => located.page.id === sourcePage.page.id);
    // The target has not got its copy of the page yet (the translation has not run since).
    if (!translated?.page.body) throw notFound("translated document", props.document);
    return markdownToDocument((await markdownOf(ctx, translated.page)) ?? "") as unknown as Record<string, unknown>;
  }
  if (INTEGRATION_TYPE.test(type)) {
    if (source.props === undefined) throw badInput("source.props is required (an object)");
    const answer = await computeWithScript(ctx, space, source, "document");
    return checkScriptDocument(
      answer.document,
      (why) => new DomainError("BAD_GATEWAY", `The integration's computed document is invalid: ${why}`),
    );
  }
  throw badInput(
    `source.type: unknown computed source ${quote(type)} (builtin:openapi, builtin:translation or integration:<integration>:<source>)`,
  );
}

// ---------------------------------------------------------------------------------------------
// Revisions

/** Flat pages with ids from the seed and slugs unique among their siblings. */
function placePages(planned: PlannedPage[], seed: string): ComputedPage[] {
  const out: ComputedPage[] = [];
  const walk = (list: PlannedPage[], parentId: string | null, parentPath: string) => {
    const taken = new Set<string>();
    for (const page of list) {
      let slug = slugify(page.title);
      for (let n = 2; taken.has(slug); n++) slug = `${slugify(page.title)}-${n}`;
      taken.add(slug);
      const path = parentPath ? `${parentPath}/${slug}` : slug;
      const id = seededId("pg", seed, page.key);
      out.push({
        id,
        kind: page.kind,
        title: page.title,
        slug,
        path,
        parentId,
        ...(page.markdown !== undefined ? { markdown: page.markdown } : {}),
        ...(page.href ? { href: page.href } : {}),
      });
      walk(page.pages, id, path);
    }
  };
  walk(planned, null, "");
  return out;
}

function checkRevisionSize(pages: ComputedPage[], files: unknown[]) {
  if (pages.length > COMPUTED_PAGES_MAX)
    throw new DomainError("PAYLOAD_TOO_LARGE", `the computed revision would have ${pages.length} pages, more than ${COMPUTED_PAGES_MAX}`);
  if (files.length > COMPUTED_FILES_MAX)
    throw new DomainError("PAYLOAD_TOO_LARGE", `the computed revision would have ${files.length} files, more than ${COMPUTED_FILES_MAX}`);
  const bytes = pages.reduce(
    (sum, page) => sum + Buffer.byteLength(page.markdown ?? (page.document ? JSON.stringify(page.document) : ""), "utf8"),
    0,
  );
  if (bytes > COMPUTED_REVISION_MAX_BYTES)
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `the computed revision would hold ${bytes} bytes of pages, more than ${COMPUTED_REVISION_MAX_BYTES}`,
    );
}

/** Pages of a stored revision as computed ones (a translation's target). */
async function storedPages(ctx: CoreContext, content: Content): Promise<ComputedPage[]> {
  const located = flatten(content.pages);
  if (located.length > COMPUTED_PAGES_MAX)
    throw new DomainError("PAYLOAD_TOO_LARGE", `the computed revision would have ${located.length} pages, more than ${COMPUTED_PAGES_MAX}`);
  return Promise.all(
    located.map(async ({ page, path, parentId }) => ({
      id: page.id,
      kind: page.kind,
      title: page.title,
      slug: page.slug,
      path,
      parentId,
      ...(page.description ? { description: page.description } : {}),
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.kind === "document" ? { markdown: (await markdownOf(ctx, page)) ?? "" } : {}),
      ...(page.href ? { href: page.href } : {}),
    })),
  );
}

/** The published InputPage tree a script answered, as computed pages (documents, links and groups). */
function scriptPages(input: unknown, seed: string, fail: (why: string) => Error): ComputedPage[] {
  const out: ComputedPage[] = [];
  const walk = (list: unknown, parentId: string | null, parentPath: string, at: string) => {
    if (!Array.isArray(list)) throw fail(`${at} is not a list`);
    const taken = new Set<string>();
    list.forEach((raw, index) => {
      const where = `${at}[${index}]`;
      if (out.length >= COMPUTED_PAGES_MAX) throw fail(`it gave more than ${COMPUTED_PAGES_MAX} pages`);
      if (!isObject(raw) || typeof raw.title !== "string" || raw.title === "") throw fail(`${where} has no title`);
      const kind = raw.type === "link" ? "link" : raw.type === "group" ? "group" : "document";
      let slug = typeof raw.slug === "string" && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(raw.slug) ? raw.slug : slugify(raw.title);
      for (let n = 2; taken.has(slug); n++) slug = `${slugify(raw.title)}-${n}`;
      taken.add(slug);
      const path = kind === "group" ? parentPath : parentPath ? `${parentPath}/${slug}` : slug;
      const id = seededId("pg", seed, `${where}:${slug}`);
      const page: ComputedPage = { id, kind, title: raw.title, slug, path, parentId };
      if (typeof raw.description === "string") page.description = raw.description;
      if (kind === "link") {
        const target = isObject(raw.target) ? raw.target : {};
        const href = typeof target.url === "string" ? target.url : typeof raw.href === "string" ? raw.href : "";
        if (!HTTP_URL.test(href)) throw fail(`${where} is a link without an http(s) URL`);
        page.href = href;
      }
      if (kind === "document") {
        const document = isObject(raw.document) ? raw.document : {};
        if (typeof document.markdown === "string") page.markdown = document.markdown;
        else if (document.document !== undefined) page.document = checkScriptDocument(document.document, (why) => fail(`${where}: ${why}`));
        else page.markdown = "";
      }
      out.push(page);
      if (raw.pages !== undefined && kind !== "link") walk(raw.pages, id, path, `${where}.pages`);
    });
  };
  walk(input ?? [], null, "", "pages");
  return out;
}

function scriptFiles(input: unknown, seed: string, fail: (why: string) => Error): ComputedFile[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) throw fail("files is not a list");
  if (input.length > COMPUTED_FILES_MAX) throw fail(`it gave more than ${COMPUTED_FILES_MAX} files`);
  return input.map((raw, index) => {
    if (!isObject(raw) || typeof raw.name !== "string" || typeof raw.contentType !== "string")
      throw fail(`files[${index}] needs a name and a contentType`);
    if (typeof raw.downloadURL !== "string" || !HTTP_URL.test(raw.downloadURL))
      throw fail(`files[${index}].downloadURL must be an http(s) URL`);
    if (typeof raw.size !== "number" || !(raw.size >= 0)) throw fail(`files[${index}].size must be a number of bytes`);
    return {
      id: typeof raw.id === "string" && raw.id !== "" ? raw.id : seededId("file", seed, `files[${index}]:${raw.name}`),
      name: raw.name,
      contentType: raw.contentType,
      size: raw.size,
      downloadURL: raw.downloadURL,
    };
  });
}

/** The pages, files and reusable contents the source computes. Needs read access to the space. */
export async function computeRevision(
  ctx: CoreContext,
  spaceId: string,
  input: { source: unknown; seed: unknown },
): Promise<ComputedRevision> {
  const space = await requireSpace(ctx, spaceId, "space.read", { allowDeleted: true });
  const { source, seed } = checkRequest(input.source, input.seed);
  const type = source.type as string;
  if (type === "builtin:openapi") {
    const { index, downloadURL } = await openAPISpec(ctx, space, source);
    const pages = placePages(openAPIRevisionPages(index, propsOf(source), downloadURL), seed);
    checkRevisionSize(pages, []);
    return { pages, files: [], reusableContents: [] };
  }
  if (type === "builtin:translation") {
    if (source.props !== undefined && Object.keys(propsOf(source)).length > 0)
      throw badInput("source.props must be empty for a translation revision");
    const content = contentOf(await translationTarget(ctx, space, source));
    const pages = await storedPages(ctx, content);
    checkRevisionSize(pages, content.files);
    return {
      pages,
      files: content.files.map((file) => ({
        id: file.id,
        name: file.name,
        contentType: file.contentType,
        size: file.size,
        downloadURL: downloadUrlOf(ctx, file),
      })),
      reusableContents: (content.reusableContents ?? []).map((entry) => ({ id: entry.id, title: entry.title, documentId: entry.body })),
    };
  }
  if (INTEGRATION_TYPE.test(type)) {
    if (source.props === undefined) throw badInput("source.props is required (an object)");
    const answer = await computeWithScript(ctx, space, source, "revision");
    const fail = (why: string) => new DomainError("BAD_GATEWAY", `The integration's computed revision is invalid: ${why}`);
    const pages = scriptPages(answer.pages, seed, fail);
    const files = scriptFiles(answer.files, seed, fail);
    checkRevisionSize(pages, files);
    return { pages, files, reusableContents: [] };
  }
  throw badInput(
    `source.type: unknown computed source ${quote(type)} (builtin:openapi, builtin:translation or integration:<integration>:<source>)`,
  );
}
