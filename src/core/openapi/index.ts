// OpenAPI specifications of an organization, addressed by slug, and their versions.
//
// A spec's source is a URL or a text. Creating or replacing it answers at once (`pending`) and
// enqueues a job (src/core/jobs) that fetches the entry file and the files its relative `$ref`s
// name (same origin, below the entry's folder), parses JSON or YAML and validates the whole with
// @scalar/openapi-parser, in a worker thread (src/core/openapi/parse-worker.mjs) so that a big
// spec does not stall the server. A version is made only when the content (the hash over every
// file) differs from the last version's; a failure keeps the last version and records
// `lastProcessErrorCode` (FETCH_TIMEOUT, FETCH_ERROR, PARSE_ERROR: the published values) and the
// readable errors. URL sources are fetched again every `refetchIntervalMs` (one waiting job per
// spec, a job key) and on demand (`refreshOpenAPISpec`).
//
// Fetching goes through the website import's `fetchBounded`, so both share the host policy
// (IMPORT_ALLOW_PRIVATE_HOSTS) and its checks; the bounds are this module's.
import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import type { OpenAPISpec, OpenAPISpecVersion, Prisma } from "../../generated/prisma/client.ts";
import { allows, POLICY } from "../auth/policy.ts";
import type { CoreContext, Services } from "../context.ts";
import type { OpenAPILimits } from "./limits.ts";
import { storeBlobs } from "../blobs.ts";
import { DomainError, badInput, conflict, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { fetchBounded, FetchFailure } from "../import/index.ts";
import type { ImportLimits } from "../import/limits.ts";
import { organizationAllows, pageOfOrganization, requireOrganization } from "../organizations/index.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { checkLength, checkNoControlCharacters, checkOneOf } from "../validate.ts";

export const OPENAPI_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const OPENAPI_SLUG_MAX = 100;
export const OPENAPI_URL_MAX = 2048;
export const PROCESSING_STATES = ["pending", "progress", "complete"] as const;
export const PROCESS_ERROR_CODES = ["FETCH_TIMEOUT", "FETCH_ERROR", "PARSE_ERROR"] as const;
export const OPENAPI_VISIBILITIES = ["private", "public"] as const;
export type ProcessErrorCode = (typeof PROCESS_ERROR_CODES)[number];

/** Job kind of processing a spec; one waiting job per spec (key `openapi:<id>`). */
export const PROCESS_JOB = "openapi.process";

// ---------------------------------------------------------------------------------------------
// Input rules
// ---------------------------------------------------------------------------------------------

export type SpecSource = { url: string } | { text: string };

export function checkSlug(slug: string): string {
  checkLength("slug", slug, { min: 1, max: OPENAPI_SLUG_MAX });
  if (!OPENAPI_SLUG_PATTERN.test(slug)) {
    throw badInput(
      `slug must be lowercase letters and digits separated by single hyphens (pattern ${OPENAPI_SLUG_PATTERN.source}; got ${quote(slug)})`,
    );
  }
  return slug;
}

/** `source`: exactly one of `url` (absolute http(s), at most 2048 characters) and `text` (not empty). */
export function checkSource(source: { url?: string | null; text?: string | null } | null | undefined, limits: OpenAPILimits): SpecSource {
  if (!source || typeof source !== "object") throw badInput("source is required: { url } or { text }");
  const hasUrl = source.url != null;
  const hasText = source.text != null;
  if (hasUrl === hasText) throw badInput("source must have exactly one of url and text");
  if (hasUrl) {
    const url = source.url as string;
    if (typeof url !== "string") throw badInput("source.url must be a string");
    checkLength("source.url", url, { min: 1, max: OPENAPI_URL_MAX });
    checkNoControlCharacters("source.url", url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badInput(`source.url must be an absolute http or https URL (got ${quote(url)})`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw badInput(`source.url must be an http or https URL (got ${parsed.protocol})`);
    if (parsed.username || parsed.password) throw badInput("source.url must not carry credentials");
    return { url };
  }
  const text = source.text as string;
  if (typeof text !== "string" || text.trim() === "") throw badInput("source.text must be a non-empty string");
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.maxTextBytes) {
    throw new DomainError("PAYLOAD_TOO_LARGE", `source.text is ${bytes} bytes: at most ${limits.maxTextBytes} bytes`);
  }
  return { text };
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** The spec `slug` of the organization, when the caller may read its specs (404 / 403 otherwise). */
export async function readSpec(ctx: CoreContext, organizationId: string, slug: string): Promise<OpenAPISpec> {
  await requireOrganization(ctx, organizationId, "openapi.read");
  const spec = await ctx.prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug } } });
  if (!spec) throw notFound("OpenAPI specification", slug);
  return spec;
}

