// URL lookups: a URL of this service's app back to what it names (src/core/url-lookup).
import type { Collection } from "../generated/prisma/client.ts";
import { contentByUrl, type UrlContent } from "../core/url-lookup/content.ts";
import { embedByUrl, type Embed } from "../core/url-lookup/embeds.ts";
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
