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
import { enumName, inputDescription, payloadDescription, toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";

function enumOf<T extends string>(name: string, description: string, values: readonly T[], spell: (value: T) => string = enumName) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [spell(value), { value }])) as Record<string, { value: T }>,
  });
}

const ProcessingState = enumOf(
  "OpenAPISpecProcessingState",
  "pending: waiting to be processed; progress: being processed; complete: processed (see lastProcessErrorCode)",
  PROCESSING_STATES,
);
const ProcessErrorCode = enumOf("OpenAPISpecProcessingErrorCode", "Why the last processing failed", PROCESS_ERROR_CODES, (value) => value);
const Visibility = enumOf(
  "OpenAPISpecVisibility",
  "private: members only; public: its content URL may be shown publicly",
  OPENAPI_VISIBILITIES,
);

const OpenAPIError = builder.simpleObject("OpenAPIError", {
  description: "A problem found while fetching or parsing an OpenAPI specification",
  fields: (t) => ({
    code: t.string({ nullable: true, description: "Machine-readable kind of the problem, when the parser gives one" }),
    message: t.string({ description: "What is wrong, for a person" }),
  }),
});

const SpecPermissions = builder.simpleObject("OpenAPISpecPermissions", {
  description: "What the caller may do with an OpenAPI specification",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the specification and its versions" }),
    edit: t.boolean({ description: "Whether the caller may change, refresh or delete the specification" }),
  }),
});

