// URL lookups: a URL of this service's app back to what it names (src/core/url-lookup).
import type { Collection } from "../generated/prisma/client.ts";
import { contentByUrl, type UrlContent } from "../core/url-lookup/content.ts";
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
