// OpenAPI specifications of an organization and their versions: types, queries and mutations.
import { openapiVisibilityOf, processErrorCodeOf, processingStateOf } from "../core/storage-types.ts";
import type { OpenAPISpec, OpenAPISpecVersion } from "../generated/prisma/client.ts";
import { notFound } from "../core/errors.ts";
import {
  createSpec,
  deleteSpec,
  latestRawContent,
  listSpecs,
  listVersions,
  loadVisibleSpecs,
  loadVisibleVersions,
  OPENAPI_VISIBILITIES,
  PROCESS_ERROR_CODES,
  PROCESSING_STATES,
  processErrors,
  putSpec,
  readSpec,
  readVersion,
  refreshSpec,
  specAppUrl,
  specLocation,
  specPermissions,
  updateSpec,
  versionContent,
  versionLocation,
} from "../core/openapi/index.ts";
import { builder } from "./builder.ts";
import { enumName, toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";

function enumOf<T extends string>(name: string, description: string, values: readonly T[], spell: (value: T) => string = enumName) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [spell(value), { value }])) as Record<string, { value: T }>,
  });
}

const ProcessingState = enumOf("OpenAPISpecProcessingState", "pending: waiting to be processed; progress: being processed; complete: processed (see lastProcessErrorCode)", PROCESSING_STATES);
const ProcessErrorCode = enumOf("OpenAPISpecProcessingErrorCode", "Why the last processing failed", PROCESS_ERROR_CODES, (value) => value);
const Visibility = enumOf("OpenAPISpecVisibility", "private: members only; public: its content URL may be shown publicly", OPENAPI_VISIBILITIES);

const OpenAPIError = builder.simpleObject("OpenAPIError", {
  fields: (t) => ({ code: t.string({ nullable: true }), message: t.string() }),
});

const SpecPermissions = builder.simpleObject("OpenAPISpecPermissions", {
  fields: (t) => ({ view: t.boolean(), edit: t.boolean() }),
});

export const OpenAPISpecVersionRef = builder.loadableNode("OpenAPISpecVersion", {
  description: "One distinct content of an OpenAPI specification (made only when the content changed)",
  id: { resolve: (version: OpenAPISpecVersion) => version.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleVersions(core, ids);
    return rows.map((row, index) => row ?? notFound("OpenAPI specification version", ids[index]!));
  },
  fields: (t) => ({
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    hash: t.exposeString("hash", { description: "SHA-256 over the files' paths and contents" }),
    url: t.string({
      description: "Where the specification is: its source URL, or (text sources) this version in the API",
      resolve: async (version, _args, { core }) => version.sourceURL ?? versionLocation(core, (await core.loaders.openAPISpec.load(version.specId))!, version),
    }),
    files: t.stringList({ description: "Paths of the version's files, the entry first", resolve: (version) => (version.files as { path: string }[]).map((file) => file.path) }),
    content: t.field({
      type: "JSON",
      description: "{ filesystem: { <path>: <parsed file> }, url, urls: { source, public } }",
      resolve: async (version, _args, { core }) => versionContent(core, (await core.loaders.openAPISpec.load(version.specId))!, version),
    }),
    urls: t.field({
      type: builder.simpleObject("OpenAPISpecVersionUrls", { fields: (u) => ({ location: u.string() }) }),
      resolve: async (version, _args, { core }) => ({ location: versionLocation(core, (await core.loaders.openAPISpec.load(version.specId))!, version) }),
    }),
  }),
});

