// Permission grants on spaces, collections and sites: who holds access (users, teams, everyone)
// and where it comes from, and the mutations that give or remove a role. A grant gives a role on
// one item (and, for a collection, everything beneath it) to one member or one team of its
// organization. `grantFieldsOf` adds the same fields and mutations to any kind of content.
import type { Collection, Site, Space } from "../generated/prisma/client.ts";
import { badInput } from "../core/errors.ts";
import {
  ACCESS_SORTS,
  ACCESS_SOURCE_KINDS,
  inviteToContent,
  listAccessAggregate,
  listTeamPermissions,
  listUserPermissions,
  setContentGrant,
  type AccessSource,
  type ContentKind,
  type TeamAccess,
  type UserAccess,
} from "../core/grants/index.ts";
import { builder } from "./builder.ts";
import { CollectionRef } from "./collections.ts";
import { enumName, MemberRole, toConnection, payloadDescription } from "./common.ts";
import { ListOrder, MemberRoleFilter } from "./members.ts";
import { UserRef } from "./organizations.ts";
import { SiteRef } from "./sites.ts";
import { SpaceRef } from "./spaces.ts";
import { TeamRef } from "./teams.ts";

const AccessSourceKind = builder.enumType("AccessSourceKind", {
  description:
    "ORGANIZATION: the organization role (an admin is admin everywhere); DEFAULT_LEVEL: a default level on the item or a collection above it, " +
    "in place of the organization role; USER: a grant to the user; TEAM: a grant to a team the user is in",
  values: Object.fromEntries(ACCESS_SOURCE_KINDS.map((kind) => [enumName(kind), { value: kind }])) as Record<
    string,
    { value: AccessSource["kind"] }
  >,
});

const AccessSort = builder.enumType("AccessSort", {
  description:
    "Order of a site's users with access: JOINEDAT when they joined the organization; LASTSEENAT their last activity " +
    "(never seen counts as least recent); NAME their display name (case-insensitive). Ties by user id",
  values: Object.fromEntries(ACCESS_SORTS.map((value) => [enumName(value), { value }])) as Record<
    string,
    { value: (typeof ACCESS_SORTS)[number] }
  >,
});

const AccessSourceRef = builder.objectRef<AccessSource>("AccessSource").implement({
  description: "One source of a role on a space, collection or site",
  fields: (t) => ({
    kind: t.field({
      description: "Where the role comes from: the organization role, a default level, or a grant (to the user or one of their teams)",
      type: AccessSourceKind,
      resolve: (s) => s.kind,
    }),
    role: t.field({ description: "The role this source gives", type: MemberRole, resolve: (s) => s.role }),
    space: t.field({
      type: SpaceRef,
      nullable: true,
      description: "The space the default level or grant is on",
      resolve: (s) => (s.on?.kind === "space" ? s.on.id : null),
    }),
    collection: t.field({
      type: CollectionRef,
      nullable: true,
      description: "The collection the default level or grant is on (the item's or one above it)",
      resolve: (s) => (s.on?.kind === "collection" ? s.on.id : null),
    }),
    site: t.field({
      type: SiteRef,
      nullable: true,
      description: "The site the grant is on",
      resolve: (s) => (s.on?.kind === "site" ? s.on.id : null),
    }),
    // The team is shown to whoever may list the item's permissions, as the grant is on the item.
    team: t.field({
      description: "The team whose grant gives the role; null for other sources",
      type: TeamRef,
      nullable: true,
      resolve: (s, _args, { core }) => (s.teamId ? core.loaders.team.load(s.teamId) : null),
    }),
  }),
});

const UserPermissionRef = builder.objectRef<UserAccess>("UserPermission").implement({
  description: "A user's effective role on a space, collection or site, and where it comes from",
  fields: (t) => ({
    user: t.field({ description: "The user", type: UserRef, resolve: (a) => a.userId }),
    role: t.field({ type: MemberRole, description: "The effective role: the highest of the sources", resolve: (a) => a.role }),
    sources: t.field({ type: [AccessSourceRef], description: "Every source of a role, highest first", resolve: (a) => a.sources }),
    joinedAt: t.field({
      type: "DateTime",
      description: "When the user joined the organization",
      resolve: (a) => a.member.joinedAt,
    }),
    lastSeenAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the user was last seen in the organization; null if never",
      resolve: (a) => a.member.lastSeenAt,
    }),
  }),
});

