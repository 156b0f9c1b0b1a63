// The permission matrix: every operation of the service, the scope its role is taken on and the
// least role it needs. `authorize` is the one place that enforces it, for GraphQL and REST alike
// (REST routes run GraphQL operations, whose resolvers call src/core, which calls `authorize`).
// The permission table of docs/permissions.md is printed from this one (`npm run schema`; a test checks it).
import type { Collection, Site, Space } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { DomainError, forbidden } from "../errors.ts";
import { atLeast, type Role } from "./roles.ts";

/**
 * - organization: the caller's organization role; `member` admits every member, guests included.
 * - collection / space: the caller's effective role on it (organization role, default levels
 *   and grants; see permissions.ts).
 * - site: the caller's role on the site: the organization role, raised by grants on the site.
 * - team: organization admins, and the team's owners (`owner`).
 */
export type Scope = "organization" | "collection" | "space" | "site" | "team";
export type Least = Role | "member" | "owner";

export interface Rule {
  scope: Scope;
  least: Least;
  /** What the operation does, as "to …" in a refusal. */
  does: string;
  /**
   * Site rules only: the integration scopes (any one of them) that let an installation's token do
   * it on a site its installation is on. Without them a token may not (403); on other sites it sees
   * nothing (404). Installation tokens hold no role on sites.
   */
  tokenScopes?: readonly string[];
}