export const OpenAPISpecRef = builder.loadableNode("OpenAPISpec", {
  description: "An OpenAPI specification of the organization, addressed by its slug",
  id: { resolve: (spec: OpenAPISpec) => spec.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleSpecs(core, ids);
    return rows.map((row, index) => row ?? notFound("OpenAPI specification", ids[index]!));
  },
  fields: (t) => ({
    slug: t.exposeString("slug"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    sourceURL: t.exposeString("sourceURL", { nullable: true, description: "The URL it is fetched from; null for a text source" }),
    processingState: t.field({ type: ProcessingState, resolve: (spec) => processingStateOf(spec.processingState) }),
    visibility: t.field({ type: Visibility, resolve: (spec) => openapiVisibilityOf(spec.visibility) }),
    lastVersion: t.field({ type: OpenAPISpecVersionRef, nullable: true, resolve: (spec: OpenAPISpec) => spec.lastVersionId }),
    lastProcessedAt: t.expose("lastProcessedAt", { type: "DateTime", nullable: true }),
    lastProcessErrorCode: t.field({ type: ProcessErrorCode, nullable: true, resolve: (spec) => processErrorCodeOf(spec.lastProcessErrorCode) }),
    lastProcessedErrors: t.field({ type: [OpenAPIError], description: "The errors of the last run (at most 20)", resolve: (spec) => processErrors(spec).errors.map((error) => ({ code: error.code ?? null, message: error.message })) }),
    lastProcessedErrorCount: t.int({ resolve: (spec) => processErrors(spec).count }),
    permissions: t.field({ type: SpecPermissions, resolve: (spec, _args, { core }) => specPermissions(core, spec) }),
    organization: t.field({ type: OrganizationRef, resolve: (spec) => spec.organizationId }),
    urls: t.field({
      type: builder.simpleObject("OpenAPISpecUrls", { fields: (u) => ({ location: u.string(), app: u.string() }) }),
      resolve: (spec, _args, { core }) => ({ location: specLocation(core, spec), app: specAppUrl(core, spec) }),
    }),
    versions: t.connection(
      {
        type: OpenAPISpecVersionRef,
        description: "Versions, newest first",
        resolve: async (spec, args, { core }) => toConnection(await listVersions(core, spec, args)),
      },
      builder.connectionObject({ type: OpenAPISpecVersionRef, name: "OpenAPISpecVersionConnection" }, { name: "OpenAPISpecVersionEdge" }),
    ),
    version: t.field({
      type: OpenAPISpecVersionRef,
      description: "A version by id, or `latest`",
      args: { id: t.arg.id({ required: true }) },
      resolve: (spec, { id }, { core }) => readVersion(core, spec, id),
    }),
    rawContent: t.field({
      type: builder.simpleObject("OpenAPISpecRawContent", { fields: (r) => ({ text: r.string(), format: r.string({ description: "json or yaml" }) }) }),
      description: "The entry file of the latest version as submitted or fetched",
      resolve: (spec, _args, { core }) => latestRawContent(core, spec),
    }),
  }),
});

builder.objectFields(OpenAPISpecVersionRef, (t) => ({
  spec: t.field({ type: OpenAPISpecRef, resolve: (version) => version.specId }),
}));

builder.objectFields(OrganizationRef, (t) => ({
  openAPISpecs: t.connection(
    {
      type: OpenAPISpecRef,
      description: "The organization's OpenAPI specifications, oldest first",
      resolve: async (o, args, { core }) => toConnection(await listSpecs(core, o.id, args)),
    },
    builder.connectionObject({ type: OpenAPISpecRef, name: "OpenAPISpecConnection" }, { name: "OpenAPISpecEdge" }),
  ),
  openAPISpec: t.field({
    type: OpenAPISpecRef,
    args: { slug: t.arg.string({ required: true }) },
    resolve: (o, { slug }, { core }) => readSpec(core, o.id, slug),
  }),
}));

const SourceInput = builder.inputType("OpenAPISpecSourceInput", {
  description: "Exactly one of url and text",
  fields: (f) => ({
    url: f.string({ description: "Absolute http(s) URL, at most 2048 characters; files it $refs relatively are fetched too" }),
    text: f.string({ description: "The specification as JSON or YAML text (at most 1 MiB)" }),
  }),
});

const SpecPayload = (name: string) => builder.simpleObject(name, { fields: (t) => ({ spec: t.field({ type: OpenAPISpecRef }) }) });
const SlugInput = (name: string) =>
  builder.inputType(name, { fields: (f) => ({ organization: f.id({ required: true }), slug: f.string({ required: true }) }) });
const SourcedInput = (name: string) =>
  builder.inputType(name, {
    fields: (f) => ({ organization: f.id({ required: true }), slug: f.string({ required: true }), source: f.field({ type: SourceInput, required: true }) }),
  });

builder.mutationFields((t) => ({
  createOpenAPISpec: t.field({
    type: SpecPayload("CreateOpenAPISpecPayload"),
    description: "Creates a specification (409 when the slug is taken) and processes it in the background",
    args: { input: t.arg({ required: true, type: SourcedInput("CreateOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => ({ spec: await createSpec(core, input.organization, input) }),
  }),
  putOpenAPISpec: t.field({
    type: builder.simpleObject("PutOpenAPISpecPayload", { fields: (p) => ({ spec: p.field({ type: OpenAPISpecRef }), created: p.boolean() }) }),
    description: "Replaces the source of the specification (processing it again), or creates it",
    args: { input: t.arg({ required: true, type: SourcedInput("PutOpenAPISpecInput") }) },
    resolve: (_root, { input }, { core }) => putSpec(core, input.organization, input.slug, input),
  }),
  updateOpenAPISpec: t.field({
    type: SpecPayload("UpdateOpenAPISpecPayload"),
    args: { input: t.arg({ required: true, type: builder.inputType("UpdateOpenAPISpecInput", {
            fields: (f) => ({ organization: f.id({ required: true }), slug: f.string({ required: true }), visibility: f.field({ type: Visibility }) }),
          }) }) },
    resolve: async (_root, { input }, { core }) => ({ spec: await updateSpec(core, input.organization, input.slug, input) }),
  }),
  refreshOpenAPISpec: t.field({
    type: SpecPayload("RefreshOpenAPISpecPayload"),
    description: "Processes the specification again now (a URL source is fetched again)",
    args: { input: t.arg({ required: true, type: SlugInput("RefreshOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => ({ spec: await refreshSpec(core, input.organization, input.slug) }),
  }),
  deleteOpenAPISpec: t.field({
    type: builder.simpleObject("DeleteOpenAPISpecPayload", { fields: (p) => ({ deletedSlug: p.string() }) }),
    args: { input: t.arg({ required: true, type: SlugInput("DeleteOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => {
      await deleteSpec(core, input.organization, input.slug);
      return { deletedSlug: input.slug };
    },
  }),
}));
