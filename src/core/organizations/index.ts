// Organizations: who may see and change one, and the rules of its fields.
import { WRITE_TRANSACTION } from "../../db/transaction.ts";
import { recordAuditEvent } from "../audit/index.ts";
import type { Organization, Prisma } from "../../generated/prisma/client.ts";
import { allows, POLICY, type Action } from "../auth/policy.ts";
import { isRole, ROLES } from "../auth/roles.ts";
import { checkMergeRules } from "../reviews/merge-rules.ts";
import type { CoreContext } from "../context.ts";
import { badInput, conflict, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs, type PageSource } from "../pagination.ts";
import { checkLength, checkUrl } from "../validate.ts";
import { checkDefaultContentSite, createSite } from "../sites/index.ts";

export * from "./read.ts";
import { requireOrganization } from "./read.ts";

export const ORGANIZATION_TYPES = ["business", "community"] as const;

/** Which of `actions` the caller may do in the organization, by name: `{ view: "openapi.read" }` → `{ view: true }`. */
export async function organizationAllows<Name extends string>(
  ctx: CoreContext,
  organizationId: string,
  actions: Record<Name, Action>,
): Promise<Record<Name, boolean>> {
  const membership = await ctx.access.membership(organizationId);
  const role = membership ? (membership.role ?? "member") : null;
  const entries = Object.entries<Action>(actions).map(([name, action]) => [name, allows(POLICY[action].least, role)]);
  return Object.fromEntries(entries) as Record<Name, boolean>;
}

/** A page of one kind of the organization's rows, oldest first, for a caller who may do `action` there. */
export async function pageOfOrganization<T extends { createdAt: Date }>(
  ctx: CoreContext,
  organizationId: string,
  action: Action,
  page: PageArgs,
  rows: PageSource<T, { organizationId: string }>,
) {
  await requireOrganization(ctx, organizationId, action);
  return paginate<T, { organizationId: string }>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where: { organizationId },
    rows,
  });
}

export function listViewerOrganizations(ctx: CoreContext, page: PageArgs) {
  const where = { members: { some: { userId: ctx.viewer.userId, disabled: false } } } satisfies Prisma.OrganizationWhereInput;
  return paginate<Organization, typeof where>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.organization,
  });
}

export interface OrganizationPatch {
  title?: string;
  emailDomains?: string[];
  hostname?: string;
  defaultRole?: string | null;
  defaultContent?: { type: string; site: string } | null;
  logo?: string | null;
  sso?: boolean;
  ai?: boolean;
  inviteLinks?: boolean;
  /** MergeRulesStandaloneConfiguration (src/core/reviews/merge-rules.ts). */
  mergeRules?: unknown;
}

const HOSTNAME = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

function checkTitle(value: string): string {
  const title = checkLength("title", value, { min: 2, max: 255 });
  // The published OrganizationTitle: `\S.*\S` (no blank title, no whitespace at either end).
  if (!/^\S.*\S$/s.test(title)) throw badInput("title must not start or end with whitespace, nor be blank");
  return title;
}

function checkEmailDomains(domains: unknown[]): string[] {
  if (domains.length > 100) throw badInput(`emailDomains lists at most 100 domains (got ${domains.length})`);
  for (const domain of domains) {
    if (typeof domain !== "string" || !DOMAIN.test(domain)) throw badInput(`emailDomains: ${quote(domain)} is not a domain name`);
  }
  return [...new Set((domains as string[]).map((d) => d.toLowerCase()))];
}

/**
 * A new organization with the caller as its admin. A user may create at most
 * ORGANIZATIONS_PER_USER_MAX organizations (409 beyond; counted under a per-user lock so parallel
 * requests cannot pass it). `withDefaultSite`: also an empty site, titled as the organization.
 */
export async function createOrganization(
  ctx: CoreContext,
  input: { title: string; emailDomains?: string[] | null; withDefaultSite?: boolean | null },
): Promise<Organization> {
  if (ctx.viewer.installationId) throw badInput("An integration's token cannot create an organization");
  const title = checkTitle(input.title);
  const emailDomains = input.emailDomains ? checkEmailDomains(input.emailDomains) : [];
  const max = ctx.organizations.maxCreatedPerUser;
  const organization = await ctx.prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`organizations-created-by:${ctx.viewer.userId}`}))::text`;
      const created = await tx.organization.count({ where: { createdById: ctx.viewer.userId } });
      if (created >= max) {
        throw conflict(`A user may create at most ${max} organizations (ORGANIZATIONS_PER_USER_MAX); you created ${created}`);
      }
      const row = await tx.organization.create({
        data: { id: newId("Organization"), title, emailDomains, createdById: ctx.viewer.userId },
      });
      await tx.member.create({ data: { organizationId: row.id, userId: ctx.viewer.userId, role: "admin" } });
      return row;
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
  ctx.loaders.organization.prime(organization.id, organization);
  if (input.withDefaultSite) await createSite(ctx, { organizationId: organization.id, title });
  return organization;
}

export async function updateOrganization(ctx: CoreContext, id: string, patch: OrganizationPatch) {
  await requireOrganization(ctx, id, "organization.update");
  const data: Prisma.OrganizationUpdateInput = {};
  if (patch.title !== undefined) {
    const title = checkLength("title", patch.title, { min: 2, max: 255 });
    if (!title.trim()) throw badInput("title must not be blank");
    data.title = title;
  }
  if (patch.emailDomains !== undefined) data.emailDomains = checkEmailDomains(patch.emailDomains);
  if (patch.hostname !== undefined) {
    checkLength("hostname", patch.hostname, { min: 3, max: 32 });
    if (!HOSTNAME.test(patch.hostname)) {
      throw badInput("hostname must use lowercase letters, digits and inner hyphens only");
    }
    data.hostname = patch.hostname;
  }
  if (patch.mergeRules !== undefined) data.mergeRules = checkMergeRules(patch.mergeRules, false) as Prisma.InputJsonValue;
  if (patch.defaultRole !== undefined) {
    if (patch.defaultRole !== null && !isRole(patch.defaultRole)) {
      throw badInput(`defaultRole must be one of ${ROLES.join(", ")} or null (got ${quote(patch.defaultRole)})`);
    }
    data.defaultRole = patch.defaultRole;
  }
  if (patch.defaultContent !== undefined) {
    data.defaultSiteId = patch.defaultContent === null ? null : await checkDefaultContentSite(ctx, id, patch.defaultContent);
  }
  if (patch.logo !== undefined) data.logo = patch.logo === null ? null : checkUrl("logo", patch.logo);
  if (patch.sso !== undefined) data.sso = patch.sso;
  if (patch.ai !== undefined) data.ai = patch.ai;
  if (patch.inviteLinks !== undefined) data.inviteLinks = patch.inviteLinks;

  if (patch.hostname !== undefined) {
    const taken = await ctx.prisma.organization.findFirst({ where: { hostname: patch.hostname, id: { not: id } } });
    if (taken) throw conflict(`hostname ${quote(patch.hostname)} is already used by another organization`);
  }
  const updated = await ctx.prisma.$transaction(async (tx) => {
    const organization = await tx.organization.update({ where: { id }, data });
    await recordAuditEvent(ctx, tx, {
      organizationId: id,
      action: "organization.settings.updated",
      target: { type: "organization", id, label: organization.title },
      payload: { fields: Object.keys(data) },
    });
    return organization;
  }, WRITE_TRANSACTION);
  ctx.loaders.organization.clear(id).prime(id, updated);
  return updated;
}