const TeamPermissionRef = builder.objectRef<TeamAccess>("TeamPermission").implement({
  description: "A team's role on a space, collection or site: the highest of its grants on it or on a collection above it",
  fields: (t) => ({
    team: t.field({
      description: "The team",
      type: TeamRef,
      resolve: (a, _args, { core }) => core.loaders.team.load(a.teamId).then((team) => team!),
    }),
    role: t.field({ description: "The team's highest role on the item", type: MemberRole, resolve: (a) => a.role }),
    sources: t.field({ description: "Every origin of that role, highest first", type: [AccessSourceRef], resolve: (a) => a.sources }),
  }),
});

const UserPermissionConnection = builder.connectionObject(
  { type: UserPermissionRef, name: "UserPermissionConnection" },
  { name: "UserPermissionEdge" },
);
const TeamPermissionConnection = builder.connectionObject(
  { type: TeamPermissionRef, name: "TeamPermissionConnection" },
  { name: "TeamPermissionEdge" },
);

/** `role` must be given: a role, or null to remove the grant (absence is refused, not taken as removal). */
function grantInput(input: { user?: string | null; team?: string | null; role?: string | null }) {
  if (input.role === undefined) throw badInput("role is required: a role, or null to remove the grant");
  return { user: input.user, team: input.team, role: input.role };
}

type ItemRef = typeof SpaceRef | typeof CollectionRef | typeof SiteRef;

/**
 * The permission fields of one kind of content (`kind`, its node type and the name of its id
 * field in inputs) and its mutations: `set<Type>Grant`, `inviteTo<Type>`. The inputs of a site's
 * take its `organization` too (REST paths of sites name it): another organization's site is not found.
 */
