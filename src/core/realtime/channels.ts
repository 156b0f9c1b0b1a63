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
import { badInput, notFound, quote } from "../errors.ts";
import { gitSyncInstallation } from "../git/installations.ts";
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

type Keys = (change: RowChange) => readonly (readonly string[])[];
type Open = ServedChannel["open"];

/** The change's row value `name` as a one-id key, or no key when the row has none. */
const by =
  (...names: string[]): Keys =>
  (change) => {
    const values = names.map((name) => change.row[name]);
    return values.every((value) => value !== undefined) ? [values] : [];
  };

/** As `by`, for updates only when they changed one of `fields` (inserts and deletes always). */
const when =
  (fields: readonly string[], ...names: string[]): Keys =>
  (change) =>
    change.op !== "update" || change.fields?.some((field) => fields.includes(field)) ? by(...names)(change) : [];

/** The keys of every one of `keys`. */
const both =
  (...keys: Keys[]): Keys =>
  (change) =>
    keys.flatMap((key) => key(change));

/** Whether a check passes for the caller (events of objects they may not see are not sent to them). */
const passes = (check: () => Promise<unknown>) =>
  check().then(
    () => true,
    () => false,
  );

const served = (
  kind: string,
  required: ChannelParam[],
  open: Open,
  on: ServedChannel["on"],
  more?: Pick<ServedChannel, "optional" | "visible">,
): ServedChannel => ({ kind, served: true, required, open, on, ...more });

const refused = (kind: string, required: ChannelParam[], reason: string): RefusedChannel => ({ kind, served: false, required, reason });

const orgKey = (organizationId: string): Opened => ({ key: [organizationId], organizationId });

// The opens shared by several kinds, one per shape of ids.

/** An organization's channel for callers who may do `action` there. */
const inOrganization =
  (action: Action): Open =>
  async (ctx, ids) => {
    await requireOrganization(ctx, ids.organization!, action);
    return orgKey(ids.organization!);
  };

const inSpace =
  (action: Action): Open =>
  async (ctx, ids) => {
    const { space } = await readSpace(ctx, ids.space!);
    await authorize(ctx, action, { space });
    return { key: [space.id], organizationId: space.organizationId };
  };

const inChangeRequest =
  (action: Action): Open =>
  async (ctx, ids) => {
    const { space, changeRequest } = await readChangeRequest(ctx, ids.space!, ids.changeRequest!);
    await authorize(ctx, action, { space });
    return { key: [changeRequest.id], organizationId: space.organizationId };
  };

const inSite =
  (action: Action): Open =>
  async (ctx, ids) => {
    const site = await requireSite(ctx, null, ids.site!, action);
    return { key: [site.id], organizationId: site.organizationId };
  };

/** The caller's own user channels: another user's id is answered as unknown. */
const ownUser: Open = async (ctx, ids) => {
  if (ids.user !== ctx.viewer.userId) throw notFound("user", ids.user!);
  return { key: [ids.user], organizationId: null };
};

const inTeam: Open = async (ctx, ids) => {
  const team = await readTeam(ctx, ids.organization!, ids.team!);
  return { key: [team.id], organizationId: team.organizationId };
};

/** A top-level comment of the space. */
const inComment: Open = async (ctx, ids) => {
  const comment = await readCommentOrReply(ctx, ids.comment!, "comment");
  if (comment.spaceId !== ids.space) throw notFound("comment", ids.comment!);
  const { space } = await readSpace(ctx, comment.spaceId);
  return { key: [comment.id], organizationId: space.organizationId };
};

/** A site space of the site, by its id. */
const inSiteSpace: Open = async (ctx, ids) => {
  const site = await requireSite(ctx, null, ids.site!, "site.read");
  const row = await loadReadableStructureRow(ctx, "siteSpace", ids.siteSpace!);
  if (!row || row.siteId !== site.id) throw notFound("site space", ids.siteSpace!);
  return { key: [row.id], organizationId: site.organizationId };
};

const installationOf = async (ctx: CoreContext, ids: ChannelIds) => {
  const integration = await readIntegration(ctx, ids.integration!);
  const [installation] = await loadVisibleInstallations(ctx, [ids.installation!]);
  if (!installation || installation.integrationId !== integration.id) throw notFound("installation", ids.installation!);
  return installation;
};

/** An installation of the integration, keyed by the installation, and by `also` (a space, a site) when named. */
const inInstallation =
  (also?: (ctx: CoreContext, ids: ChannelIds) => Promise<string>): Open =>
  async (ctx, ids) => {
    const installation = await installationOf(ctx, ids);
    const key = also ? [installation.id, await also(ctx, ids)] : [installation.id];
    return { key, organizationId: installation.organizationId };
  };

