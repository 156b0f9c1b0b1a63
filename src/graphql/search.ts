// Full-text search: `Space.search` (pages with their matching sections) and
// `Organization.search` (spaces with their matching pages).
import type { PageResult, SectionResult, SpaceResult } from "../core/search/index.ts";
import { searchOrganization, searchSpace } from "../core/search/index.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

const SearchUrls = builder.simpleObject("SearchResultUrls", { fields: (t) => ({ app: t.string() }) });

const appUrl = (core: Parameters<typeof searchSpace>[0], spaceId: string, path: string) =>
  core.urls.app(`/s/${spaceId}/${path}`);

const SearchSectionRef = builder.objectRef<SectionResult & { spaceId: string }>("SearchSection").implement({
  description: "A section of a page (cut at headings) that matches; `body` is a snippet with the matches in **bold**",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The heading's anchor; empty for the text before the first heading" }),
    title: t.exposeString("title"),
    path: t.exposeString("path"),
    body: t.exposeString("body"),
    score: t.exposeFloat("score"),
    urls: t.field({ type: SearchUrls, resolve: (s, _args, { core }) => ({ app: appUrl(core, s.spaceId, s.path) }) }),
  }),
});

const SearchPageRef = builder.objectRef<PageResult>("SearchPage").implement({
  description: "A page of the head revision that matches, with its matching sections",
  fields: (t) => ({
    id: t.exposeString("id"),
    title: t.exposeString("title"),
    description: t.exposeString("description"),
    path: t.exposeString("path"),
    ancestors: t.exposeStringList("ancestors", { description: "Titles of the parent pages, from the top" }),
    score: t.exposeFloat("score"),
    rank: t.exposeInt("rank", { description: "One-based position in the whole ranked result" }),
    sections: t.field({
      type: [SearchSectionRef],
      resolve: (page) => page.sections.map((section) => ({ ...section, spaceId: page.spaceId })),
    }),
    space: t.field({ type: SpaceRef, resolve: (page) => page.spaceId }),
    urls: t.field({ type: SearchUrls, resolve: (p, _args, { core }) => ({ app: appUrl(core, p.spaceId, p.path) }) }),
  }),
});

export const SearchSpaceRef = builder.objectRef<SpaceResult>("SearchSpace").implement({
  description: "A space with its matching pages",
  fields: (t) => ({
    id: t.exposeString("id"),
    title: t.exposeString("title"),
    score: t.exposeFloat("score"),
    pages: t.field({ type: [SearchPageRef], resolve: (s) => s.pages }),
    space: t.field({ type: SpaceRef, resolve: (s) => s.id }),
  }),
});

export const SearchSpaceConnection = builder.connectionObject({ type: SearchSpaceRef, name: "SearchSpaceConnection" }, { name: "SearchSpaceEdge" });

builder.objectField(SpaceRef, "search", (t) =>
  t.connection(
    {
      type: SearchPageRef,
      description: "Pages of the head revision matching `query` (web search syntax: words, \"phrases\", -excluded, or)",
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
      resolve: async (organization, args, { core }) =>
        toConnection(await searchOrganization(core, organization.id, args.query, args)),
    },
    SearchSpaceConnection,
  ),
);
