// The realtime channels of the published API (`APIChannel` in @gitbook/api's spec: 72 kinds), written
// once: for each kind, the ids it names, whether this service serves it, who may open it (the same
// reads and actions as the queries), and which row changes raise an event on it. The rows come
// from the database's `realtime` notifications (migration 20261128000000_realtime_notify), sent
// when a transaction commits: whatever wrote them (GraphQL, REST, the CLI, integrations, a merge,
// a job).
import type { CoreContext } from "../context.ts";
import { authorize, type Action } from "../auth/policy.ts";
import { readChangeRequest } from "../change-requests/access.ts";
import { readCollection } from "../collections/index.ts";
import { readCommentOrReply } from "../comments/index.ts";
import { badInput, notFound } from "../errors.ts";
import { ID_PREFIXES, type EntityName } from "../ids.ts";
import { loadVisibleInstallations, readIntegration } from "../integrations/index.ts";
import { loadVisibleSpecs } from "../openapi/index.ts";
import { getOrganization, requireOrganization } from "../organizations/index.ts";
import { getSite, loadReadableStructureRow, requireSite } from "../sites/index.ts";
import { readSpace } from "../spaces/index.ts";
import { readTeam } from "../teams/index.ts";
import { loadVisibleTranslations } from "../translations/index.ts";

/** The ids a channel may name, as the published `APIChannel` objects name them. */
export const CHANNEL_PARAMS = [
  "space",
  "changeRequest",
  "user",
  "collection",
  "organization",
  "team",
  "member",
  "comment",
  "integration",
  "installation",
  "site",
  "siteSpace",
  "siteShareLink",
  "siteSection",
  "siteMcpServer",
  "customHostname",
  "openAPISpec",
  "subdomain",
  "translation",
  "runId",
] as const;
export type ChannelParam = (typeof CHANNEL_PARAMS)[number];
export type ChannelIds = Partial<Record<ChannelParam, string>>;

/** The prefix an id of each parameter has (ids.ts); others are names (an integration's, a hostname). */
const PREFIX: Partial<Record<ChannelParam, EntityName>> = {
  space: "Space",
  user: "User",
  collection: "Collection",
  organization: "Organization",
  team: "Team",
  member: "User",
  comment: "Comment",
  installation: "IntegrationInstallation",
  site: "Site",
  siteSpace: "SiteSpace",
  siteShareLink: "SiteShareLink",
  siteSection: "SiteSection",
  openAPISpec: "OpenAPISpec",
  translation: "TranslationSettings",
};

/** One row a committed transaction wrote, as the `realtime` notification tells it. */
export interface RowChange {
  table: string;
  op: "insert" | "update" | "delete";
  /** The row's ids (never its content): id, organizationId, spaceId, changeRequestId, parentId, … and actorId. */
  row: Readonly<Record<string, string>>;
  /** The columns an update changed (null for inserts and deletes). */
  fields: readonly string[] | null;
}

/** What opening a channel answers: the ids its events are keyed by, and the organization it is in. */
export interface Opened {
  key: readonly string[];
  organizationId: string | null;
}

export interface ServedChannel {
  kind: string;
  served: true;
  /** The ids the published channel requires, then those it allows. */
  required: readonly ChannelParam[];
  optional?: readonly ChannelParam[];
  /** 404 when the caller cannot see what the ids name (the same answer as for an unknown id), 403 without the role. */
  open(ctx: CoreContext, ids: ChannelIds): Promise<Opened>;
  /** For each table whose writes raise events on this kind: the keys (see `Opened.key`) a change raises, or none. */
  on: Readonly<Record<string, (change: RowChange) => readonly (readonly string[])[]>>;
  /**
   * For channels listing what the caller may not all see (an organization's spaces): whether the
   * caller may see the change's object; events of others are not sent to them.
   */
  visible?(ctx: CoreContext, change: RowChange): Promise<boolean>;
}

