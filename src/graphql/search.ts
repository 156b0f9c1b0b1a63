// Full-text search: `Space.search` (pages with their matching sections) and
// `Organization.search` (spaces with their matching pages).
import type { PageResult, SectionResult, SpaceResult } from "../core/search/index.ts";
import { searchOrganization, searchSpace } from "../core/search/index.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

const SearchUrls = builder.simpleObject("SearchResultUrls", {
  description: "Addresses of a search result",
  fields: (t) => ({ app: t.string({ description: "URL of the result in the app" }) }),
});

const appUrl = (core: Parameters<typeof searchSpace>[0], spaceId: string, path: string) => core.urls.app(`/s/${spaceId}/${path}`);

const SearchSectionRef = builder.objectRef<SectionResult & { spaceId: string }>("SearchSection").implement({
  description: "A section of a page (cut at headings) that matches; `body` is a snippet with the matches in **bold**",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The heading's anchor; empty for the text before the first heading" }),
    title: t.exposeString("title", { description: "The section's heading" }),
    path: t.exposeString("path", { description: "Path of the section: the page's path and the heading's anchor" }),
    body: t.exposeString("body", { description: "Text of the section (plain, shortened)" }),
    score: t.exposeFloat("score", { description: "Relevance: higher is better" }),
    urls: t.field({
      description: "Addresses of the section",
      type: SearchUrls,
      resolve: (s, _args, { core }) => ({ app: appUrl(core, s.spaceId, s.path) }),
    }),
  }),
});

const SearchPageRef = builder.objectRef<PageResult>("SearchPage").implement({
  description: "A page of the head revision that matches, with its matching sections",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Id of the page" }),
    title: t.exposeString("title", { description: "Title of the page" }),
    description: t.exposeString("description", { description: "Description of the page; empty when none" }),
    path: t.exposeString("path", { description: "Path of the page in its space" }),
    ancestors: t.exposeStringList("ancestors", { description: "Titles of the parent pages, from the top" }),
    score: t.exposeFloat("score", { description: "Relevance: higher is better" }),
    rank: t.exposeInt("rank", { description: "One-based position in the whole ranked result" }),
    sections: t.field({
      description: "The sections of the page that match, best first",
      type: [SearchSectionRef],
      // Object.assign: properties after a spread are slow on Node 20 (issue 15); the same objects.
      resolve: (page) => page.sections.map((section) => Object.assign({}, section, { spaceId: page.spaceId })),
    }),
    space: t.field({ description: "The space the page is in", type: SpaceRef, resolve: (page) => page.spaceId }),
    urls: t.field({
      description: "Addresses of the page",
      type: SearchUrls,
      resolve: (p, _args, { core }) => ({ app: appUrl(core, p.spaceId, p.path) }),
    }),
  }),
});

export const SearchSpaceRef = builder.objectRef<SpaceResult>("SearchSpace").implement({
  description: "A space with its matching pages",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Id of the space" }),
    title: t.exposeString("title", { description: "Title of the space" }),
    score: t.exposeFloat("score", { description: "Relevance of the best page: higher is better" }),
    pages: t.field({ description: "The pages of the space that match, best first", type: [SearchPageRef], resolve: (s) => s.pages }),
    space: t.field({ description: "The space", type: SpaceRef, resolve: (s) => s.id }),
  }),
});

export const SearchSpaceConnection = builder.connectionObject(
  { type: SearchSpaceRef, name: "SearchSpaceConnection" },
  { name: "SearchSpaceEdge" },
);

builder.objectField(SpaceRef, "search", (t) =>
  t.connection(
    {
      type: SearchPageRef,
      description: 'Pages of the head revision matching `query` (web search syntax: words, "phrases", -excluded, or)',
      args: { query: t.arg.string({ required: true }) },
      resolve: async (space, args, { core }) => toConnection(await searchSpace(core, space.id, args.query, args)),
    },
    { name: "SearchPageConnection" },
    { name: "SearchPageEdge" },
  ),
);

builder.objectField(OrganizationRef, "search", (t) =>
  t.connection(
    {
      type: SearchSpaceRef,
      description: "Spaces of the organization the caller can read, with their pages matching `query`",
      args: { query: t.arg.string({ required: true }) },
      resolve: async (organization, args, { core }) => toConnection(await searchOrganization(core, organization.id, args.query, args)),
    },
    SearchSpaceConnection,
  ),
);