/** For `node(id:)`: specs of organizations whose specs the caller may read; null for the others. */
export async function loadVisibleSpecs(ctx: CoreContext, ids: readonly string[]): Promise<(OpenAPISpec | null)[]> {
  const rows = await ctx.prisma.openAPISpec.findMany({ where: { id: { in: [...ids] } } });
  const found = new Map(rows.map((row) => [row.id, row]));
  return Promise.all(
    ids.map(async (id) => {
      const spec = found.get(id);
      if (!spec) return null;
      const membership = await ctx.access.membership(spec.organizationId);
      return membership && allows(POLICY["openapi.read"].least, membership.role ?? "member") ? spec : null;
    }),
  );
}

export async function loadVisibleVersions(ctx: CoreContext, ids: readonly string[]): Promise<(OpenAPISpecVersion | null)[]> {
  const rows = await ctx.prisma.openAPISpecVersion.findMany({ where: { id: { in: [...ids] } } });
  const specs = await loadVisibleSpecs(ctx, [...new Set(rows.map((row) => row.specId))]);
  const visible = new Set(specs.filter((spec) => spec !== null).map((spec) => spec.id));
  const found = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = found.get(id);
    return row && visible.has(row.specId) ? row : null;
  });
}

/** The caller's `permissions` on a spec. */
export const specPermissions = (ctx: CoreContext, spec: OpenAPISpec) =>
  organizationAllows(ctx, spec.organizationId, { view: "openapi.read", edit: "openapi.manage" });

export const listSpecs = (ctx: CoreContext, organizationId: string, page: PageArgs) =>
  pageOfOrganization<OpenAPISpec>(ctx, organizationId, "openapi.read", page, ctx.prisma.openAPISpec);

/** Versions of a spec, newest first. */
export async function listVersions(ctx: CoreContext, spec: OpenAPISpec, page: PageArgs) {
  const where = { specId: spec.id } satisfies Prisma.OpenAPISpecVersionWhereInput;
  return paginate<OpenAPISpecVersion, typeof where>(page, {
    sortField: "createdAt",
    sortKind: "date",
    direction: "desc",
    where,
    rows: ctx.prisma.openAPISpecVersion,
  });
}

/** A version of the spec by id, or `latest` (404 while the spec has none). */
export async function readVersion(ctx: CoreContext, spec: OpenAPISpec, versionId: string): Promise<OpenAPISpecVersion> {
  const id = versionId === "latest" ? spec.lastVersionId : versionId;
  const version = id ? await ctx.prisma.openAPISpecVersion.findFirst({ where: { id, specId: spec.id } }) : null;
  if (!version)
    throw notFound("OpenAPI specification version", versionId === "latest" && !id ? `latest (${spec.slug} has no version yet)` : versionId);
  return version;
}

export interface VersionFile {
  path: string;
  hash: string;
  format: "json" | "yaml";
}

const filesOf = (version: OpenAPISpecVersion) => version.files as unknown as VersionFile[];

/** The texts of a version's files, entry first. */
export async function versionTexts(
  services: Pick<Services, "prisma">,
  version: OpenAPISpecVersion,
): Promise<(VersionFile & { text: string })[]> {
  const files = filesOf(version);
  const blobs = await services.prisma.blob.findMany({ where: { hash: { in: files.map((file) => file.hash) } } });
  const byHash = new Map(blobs.map((blob) => [blob.hash, Buffer.from(blob.data).toString("utf8")]));
  return files.map((file) => ({ ...file, text: byHash.get(file.hash) ?? "" }));
}

/** `{ filesystem, url, urls }`: every file of the version, parsed, by its path. */
export async function versionContent(ctx: CoreContext, spec: OpenAPISpec, version: OpenAPISpecVersion) {
  const { parse } = await import("yaml");
  const files = await versionTexts(ctx, version);
  const filesystem = Object.fromEntries(
    files.map((file) => [file.path, file.format === "json" ? JSON.parse(file.text) : parse(file.text, { maxAliasCount: 1000 })]),
  );
  const source = version.sourceURL ?? versionLocation(ctx, spec, version);
  return { filesystem, url: source, urls: { source, public: spec.visibility === "public" ? source : null } };
}