export const OpenAPISpecVersionRef = builder.loadableNode("OpenAPISpecVersion", {
  description: "One distinct content of an OpenAPI specification (made only when the content changed)",
  id: { resolve: (version: OpenAPISpecVersion) => version.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleVersions(core, ids);
    return rows.map((row, index) => row ?? notFound("OpenAPI specification version", ids[index]!));
  },
  fields: (t) => ({
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When this content was first processed" }),
    hash: t.exposeString("hash", { description: "SHA-256 over the files' paths and contents" }),
    url: t.string({
      description: "Where the specification is: its source URL, or (text sources) this version in the API",
      resolve: async (version, _args, { core }) =>
        version.sourceURL ?? versionLocation(core, (await core.loaders.openAPISpec.load(version.specId))!, version),
    }),
    files: t.stringList({
      description: "Paths of the version's files, the entry first",
      resolve: (version) => (version.files as { path: string }[]).map((file) => file.path),
    }),
    content: t.field({
      type: "JSON",
      description: "{ filesystem: { <path>: <parsed file> }, url, urls: { source, public } }",
      resolve: async (version, _args, { core }) => versionContent(core, (await core.loaders.openAPISpec.load(version.specId))!, version),
    }),
    urls: t.field({
      description: "Addresses of the version",
      type: builder.simpleObject("OpenAPISpecVersionUrls", {
        description: "Addresses of an OpenAPI specification version",
        fields: (u) => ({ location: u.string({ description: "URL of the version in the REST API" }) }),
      }),
      resolve: async (version, _args, { core }) => ({
        location: versionLocation(core, (await core.loaders.openAPISpec.load(version.specId))!, version),
      }),
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
    slug: t.exposeString("slug", { description: "Name of the specification, unique in its organization, used in its URLs" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the specification was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When its source or settings last changed" }),
    sourceURL: t.exposeString("sourceURL", { nullable: true, description: "The URL it is fetched from; null for a text source" }),
    processingState: t.field({
      description: "Where the latest processing (fetch and parse) is",
      type: ProcessingState,
      resolve: (spec) => processingStateOf(spec.processingState),
    }),
    visibility: t.field({
      description: "Who may be shown the specification's content URL",
      type: Visibility,
      resolve: (spec) => openapiVisibilityOf(spec.visibility),
    }),
    lastVersion: t.field({
      description: "The newest version; null until a processing has succeeded",
      type: OpenAPISpecVersionRef,
      nullable: true,
      resolve: (spec: OpenAPISpec) => spec.lastVersionId,
    }),
    lastProcessedAt: t.expose("lastProcessedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the last processing ended; null if none has",
    }),
    lastProcessErrorCode: t.field({
      description: "Why the last processing failed; null when it succeeded or has not run",
      type: ProcessErrorCode,
      nullable: true,
      resolve: (spec) => processErrorCodeOf(spec.lastProcessErrorCode),
    }),
    lastProcessedErrors: t.field({
      type: [OpenAPIError],
      description: "The errors of the last run (at most 20)",
      resolve: (spec) => processErrors(spec).errors.map((error) => ({ code: error.code ?? null, message: error.message })),
    }),
    lastProcessedErrorCount: t.int({
      description: "How many errors the last run found (lastProcessedErrors keeps only the first ones)",
      resolve: (spec) => processErrors(spec).count,
    }),
    permissions: t.field({
      description: "What the caller may do with the specification",
      type: SpecPermissions,
      resolve: (spec, _args, { core }) => specPermissions(core, spec),
    }),
    organization: t.field({
      description: "The organization the specification belongs to",
      type: OrganizationRef,
      resolve: (spec) => spec.organizationId,
    }),
    urls: t.field({
      description: "Addresses of the specification",
      type: builder.simpleObject("OpenAPISpecUrls", {
        description: "Addresses of an OpenAPI specification",
        fields: (u) => ({
          location: u.string({ description: "URL of the specification in the REST API" }),
          app: u.string({ description: "URL of the specification in the app" }),
        }),
      }),
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
      type: builder.simpleObject("OpenAPISpecRawContent", {
        description: "The entry file of an OpenAPI specification, as text",
        fields: (r) => ({
          text: r.string({ description: "The file's content, unchanged" }),
          format: r.string({ description: "json or yaml" }),
        }),
      }),
      description: "The entry file of the latest version as submitted or fetched",
      resolve: (spec, _args, { core }) => latestRawContent(core, spec),
    }),
  }),
});

builder.objectFields(OpenAPISpecVersionRef, (t) => ({
  spec: t.field({ description: "The specification this is a version of", type: OpenAPISpecRef, resolve: (version) => version.specId }),
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
    description: "An OpenAPI specification of the organization by its slug; not found when there is none",
    type: OpenAPISpecRef,
    args: { slug: t.arg.string({ required: true, description: "The specification's slug" }) },
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

const SpecPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ spec: t.field({ type: OpenAPISpecRef, description: "The specification, as it is now" }) }),
  });
const organizationField = "The organization the specification belongs to";
const slugField = "The specification's slug (lowercase letters and digits separated by single hyphens)";
const SlugInput = (name: string) =>
  builder.inputType(name, {
    description: inputDescription(name),
    fields: (f) => ({
      organization: f.id({ required: true, description: organizationField }),
      slug: f.string({ required: true, description: slugField }),
    }),
  });
const SourcedInput = (name: string) =>
  builder.inputType(name, {
    description: inputDescription(name),
    fields: (f) => ({
      organization: f.id({ required: true, description: organizationField }),
      slug: f.string({ required: true, description: slugField }),
      source: f.field({ type: SourceInput, required: true, description: "Where the specification's content comes from" }),
    }),
  });

builder.mutationFields((t) => ({
  createOpenAPISpec: t.field({
    type: SpecPayload("CreateOpenAPISpecPayload"),
    description: "Creates a specification (409 when the slug is taken) and processes it in the background",
    args: { input: t.arg({ required: true, type: SourcedInput("CreateOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => ({ spec: await createSpec(core, input.organization, input) }),
  }),
  putOpenAPISpec: t.field({
    type: builder.simpleObject("PutOpenAPISpecPayload", {
      description: payloadDescription("PutOpenAPISpecPayload"),
      fields: (p) => ({
        spec: p.field({ type: OpenAPISpecRef, description: "The specification, as it is now" }),
        created: p.boolean({ description: "true when the specification did not exist and was created" }),
      }),
    }),
    description: "Replaces the source of the specification (processing it again), or creates it",
    args: { input: t.arg({ required: true, type: SourcedInput("PutOpenAPISpecInput") }) },
    resolve: (_root, { input }, { core }) => putSpec(core, input.organization, input.slug, input),
  }),
  updateOpenAPISpec: t.field({
    type: SpecPayload("UpdateOpenAPISpecPayload"),
    description: "Changes the specification's settings (its visibility)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateOpenAPISpecInput", {
          description: inputDescription("UpdateOpenAPISpecInput"),
          fields: (f) => ({
            organization: f.id({ required: true, description: organizationField }),
            slug: f.string({ required: true, description: slugField }),
            visibility: f.field({ type: Visibility, description: "The new visibility (required)" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ spec: await updateSpec(core, input.organization, input.slug, input) }),
  }),
  refreshOpenAPISpec: t.field({
    type: SpecPayload("RefreshOpenAPISpecPayload"),
    description: "Processes the specification again now (a URL source is fetched again)",
    args: { input: t.arg({ required: true, type: SlugInput("RefreshOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => ({ spec: await refreshSpec(core, input.organization, input.slug) }),
  }),
  deleteOpenAPISpec: t.field({
    type: builder.simpleObject("DeleteOpenAPISpecPayload", {
      description: payloadDescription("DeleteOpenAPISpecPayload"),
      fields: (p) => ({ deletedSlug: p.string({ description: "Slug of the deleted specification" }) }),
    }),
    description: "Deletes the specification and all its versions",
    args: { input: t.arg({ required: true, type: SlugInput("DeleteOpenAPISpecInput") }) },
    resolve: async (_root, { input }, { core }) => {
      await deleteSpec(core, input.organization, input.slug);
      return { deletedSlug: input.slug };
    },
  }),
}));
