// Redirects of a published site: a source path and its destination, honoured by the site server
// where no page is found. Rules are in src/core/sites/redirects.ts.
import type { SiteRedirect } from "../generated/prisma/client.ts";
import {
  bulkUpsertRedirects,
  createRedirect,
  deleteRedirect,
  destinationOf,
  listRedirects,
  redirectUpdatedAt,
  resolveRedirect,
  updateRedirect,
} from "../core/sites/redirects.ts";
import { requireSite } from "../core/sites/index.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription, toConnection } from "./common.ts";
import { SiteRef } from "./sites.ts";

const siteField = "The site";
const organizationField = "When given, the site must be of this organization (not found otherwise)";

const Destination = builder.simpleObject("SiteRedirectDestination", {
  description:
    "Where a redirect sends: a section (`site-section`), a site space (`site-space`), a page of a site space (`site-page`) or an external URL (`external`)",
  fields: (t) => ({
    kind: t.string({ description: "site-section, site-space, site-page or external" }),
    siteSectionId: t.string({ nullable: true, description: "The section (site-section)" }),
    siteSpaceId: t.string({ nullable: true, description: "The site space (site-space, site-page)" }),
    pageId: t.string({ nullable: true, description: "The page in the site space (site-page)" }),
    url: t.string({ nullable: true, description: "The absolute http(s) URL (external)" }),
  }),
});

export const SiteRedirectRef = builder.objectRef<SiteRedirect>("SiteRedirect").implement({
  description: "A redirect of a published site: a request for its source that finds no page is sent to its destination",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the redirect" }),
    source: t.exposeString("source", {
      description: "The path it redirects from (`/*` or `*` at its end matches any rest), at most 512 characters",
    }),
    draft: t.exposeBoolean("draft", { description: "true: stored, not live (the site server ignores it)" }),
    captureWildcard: t.exposeBoolean("captureWildcard", {
      description: "Whether the rest a wildcard matched is appended to the destination",
    }),
    permanent: t.exposeBoolean("permanent", {
      description: "Permanent: answered 308 on public and unlisted sites (307 on others); otherwise 307",
    }),
    destination: t.field({
      type: Destination,
      description: "Where it sends",
      resolve: (redirect) => {
        const d = destinationOf(redirect) as Record<string, string>;
        return {
          kind: d.kind!,
          siteSectionId: d.siteSectionId ?? null,
          siteSpaceId: d.siteSpaceId ?? null,
          pageId: d.pageId ?? null,
          url: d.url ?? null,
        };
      },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the redirect was created" }),
    updatedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it was last changed; null if never",
      resolve: (redirect) => redirectUpdatedAt(redirect),
    }),
  }),
});

const Resolution = builder.simpleObject("SiteRedirectResolution", {
  description: "What a visitor requesting a path is sent to",
  fields: (t) => ({
    redirect: t.field({ type: SiteRedirectRef, description: "The live redirect the path matches" }),
    target: t.string({ description: "The URL it sends to" }),
  }),
});

builder.objectFields(SiteRef, (t) => ({
  redirects: t.connection(
    {
      type: SiteRedirectRef,
      description: "The site's redirects (live ones unless draft is true), newest first unless orderBy says otherwise",
      args: {
        search: t.arg.string({ description: "Only redirects whose source contains this (at most 256 characters)" }),
        draft: t.arg.boolean({ description: "true: the draft redirects; false or absent: the live ones" }),
        orderBy: t.arg.string({ description: "createdAt (newest first), updatedAt (last changed first) or source (alphabetical)" }),
      },
      resolve: async (site, args, { core }) =>
        toConnection(
          await listRedirects(core, site.organizationId, site.id, args, { search: args.search, draft: args.draft, orderBy: args.orderBy }),
        ),
    },
    builder.connectionObject({ type: SiteRedirectRef, name: "SiteRedirectConnection" }, { name: "SiteRedirectEdge" }),
  ),
  redirect: t.field({
    type: Resolution,
    description: "The live redirect a request for `source` follows, and the URL it sends to (NOT_FOUND when none)",
    args: { source: t.arg.string({ required: true, description: "A path of the site, starting with /" }) },
    resolve: (site, { source }, { core }) => resolveRedirect(core, site.organizationId, site.id, source),
  }),
}));

const DestinationInput = builder.inputType("SiteRedirectDestinationInput", {
  description:
    "Where a redirect sends: kind site-section (siteSectionId), site-space (siteSpaceId), site-page (siteSpaceId, pageId), external (url), or path (spaceId, path: a page of a space the site shows, stored as site-page)",
  fields: (f) => ({
    kind: f.string({ required: true, description: "site-section, site-space, site-page, external or path" }),
    siteSectionId: f.string({ description: "A section of the site (site-section)" }),
    siteSpaceId: f.string({ description: "A site space of the site (site-space, site-page)" }),
    pageId: f.string({ description: "A page of that site space (site-page)" }),
    url: f.string({ description: "An absolute http(s) URL, at most 2,048 characters (external)" }),
    spaceId: f.string({ description: "A space the site shows (path)" }),
    path: f.string({ description: "The page's path in that space (path)" }),
  }),
});

/** GraphQL's input without its nulls: the core checks what is there. */
const destinationValue = (destination: Record<string, unknown> | null | undefined) =>
  destination == null ? destination : Object.fromEntries(Object.entries(destination).filter(([, value]) => value != null));

const Payload = builder.simpleObject("SiteRedirectPayload", {
  description: "Result of the createSiteRedirect and updateSiteRedirect mutations",
  fields: (t) => ({ redirect: t.field({ type: SiteRedirectRef, description: "The redirect, as it is now" }) }),
});