export const POLICY = {
  "organization.read": { scope: "organization", least: "member", does: "read the organization" },
  "organization.update": { scope: "organization", least: "admin", does: "change the organization's settings" },
  "organization.ping": { scope: "organization", least: "member", does: "record activity in the organization" },
  "organization.createContent": { scope: "organization", least: "create", does: "create content at the top level" },
  "organization.uploadFile": { scope: "organization", least: "edit", does: "upload files to the organization's storage" },
  "importRun.read": { scope: "organization", least: "read", does: "read the organization's import runs" },
  "organization.transferContent": { scope: "organization", least: "admin", does: "transfer content to or from the organization" },
  "audit.read": { scope: "organization", least: "admin", does: "read the organization's audit log" },

  "member.list": { scope: "organization", least: "read", does: "list the organization's members" },
  "member.read": { scope: "organization", least: "read", does: "read a member" },
  "member.update": { scope: "organization", least: "admin", does: "change a member's role" },
  "member.remove": { scope: "organization", least: "admin", does: "remove a member" },
  "member.setSso": { scope: "organization", least: "admin", does: "make a member an SSO member" },
  "member.invite": { scope: "organization", least: "admin", does: "invite people" },
  "invite.manage": { scope: "organization", least: "admin", does: "manage invite links" },

  "team.list": { scope: "organization", least: "read", does: "list the organization's teams" },
  "team.read": { scope: "organization", least: "read", does: "read a team" },
  "team.create": { scope: "organization", least: "admin", does: "create a team" },
  "team.update": { scope: "team", least: "owner", does: "rename the team" },
  "team.delete": { scope: "organization", least: "admin", does: "delete a team" },
  "team.manageMembers": { scope: "team", least: "owner", does: "change the team's members" },

  "saml.manage": { scope: "organization", least: "admin", does: "manage SAML providers" },
  "sso.list": { scope: "organization", least: "member", does: "list the organization's SSO logins" },

  "openapi.read": { scope: "organization", least: "read", does: "read the organization's OpenAPI specifications and their versions" },
  "openapi.manage": { scope: "organization", least: "create", does: "publish, refresh, change and delete OpenAPI specifications" },

  "translation.read": { scope: "organization", least: "read", does: "read the organization's translations" },
  "translation.manage": { scope: "organization", least: "create", does: "create, change and delete translations and their target spaces" },
  "translation.run": { scope: "organization", least: "edit", does: "bring a translation's target spaces in line with its source" },

  "font.read": { scope: "organization", least: "read", does: "read the organization's custom fonts" },
  "font.manage": { scope: "organization", least: "admin", does: "create, change and delete the organization's custom fonts" },

  "integration.read": { scope: "organization", least: "member", does: "read the organization's private integrations" },
  "integration.manage": {
    scope: "organization",
    least: "admin",
    does: "publish, change and delete the organization's integrations, read their events, use development mode",
  },
  "integration.list": {
    scope: "organization",
    least: "read",
    does: "list the integrations available to the organization and what is installed in it",
  },
  "integration.install": {
    scope: "organization",
    least: "admin",
    does: "install integrations in the organization, configure them, issue their tokens, uninstall them",
  },
  "integration.installOnSite": { scope: "site", least: "admin", does: "install an integration on the site" },
  "integration.installOnSpace": { scope: "space", least: "admin", does: "install an integration on the space" },
  "integration.task": { scope: "organization", least: "admin", does: "queue tasks for the organization's integrations' scripts" },
  "integration.render": { scope: "space", least: "read", does: "render an integration's blocks in the space" },

  "collection.read": { scope: "collection", least: "read", does: "read the collection" },
  "collection.createInside": { scope: "collection", least: "create", does: "create content in the collection" },
  "collection.update": { scope: "collection", least: "admin", does: "change the collection" },
  "collection.delete": { scope: "collection", least: "admin", does: "delete the collection" },
  "collection.move": { scope: "collection", least: "admin", does: "move the collection" },
  "collection.transfer": { scope: "collection", least: "admin", does: "transfer the collection" },
  "collection.grant": { scope: "collection", least: "admin", does: "change who can access the collection" },
  "collection.listPermissions": { scope: "collection", least: "read", does: "see who can access the collection and why" },

  "space.read": { scope: "space", least: "read", does: "read the space" },
  "space.rename": { scope: "space", least: "edit", does: "change the space's title or emoji" },
  "space.configure": { scope: "space", least: "admin", does: "change the space's edit mode, default level or merge rules" },
  "space.editContent": { scope: "space", least: "edit", does: "edit the space's content" },
  "space.duplicate": { scope: "space", least: "create", does: "duplicate the space (a new space beside it)" },
  "space.delete": { scope: "space", least: "admin", does: "delete the space" },
  "space.restore": { scope: "space", least: "admin", does: "restore the space" },
  "space.move": { scope: "space", least: "admin", does: "move the space" },
  "space.transfer": { scope: "space", least: "admin", does: "transfer the space" },
  "space.grant": { scope: "space", least: "admin", does: "change who can access the space" },
  "space.listPermissions": { scope: "space", least: "read", does: "see who can access the space and why" },

  "changeRequest.read": { scope: "space", least: "read", does: "read the space's change requests" },
  "changeRequest.create": { scope: "space", least: "edit", does: "open a change request in the space" },
  "changeRequest.update": { scope: "space", least: "edit", does: "change a change request's subject or status" },
  "changeRequest.editContent": { scope: "space", least: "edit", does: "edit the content of a change request" },
  "changeRequest.updateFromSpace": { scope: "space", least: "edit", does: "bring the space's newest content into a change request" },
  "changeRequest.merge": { scope: "space", least: "review", does: "merge a change request into the space" },
  "changeRequest.review": { scope: "space", least: "review", does: "review a change request (not your own)" },
  "changeRequest.requestReview": { scope: "space", least: "edit", does: "ask members to review a change request" },
  "changeRequest.updateConversation": { scope: "space", least: "edit", does: "rename an agent conversation of a change request" },
  "changeRequest.deleteConversation": { scope: "space", least: "edit", does: "delete an agent conversation of a change request" },

  "comment.read": { scope: "space", least: "read", does: "read the comments of the space and its change requests" },
  "comment.post": { scope: "space", least: "comment", does: "comment or reply in the space and its change requests" },
  "comment.react": { scope: "space", least: "comment", does: "react to a comment or reply" },
  "comment.resolve": { scope: "space", least: "comment", does: "resolve or reopen a comment" },
  "comment.editOwn": { scope: "space", least: "comment", does: "edit a comment or reply (your own; admins: any)" },
  "comment.deleteOwn": { scope: "space", least: "comment", does: "delete a comment or reply (your own; admins: any)" },

  "site.list": { scope: "organization", least: "member", does: "list the organization's sites (a guest: those granted to them)" },
  "site.read": { scope: "site", least: "read", does: "read the site", tokenScopes: ["site:metadata:read"] },
  "site.create": { scope: "organization", least: "create", does: "create a site" },
  "site.editStructure": { scope: "site", least: "create", does: "change the site's spaces, sections and section groups" },
  "site.configure": { scope: "site", least: "admin", does: "change the site's settings and customization" },
  "site.readAdaptiveSchema": {
    scope: "site",
    least: "read",
    does: "read the site's adaptive schema and its template conditions",
    tokenScopes: ["site:adaptive:read", "site:adaptive:write"],
  },
  "site.updateAdaptiveSchema": {
    scope: "site",
    least: "admin",
    does: "change the site's adaptive schema",
    tokenScopes: ["site:adaptive:write"],
  },
  "site.publish": { scope: "site", least: "admin", does: "publish or unpublish the site" },
  "site.manageAccess": { scope: "site", least: "admin", does: "manage the site's share links and publishing auth" },
  "site.grant": { scope: "site", least: "admin", does: "change who can access the site" },
  "site.listPermissions": { scope: "site", least: "read", does: "see who can access the site and why" },
  "site.delete": { scope: "site", least: "admin", does: "delete the site" },
  "site.trackInsights": { scope: "site", least: "read", does: "record events of the site's readers" },
  "site.readInsights": {
    scope: "site",
    least: "edit",
    does: "read the site's insights (aggregated events, visitor segments)",
    tokenScopes: ["site:insights:read"],
  },
} satisfies Record<string, Rule>;

