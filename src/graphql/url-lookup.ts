// URL lookups: a URL of this service's app back to what it names (src/core/url-lookup).
import type { Collection } from "../generated/prisma/client.ts";
import { contentByUrl, type UrlContent } from "../core/url-lookup/content.ts";
import { embedByUrl, type Embed } from "../core/url-lookup/embeds.ts";
import { publishedContentByUrl, type PublishedContentLookup } from "../core/url-lookup/published.ts";
import { builder } from "./builder.ts";
import { ChangeRequestRef } from "./change-requests.ts";
import { CollectionRef } from "./collections.ts";
import { locatedItem, PageRef } from "./content.ts";
import { SpaceRef } from "./spaces.ts";

const UrlContentRef = builder.objectRef<UrlContent>("UrlContent").implement({
  description:
    "What a URL of this service's app names: a collection, or a space's content (its own, a change request's or a revision's) and a page of it",
  fields: (t) => ({
    collection: t.field({
      type: CollectionRef,
      nullable: true,
      description: "The collection the URL names; null when it names a space's content",
      resolve: (found): Collection | null => (found.kind === "collection" ? found.collection : null),
    }),
    space: t.field({
      type: SpaceRef,
      nullable: true,
      description: "The space whose content the URL names; null when it names a collection",
      resolve: (found) => (found.kind === "content" ? found.head.space : null),
    }),
    changeRequest: t.field({
      type: ChangeRequestRef,
      nullable: true,
      description: "The change request whose content the URL names; null for a space's own content or a revision's",
      resolve: (found) => (found.kind === "content" ? found.head.changeRequest : null),
    }),
    page: t.field({
      type: PageRef,
      nullable: true,
      description: "The page the URL names in that content; null when it names the content as a whole",
      resolve: (found, _args, { core }) => (found.kind === "content" && found.page ? locatedItem(core, found.revision, found.page) : null),
    }),
  }),
});

builder.queryField("contentByUrl", (t) =>
  t.field({
    type: UrlContentRef,
    description:
      "A URL of this service's app (a collection's, a space's, a page's, a change request's or a revision's `urls.app`) resolved to what it names; not found when the caller cannot read it, or it names none of these",
    args: { url: t.arg.string({ required: true, description: "The URL to resolve (absolute http or https, at most 2048 characters)" }) },
    resolve: (_root, { url }, { core }) => contentByUrl(core, url),
  }),
);

const EmbedRef = builder.objectRef<Embed>("Embed").implement({
  description:
    "A link preview of a URL: from this service's data for its own app URLs, else read from the page's meta tags (fetched within the import's bounds and host policy)",
  fields: (t) => ({
    type: t.string({
      description: "link (title, site, icon) or rich (also an HTML card of the description and image)",
      resolve: (e) => e.type,
    }),
    title: t.string({ description: "The page's title (its og:title, else <title>, else its name)", resolve: (e) => e.title }),
    site: t.string({ description: "The site's name (og:site_name), else its host", resolve: (e) => e.site }),
    icon: t.string({
      nullable: true,
      description: "Absolute http(s) URL of the site's icon; null when none",
      resolve: (e) => e.icon ?? null,
    }),
    html: t.string({
      nullable: true,
      description: "A rich embed's card: escaped title, description and image, built here (never the page's markup); null for a link",
      resolve: (e) => (e.type === "rich" ? e.html : null),
    }),
  }),
});

builder.queryField("embedByUrl", (t) =>
  t.field({
    type: EmbedRef,
    description:
      "The embed (link preview) of a URL; in a space's context when `space` is given (not found unless readable). Private hosts are refused unless IMPORT_ALLOW_PRIVATE_HOSTS",
    args: {
      url: t.arg.string({ required: true, description: "The URL to preview (absolute http or https, at most 2048 characters)" }),
      space: t.arg.id({ description: "The space whose context the embed is made in" }),
    },
    resolve: (_root, { url, space }, { core }) => embedByUrl(core, url, space ?? undefined),
  }),
);

type FoundContent = Extract<PublishedContentLookup, { kind: "content" }>;
type FoundRedirect = Extract<PublishedContentLookup, { kind: "redirect" }>;