/** The entry file of the latest version as submitted or fetched. */
export async function latestRawContent(ctx: CoreContext, spec: OpenAPISpec) {
  const version = await readVersion(ctx, spec, "latest");
  const [entry] = await versionTexts(ctx, version);
  return { text: entry!.text, format: entry!.format };
}

export const specLocation = (ctx: Pick<Services, "urls">, spec: OpenAPISpec) =>
  ctx.urls.api(`/orgs/${spec.organizationId}/openapi/${spec.slug}`);
export const specAppUrl = (ctx: Pick<Services, "urls">, spec: OpenAPISpec) =>
  ctx.urls.app(`/o/${spec.organizationId}/openapi/${spec.slug}`);
export const versionLocation = (ctx: Pick<Services, "urls">, spec: OpenAPISpec, version: OpenAPISpecVersion) =>
  `${specLocation(ctx, spec)}/versions/${version.id}`;

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** A unique violation, as Prisma reports it (P2002) or as the driver adapter does inside an interactive transaction. */
function isUniqueViolation(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === "P2002" || /duplicate key value violates unique constraint/.test(message ?? "");
}

/** The source's columns; a text is stored once as a Blob. */
async function sourceData(tx: Prisma.TransactionClient, source: SpecSource) {
  if ("url" in source) return { sourceURL: source.url, sourceTextHash: null };
  const data = Buffer.from(source.text);
  const hash = sha256(data);
  await storeBlobs(tx, "openapiSpec", [{ hash, data, size: data.length }]);
  return { sourceURL: null, sourceTextHash: hash };
}

const enqueueProcessing = (ctx: CoreContext, specId: string, tx: Prisma.TransactionClient, runAt?: Date) =>
  ctx.jobs.enqueue(PROCESS_JOB, { specId }, { key: `openapi:${specId}`, runAt }, tx);

/** Creates the spec (409 when the slug is taken in the organization) and enqueues its processing. */
export async function createSpec(
  ctx: CoreContext,
  organizationId: string,
  input: { slug: string; source: Parameters<typeof checkSource>[0] },
) {
  await requireOrganization(ctx, organizationId, "openapi.manage");
  const slug = checkSlug(input.slug);
  const source = checkSource(input.source, ctx.openapiLimits);
  try {
    const created = await ctx.prisma.$transaction(async (tx) => {
      const now = ctx.clock.now();
      const spec = await tx.openAPISpec.create({
        data: { id: newId("OpenAPISpec"), organizationId, slug, ...(await sourceData(tx, source)), createdAt: now, updatedAt: now },
      });
      await enqueueProcessing(ctx, spec.id, tx);
      return spec;
    });
    ctx.jobs.wake();
    return created;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`slug: an OpenAPI specification ${quote(slug)} already exists in this organization`);
    throw error;
  }
}

/** PUT: replaces the source of the spec `slug` (processing it again), or creates it. */
export async function putSpec(
  ctx: CoreContext,
  organizationId: string,
  slug: string,
  input: { source: Parameters<typeof checkSource>[0] },
) {
  await requireOrganization(ctx, organizationId, "openapi.manage");
  checkSlug(slug);
  const source = checkSource(input.source, ctx.openapiLimits);
  const existing = await ctx.prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug } } });
  if (!existing) {
    try {
      return { spec: await createSpec(ctx, organizationId, { slug, source: input.source }), created: true };
    } catch (error) {
      // Created by a concurrent PUT meanwhile: replace its source like any other.
      if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
    }
  }
  const spec = await ctx.prisma.$transaction(async (tx) => {
    const updated = await tx.openAPISpec.update({
      where: { organizationId_slug: { organizationId, slug } },
      data: { ...(await sourceData(tx, source)), generation: { increment: 1 }, processingState: "pending", updatedAt: ctx.clock.now() },
    });
    await enqueueProcessing(ctx, updated.id, tx);
    return updated;
  });
  ctx.jobs.wake();
  return { spec, created: false };
}