export interface RefusedChannel {
  kind: string;
  served: false;
  required: readonly ChannelParam[];
  optional?: readonly ChannelParam[];
  /** Why this service does not serve it: the domain it lacks. */
  reason: string;
}

export type Channel = ServedChannel | RefusedChannel;

// ---------------------------------------------------------------------------------------------
// Helpers for the table

/** The change's row value `name` as a one-id key, or no key when the row has none. */
const by =
  (...names: string[]) =>
  (change: RowChange): readonly (readonly string[])[] => {
    const values = names.map((name) => change.row[name]);
    return values.every((value) => value !== undefined) ? [values] : [];
  };

/** As `by`, for updates only when they changed one of `fields` (inserts and deletes always). */
const when =
  (fields: readonly string[], ...names: string[]) =>
  (change: RowChange): readonly (readonly string[])[] =>
    change.op !== "update" || change.fields?.some((field) => fields.includes(field)) ? by(...names)(change) : [];

const orgKey = (organizationId: string): Opened => ({ key: [organizationId], organizationId });

/** An organization's channel for callers who may do `action` there. */
const inOrganization = (action: Action) => async (ctx: CoreContext, ids: ChannelIds) => {
  await requireOrganization(ctx, ids.organization!, action);
  return orgKey(ids.organization!);
};

const spaceChannel = (action: Action) => async (ctx: CoreContext, ids: ChannelIds) => {
  const { space } = await readSpace(ctx, ids.space!);
  await authorize(ctx, action, { space });
  return { key: [space.id], organizationId: space.organizationId };
};

const changeRequestChannel = (action: Action) => async (ctx: CoreContext, ids: ChannelIds) => {
  const { space, changeRequest } = await readChangeRequest(ctx, ids.space!, ids.changeRequest!);
  await authorize(ctx, action, { space });
  return { key: [changeRequest.id], organizationId: space.organizationId };
};

const siteChannel = (action: Action) => async (ctx: CoreContext, ids: ChannelIds) => {
  const site = await requireSite(ctx, null, ids.site!, action);
  return { key: [site.id], organizationId: site.organizationId };
};

/** The caller's own user channels: another user's id is answered as unknown. */
const ownUser = async (ctx: CoreContext, ids: ChannelIds): Promise<Opened> => {
  if (ids.user !== ctx.viewer.userId) throw notFound("user", ids.user!);
  return { key: [ids.user], organizationId: null };
};

const installationChannel = async (ctx: CoreContext, ids: ChannelIds) => {
  const integration = await readIntegration(ctx, ids.integration!);
  const [installation] = await loadVisibleInstallations(ctx, [ids.installation!]);
  if (!installation || installation.integrationId !== integration.id) throw notFound("installation", ids.installation!);
  return installation;
};

const visibleSpace = (name: string) => async (ctx: CoreContext, change: RowChange) =>
  change.row[name] !== undefined &&
  readSpace(ctx, change.row[name]).then(
    () => true,
    () => false,
  );

const refused = (kind: string, required: ChannelParam[], reason: string, optional?: ChannelParam[]): RefusedChannel => ({
  kind,
  served: false,
  required,
  optional,
  reason,
});

const GIT = "this service has no Git synchronization";
const SITE_PUBLISHING = "spaces are published through sites here: subscribe to the site's channels";
const AGENTS = "this service has no AI agents";

/** Columns of a site that its publishing auth is. */
const SITE_AUTH = ["visibility", "authPrivateKey", "authBackend", "authFallbackURL", "authLogoutURL"];

// ---------------------------------------------------------------------------------------------
// The table: every published kind, in the order of the spec

