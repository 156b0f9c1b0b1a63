// Links and backlinks: `Space.links` / `Revision.links` / `Page.links` (connections of the links of
// a revision, with `stats`), `Page.backlinks` and `File.backlinks` (the pages linking there).
// Everything is derived on read from the revision's bodies (src/core/links).
import type { Revision } from "../generated/prisma/client.ts";
import type { CoreContext } from "../core/context.ts";
import { contentOf } from "../core/content/index.ts";
import { flatten } from "../core/content/tree.ts";
import type { ContentRef, LinkPage, LinkStats, RevisionLink } from "../core/links/index.ts";
import { fileBacklinks, LINK_STATUSES, listLinks, pageBacklinks } from "../core/links/index.ts";
import type { Page as ListPage } from "../core/pagination.ts";
import { revisionAppPath, revisionAt } from "../core/content/target.ts";
import { builder } from "./builder.ts";
import { enumName, toConnection } from "./common.ts";
import { FileRef, PageRef, RevisionRef, type PageItem } from "./content.ts";
import { SpaceRef } from "./spaces.ts";

const LinkStatus = builder.enumType("LinkStatus", {
  description: "ok: no problem; broken: the target is missing; in-app: an app URL of this service that is not content",
  values: Object.fromEntries(LINK_STATUSES.map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof LINK_STATUSES)[number] }
  >,
});

const ContentReference = builder.objectRef<ContentRef>("ContentReference").implement({
  description: "A relative reference to content: `kind` says which of the other fields is set",
  fields: (t) => ({
    kind: t.string({ description: "What the reference points at: page, file, anchor, url or space", resolve: (r) => r.kind }),
    page: t.string({
      nullable: true,
      description: "Page id (a broken page link: the path it names)",
      resolve: (r) => ("page" in r ? (r.page ?? null) : null),
    }),
    anchor: t.string({
      description: "Anchor in the target page; null when none",
      nullable: true,
      resolve: (r) => ("anchor" in r ? r.anchor : null),
    }),
    file: t.string({ description: "Id of the file, for kind file", nullable: true, resolve: (r) => ("file" in r ? r.file : null) }),
    space: t.string({ description: "Id of the space, for kind space", nullable: true, resolve: (r) => ("space" in r ? r.space : null) }),
    url: t.string({ description: "The URL, for kind url", nullable: true, resolve: (r) => ("url" in r ? r.url : null) }),
  }),
});

const LinkBrokenStats = builder.simpleObject("LinkBrokenStats", {
  description: "Counts of broken links",
  fields: (t) => ({
    total: t.int({ description: "Number of broken links" }),
    changeRequest: t.int({ description: "Broken links added by change requests (none exist yet: 0)" }),
  }),
});

const LinkStatsRef = builder.objectRef<LinkStats>("LinkStats").implement({
  description: "Counts over the whole list, before the status filter",
  fields: (t) => ({
    total: t.exposeInt("total", { description: "Number of links" }),
    broken: t.field({ description: "Counts of broken links", type: LinkBrokenStats, resolve: (s) => s.broken }),
  }),
});

interface LinkItem {
  link: RevisionLink;
  revision: Revision;
}

/** Page items of a revision by id (for `locations` and backlinks), its pages located once. */
async function pageItems(core: CoreContext, revision: Revision, ids: string[]): Promise<PageItem[]> {
  const appBase = await revisionAppPath(core, revision);
  const located = new Map(flatten(contentOf(revision).pages).map((entry) => [entry.page.id, entry]));
  return ids.flatMap((id) => {
    const entry = located.get(id);
    return entry ? [{ ...entry, revision, appBase }] : [];
  });
}