const BulkResult = builder.simpleObject("SiteRedirectUpsertResult", {
  description: "What one item of bulkUpsertSiteRedirects did",
  fields: (t) => ({
    status: t.string({ description: "created, updated, deleted, published or error" }),
    source: t.string({ description: "The item's source" }),
    draft: t.boolean({ description: "Whether the redirect concerned is the draft one" }),
    id: t.string({ nullable: true, description: "The redirect's id (created, updated, published)" }),
    error: t.string({ nullable: true, description: "Why the item did nothing (error)" }),
  }),
});

builder.mutationFields((t) => ({
  createSiteRedirect: t.field({
    type: Payload,
    description: "Creates a redirect of the site (admins); at most 1,000 per site",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteRedirectInput", {
          description: inputDescription("CreateSiteRedirectInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            source: f.string({ required: true, description: "The path to redirect from (the published SiteRedirectSourcePath)" }),
            destination: f.field({ type: DestinationInput, required: true, description: "Where to send" }),
            captureWildcard: f.boolean({ description: "Append what the wildcard matched to the destination (default false)" }),
            draft: f.boolean({ description: "Store it as a draft, not live (default false)" }),
            permanent: f.boolean({ description: "Permanent redirect (default false)" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      redirect: await createRedirect(core, input.organization, String(input.site), {
        source: input.source,
        destination: destinationValue(input.destination),
        captureWildcard: input.captureWildcard,
        draft: input.draft,
        permanent: input.permanent,
      }),
    }),
  }),
  updateSiteRedirect: t.field({
    type: Payload,
    description: "Changes the fields given of a redirect (admins)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteRedirectInput", {
          description: inputDescription("UpdateSiteRedirectInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            id: f.id({ required: true, description: "The redirect to change" }),
            source: f.string({ description: "A new source path" }),
            destination: f.field({ type: DestinationInput, description: "A new destination" }),
            captureWildcard: f.boolean({ description: "Append what the wildcard matched to the destination" }),
            draft: f.boolean({ description: "false promotes a draft redirect to live" }),
            permanent: f.boolean({ description: "Permanent redirect" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      redirect: await updateRedirect(core, input.organization, String(input.site), String(input.id), {
        source: input.source,
        destination: destinationValue(input.destination),
        captureWildcard: input.captureWildcard,
        draft: input.draft,
        permanent: input.permanent,
      }),
    }),
  }),
  deleteSiteRedirect: t.field({
    type: builder.simpleObject("DeleteSiteRedirectPayload", {
      description: payloadDescription("DeleteSiteRedirectPayload"),
      fields: (p) => ({
        deletedId: p.id({ description: "Id of the deleted redirect" }),
        existed: p.boolean({ description: "false when there was no such redirect" }),
      }),
    }),
    description: "Deletes a redirect of the site (admins)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteRedirectInput", {
          description: inputDescription("DeleteSiteRedirectInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            id: f.id({ required: true, description: "The redirect to delete" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      deletedId: String(input.id),
      existed: await deleteRedirect(core, input.organization, String(input.site), String(input.id)),
    }),
  }),
  bulkUpsertSiteRedirects: t.field({
    type: builder.simpleObject("BulkUpsertSiteRedirectsPayload", {
      description: payloadDescription("BulkUpsertSiteRedirectsPayload"),
      fields: (p) => ({ results: p.field({ type: [BulkResult], description: "One result per item, in order" }) }),
    }),
    description:
      "Creates, updates, deletes (null destination) or publishes (intent publish) up to 500 redirects at once, in one transaction; a bad item refuses the whole request",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("BulkUpsertSiteRedirectsInput", {
          description: inputDescription("BulkUpsertSiteRedirectsInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            redirects: f.field({
              required: true,
              description: "1 to 500 items, each source once",
              type: [
                builder.inputType("SiteRedirectUpsertInput", {
                  description: "One item of bulkUpsertSiteRedirects",
                  fields: (g) => ({
                    source: g.string({ required: true, description: "The source path" }),
                    intent: g.string({ description: "live (default), draft, or publish (publishes the draft from source)" }),
                    destination: g.field({
                      type: DestinationInput,
                      description: "Where to send; null or absent deletes the redirect (live and draft intents)",
                    }),
                    captureWildcard: g.boolean({ description: "Append what the wildcard matched (default false)" }),
                    permanent: g.boolean({ description: "Permanent redirect" }),
                  }),
                }),
              ],
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      results: (
        await bulkUpsertRedirects(
          core,
          input.organization,
          String(input.site),
          input.redirects.map((item) => ({
            source: item.source,
            intent: item.intent ?? undefined,
            destination: destinationValue(item.destination) ?? null,
            captureWildcard: item.captureWildcard,
            permanent: item.permanent,
          })),
        )
      ).map((result) => ({ id: null, error: null, ...result })),
    }),
  }),
}));

// Site search prewarm: the published operation hints that visitors' searches are coming. Search
// here reads the database's stored search vectors (src/core/search), with no cache to warm, so it
// checks the caller may read the site and does nothing else (docs/decisions.md, issue 30).
builder.mutationField("prewarmSiteSearch", (t) =>
  t.field({
    type: builder.simpleObject("PrewarmSiteSearchPayload", {
      description: payloadDescription("PrewarmSiteSearchPayload"),
      fields: (p) => ({ siteId: p.id({ description: "The site" }) }),
    }),
    description: "Hints that searches of the site are coming; search here needs no warming, so it only checks the site is readable",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PrewarmSiteSearchInput", {
          description: inputDescription("PrewarmSiteSearchInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteId: (await requireSite(core, input.organization, String(input.site), "site.read")).id,
    }),
  }),
);