const inTranslation: Open = async (ctx, ids) => {
  const [translation] = await loadVisibleTranslations(ctx, [ids.translation!]);
  if (!translation) throw notFound("translation", ids.translation!);
  return { key: [translation.id], organizationId: translation.organizationId };
};

const SITE_PUBLISHING = "spaces are published through sites here: subscribe to the site's channels";
const AGENTS = "this service has no AI agents";
const MCP = "sites here have no MCP servers";

/** Columns of a site that its publishing auth is. */
const SITE_AUTH = ["visibility", "authPrivateKey", "authBackend", "authFallbackURL", "authLogoutURL"];

// ---------------------------------------------------------------------------------------------
// The table: every published kind, in the order of the spec

const S = ["space"] satisfies ChannelParam[];
const CR = ["space", "changeRequest"] satisfies ChannelParam[];
const O = ["organization"] satisfies ChannelParam[];
const SITE = ["site"] satisfies ChannelParam[];
const INSTALLATION = ["integration", "installation"] satisfies ChannelParam[];

export const CHANNELS: readonly Channel[] = [
  served("space", S, inSpace("space.read"), { Space: by("id") }),
  // A new head revision: an edit, a merge, an import, a revert, a translation run.
  served("space-content", S, inSpace("space.read"), { Space: when(["revisionId"], "id") }),
  // The space's Git Sync state (GET …/git/info): its remote and its latest operation.
  served("space-git-info", S, inSpace("space.read"), { GitSync: by("spaceId") }),
  refused("space-publishing-auth", S, SITE_PUBLISHING),
  refused("space-publishing-customization", S, SITE_PUBLISHING),
  served("space-integrations", S, inSpace("space.read"), { IntegrationSpaceInstallation: by("spaceId") }),
  served("user-api-tokens", ["user"], ownUser, { ApiToken: by("userId") }),
  served("user-organizations", ["user"], ownUser, { Member: by("userId") }),
  served("user-profile", ["user"], ownUser, { User: by("id") }),
  served("space-change-request", CR, inChangeRequest("changeRequest.read"), {
    ChangeRequest: by("id"),
    ChangeRequestReview: by("changeRequestId"),
    ChangeRequestReviewer: by("changeRequestId"),
  }),
  served("space-change-requests", S, inSpace("changeRequest.read"), { ChangeRequest: by("spaceId") }),
  served("space-change-request-reviews", CR, inChangeRequest("changeRequest.read"), {
    ChangeRequestReview: by("changeRequestId"),
    ChangeRequestReviewer: by("changeRequestId"),
  }),
  served(
    "collection",
    ["collection"],
    async (ctx, ids) => {
      const { collection } = await readCollection(ctx, ids.collection!);
      return { key: [collection.id], organizationId: collection.organizationId };
    },
    { Collection: by("id") },
  ),
  refused("collection-publishing-customization", ["collection"], SITE_PUBLISHING),
  served("organization", O, async (ctx, ids) => orgKey((await getOrganization(ctx, ids.organization!)).id), { Organization: by("id") }),
  refused("organization-agent-data", O, AGENTS),
  served("organization-link-invites", O, inOrganization("invite.manage"), { LinkInvite: by("organizationId") }),
  served("organization-members", O, inOrganization("member.list"), { Member: by("organizationId") }),
  served(
    "organization-member",
    ["organization", "user"],
    async (ctx, ids) => {
      await requireOrganization(ctx, ids.organization!, "member.read");
      return { key: [ids.organization!, ids.user!], organizationId: ids.organization! };
    },
    { Member: by("organizationId", "userId") },
  ),
  served("organization-saml", O, inOrganization("saml.manage"), { SamlProvider: by("organizationId") }),
  served("organization-teams", O, inOrganization("team.list"), { Team: by("organizationId") }),
  served("organization-team", ["organization", "team"], inTeam, { Team: by("id") }),
  served("organization-team-members", ["organization", "team"], inTeam, { TeamMember: by("teamId") }),
  served(
    "organization-team-member",
    ["organization", "member"],
    async (ctx, ids) => {
      await requireOrganization(ctx, ids.organization!, "team.read");
      if (ids.team) await readTeam(ctx, ids.organization!, ids.team);
      const key = ids.team ? [ids.organization!, ids.member!, ids.team] : [ids.organization!, ids.member!];
      return { key, organizationId: ids.organization! };
    },
    // The member's memberships of any team of the organization, and of the one team.
    { TeamMember: both(by("organizationId", "userId"), by("organizationId", "userId", "teamId")) },
    { optional: ["team"] },
  ),
  served(
    "organization-spaces",
    O,
    inOrganization("organization.read"),
    { Space: by("organizationId") },
    { visible: (ctx, change) => passes(() => readSpace(ctx, change.row.id)) },
  ),
  served(
    "organization-collections",
    O,
    inOrganization("organization.read"),
    { Collection: by("organizationId") },
    { visible: (ctx, change) => passes(() => readCollection(ctx, change.row.id)) },
  ),
  served("organization-integrations", O, inOrganization("integration.read"), { Integration: by("organizationId") }),
  served("organization-installations", O, inOrganization("integration.list"), { IntegrationInstallation: by("organizationId") }),
  served(
    "organization-sites",
    O,
    inOrganization("site.list"),
    { Site: by("organizationId") },
    { visible: (ctx, change) => passes(() => getSite(ctx, null, change.row.id)) },
  ),
  served("organization-openapi-specs", O, inOrganization("openapi.read"), {
    OpenAPISpec: by("organizationId"),
    OpenAPISpecVersion: by("organizationId"),
  }),
  served("organization-translations", O, inOrganization("translation.read"), {
    TranslationSettings: by("organizationId"),
    TranslationTarget: by("organizationId"),
  }),
  refused("organization-translations-glossary", O, "translations here have no glossary"),
  served("organization-fonts", O, inOrganization("font.read"), { CustomFont: by("organizationId") }),
  refused("organization-agent-instructions", O, AGENTS),
  served(
    "organization-change-requests",
    O,
    inOrganization("organization.read"),
    { ChangeRequest: by("organizationId") },
    { visible: async (ctx, change) => change.row.spaceId !== undefined && passes(() => readSpace(ctx, change.row.spaceId)) },
  ),
  served("space-comments", S, inSpace("comment.read"), { Comment: by("spaceId"), CommentReaction: by("spaceId") }),
  served("space-change-request-comments", CR, inChangeRequest("comment.read"), {
    Comment: by("changeRequestId"),
    CommentReaction: by("changeRequestId"),
  }),
  // The comment, its replies and reactions.
  served("space-comment", ["space", "comment"], inComment, {
    Comment: both(by("id"), by("parentId")),
    CommentReaction: both(by("commentId"), by("parentId")),
  }),
  served("space-comment-replies", ["space", "comment"], inComment, { Comment: by("parentId"), CommentReaction: by("parentId") }),
  served(
    "integration",
    ["integration"],
    async (ctx, ids) => ({ key: [(await readIntegration(ctx, ids.integration!)).id], organizationId: null }),
    { Integration: by("id") },
  ),
  served("integration-installation", INSTALLATION, inInstallation(), { IntegrationInstallation: by("id") }),
  served(
    "integration-space-installation",
    [...INSTALLATION, "space"],
    inInstallation(async (ctx, ids) => (await readSpace(ctx, ids.space!)).space.id),
    { IntegrationSpaceInstallation: by("installationId", "spaceId") },
  ),
  served("integration-space-installations", INSTALLATION, inInstallation(), { IntegrationSpaceInstallation: by("installationId") }),
  served(
    "integration-site-installation",
    [...INSTALLATION, "site"],
    inInstallation(async (ctx, ids) => (await getSite(ctx, null, ids.site!)).id),
    { IntegrationSiteInstallation: by("installationId", "siteId") },
  ),
  served("integration-site-installations", INSTALLATION, inInstallation(), { IntegrationSiteInstallation: by("installationId") }),
  refused(
    "published-content-site",
    SITE,
    "changes of what a published site shows span its spaces' content, which is not mapped to it yet: subscribe to site-structure and to space-content of its spaces",
  ),
  served("site-redirects", SITE, inSite("site.read"), { SiteRedirect: by("siteId") }),
  served("site", SITE, inSite("site.read"), { Site: by("id") }),
  refused("site-channels", SITE, "sites here have no release channels"),
  refused("site-context", SITE, AGENTS),
  served("site-customization", SITE, inSite("site.read"), { Site: when(["customization"], "id") }),
  served("site-agent-settings", SITE, inSite("site.read"), { Site: when(["agentsContext"], "id") }),
  served("site-integrations", SITE, inSite("site.read"), { IntegrationSiteInstallation: by("siteId") }),
  served("site-space", ["site", "siteSpace"], inSiteSpace, { SiteSpace: by("id") }),
  served("site-space-customization", ["site", "siteSpace"], inSiteSpace, { SiteSpace: when(["customization"], "id") }),
  served("site-structure", SITE, inSite("site.read"), {
    SiteSpace: by("siteId"),
    SiteSection: by("siteId"),
    SiteSectionGroup: by("siteId"),
  }),
  served("site-adaptive-schema", SITE, inSite("site.readAdaptiveSchema"), { Site: when(["adaptiveSchema", "adaptiveContent"], "id") }),
  served("site-publishing-auth", SITE, inSite("site.manageAccess"), { Site: when(SITE_AUTH, "id") }),
  served("site-share-links", SITE, inSite("site.manageAccess"), { SiteShareLink: by("siteId") }),
  served(
    "site-share-link",
    ["site", "siteShareLink"],
    async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.manageAccess");
      const link = await ctx.prisma.siteShareLink.findUnique({ where: { id: ids.siteShareLink! }, select: { siteId: true } });
      if (!link || link.siteId !== site.id) throw notFound("share link", ids.siteShareLink!);
      return { key: [ids.siteShareLink!], organizationId: site.organizationId };
    },
    { SiteShareLink: by("id") },
  ),
  refused("site-mcp-servers", SITE, MCP),
  refused("site-mcp-server", ["site", "siteMcpServer"], MCP),
  served(
    "site-section",
    ["site", "siteSection"],
    async (ctx, ids) => {
      const site = await requireSite(ctx, null, ids.site!, "site.read");
      const row = await loadReadableStructureRow(ctx, "section", ids.siteSection!);
      if (!row || row.siteId !== site.id) throw notFound("site section", ids.siteSection!);
      return { key: [row.id], organizationId: site.organizationId };
    },
    { SiteSection: by("id") },
  ),
  served(
    "custom-hostname",
    ["customHostname"],
    async (ctx, ids) => {
      const hostname = ids.customHostname!.toLowerCase();
      const row = await ctx.prisma.site.findUnique({ where: { hostname }, select: { id: true } });
      if (!row) throw notFound("custom hostname", ids.customHostname!);
      const site = await getSite(ctx, null, row.id).catch(() => {
        throw notFound("custom hostname", ids.customHostname!);
      });
      return { key: [hostname], organizationId: site.organizationId };
    },
    { Site: when(["hostname", "hostnameVerifiedAt", "published", "visibility"], "hostname") },
  ),
  served(
    "git-sync-installation",
    ["installation"],
    async (ctx, ids) => {
      const installation = await gitSyncInstallation(ctx, ids.installation!);
      return { key: [installation.id], organizationId: installation.organizationId };
    },
    { GitSyncInstallation: by("id") },
  ),
  // An import or export asked for, running, and ended (success, failure naming the file, timeout).
  served("space-gitsync-operation", S, inSpace("space.read"), { GitSync: when(["operation"], "spaceId") }),
  // The same events for every space the site's installation manages (GitSync.siteId, set when asked for).
  served("site-gitsync-operation", SITE, inSite("site.read"), { GitSync: when(["operation"], "siteId") }),
  served(
    "openapi-spec",
    ["openAPISpec"],
    async (ctx, ids) => {
      const [spec] = await loadVisibleSpecs(ctx, [ids.openAPISpec!]);
      if (!spec) throw notFound("OpenAPI specification", ids.openAPISpec!);
      return { key: [spec.id], organizationId: spec.organizationId };
    },
    { OpenAPISpec: by("id"), OpenAPISpecVersion: by("specId") },
  ),
  refused("subdomain", ["subdomain"], "sites here are served at their custom hostname or under the service's own URL, not at subdomains"),
  served("translation", ["translation"], inTranslation, { TranslationSettings: by("id"), TranslationTarget: by("translationId") }),
  // A run brings each target in line with the source: its synced revision moves.
  served("translation-run", ["translation"], inTranslation, {
    TranslationTarget: when(["syncedRevisionId", "untranslated"], "translationId"),
  }),
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
  if (!channel) throw badInput(`channel: unknown channel kind ${quote(kind.slice(0, 100))}`);
  if (!channel.served) throw badInput(`channel: ${quote(kind)} is not served: ${channel.reason}`);
  const allowed = new Set<string>([...channel.required, ...(channel.optional ?? [])]);
  const ids: ChannelIds = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === "channel" || value === undefined || value === null) continue;
    if (!allowed.has(name)) throw badInput(`${name}: channel ${quote(kind)} takes no ${name} (it takes ${[...allowed].join(", ")})`);
    if (typeof value !== "string") throw badInput(`${name}: must be a string`);
    const entity = PREFIX[name as ChannelParam];
    if (entity ? !(value.startsWith(`${ID_PREFIXES[entity]}_`) && ID_SHAPE.test(value)) : !NAME_SHAPE.test(value)) {
      throw badInput(
        `${name}: ${quote(value.slice(0, 100))} is not ${entity ? `a ${entity} id (${ID_PREFIXES[entity]}_…)` : "a valid name"}`,
      );
    }
    ids[name as ChannelParam] = value;
  }
  for (const name of channel.required) {
    if (ids[name] === undefined) throw badInput(`${name}: channel ${quote(kind)} needs the ${name} id`);
  }
  return { channel, ids };
}
