// A URL of this service's app (the `urls.app` its answers print) back to what it names, for a
// caller who can read it: a collection, or a space's content (its own, a change request's or a
// past revision's) and a page of it. Anything else — another host, an organization's or a site's
// settings URL, something the caller cannot read — is 404, as unknown.
//
// The app paths (src/graphql/*: urls.app):
//   /app/o/{organizationId}/c/{collectionId}           a collection
//   /app/s/{spaceId}[/{pagePath}]                       a space's content, a page of it
//   /app/s/{spaceId}/~/changes/{number}[/{pagePath}]    a change request's content
//   /app/s/{spaceId}/~/revisions/{revisionId}[/{pagePath}]  a revision of the space
//   /app/published/{spaceId}                            the space (its `urls.published`)
import type { Collection, Revision } from "../../generated/prisma/client.ts";
import { readCollection } from "../collections/index.ts";
import { readRevision, pageAtPath } from "../content/index.ts";
import { headRevision, readTarget, type ContentHead } from "../content/target.ts";
import type { CoreContext } from "../context.ts";
import { DomainError, quote } from "../errors.ts";
import { checkLookupUrl, ownPath, segmentsOf } from "./url.ts";

/** A page as the revision holds it, with its path and parent. */
export type LocatedPage = ReturnType<typeof pageAtPath>;

export type UrlContent =
  | { kind: "collection"; collection: Collection }
  | { kind: "content"; head: ContentHead; revision: Revision; page: LocatedPage | null };

const noContent = (url: URL) => new DomainError("NOT_FOUND", `No content found at url ${quote(url.href)}`);

/** What `url` (a URL of this service's app) names, if the caller can read it. */
export async function contentByUrl(ctx: CoreContext, value: unknown): Promise<UrlContent> {
  const url = checkLookupUrl(value);
  const path = ownPath(ctx.urls.publicUrl, url);
  const segments = path === null ? null : segmentsOf(path);
  if (!segments || segments[0] !== "app") throw noContent(url);
  const [, kind, id, ...rest] = segments;
  if (!id) throw noContent(url);
  // Any not-found below (the collection, space, change request, revision or page) reads as the URL's.
  try {
    if (kind === "o" && rest[0] === "c" && rest[1]) {
      const { collection } = await readCollection(ctx, rest[1]);
      if (collection.organizationId !== id) throw noContent(url);
      return { kind: "collection", collection };
    }
    if (kind === "published" && rest.length === 0) {
      const head = await readTarget(ctx, { spaceId: id });
      return { kind: "content", head, revision: await headRevision(ctx, head), page: null };
    }
    if (kind !== "s") throw noContent(url);
    let pagePath = rest;
    let head: ContentHead;
    let revision: Revision;
    if (rest[0] === "~" && rest[1] === "changes" && rest[2]) {
      // The app prints a change request's number; its id names it as well.
      head = await readTarget(ctx, { spaceId: id, changeRequest: rest[2] });
      revision = await headRevision(ctx, head);
      pagePath = rest.slice(3);
    } else if (rest[0] === "~" && rest[1] === "revisions" && rest[2]) {
      head = await readTarget(ctx, { spaceId: id });
      revision = await readRevision(ctx, id, rest[2]);
      pagePath = rest.slice(3);
    } else if (rest[0] === "~") {
      throw noContent(url);
    } else {
      head = await readTarget(ctx, { spaceId: id });
      revision = await headRevision(ctx, head);
    }
    const page = pagePath.length ? pageAtPath(revision, pagePath.join("/")) : null;
    return { kind: "content", head, revision, page };
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw noContent(url);
    throw error;
  }
}