export async function updateSpec(ctx: CoreContext, organizationId: string, slug: string, patch: { visibility?: string | null }) {
  await requireOrganization(ctx, organizationId, "openapi.manage");
  const spec = await readSpec(ctx, organizationId, slug);
  if (patch.visibility == null) throw badInput("visibility is required");
  const visibility = checkOneOf("visibility", patch.visibility, OPENAPI_VISIBILITIES);
  return ctx.prisma.openAPISpec.update({ where: { id: spec.id }, data: { visibility, updatedAt: ctx.clock.now() } });
}

/** Processes the spec again now (a URL source is fetched again). */
export async function refreshSpec(ctx: CoreContext, organizationId: string, slug: string) {
  await requireOrganization(ctx, organizationId, "openapi.manage");
  const spec = await readSpec(ctx, organizationId, slug);
  const updated = await ctx.prisma.$transaction(async (tx) => {
    const row = await tx.openAPISpec.update({ where: { id: spec.id }, data: { processingState: "pending", updatedAt: ctx.clock.now() } });
    await enqueueProcessing(ctx, spec.id, tx);
    return row;
  });
  ctx.jobs.wake();
  return updated;
}

/** Deletes the spec and its versions; a waiting job finds nothing and ends. */
export async function deleteSpec(ctx: CoreContext, organizationId: string, slug: string) {
  await requireOrganization(ctx, organizationId, "openapi.manage");
  const spec = await readSpec(ctx, organizationId, slug);
  await ctx.prisma.openAPISpec.delete({ where: { id: spec.id } });
}

// ---------------------------------------------------------------------------------------------
// Processing (a job)
// ---------------------------------------------------------------------------------------------

class ProcessFailure extends Error {
  constructor(
    readonly code: ProcessErrorCode,
    readonly errors: { code?: string; message: string }[],
  ) {
    super(errors[0]?.message ?? code);
  }
}

interface LoadedFile {
  path: string;
  text: string;
  format: "json" | "yaml";
}