export const CHANNELS: readonly Channel[] = [
  {
    kind: "space",
    served: true,
    required: ["space"],
    open: spaceChannel("space.read"),
    on: { Space: by("id") },
  },
  {
    kind: "space-content",
    served: true,
    required: ["space"],
    open: spaceChannel("space.read"),
    // A new head revision: an edit, a merge, an import, a revert, a translation run.
    on: { Space: when(["revisionId"], "id") },
  },
  refused("space-git-info", ["space"], GIT),
  refused("space-publishing-auth", ["space"], SITE_PUBLISHING),
  refused("space-publishing-customization", ["space"], SITE_PUBLISHING),
  {
    kind: "space-integrations",
    served: true,
    required: ["space"],
    open: spaceChannel("space.read"),
    on: { IntegrationSpaceInstallation: by("spaceId") },
  },
  { kind: "user-api-tokens", served: true, required: ["user"], open: ownUser, on: { ApiToken: by("userId") } },
  { kind: "user-organizations", served: true, required: ["user"], open: ownUser, on: { Member: by("userId") } },
  { kind: "user-profile", served: true, required: ["user"], open: ownUser, on: { User: by("id") } },
  {
    kind: "space-change-request",
    served: true,
    required: ["space", "changeRequest"],
    open: changeRequestChannel("changeRequest.read"),
    on: { ChangeRequest: by("id"), ChangeRequestReview: by("changeRequestId"), ChangeRequestReviewer: by("changeRequestId") },
  },
  {
    kind: "space-change-requests",
    served: true,
    required: ["space"],
    open: spaceChannel("changeRequest.read"),
    on: { ChangeRequest: by("spaceId") },
  },
  {
    kind: "space-change-request-reviews",
    served: true,
    required: ["space", "changeRequest"],
    open: changeRequestChannel("changeRequest.read"),
    on: { ChangeRequestReview: by("changeRequestId"), ChangeRequestReviewer: by("changeRequestId") },
  },
  {
    kind: "collection",
    served: true,
    required: ["collection"],
    open: async (ctx, ids) => {
      const { collection } = await readCollection(ctx, ids.collection!);
      return { key: [collection.id], organizationId: collection.organizationId };
    },
    on: { Collection: by("id") },
  },
  refused("collection-publishing-customization", ["collection"], SITE_PUBLISHING),
  {
    kind: "organization",
    served: true,
    required: ["organization"],
    open: async (ctx, ids) => orgKey((await getOrganization(ctx, ids.organization!)).id),
    on: { Organization: by("id") },
  },
  refused("organization-agent-data", ["organization"], AGENTS),
  {
    kind: "organization-link-invites",
    served: true,
    required: ["organization"],
    open: inOrganization("invite.manage"),
    on: { LinkInvite: by("organizationId") },
  },
  {
    kind: "organization-members",
    served: true,
    required: ["organization"],
    open: inOrganization("member.list"),
    on: { Member: by("organizationId") },
  },
  {
    kind: "organization-member",
    served: true,
    required: ["organization", "user"],
    open: async (ctx, ids) => {
      await requireOrganization(ctx, ids.organization!, "member.read");
      return { key: [ids.organization!, ids.user!], organizationId: ids.organization! };
    },
    on: { Member: by("organizationId", "userId") },
  },
  {
    kind: "organization-saml",
    served: true,
    required: ["organization"],
    open: inOrganization("saml.manage"),
    on: { SamlProvider: by("organizationId") },
  },
  {
    kind: "organization-teams",
    served: true,
    required: ["organization"],
    open: inOrganization("team.list"),
    on: { Team: by("organizationId") },
  },
  {
    kind: "organization-team",
    served: true,
    required: ["organization", "team"],
    open: async (ctx, ids) => {
      const team = await readTeam(ctx, ids.organization!, ids.team!);
      return { key: [team.id], organizationId: team.organizationId };
    },
    on: { Team: by("id") },
  },
  {
    kind: "organization-team-members",
    served: true,
    required: ["organization", "team"],
    open: async (ctx, ids) => {
      const team = await readTeam(ctx, ids.organization!, ids.team!);
      return { key: [team.id], organizationId: team.organizationId };
    },
    on: { TeamMember: by("teamId") },
  },
  {
    kind: "organization-team-member",
    served: true,
    required: ["organization", "member"],
    optional: ["team"],
    open: async (ctx, ids) => {
      await requireOrganization(ctx, ids.organization!, "team.read");
      if (ids.team) await readTeam(ctx, ids.organization!, ids.team);
      const key = ids.team ? [ids.organization!, ids.member!, ids.team] : [ids.organization!, ids.member!];
      return { key, organizationId: ids.organization! };
    },
    // The member's memberships of any team of the organization, and of the one team.
    on: { TeamMember: (change) => [...by("organizationId", "userId")(change), ...by("organizationId", "userId", "teamId")(change)] },
  },
  {
    kind: "organization-spaces",
    served: true,
    required: ["organization"],
    open: inOrganization("organization.read"),
    on: { Space: by("organizationId") },
    visible: visibleSpace("id"),
  },
  {
    kind: "organization-collections",
    served: true,
    required: ["organization"],
    open: inOrganization("organization.read"),
    on: { Collection: by("organizationId") },
    visible: async (ctx, change) =>
      readCollection(ctx, change.row.id).then(
        () => true,
        () => false,
      ),
  },
  {
    kind: "organization-integrations",
    served: true,
    required: ["organization"],
    open: inOrganization("integration.read"),
    on: { Integration: by("organizationId") },
  },
  {
    kind: "organization-installations",
    served: true,
    required: ["organization"],
    open: inOrganization("integration.list"),
    on: { IntegrationInstallation: by("organizationId") },
  },
  {
    kind: "organization-sites",
    served: true,
    required: ["organization"],
    open: inOrganization("site.list"),
    on: { Site: by("organizationId") },
    visible: async (ctx, change) =>
      getSite(ctx, null, change.row.id).then(
        () => true,
        () => false,
      ),
  },
  {
    kind: "organization-openapi-specs",
    served: true,
    required: ["organization"],
    open: inOrganization("openapi.read"),
    on: { OpenAPISpec: by("organizationId"), OpenAPISpecVersion: by("organizationId") },
  },
  {
    kind: "organization-translations",
    served: true,
    required: ["organization"],
    open: inOrganization("translation.read"),
    on: { TranslationSettings: by("organizationId"), TranslationTarget: by("organizationId") },
  },
  refused("organization-translations-glossary", ["organization"], "translations here have no glossary"),
  refused("organization-fonts", ["organization"], "this service has no custom fonts"),
  refused("organization-agent-instructions", ["organization"], AGENTS),
  {
    kind: "organization-change-requests",
    served: true,
    required: ["organization"],
    open: inOrganization("organization.read"),
    on: { ChangeRequest: by("organizationId") },
    visible: visibleSpace("spaceId"),
  },
  {
    kind: "space-comments",
    served: true,
    required: ["space"],
    open: spaceChannel("comment.read"),
    on: { Comment: by("spaceId"), CommentReaction: by("spaceId") },
  },
  {
    kind: "space-change-request-comments",
    served: true,
    required: ["space", "changeRequest"],
    open: changeRequestChannel("comment.read"),
    on: { Comment: by("changeRequestId"), CommentReaction: by("changeRequestId") },
  },
  {
    kind: "space-comment",
    served: true,
    required: ["space", "comment"],
    open: async (ctx, ids) => {
      const comment = await readCommentOrReply(ctx, ids.comment!, "comment");
      if (comment.spaceId !== ids.space) throw notFound("comment", ids.comment!);
      const { space } = await readSpace(ctx, comment.spaceId);
      return { key: [comment.id], organizationId: space.organizationId };
    },
    // The comment, its replies and reactions.
    on: {
      Comment: (change) => [...by("id")(change), ...by("parentId")(change)],
      CommentReaction: (change) => [...by("commentId")(change), ...by("parentId")(change)],
    },
  },
  {
    kind: "space-comment-replies",
    served: true,
    required: ["space", "comment"],
    open: async (ctx, ids) => {
      const comment = await readCommentOrReply(ctx, ids.comment!, "comment");
      if (comment.spaceId !== ids.space) throw notFound("comment", ids.comment!);
      const { space } = await readSpace(ctx, comment.spaceId);
      return { key: [comment.id], organizationId: space.organizationId };
    },
    on: { Comment: by("parentId"), CommentReaction: by("parentId") },
  },
  {
    kind: "integration",
    served: true,
    required: ["integration"],
    open: async (ctx, ids) => {
      const integration = await readIntegration(ctx, ids.integration!);
      return { key: [integration.id], organizationId: null };
    },
    on: { Integration: by("id") },
  },
  {
    kind: "integration-installation",
    served: true,
    required: ["integration", "installation"],
    open: async (ctx, ids) => {
      const installation = await installationChannel(ctx, ids);
      return { key: [installation.id], organizationId: installation.organizationId };
    },
    on: { IntegrationInstallation: by("id") },
  },
  {
    kind: "integration-space-installation",
    served: true,
    required: ["integration", "installation", "space"],
    open: async (ctx, ids) => {
      const installation = await installationChannel(ctx, ids);
      const { space } = await readSpace(ctx, ids.space!);
      return { key: [installation.id, space.id], organizationId: installation.organizationId };
    },
    on: { IntegrationSpaceInstallation: by("installationId", "spaceId") },
  },
  {
    kind: "integration-space-installations",
    served: true,
    required: ["integration", "installation"],
    open: async (ctx, ids) => {
      const installation = await installationChannel(ctx, ids);
      return { key: [installation.id], organizationId: installation.organizationId };
    },
    on: { IntegrationSpaceInstallation: by("installationId") },
  },
  {
    kind: "integration-site-installation",
    served: true,
    required: ["integration", "installation", "site"],
    open: async (ctx, ids) => {
      const installation = await installationChannel(ctx, ids);
      const site = await getSite(ctx, null, ids.site!);
      return { key: [installation.id, site.id], organizationId: installation.organizationId };
    },
    on: { IntegrationSiteInstallation: by("installationId", "siteId") },
  },
  {
    kind: "integration-site-installations",
    served: true,
    required: ["integration", "installation"],
    open: async (ctx, ids) => {
      const installation = await installationChannel(ctx, ids);
      return { key: [installation.id], organizationId: installation.organizationId };
    },
    on: { IntegrationSiteInstallation: by("installationId") },
  },
  refused(
    "published-content-site",
    ["site"],
    "changes of what a published site shows span its spaces' content, which is not mapped to it yet: subscribe to site-structure and to space-content of its spaces",
  ),
  refused("site-redirects", ["site"], "sites here have no redirects"),
  {
    kind: "site",
    served: true,
    required: ["site"],
    open: siteChannel("site.read"),
    on: { Site: by("id") },
  },
  refused("site-channels", ["site"], "sites here have no release channels"),
  refused("site-context", ["site"], AGENTS),
  {
    kind: "site-customization",
    served: true,
    required: ["site"],
    open: siteChannel("site.read"),
    on: { Site: when(["customization"], "id") },
  },
  {
    kind: "site-agent-settings",
    served: true,
    required: ["site"],
    open: siteChannel("site.read"),
    on: { Site: when(["agentsContext"], "id") },
  },
  {
    kind: "site-integrations",
    served: true,
    required: ["site"],
    open: siteChannel("site.read"),
    on: { IntegrationSiteInstallation: by("siteId") },
  },
  {
    kind: "site-space",
    served: true,
    required: ["site", "siteSpace"],
    open: async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.read");
      const row = await loadReadableStructureRow(ctx, "siteSpace", ids.siteSpace!);
      if (!row || row.siteId !== site.id) throw notFound("site space", ids.siteSpace!);
      return { key: [row.id], organizationId: site.organizationId };
    },
    on: { SiteSpace: by("id") },
  },
  {
    kind: "site-space-customization",
    served: true,
    required: ["site", "siteSpace"],
    open: async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.read");
      const row = await loadReadableStructureRow(ctx, "siteSpace", ids.siteSpace!);
      if (!row || row.siteId !== site.id) throw notFound("site space", ids.siteSpace!);
      return { key: [row.id], organizationId: site.organizationId };
    },
    on: { SiteSpace: when(["customization"], "id") },
  },
  {
    kind: "site-structure",
    served: true,
    required: ["site"],
    open: siteChannel("site.read"),
    on: { SiteSpace: by("siteId"), SiteSection: by("siteId"), SiteSectionGroup: by("siteId") },
  },
  {
    kind: "site-adaptive-schema",
    served: true,
    required: ["site"],
    open: siteChannel("site.readAdaptiveSchema"),
    on: { Site: when(["adaptiveSchema", "adaptiveContent"], "id") },
  },
  {
    kind: "site-publishing-auth",
    served: true,
    required: ["site"],
    open: siteChannel("site.manageAccess"),
    on: { Site: when(SITE_AUTH, "id") },
  },
  {
    kind: "site-share-links",
    served: true,
    required: ["site"],
    open: siteChannel("site.manageAccess"),
    on: { SiteShareLink: by("siteId") },
  },
  {
    kind: "site-share-link",
    served: true,
    required: ["site", "siteShareLink"],
    open: async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.manageAccess");
      const link = await ctx.prisma.siteShareLink.findUnique({ where: { id: ids.siteShareLink! }, select: { siteId: true } });
      if (!link || link.siteId !== site.id) throw notFound("share link", ids.siteShareLink!);
      return { key: [ids.siteShareLink!], organizationId: site.organizationId };
    },
    on: { SiteShareLink: by("id") },
  },
  refused("site-mcp-servers", ["site"], "sites here have no MCP servers"),
  refused("site-mcp-server", ["site", "siteMcpServer"], "sites here have no MCP servers"),
  {
    kind: "site-section",
    served: true,
    required: ["site", "siteSection"],
    open: async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.read");
      const row = await loadReadableStructureRow(ctx, "section", ids.siteSection!);
      if (!row || row.siteId !== site.id) throw notFound("site section", ids.siteSection!);
      return { key: [row.id], organizationId: site.organizationId };
    },
    on: { SiteSection: by("id") },
  },
  {
    kind: "custom-hostname",
    served: true,
    required: ["customHostname"],
    open: async (ctx, ids) => {
      const hostname = ids.customHostname!.toLowerCase();
      const row = await ctx.prisma.site.findUnique({ where: { hostname }, select: { id: true } });
      if (!row) throw notFound("custom hostname", ids.customHostname!);
      const site = await getSite(ctx, null, row.id).catch(() => {
        throw notFound("custom hostname", ids.customHostname!);
      });
      return { key: [hostname], organizationId: site.organizationId };
    },
    on: { Site: when(["hostname", "published", "visibility"], "hostname") },
  },
  refused("git-sync-installation", ["installation"], GIT),
  refused("space-gitsync-operation", ["space"], GIT),
  refused("site-gitsync-operation", ["site"], GIT),
  {
    kind: "openapi-spec",
    served: true,
    required: ["openAPISpec"],
    open: async (ctx, ids) => {
      const [spec] = await loadVisibleSpecs(ctx, [ids.openAPISpec!]);
      if (!spec) throw notFound("OpenAPI specification", ids.openAPISpec!);
      return { key: [spec.id], organizationId: spec.organizationId };
    },
    on: { OpenAPISpec: by("id"), OpenAPISpecVersion: by("specId") },
  },
  refused("subdomain", ["subdomain"], "sites here are served at their custom hostname or under the service's own URL, not at subdomains"),
  {
    kind: "translation",
    served: true,
    required: ["translation"],
    open: async (ctx, ids) => {
      const [translation] = await loadVisibleTranslations(ctx, [ids.translation!]);
      if (!translation) throw notFound("translation", ids.translation!);
      return { key: [translation.id], organizationId: translation.organizationId };
    },
    on: { TranslationSettings: by("id"), TranslationTarget: by("translationId") },
  },
  {
    kind: "translation-run",
    served: true,
    required: ["translation"],
    open: async (ctx, ids) => {
      const [translation] = await loadVisibleTranslations(ctx, [ids.translation!]);
      if (!translation) throw notFound("translation", ids.translation!);
      return { key: [translation.id], organizationId: translation.organizationId };
    },
    // A run brings each target in line with the source: its synced revision moves.
    on: { TranslationTarget: when(["syncedRevisionId", "untranslated"], "translationId") },
  },
  refused(
    "import-run",
    ["runId"],
    "an import here runs within its request (its answer is the import's result), not as a run to follow; follow space-content of the space imported into",
  ),
];