function grantFieldsOf<Item extends Space | Collection | Site>(kind: ContentKind, ref: ItemRef, typeName: "Space" | "Collection" | "Site") {
  const field = kind;
  const organizationField = (f: any): Record<string, any> =>
    kind === "site" ? { organization: f.id({ description: "When given, the site must be one of this organization's" }) } : {};
  builder.objectFields(ref as never, (t: any) => ({
    userPermissions: t.connection(
      {
        type: UserPermissionRef,
        description: `Users granted a role on the ${kind} (or a collection above it), with their effective role; by user id`,
        resolve: async (item: Item, args: any, { core }: any) => toConnection(await listUserPermissions(core, kind, item.id, args)),
      },
      UserPermissionConnection,
    ),
    teamPermissions: t.connection(
      {
        type: TeamPermissionRef,
        description: `Teams granted a role on the ${kind} (or a collection above it); by team id`,
        resolve: async (item: Item, args: any, { core }: any) => toConnection(await listTeamPermissions(core, kind, item.id, args)),
      },
      TeamPermissionConnection,
    ),
    usersWithAccess: t.connection(
      kind === "site"
        ? {
            type: UserPermissionRef,
            description:
              "Every enabled member who can access the site, with their effective role; filtered by role, search and team, " +
              "sorted by sort and order (the published site aggregate's parameters)",
            args: {
              role: t.arg({
                type: MemberRoleFilter,
                description:
                  "Only those whose effective role is this one; GUEST: the organization's guests (no organization role) granted the site",
              }),
              search: t.arg.string({ description: "Case-insensitive text in the display name or e-mail" }),
              team: t.arg.id({ description: "Only members of this team of the site's organization (not found otherwise)" }),
              sort: t.arg({ type: AccessSort, defaultValue: "joinedAt", description: "What the list is sorted by (default JOINEDAT)" }),
              order: t.arg({ type: ListOrder, defaultValue: "desc", description: "Sort direction (default DESC)" }),
            },
            resolve: async (item: Item, args: any, { core }: any) =>
              toConnection(
                await listAccessAggregate(
                  core,
                  kind,
                  item.id,
                  // The published defaults also when a variable is given as null or left out by a compiled (jit) execution.
                  { role: args.role, search: args.search, team: args.team, sort: args.sort ?? "joinedAt", order: args.order ?? "desc" },
                  args,
                ),
              ),
          }
        : {
            type: UserPermissionRef,
            description: `Every member who can access the ${kind}, with their effective role; by user id`,
            args: { role: t.arg({ type: MemberRole, description: "Only those whose effective role is this one" }) },
            resolve: async (item: Item, args: any, { core }: any) =>
              toConnection(await listAccessAggregate(core, kind, item.id, { role: args.role }, args)),
          },
      UserPermissionConnection,
    ),
  }));

  const SetGrantInput = builder.inputType(`Set${typeName}GrantInput`, {
    description: "Exactly one of user and team",
    fields: (f) => ({
      [field]: f.id({ required: true, description: `Id of the ${kind}` }),
      ...organizationField(f),
      user: f.id({ description: "A member's user id" }),
      team: f.id({ description: `A team of the ${kind}'s organization` }),
      role: f.field({
        type: MemberRole,
        description: `The role to give on the ${kind}${kind === "collection" ? " and what is beneath it" : ""}; null removes the grant (required)`,
      }),
    }),
  });
  const InviteInput = builder.inputType(`InviteTo${typeName}Input`, {
    description: "At least one user or team, at most 100 in all",
    fields: (f) => ({
      [field]: f.id({ required: true, description: `Id of the ${kind}` }),
      ...organizationField(f),
      role: f.field({ type: MemberRole, description: "The role to give (required)" }),
      users: f.stringList({
        description: "Member ids, or e-mails: an e-mail of no member adds that person to the organization as a guest",
      }),
      teams: f.idList({ description: `Teams of the ${kind}'s organization` }),
    }),
  });

  builder.mutationFields((t) => ({
    [`set${typeName}Grant`]: t.field({
      type: builder.simpleObject(`Set${typeName}GrantPayload`, {
        description: payloadDescription(`Set${typeName}GrantPayload`),
        fields: (p) => ({
          [field]: p.field({ type: ref as never, description: `The ${kind}` }),
          role: p.field({ type: MemberRole, nullable: true, description: "The role the grant gives now (null: the grant was removed)" }),
          previousRole: p.field({ type: MemberRole, nullable: true, description: "The role the grant gave before (null: there was none)" }),
        }),
      }),
      description: `Gives a member or a team a role on the ${kind} (replacing their grant there), or removes it (role null)`,
      args: { input: t.arg({ type: SetGrantInput, required: true }) },
      resolve: async (_root, { input }: any, { core }) => {
        const { item, role, previousRole } = await setContentGrant(core, kind, input[field], {
          ...grantInput(input),
          organization: input.organization,
        });
        return { [field]: item.row, role, previousRole } as never;
      },
    }),
    [`inviteTo${typeName}`]: t.field({
      type: builder.simpleObject(`InviteTo${typeName}Payload`, {
        description: payloadDescription(`InviteTo${typeName}Payload`),
        fields: (p) => ({ [field]: p.field({ type: ref as never, description: `The ${kind}, with its new grants` }) }),
      }),
      description: `Gives a role on the ${kind} to every user, e-mail and team listed, all or nothing`,
      args: { input: t.arg({ type: InviteInput, required: true }) },
      resolve: async (_root, { input }: any, { core }) => {
        const item = await inviteToContent(core, kind, input[field], {
          organization: input.organization,
          role: input.role ?? null,
          users: input.users,
          teams: input.teams,
        });
        return { [field]: item.row } as never;
      },
    }),
  }));
}

grantFieldsOf<Space>("space", SpaceRef, "Space");
grantFieldsOf<Collection>("collection", CollectionRef, "Collection");
grantFieldsOf<Site>("site", SiteRef, "Site");