const formatOf = (text: string): "json" | "yaml" => (/^\s*[[{]/.test(text) ? "json" : "yaml");

/** A worker thread that parses and validates one spec's files; terminated after the run. */
class ParseSession {
  private readonly worker: Worker;
  private pending: { resolve: (value: any) => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(heapMb: number) {
    this.worker = new Worker(new URL("./parse-worker.mjs", import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    this.worker.on("message", (message) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(message);
    });
    const fail = (error: Error) => {
      this.failure = error;
      this.pending?.reject(error);
      this.pending = undefined;
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the parser stopped (exit code ${code})`)));
  }

  call(message: unknown, signal: AbortSignal): Promise<any> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new ProcessFailure("FETCH_TIMEOUT", [{ message: "processing took too long" }]));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.worker.postMessage(message);
    });
  }

  close() {
    this.worker.removeAllListeners("exit");
    void this.worker.terminate();
  }
}

function fetchFailure(url: string, error: unknown): ProcessFailure {
  if (error instanceof FetchFailure) {
    // The published codes tell a timeout apart (FETCH_TIMEOUT); other network failures share one message.
    if (error.timedOut) return new ProcessFailure("FETCH_TIMEOUT", [{ code: "timeout", message: `${url} timed out: no answer in time` }]);
    return new ProcessFailure(error.kind === "timeout" ? "FETCH_TIMEOUT" : "FETCH_ERROR", [{ code: error.kind, message: error.message }]);
  }
  if (error instanceof ProcessFailure) return error;
  return new ProcessFailure("FETCH_ERROR", [{ message: `${url}: ${(error as Error).message}` }]);
}

/**
 * Fetches (or takes the text of) the entry file and every file its relative `$ref`s name, parses
 * each in the worker and validates the whole. Returns the files, entry first.
 */
async function loadAndValidate(
  source: SpecSource,
  signal: AbortSignal,
  hostPolicy: ImportLimits,
  limits: OpenAPILimits,
): Promise<LoadedFile[]> {
  const session = new ParseSession(limits.workerHeapMb);
  try {
    const files: LoadedFile[] = [];
    const parseFile = async (path: string, text: string) => {
      const answer = await session.call({ type: "parse", path, text }, signal);
      if (answer.error)
        throw new ProcessFailure("PARSE_ERROR", [
          { code: "PARSE", message: files.length === 0 ? answer.error : `${path}: ${answer.error}` },
        ]);
      files.push({ path, text, format: formatOf(text) });
      return answer.refs as string[];
    };

    if ("text" in source) {
      const refs = await parseFile(formatOf(source.text) === "json" ? "openapi.json" : "openapi.yaml", source.text);
      if (refs.length > 0) {
        throw new ProcessFailure("PARSE_ERROR", [
          { code: "EXTERNAL_REF", message: `$ref ${refs[0]}: a text source cannot refer to other files; publish it from a URL` },
        ]);
      }
    } else {
      const fetchLimits = { ...hostPolicy, requestTimeoutMs: limits.requestTimeoutMs, maxRedirects: limits.maxRedirects };
      const entry = new URL(source.url);
      entry.hash = "";
      const base = new URL(".", entry);
      const fetchText = async (url: URL) => {
        try {
          const fetched = await fetchBounded(url, fetchLimits, limits.maxFileBytes, signal, () => true);
          return Buffer.from(fetched.bytes).toString("utf8");
        } catch (error) {
          throw fetchFailure(
            url.toString(),
            signal.aborted ? new FetchFailure("timeout", `${url} timed out: processing took more than ${limits.totalTimeoutMs} ms`) : error,
          );
        }
      };
      const entryPath = decodeURIComponent(entry.pathname.slice(base.pathname.length)) || "openapi.yaml";
      const queue: { url: URL; path: string; refs: string[] }[] = [];
      const seen = new Set([entry.href]);
      let total = 0;
      const add = async (url: URL, path: string) => {
        const text = await fetchText(url);
        total += Buffer.byteLength(text);
        if (total > limits.maxTotalBytes)
          throw new ProcessFailure("FETCH_ERROR", [
            { code: "too-large", message: `the spec's files are over ${limits.maxTotalBytes} bytes in all` },
          ]);
        queue.push({ url, path, refs: await parseFile(path, text) });
      };
      await add(entry, entryPath);
      while (queue.length > 0) {
        const file = queue.shift()!;
        for (const ref of file.refs) {
          let target: URL;
          try {
            target = new URL(ref, file.url);
          } catch {
            throw new ProcessFailure("PARSE_ERROR", [
              { code: "EXTERNAL_REF", message: `${file.path}: $ref ${ref} is not a valid reference` },
            ]);
          }
          target.hash = "";
          if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
            throw new ProcessFailure("PARSE_ERROR", [
              { code: "EXTERNAL_REF", message: `${file.path}: $ref ${ref} is outside the spec's base URL ${base}` },
            ]);
          }
          if (seen.has(target.href)) continue;
          seen.add(target.href);
          if (seen.size > limits.maxFiles)
            throw new ProcessFailure("FETCH_ERROR", [
              { code: "too-many-files", message: `the spec refers to more than ${limits.maxFiles} files` },
            ]);
          await add(target, decodeURIComponent(target.pathname.slice(base.pathname.length)));
        }
      }
    }

    const result = await session.call({ type: "validate" }, signal);
    if (result.error) throw new ProcessFailure("PARSE_ERROR", [{ message: result.error }]);
    if (!result.valid)
      throw new ProcessFailure("PARSE_ERROR", result.errors.length > 0 ? result.errors : [{ message: "not a valid OpenAPI document" }]);
    return files;
  } catch (error) {
    if (error instanceof ProcessFailure) throw error;
    throw new ProcessFailure(signal.aborted ? "FETCH_TIMEOUT" : "PARSE_ERROR", [{ message: (error as Error).message }]);
  } finally {
    session.close();
  }
}

const contentHash = (files: LoadedFile[]) => sha256(files.map((file) => `${file.path}\0${sha256(file.text)}\n`).join(""));

export interface OpenAPISettings {
  /** URL sources are fetched again this long after each processing. */
  refetchIntervalMs: number;
}

/** Registers the processing job; the worker runs it. */
export function registerOpenAPIJobs(services: Services, settings: OpenAPISettings): void {
  services.jobs.register(PROCESS_JOB, async (payload: { specId: string }, { signal, stillClaimed }) =>
    processSpec(services, settings, payload.specId, signal, stillClaimed),
  );
}

/**
 * One run: `progress`, then fetch, parse and validate, then in one transaction a version (only
 * if the content changed) and the outcome, unless the source changed meanwhile (the newer job
 * handles that). URL sources get their next fetch scheduled.
 */
