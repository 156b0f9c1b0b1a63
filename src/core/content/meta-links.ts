// A document page's meta links (the published `RevisionPageMetaLinks`): the page that is the
// canonical version of this one, and its alternate versions, each a page of the same content or
// an external http(s) URL. They are what a published page declares as `<link rel="canonical">`
// and `<link rel="alternate">`; the page stores them, set with its other fields.
import { badInput, quote } from "../errors.ts";
import { checkUrl } from "../validate.ts";

export type MetaLinkTarget = { kind: "page"; page: string } | { kind: "url"; url: string };

export interface PageMetaLinks {
  canonical?: MetaLinkTarget;
  alternates: MetaLinkTarget[];
}

/** Alternates of one page: a bounded list, as a page's other fields are. */
export const META_LINK_ALTERNATES_MAX = 20;

function checkTarget(field: string, target: MetaLinkTarget, pageExists: (id: string) => boolean) {
  if (target.kind === "url") checkUrl(`${field}.url`, target.url);
  else if (!pageExists(target.page)) throw badInput(`${field}.page: no page ${quote(target.page)} in this content`);
}

/** Refuses meta links that do not fit the content they are set in (400 naming the field). */
export function checkMetaLinks(links: PageMetaLinks, pageExists: (id: string) => boolean) {
  if (links.alternates.length > META_LINK_ALTERNATES_MAX) {
    throw badInput(`metaLinks.alternates: at most ${META_LINK_ALTERNATES_MAX} alternates (got ${links.alternates.length})`);
  }
  if (links.canonical) checkTarget("metaLinks.canonical", links.canonical, pageExists);
  links.alternates.forEach((target, index) => checkTarget(`metaLinks.alternates[${index}]`, target, pageExists));
}

/**
 * The meta links of a page as a revision has them: a link to a page the revision no longer holds
 * (deleted since it was set) is left out, so no answer points at a page that is not there.
 */
export function metaLinksIn(stored: PageMetaLinks | undefined, pageExists: (id: string) => boolean): PageMetaLinks {
  const live = (target: MetaLinkTarget) => target.kind === "url" || pageExists(target.page);
  const canonical = stored?.canonical && live(stored.canonical) ? stored.canonical : undefined;
  return { ...(canonical ? { canonical } : {}), alternates: (stored?.alternates ?? []).filter(live) };
}