export const CHANNELS_BY_KIND: ReadonlyMap<string, Channel> = new Map(CHANNELS.map((channel) => [channel.kind, channel]));

/** The served kinds raised by writes of each table. */
export const KINDS_BY_TABLE: ReadonlyMap<string, readonly ServedChannel[]> = (() => {
  const index = new Map<string, ServedChannel[]>();
  for (const channel of CHANNELS) {
    if (!channel.served) continue;
    for (const table of Object.keys(channel.on)) {
      let list = index.get(table);
      if (!list) index.set(table, (list = []));
      list.push(channel);
    }
  }
  return index;
})();

/** The key of a channel's subscribers: its kind and the ids `open` answered. */
export const channelKey = (kind: string, key: readonly string[]) => `${kind}|${key.join("|")}`;

const ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_SHAPE = /^[A-Za-z0-9._:-]{1,253}$/;

/**
 * Checks a channel as given (kind and ids) before anything is read: 400 naming the field for an
 * unknown kind, a kind this service does not serve (with why), a missing id, an id not of its kind
 * (`space: "org_…"`), an id the channel does not take. Answers the served channel.
 */
export function checkChannel(input: { channel?: unknown } & Record<string, unknown>): { channel: ServedChannel; ids: ChannelIds } {
  const kind = input.channel;
  if (typeof kind !== "string" || kind === "") throw badInput("channel: a channel kind is required (e.g. space-content)");
  const channel = CHANNELS_BY_KIND.get(kind);
  if (!channel) throw badInput(`channel: unknown channel kind "${kind.slice(0, 100)}"`);
  if (!channel.served) throw badInput(`channel: "${kind}" is not served: ${channel.reason}`);
  const allowed = new Set<string>([...channel.required, ...(channel.optional ?? [])]);
  const ids: ChannelIds = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === "channel" || value === undefined || value === null) continue;
    if (!allowed.has(name)) throw badInput(`${name}: channel "${kind}" takes no ${name} (it takes ${[...allowed].join(", ")})`);
    if (typeof value !== "string") throw badInput(`${name}: must be a string`);
    const entity = PREFIX[name as ChannelParam];
    if (entity ? !(value.startsWith(`${ID_PREFIXES[entity]}_`) && ID_SHAPE.test(value)) : !NAME_SHAPE.test(value)) {
      throw badInput(`${name}: "${value.slice(0, 100)}" is not ${entity ? `a ${entity} id (${ID_PREFIXES[entity]}_…)` : "a valid name"}`);
    }
    ids[name as ChannelParam] = value;
  }
  for (const name of channel.required) {
    if (ids[name] === undefined) throw badInput(`${name}: channel "${kind}" needs the ${name} id`);
  }
  return { channel, ids };
}
