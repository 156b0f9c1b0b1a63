// Import of content from elsewhere (a website) into a space, as one new revision. The rules
// (crawl bounds, hierarchy, errors) are in src/core/import.
import { BUILT_IMPORT_SOURCES, IMPORT_SOURCES, IMPORT_URL_MAX, importContent } from "../core/import/index.ts";
import type { ImportProgress } from "../core/import/progress.ts";
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