const RevisionLinkRef = builder.objectRef<LinkItem>("RevisionLink").implement({
  description: "A link of a revision: one target, with every page it appears on",
  fields: (t) => ({
    status: t.field({
      description: "OK, BROKEN, or IN_APP (a URL of the app that is not a space)",
      type: LinkStatus,
      resolve: (l) => l.link.status,
    }),
    relation: t.string({ description: "link or image", resolve: (l) => l.link.relation }),
    targetReference: t.field({ description: "What the link points at", type: ContentReference, resolve: (l) => l.link.target }),
    locationReferences: t.field({
      type: [ContentReference],
      description: "Where the link appears: the pages, as references",
      resolve: (l) => l.link.locations.map((page) => ({ kind: "page" as const, page })),
    }),
    locations: t.field({
      type: [PageRef],
      description: "The pages the link appears on, in tree order",
      resolve: (l, _args, { core }) => pageItems(core, l.revision, l.link.locations),
    }),
  }),
});

const RevisionLinkConnection = builder.connectionObject(
  {
    type: RevisionLinkRef,
    name: "RevisionLinkConnection",
    fields: (t) => ({
      stats: t.field({
        description: "Counts over every link, not only this page",
        type: LinkStatsRef,
        resolve: (c) => (c as unknown as { stats: LinkStats }).stats,
      }),
    }),
  },
  { name: "RevisionLinkEdge" },
);

const BacklinkConnection = builder.connectionObject({ type: PageRef, name: "BacklinkConnection" }, { name: "BacklinkEdge" });

function linkConnection(page: LinkPage, revision: Revision) {
  const items: ListPage<LinkItem> = {
    ...page,
    items: page.items.map((link) => ({ link, revision })),
    cursorOf: (item) => page.cursorOf(item.link),
  };
  return { ...toConnection(items), stats: page.stats };
}

async function pageConnection(core: CoreContext, revision: Revision, page: ListPage<string>) {
  const items = await pageItems(core, revision, page.items);
  return toConnection<PageItem>({ ...page, items, cursorOf: (item) => page.cursorOf(item.page.id) });
}

const linkArgs = (t: { arg: any }) => ({
  status: t.arg({ type: LinkStatus, required: false, description: "Only links of this status (stats still count all)" }),
});

builder.objectField(SpaceRef, "links", (t) =>
  t.connection(
    {
      type: RevisionLinkRef,
      description: "Links of the current content (its head revision), in order of first appearance",
      args: linkArgs(t),
      resolve: async (s, args, { core }) => {
        const revision = await revisionAt(core, s);
        return linkConnection(
          await listLinks(core, revision, { ...args, status: args.status as string | null | undefined }),
          revision,
        ) as never;
      },
    },
    RevisionLinkConnection,
  ),
);

builder.objectField(RevisionRef, "links", (t) =>
  t.connection(
    {
      type: RevisionLinkRef,
      description: "Links of this revision, in order of first appearance",
      args: linkArgs(t),
      resolve: async (r, args, { core }) =>
        linkConnection(await listLinks(core, r, { ...args, status: args.status as string | null | undefined }), r) as never,
    },
    RevisionLinkConnection,
  ),
);

builder.objectFields(PageRef, (t) => ({
  links: t.connection(
    {
      type: RevisionLinkRef,
      description: "Links appearing on this page",
      args: linkArgs(t),
      resolve: async (p, args, { core }) =>
        linkConnection(
          await listLinks(core, p.revision, { ...args, status: args.status as string | null | undefined, pageId: p.page.id }),
          p.revision,
        ) as never,
    },
    RevisionLinkConnection,
  ),
  backlinks: t.connection(
    {
      type: PageRef,
      description: "Other pages of the same revision linking to this page (or an anchor of it), in tree order",
      resolve: async (p, args, { core }) => pageConnection(core, p.revision, await pageBacklinks(core, p.revision, p.page.id, args)),
    },
    BacklinkConnection,
  ),
}));

builder.objectField(FileRef, "backlinks", (t) =>
  t.connection(
    {
      type: PageRef,
      description: "Pages of the same revision linking to (or showing) this file, in tree order",
      resolve: async (f, args, { core }) => pageConnection(core, f.revision, await fileBacklinks(core, f.revision, f.file.id, args)),
    },
    BacklinkConnection,
  ),
);