export type Action = keyof typeof POLICY;

export type Target =
  | { organizationId: string }
  | { collection: Collection }
  | { space: Space }
  | { site: Site }
  | { team: { id: string; organizationId: string } };

/** Does a caller holding `held` (null: nothing) pass `least`? */
export function allows(least: Least, held: Role | "member" | "owner" | null): boolean {
  if (held === null) return false;
  if (least === "member") return true;
  if (least === "owner") return held === "owner" || held === "admin";
  return held !== "member" && held !== "owner" && atLeast(held, least);
}

async function heldOn(ctx: CoreContext, scope: Scope, target: Target): Promise<Role | "member" | "owner" | null> {
  if ("space" in target) return ctx.access.roleOnSpace(target.space);
  if ("collection" in target) return ctx.access.roleOnCollection(target.collection);
  if ("site" in target) return ctx.access.roleOnSite(target.site);
  const organizationId = "team" in target ? target.team.organizationId : target.organizationId;
  const membership = await ctx.access.membership(organizationId);
  if (!membership) return null;
  if (scope === "team" && "team" in target && membership.role !== "admin") {
    return (await ctx.access.teamRole(target.team.id)) === "owner" ? "owner" : null;
  }
  return membership.role ?? "member";
}

/**
 * Refuses (403) when the caller lacks the role `action` needs on `target`. Whether the caller
 * may see the target at all (else 404) is checked before, where the target is loaded.
 */
export async function authorize(ctx: CoreContext, action: Action, target: Target): Promise<void> {
  const rule: Rule = POLICY[action];
  if (ctx.viewer.installationId && "site" in target) {
    const scopes = await ctx.access.siteScopes(target.site);
    if (scopes && rule.tokenScopes?.some((scope) => scopes.includes(scope))) return;
    throw forbidden(
      rule.tokenScopes
        ? `This installation's token needs the integration scope ${rule.tokenScopes.join(" or ")} to ${rule.does}`
        : `An installation's token may not ${rule.does}`,
    );
  }
  if (allows(rule.least, await heldOn(ctx, rule.scope, target))) return;
  const who =
    rule.least === "owner"
      ? "to be an owner of this team or an organization admin"
      : rule.least === "member"
        ? "to be a member of this organization"
        : `the ${rule.least} role ${rule.scope === "organization" ? "in this organization" : `on this ${rule.scope}`}`;
  throw forbidden(`You need ${who} to ${rule.does}`);
}

/** Whether the caller may do `action` on `target` (what `authorize` would allow). */
export async function may(ctx: CoreContext, action: Action, target: Target): Promise<boolean> {
  try {
    await authorize(ctx, action, target);
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === "FORBIDDEN") return false;
    throw error;
  }
}

/** The matrix as a Markdown table (printed into docs/permissions.md), then what installation tokens may do on sites. */
export function policyTable(): string {
  const rules: [string, Rule][] = Object.entries(POLICY);
  const rows = rules.map(([action, rule]) => `| \`${action}\` | ${rule.does} | ${rule.scope} | ${rule.least} |`);
  const tokens = rules
    .filter(([, rule]) => rule.tokenScopes)
    .map(([action, rule]) => `| \`${action}\` | ${rule.tokenScopes!.map((scope) => `\`${scope}\``).join(" or ")} |`);
  return [
    "| Operation | What it does | Role taken on | Least role |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "An installation's token holds no role on sites. On a site its installation is on (a site installation, or every site of",
    "the organization with `site_selection: all`) it may do only these, each with one of the integration's scopes; anything",
    "else there is 403, and other sites are 404:",
    "",
    "| Operation | Integration scope |",
    "| --- | --- |",
    ...tokens,
  ].join("\n");
}