export async function processSpec(
  services: Services,
  settings: OpenAPISettings,
  specId: string,
  jobSignal: AbortSignal,
  stillClaimed: (tx: Prisma.TransactionClient) => Promise<boolean>,
): Promise<void> {
  const { prisma, clock } = services;
  const spec = await prisma.openAPISpec.findUnique({ where: { id: specId } });
  if (!spec) return;
  const { generation } = spec;
  await prisma.openAPISpec.updateMany({ where: { id: specId, generation }, data: { processingState: "progress" } });

  let source: SpecSource;
  if (spec.sourceURL) source = { url: spec.sourceURL };
  else {
    const blob = await prisma.blob.findUniqueOrThrow({ where: { hash: spec.sourceTextHash! } });
    source = { text: Buffer.from(blob.data).toString("utf8") };
  }
  const signal = AbortSignal.any([jobSignal, AbortSignal.timeout(services.openapiLimits.totalTimeoutMs)]);
  let outcome: { files: LoadedFile[] } | { failure: ProcessFailure };
  try {
    outcome = { files: await loadAndValidate(source, signal, services.importLimits, services.openapiLimits) };
  } catch (error) {
    // Shutdown: let the queue hand the job to the next start rather than record a failure.
    if (jobSignal.aborted) throw error;
    outcome = {
      failure: error instanceof ProcessFailure ? error : new ProcessFailure("PARSE_ERROR", [{ message: (error as Error).message }]),
    };
  }

  await prisma.$transaction(async (tx) => {
    // Lock the spec so that concurrent runs (a new source while this one ran) write in turn.
    await tx.$queryRawUnsafe(`SELECT 1 FROM "OpenAPISpec" WHERE "id" = $1 FOR UPDATE`, specId);
    const current = await tx.openAPISpec.findUnique({ where: { id: specId } });
    // A newer source has its own job; a run whose claim passed to another worker (this instance
    // stalled past its lease) leaves the result to that one.
    if (!current || current.generation !== generation || !(await stillClaimed(tx))) return;
    const now = clock.now();
    if ("failure" in outcome) {
      const { code, errors } = outcome.failure;
      await tx.openAPISpec.update({
        where: { id: specId },
        data: {
          processingState: "complete",
          lastProcessedAt: now,
          lastProcessErrorCode: code,
          lastProcessErrors: { kept: errors.slice(0, services.openapiLimits.maxErrorsKept), count: errors.length },
        },
      });
    } else {
      const files = outcome.files;
      const hash = contentHash(files);
      const last = current.lastVersionId ? await tx.openAPISpecVersion.findUnique({ where: { id: current.lastVersionId } }) : null;
      let lastVersionId = current.lastVersionId;
      if (last?.hash !== hash) {
        const blobs = files.map((file) => {
          const data = Buffer.from(file.text);
          return { hash: sha256(data), data, size: data.length };
        });
        await storeBlobs(tx, "openapiSpec", blobs);
        lastVersionId = newId("OpenAPISpecVersion");
        await tx.openAPISpecVersion.create({
          data: {
            id: lastVersionId,
            specId,
            hash,
            files: files.map((file, index) => ({ path: file.path, hash: blobs[index]!.hash, format: file.format })),
            sourceURL: current.sourceURL,
            createdAt: now,
          },
        });
      }
      await tx.openAPISpec.update({
        where: { id: specId },
        data: { processingState: "complete", lastProcessedAt: now, lastProcessErrorCode: null, lastProcessErrors: [], lastVersionId },
      });
    }
    if (current.sourceURL) {
      await services.jobs.enqueue(
        PROCESS_JOB,
        { specId },
        { key: `openapi:${specId}`, runAt: new Date(now.getTime() + settings.refetchIntervalMs) },
        tx,
      );
    }
  });
}

/** `lastProcessedErrors` and their count, as stored. */
export function processErrors(spec: OpenAPISpec): { errors: { code?: string; message: string }[]; count: number } {
  const stored = spec.lastProcessErrors as { kept?: { code?: string; message: string }[]; count?: number } | unknown[];
  if (Array.isArray(stored)) return { errors: [], count: 0 };
  return { errors: stored.kept ?? [], count: stored.count ?? 0 };
}