const PublishedSiteContentRef = builder.objectRef<FoundContent>("PublishedSiteContent").implement({
  description: "What a URL of a published site shows its visitor: the site space and page a view of it renders",
  fields: (t) => ({
    site: t.id({ description: "The site", resolve: (c) => c.site }),
    siteSection: t.id({
      nullable: true,
      description: "The site's section; null for a site without sections",
      resolve: (c) => c.siteSection,
    }),
    siteSpace: t.id({ description: "The site space shown", resolve: (c) => c.siteSpace }),
    space: t.id({ description: "The space the site space publishes", resolve: (c) => c.space }),
    revision: t.id({ description: "The revision shown (the space's head revision)", resolve: (c) => c.revision }),
    organization: t.id({ description: "The site's organization", resolve: (c) => c.organization }),
    pathname: t.string({
      description: "The page's path in its site space, without leading slash; empty at the site space's root (which shows its first page)",
      resolve: (c) => c.pathname,
    }),
    basePath: t.string({ description: "The path of the site space's root in the URL, with a trailing slash", resolve: (c) => c.basePath }),
    siteBasePath: t.string({
      description: "The path of the site's root in the URL, with a trailing slash",
      resolve: (c) => c.siteBasePath,
    }),
    canonicalUrl: t.string({
      description: "The page's URL on the site (without the visitor's credentials)",
      resolve: (c) => c.canonicalUrl,
    }),
    complete: t.boolean({
      description:
        "Whether the URL names its page, or its site space where another section or site space could have been named: no default was taken in its place",
      resolve: (c) => c.complete,
    }),
    shareKey: t.string({
      nullable: true,
      description: "The share key that opened a share-link site; null otherwise",
      resolve: (c) => c.shareKey,
    }),
    contextId: t.string({
      nullable: true,
      description: "A digest of the visitor's claims (what they see depends on them); null for a visitor without claims",
      resolve: (c) => c.contextId,
    }),
    preview: t.boolean({ description: "Whether the URL was opened with the site's preview token", resolve: (c) => c.preview }),
  }),
});

const PublishedContentRedirectRef = builder.objectRef<FoundRedirect>("PublishedContentRedirect").implement({
  description: "A redirect a URL of a published site answers: a site redirect, or a refused visitor's sign-in URL",
  fields: (t) => ({
    target: t.string({ description: "content (another URL of the site) or external", resolve: (r) => r.target }),
    site: t.id({ description: "The site", resolve: (r) => r.site }),
    redirect: t.string({ description: "Where to go", resolve: (r) => r.redirect }),
  }),
});

const PublishedContentLookupRef = builder.objectRef<PublishedContentLookup>("PublishedContentLookup").implement({
  description: "A URL of a published site resolved for its visitor: what it shows, or where it redirects (one of the two is set)",
  fields: (t) => ({
    content: t.field({
      type: PublishedSiteContentRef,
      nullable: true,
      description: "What the URL shows; null when it redirects",
      resolve: (found) => (found.kind === "content" ? found : null),
    }),
    redirect: t.field({
      type: PublishedContentRedirectRef,
      nullable: true,
      description: "Where the URL redirects; null when it shows content",
      resolve: (found) => (found.kind === "redirect" ? found : null),
    }),
  }),
});

const SiteVisitorInput = builder.inputType("SiteVisitorInput", {
  description: "The visitor a published URL is resolved for: a visitor token and unsigned claims (checked as the site server checks them)",
  fields: (t) => ({
    type: t.string({ description: "human or agent (accepted; both see the same content)" }),
    jwtToken: t.string({ description: "A visitor token signed with the site's visitor-authentication key" }),
    unsignedClaims: t.field({
      type: "JSON",
      description: "Unsigned claims, kept only when they validate against the site's adaptive schema (at most 8192 characters as JSON)",
    }),
  }),
});

builder.queryField("publishedContentByUrl", (t) =>
  t.field({
    type: PublishedContentLookupRef,
    description:
      "A URL of a published site (under /sites/{id}, or on its custom hostname; with its share key or preview token) resolved to the site, section, site space, space, revision and page its visitor sees; not found when it shows the visitor nothing",
    args: {
      url: t.arg.string({ required: true, description: "The URL to resolve (absolute http or https, at most 2048 characters)" }),
      visitor: t.arg({ type: SiteVisitorInput, description: "The visitor's token and claims" }),
      redirectOnError: t.arg.boolean({
        description: "When the visitor is refused, answer the redirect to the site's sign-in (fallback) URL instead of not found",
      }),
    },
    resolve: (_root, { url, visitor, redirectOnError }, { core }) =>
      publishedContentByUrl(core, url, { visitor: visitor ?? null, redirectOnError: redirectOnError ?? false }),
  }),
);
