// Import of content from elsewhere (a website) into a space, as one new revision. The rules
// (crawl bounds, hierarchy, errors) are in src/core/import.
import { BUILT_IMPORT_SOURCES, IMPORT_SOURCES, IMPORT_URL_MAX, importContent } from "../core/import/index.ts";
import type { ImportedPageEntry, ImportProgress } from "../core/import/progress.ts";
import {
  cancelImportRun,
  IMPORT_RUN_FILTERS,
  IMPORT_RUN_STATUSES,
  listImportRuns,
  pagesOf,
  progressOf,
  readImportRun,
  startImportRun,
} from "../core/import/runs.ts";
import type { ImportRun } from "../generated/prisma/client.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";
import { builder } from "./builder.ts";
import { targetFields } from "./content-editing.ts";
import { RevisionRef } from "./content.ts";
import { SpaceRef } from "./spaces.ts";

builder.mutationFields((t) => ({
  importContent: t.field({
    type: builder.simpleObject("ImportContentPayload", {
      description: "Result of the importContent mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: "The new revision (the new head of the space, or of the change request)" }),
        importedResources: p.int({ description: "Pages and files imported" }),
        totalResources: p.int({ description: "Resources found, including those skipped (bounds, errors)" }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description:
      "Imports a website (the page at `url` and the same-origin pages it links to, bounded) into the space as one new revision. " +
      "An unreachable URL (400), a timeout (408), a root page over the size bound (413) or not HTML (415) makes no revision.",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("ImportContentInput", {
          description: "Input of the importContent mutation",
          fields: (f) => ({
            ...targetFields(f),
            parent: f.id({ description: "Import below this page: the site's top pages become its children" }),
            url: f.string({ required: true, description: `Absolute http(s) URL, at most ${IMPORT_URL_MAX} characters` }),
            source: f.string({
              required: true,
              description: `One of ${IMPORT_SOURCES.join(", ")} (the published API's ContentImportSource); only ${BUILT_IMPORT_SOURCES.join(", ")} is supported yet`,
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const { revision, importedResources, totalResources } = await importContent(core, input.space, {
        url: input.url,
        source: input.source,
        changeRequest: input.changeRequest,
        parent: input.parent,
      });
      return { revision, importedResources, totalResources, space: input.space };
    },
  }),
}));

const ImportProgressRef = builder.objectRef<ImportProgress>("ImportProgress").implement({
  description: "An import under way, as far as it got (imports run by this server process only)",
  fields: (t) => ({
    url: t.exposeString("url", { description: "The URL the import started from" }),
    changeRequest: t.exposeID("changeRequest", {
      nullable: true,
      description: "The change request it imports into; null: the space's own content",
    }),
    startedAt: t.expose("startedAt", { type: "DateTime", description: "When the import started" }),
    phase: t.exposeString("phase", {
      description: "pages (crawling), images (fetching the images of the pages) or saving (writing the revision)",
    }),
    pagesFetched: t.exposeInt("pagesFetched", { description: "Pages fetched and read so far" }),
    queued: t.exposeInt("queued", {
      description: "Pages found and not read yet, the one being fetched included (the page limit still applies)",
    }),
    found: t.exposeInt("found", { description: "Same-origin pages and images found so far" }),
    pages: t.field({ type: [ImportRunPageRef], description: "The pages read so far", resolve: (progress) => progress.pages }),
  }),
});

builder.objectFields(SpaceRef, (t) => ({
  importsInProgress: t.field({
    type: [ImportProgressRef],
    description:
      "Website imports into this space (or its change requests) under way on this server process, with their progress; empty when none",
    resolve: (space, _args, { core }) => core.imports.ofSpace(space.id),
  }),
}));

// Import runs: the same import as a job, with its status and progress (src/core/import/runs.ts).

const ImportRunPageRef = builder.objectRef<ImportedPageEntry>("ImportRunPage").implement({
  description: "A page of an import run: read (pending) or in the written revision (complete)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the page in the space" }),
    sourceURL: t.exposeString("sourceURL", { nullable: true, description: "The URL it was imported from; null for a folder" }),
    type: t.exposeString("type", { description: "page, or folder (a level of the site's paths that had no page of its own)" }),
    status: t.exposeString("status", { description: "pending (read, not written yet) or complete" }),
  }),
});

const ImportRunRef = builder.objectRef<ImportRun>("ImportRun").implement({
  description: "A website import run in the background, with its status and progress",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the run" }),
    status: t.exposeString("status", { description: `One of ${IMPORT_RUN_STATUSES.join(", ")}` }),
    reason: t.exposeString("reason", { nullable: true, description: "Why it failed, when its status is failed" }),
    sourceType: t.exposeString("sourceType", { description: "What it imports from: website" }),
    sourceUrl: t.exposeString("sourceUrl", { description: "The URL it imports from" }),
    space: t.exposeID("spaceId", { description: "The space it imports into" }),
    changeRequest: t.exposeID("changeRequestId", { nullable: true, description: "The change request it imports into, if any" }),
    page: t.exposeID("pageId", { nullable: true, description: "The page it imports below, if any" }),
    site: t.exposeID("siteId", {
      nullable: true,
      description: "The site it is for: given when started, else the one site its space is on",
    }),
    createdBy: t.exposeID("createdById", { description: "The user who started it" }),
    revision: t.exposeID("revisionId", { nullable: true, description: "The revision it wrote, once completed" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was requested" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed" }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true, description: "When its import started" }),
    completedAt: t.expose("completedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it completed, or was cancelled",
    }),
    pagesFetched: t.int({ description: "Pages read so far", resolve: (run) => progressOf(run).pagesFetched ?? 0 }),
    queued: t.int({
      description: "Pages found and not read yet (the page limit still applies)",
      resolve: (run) => progressOf(run).queued ?? 0,
    }),
    pages: t.field({
      type: [ImportRunPageRef],
      description: "The pages read so far (pending), or every page written once completed",
      resolve: (run) => pagesOf(run),
    }),
    location: t.string({
      description: "Address of the run in the REST API",
      resolve: (run, _args, { core }) => core.urls.api(`/org/${run.organizationId}/imports/${run.id}`),
    }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  importRuns: t.connection(
    {
      type: ImportRunRef,
      description: "The organization's import runs, most recent first",
      args: {
        space: t.arg.id({ description: "Only runs into this space" }),
        changeRequest: t.arg.id({ description: "Only runs into this change request" }),
        site: t.arg.id({ description: "Only runs for this site" }),
        status: t.arg.string({
          description: `Only runs in this status: one of ${IMPORT_RUN_FILTERS.join(", ")} (active: pending or in-progress)`,
        }),
      },
      resolve: async (o, args, { core }) =>
        toConnection(
          await listImportRuns(
            core,
            o.id,
            {
              space: args.space == null ? null : String(args.space),
              changeRequest: args.changeRequest == null ? null : String(args.changeRequest),
              site: args.site == null ? null : String(args.site),
              status: args.status,
            },
            args,
          ),
        ),
    },
    builder.connectionObject({ type: ImportRunRef, name: "ImportRunConnection" }, { name: "ImportRunEdge" }),
  ),
  importRun: t.field({
    type: ImportRunRef,
    description: "An import run by id; not found when there is none",
    args: { id: t.arg.id({ required: true, description: "The run's id" }) },
    resolve: (o, { id }, { core }) => readImportRun(core, o.id, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  startImportRun: t.field({
    type: ImportRunRef,
    description:
      "Starts a website import into a space (or a change request, or below a page) in the background: answers the pending run, which a job then runs within the import's bounds",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("StartImportRunInput", {
          description: "Input of the startImportRun mutation (the published startImportRun body)",
          fields: (f) => ({
            organization: f.id({ required: true, description: "The organization of the target space" }),
            source: f.field({ type: "JSON", required: true, description: "Where from: { type: website, url }" }),
            target: f.field({ type: "JSON", required: true, description: "Where to: { space, changeRequest?, page? }" }),
            site: f.id({ description: "The site the run is for, when its space is not on it yet" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) =>
      startImportRun(core, String(input.organization), { source: input.source, target: input.target, site: input.site }),
  }),
  cancelImportRun: t.field({
    type: ImportRunRef,
    description: "Cancels a pending or in-progress run: cancelled at once, its import stops at its next page and writes no revision",
    args: {
      organization: t.arg.id({ required: true, description: "The organization" }),
      id: t.arg.id({ required: true, description: "The run's id" }),
    },
    resolve: (_root, args, { core }) => cancelImportRun(core, String(args.organization), String(args.id)),
  }),
}));
