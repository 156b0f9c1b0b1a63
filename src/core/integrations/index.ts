// Integrations: publishing (a new version each time), visibility, installations in organizations
// and on spaces and sites, their configuration, and the events they cause (src/core/integrations/
// events.ts delivers them). Rules only: no GraphQL, no HTTP.
//
// - An integration is owned by an organization; its admins publish, change, delete it, read its
//   events and put it in development mode (`integration.manage`).
// - `public` and `unlisted` integrations can be read by anyone with a token (`unlisted` is not
//   listed); a `private` one only by members of its organization, and installed only there.
// - Installing in an organization needs its admins (`integration.install`); on a space, the
//   space's admins (`integration.installOnSpace`); on a site, the organization's admins.
// - `target` says where it may be installed: `all`, `organization` (no spaces or sites),
//   `space` (spaces only), `site` (sites only).
import { recordAuditEvent } from "../audit/index.ts";
import { createHash, randomBytes } from "node:crypto";
import type {
  Integration,
  IntegrationEvent,
  IntegrationInstallation,
  IntegrationSiteInstallation,
  IntegrationSpaceInstallation,
  Prisma,
} from "../../generated/prisma/client.ts";
import { allows, authorize, POLICY } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import type { Transaction } from "../../db/transaction.ts";
import { badInput, conflict, DomainError, forbidden, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { getOrganization, requireOrganization } from "../organizations/index.ts";
import { type Page, type PageArgs, type PageSource, paginate } from "../pagination.ts";
import { requireSite } from "../sites/index.ts";
import { requireSpace } from "../spaces/index.ts";
import { checkLength, checkNoControlCharacters, checkOneOf } from "../validate.ts";
import { checkConfiguration, type ConfigurationSchema } from "./configuration.ts";
import { installedWhere, type Manifest, manifestOf } from "./installed.ts";

export const INTEGRATION_NAME_PATTERN = /^[a-zA-Z0-9-_.]+$/;
export const INTEGRATION_NAME_MAX = 100;
export const INTEGRATION_VISIBILITIES = ["public", "private", "unlisted"] as const;
export const INTEGRATION_TARGETS = ["all", "site", "space", "organization"] as const;
export const INSTALLATION_STATUSES = ["active", "pending", "paused"] as const;
export const SELECTIONS = ["all", "selected"] as const;
export const INTEGRATION_SCOPES = [
  "space:content:read",
  "space:content:write",
  "space:metadata:read",
  "space:metadata:write",
  "space:git:sync",
  "page:feedback:read",
  "site:metadata:read",
  "site:views:read",
  "site:script:inject",
  "site:script:cookies",
  "site:visitor:auth",
  "site:visitor:claims",
  "site:adaptive:read",
  "site:adaptive:write",
  "conversations:ingest",
  "openapi:read",
  "openapi:write",
] as const;
export const RUNTIMES = ["v1", "v2"] as const;
const TITLE_MAX = 100;
const DESCRIPTION_MAX = 1000;
const SUMMARY_MAX = 20_000;
const SCRIPT_MAX_BYTES = 5 * 1024 * 1024;
const ICON_MAX_BYTES = 256 * 1024;
const PREVIEW_MAX_BYTES = 1024 * 1024;
const SECRETS_MAX = 50;

export interface PublishInput {
  organization?: string | null;
  runtime?: string | null;
  title?: string | null;
  description?: string | null;
  summary?: string | null;
  icon?: string | null;
  previewImages?: string[] | null;
  visibility?: string | null;
  target?: string | null;
  scopes?: string[] | null;
  categories?: string[] | null;
  blocks?: unknown[] | null;
  contentSources?: unknown[] | null;
  externalLinks?: unknown[] | null;
  configurations?: unknown;
  secrets?: unknown;
  contentSecurityPolicy?: unknown;
  script?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

export function checkName(name: string): string {
  checkLength("integrationName", name, { min: 1, max: INTEGRATION_NAME_MAX });
  if (!INTEGRATION_NAME_PATTERN.test(name))
    throw badInput(`integrationName must match ${INTEGRATION_NAME_PATTERN.source} (got ${quote(name)})`);
  return name;
}

/** Whether the caller may see `integration`: public and unlisted for anyone, private for its organization. */
export async function canSee(ctx: CoreContext, integration: Integration): Promise<boolean> {
  if (integration.visibility !== "private") return true;
  return (await ctx.access.membership(integration.organizationId)) !== null;
}

/** The integration named `name`, when the caller may see it (404 otherwise). */
export async function readIntegration(ctx: CoreContext, name: string): Promise<Integration> {
  const integration = await ctx.loaders.integrationByName.load(name);
  if (!integration || !(await canSee(ctx, integration))) throw notFound("integration", name);
  return integration;
}

/** The integration, if the caller may manage it (admin of its organization): 404 / 403 otherwise. */
export async function requireIntegration(ctx: CoreContext, name: string): Promise<Integration> {
  const integration = await readIntegration(ctx, name);
  await authorize(ctx, "integration.manage", { organizationId: integration.organizationId });
  return integration;
}

export async function loadVisibleIntegrations(ctx: CoreContext, ids: readonly string[]): Promise<(Integration | null)[]> {
  const rows = await Promise.all(ids.map((id) => ctx.loaders.integration.load(id)));
  return Promise.all(rows.map(async (row) => (row && (await canSee(ctx, row)) ? row : null)));
}

export async function integrationPermissions(ctx: CoreContext, integration: Integration) {
  const membership = await ctx.access.membership(integration.organizationId);
  const role = membership ? (membership.role ?? "member") : null;
  return { admin: allows(POLICY["integration.manage"].least, role), install: true };
}

export interface IntegrationFilters {
  search?: string | null;
  category?: string | null;
  blockDomain?: string | null;
  blocks?: boolean | null;
  contentSources?: boolean | null;
  owner?: string | null;
  scope?: string | null;
  target?: string | null;
}

/** The published `IntegrationCategory` values: what publishing accepts and the lists' `category` filter takes. */
export const INTEGRATION_CATEGORIES = ["analytics", "collaboration", "content", "marketing", "visitor-auth", "other"] as const;

/** The lists' filters, checked as published (400 naming the one that is not). */
function checkFilters(filters: IntegrationFilters): void {
  if (filters.category != null) checkOneOf("category", filters.category, INTEGRATION_CATEGORIES);
  if (filters.scope != null) checkOneOf("scope", filters.scope, INTEGRATION_SCOPES);
  if (filters.target != null) checkOneOf("target", filters.target, INTEGRATION_TARGETS);
  if (
    filters.blockDomain != null &&
    !(filters.blockDomain.length <= INTEGRATION_NAME_MAX && INTEGRATION_NAME_PATTERN.test(filters.blockDomain))
  ) {
    throw badInput(
      `blockDomain must match ${INTEGRATION_NAME_PATTERN.source}, at most ${INTEGRATION_NAME_MAX} characters (got ${quote(filters.blockDomain.slice(0, 100))})`,
    );
  }
  if (filters.owner != null && !filters.owner) throw badInput("owner must be an organization id");
  if (filters.search != null && filters.search.length > 512) throw badInput("search must be at most 512 characters");
}

function filterWhere(filters: IntegrationFilters): Prisma.IntegrationWhereInput[] {
  checkFilters(filters);
  const and: Prisma.IntegrationWhereInput[] = [];
  if (filters.search)
    and.push({
      OR: [{ name: { contains: filters.search, mode: "insensitive" } }, { title: { contains: filters.search, mode: "insensitive" } }],
    });
  if (filters.category) and.push({ categories: { has: filters.category } });
  if (filters.owner) and.push({ organizationId: filters.owner });
  if (filters.scope) and.push({ scopes: { has: filters.scope } });
  if (filters.target) and.push({ target: checkOneOf("target", filters.target, INTEGRATION_TARGETS) });
  if (filters.blockDomain) and.push({ blockDomains: { has: filters.blockDomain.toLowerCase() } });
  if (filters.blocks != null) and.push({ hasBlocks: filters.blocks });
  if (filters.contentSources != null) and.push({ hasContentSources: filters.contentSources });
  return and;
}

/**
 * Integrations the caller may list: public ones, and those of the caller's organizations
 * (unlisted and private included), optionally only one organization's.
 */
export async function listIntegrations(ctx: CoreContext, filters: IntegrationFilters, page: PageArgs) {
  const organizations = await ctx.prisma.member.findMany({
    where: { userId: ctx.viewer.userId, disabled: false },
    select: { organizationId: true },
  });
  const mine = organizations.map((member) => member.organizationId);
  const where = {
    AND: [{ OR: [{ visibility: "public" }, { organizationId: { in: mine } }] }, ...simpleFilters(filters)],
  } satisfies Prisma.IntegrationWhereInput;
  return paginateIntegrations(ctx, where, page);
}

const simpleFilters = filterWhere;

function paginateIntegrations(ctx: CoreContext, where: Prisma.IntegrationWhereInput, page: PageArgs) {
  return paginate<Integration, Prisma.IntegrationWhereInput>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.integration,
  });
}

/**
 * Integrations available to an organization, as published: every public integration and the
 * organization's own (private and unlisted included), whether installed or not (members but
 * guests may list them). What is installed is the installations list (installedIntegrations).
 */
export async function listOrganizationIntegrations(ctx: CoreContext, organizationId: string, filters: IntegrationFilters, page: PageArgs) {
  await requireOrganization(ctx, organizationId, "integration.list");
  const where = {
    AND: [{ OR: [{ visibility: "public" }, { organizationId }] }, ...simpleFilters(filters)],
  } satisfies Prisma.IntegrationWhereInput;
  return paginateIntegrations(ctx, where, page);
}

/** Integrations installed on a space (readers of the space may list them; the rule of installedWhere). */
export async function listSpaceIntegrations(ctx: CoreContext, spaceId: string, filters: IntegrationFilters, page: PageArgs) {
  const space = await requireSpace(ctx, spaceId, "space.read", { allowDeleted: true });
  const where = {
    AND: [{ installations: { some: installedWhere(space.organizationId, spaceId) } }, ...simpleFilters(filters)],
  } satisfies Prisma.IntegrationWhereInput;
  return paginateIntegrations(ctx, where, page);
}

/**
 * Integrations installed on a site (readers of the site may list them): the site's organization
 * has an active installation of it that is on every site (`site_selection: all`) or on this one
 * (an active site installation). The site-side half of installedWhere.
 */
export async function listSiteIntegrations(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  filters: IntegrationFilters,
  page: PageArgs,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  const where = {
    AND: [
      {
        installations: {
          some: {
            organizationId: site.organizationId,
            status: "active",
            OR: [{ siteSelection: "all" }, { sites: { some: { siteId: site.id, status: "active" } } }],
          },
        },
      },
      ...simpleFilters(filters),
    ],
  } satisfies Prisma.IntegrationWhereInput;
  return paginateIntegrations(ctx, where, page);
}

/**
 * The installations made in an organization, each with its integration, oldest first: for the
 * organization's admins (installations hold their configuration, which may carry credentials).
 * `search` keeps those whose integration's name or title contains it.
 */
export async function listOrganizationInstallations(
  ctx: CoreContext,
  organizationId: string,
  filters: { search?: string | null },
  page: PageArgs,
): Promise<Page<IntegrationInstallation>> {
  await requireOrganization(ctx, organizationId, "integration.install");
  if (filters.search != null && filters.search.length > 512) throw badInput("search must be at most 512 characters");
  const where = {
    organizationId,
    ...(filters.search
      ? {
          integration: {
            OR: [{ name: { contains: filters.search, mode: "insensitive" } }, { title: { contains: filters.search, mode: "insensitive" } }],
          },
        }
      : {}),
  } satisfies Prisma.IntegrationInstallationWhereInput;
  return paginate<IntegrationInstallation, typeof where>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.integrationInstallation,
  });
}

// ---------------------------------------------------------------------------------------------
// Publishing
// ---------------------------------------------------------------------------------------------

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

async function storeBlob(db: Transaction, data: Buffer): Promise<string> {
  const hash = sha256(data);
  await db.blob.createMany({ data: [{ hash, data: new Uint8Array(data), size: data.length }], skipDuplicates: true });
  return hash;
}

function base64Image(field: string, value: unknown, maxBytes: number): Buffer {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/=\s]*$/.test(value)) throw badInput(`${field} must be the base64 content of a PNG image`);
  const data = Buffer.from(value, "base64");
  if (data.length === 0) throw badInput(`${field} is empty`);
  if (data.length > maxBytes) throw new DomainError("PAYLOAD_TOO_LARGE", `${field} is ${data.length} bytes: at most ${maxBytes}`);
  if (!data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    throw badInput(`${field} must be a PNG image`);
  return data;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function stringList(field: string, value: unknown, allowed?: readonly string[]): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) throw badInput(`${field} must be a list of strings`);
  if (allowed) for (const item of value) checkOneOf(field, item, allowed);
  return [...new Set(value as string[])];
}

function checkBlocks(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw badInput("blocks must be a list");
  return value.map((block, index) => {
    if (!isPlainObject(block) || typeof block.id !== "string" || typeof block.title !== "string")
      throw badInput(`blocks[${index}] needs a string id and title`);
    return block;
  });
}

/** Hosts of the blocks' `urlUnfurl` patterns, for the `blockDomain` filter. */
function blockDomainsOf(blocks: unknown[]): string[] {
  const domains = new Set<string>();
  for (const block of blocks as { urlUnfurl?: unknown }[]) {
    for (const pattern of Array.isArray(block.urlUnfurl) ? block.urlUnfurl : []) {
      const host = String(pattern)
        .replace(/^[a-z]+:\/\//i, "")
        .split(/[/?#]/)[0]
        ?.toLowerCase();
      if (host) domains.add(host);
    }
  }
  return [...domains];
}

function checkContentSources(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw badInput("contentSources must be a list");
  return value.map((source, index) => {
    if (!isPlainObject(source) || typeof source.id !== "string" || typeof source.title !== "string")
      throw badInput(`contentSources[${index}] needs a string id and title`);
    return source;
  });
}

function checkExternalLinks(value: unknown): { url: string; label: string }[] {
  if (!Array.isArray(value)) throw badInput("externalLinks must be a list");
  return value.map((link, index) => {
    if (!isPlainObject(link) || typeof link.url !== "string" || typeof link.label !== "string")
      throw badInput(`externalLinks[${index}] needs a string url and label`);
    return { url: link.url, label: link.label };
  });
}

function checkConfigurations(value: unknown): Manifest["configurations"] {
  if (!isPlainObject(value)) throw badInput("configurations must be an object with account, space and site");
  const result: NonNullable<Manifest["configurations"]> = {};
  for (const [key, schema] of Object.entries(value)) {
    if (!["account", "space", "site"].includes(key)) throw badInput(`configurations.${key} is not one of account, space, site`);
    if (!isPlainObject(schema) || !isPlainObject(schema.properties))
      throw badInput(`configurations.${key} must be { properties: { … }, required?: [ … ] }`);
    if (schema.required !== undefined) {
      const required = stringList(`configurations.${key}.required`, schema.required);
      for (const name of required)
        if (!(name in schema.properties)) throw badInput(`configurations.${key}.required names ${name}, which is not in its properties`);
    }
    result[key as "account"] = schema as unknown as ConfigurationSchema;
  }
  return result;
}

function checkSecrets(value: unknown): Record<string, string> {
  if (!isPlainObject(value)) throw badInput("secrets must be a map of names to strings");
  const entries = Object.entries(value);
  if (entries.length > SECRETS_MAX) throw badInput(`secrets holds at most ${SECRETS_MAX} entries`);
  for (const [key, secret] of entries) if (typeof secret !== "string") throw badInput(`secrets.${key} must be a string`);
  return value as Record<string, string>;
}

/** The organization named by `organization` (an id, or its hostname), if the caller may publish in it. */
async function publishingOrganization(ctx: CoreContext, organization: string): Promise<string> {
  const row = organization.startsWith("org_")
    ? { id: organization }
    : await ctx.prisma.organization.findUnique({ where: { hostname: organization }, select: { id: true } });
  if (!row) throw notFound("organization", organization);
  await requireOrganization(ctx, row.id, "integration.manage");
  return row.id;
}

/**
 * Publishes `name`: creates it (in `input.organization`, whose admins the caller must be) or
 * updates it (its organization's admins), with a new `version` each time.
 */
export async function publishIntegration(
  ctx: CoreContext,
  name: string,
  input: PublishInput,
): Promise<{ integration: Integration; created: boolean }> {
  checkName(name);
  const existing = await ctx.prisma.integration.findUnique({ where: { name } });
  if (existing) {
    if (!(await canSee(ctx, existing))) throw conflict(`The integration name ${quote(name)} is taken by another organization`);
    await authorize(ctx, "integration.manage", { organizationId: existing.organizationId });
    if (input.organization != null && input.organization !== existing.organizationId) {
      const row = await ctx.prisma.organization.findFirst({
        where: { OR: [{ id: input.organization }, { hostname: input.organization }] },
        select: { id: true },
      });
      if (row?.id !== existing.organizationId)
        throw badInput(`organization cannot change: ${quote(name)} belongs to ${existing.organizationId}`);
    }
  }
  const organizationId = existing
    ? existing.organizationId
    : input.organization
      ? await publishingOrganization(ctx, input.organization)
      : null;
  if (!organizationId) throw badInput("organization is required to publish a new integration (its id or subdomain)");

  const title = input.title ?? existing?.title;
  if (title == null) throw badInput("title is required");
  checkLength("title", title, { min: 2, max: TITLE_MAX });
  const manifest: Manifest = { ...(existing ? manifestOf(existing) : {}) };
  if (input.runtime != null) manifest.runtime = checkOneOf("runtime", input.runtime, RUNTIMES);
  if (input.description != null) manifest.description = checkLength("description", input.description, { max: DESCRIPTION_MAX });
  if (input.summary != null) manifest.summary = checkLength("summary", input.summary, { max: SUMMARY_MAX });
  if (input.blocks != null) manifest.blocks = checkBlocks(input.blocks);
  if (input.contentSources != null) manifest.contentSources = checkContentSources(input.contentSources);
  if (input.externalLinks != null) manifest.externalLinks = checkExternalLinks(input.externalLinks);
  if (input.configurations != null) manifest.configurations = checkConfigurations(input.configurations);
  if (input.contentSecurityPolicy != null) manifest.contentSecurityPolicy = checkContentSecurityPolicy(input.contentSecurityPolicy);
  const visibility =
    input.visibility != null ? checkOneOf("visibility", input.visibility, INTEGRATION_VISIBILITIES) : (existing?.visibility ?? "public");
  const target = input.target != null ? checkOneOf("target", input.target, INTEGRATION_TARGETS) : (existing?.target ?? "all");
  const scopes = input.scopes != null ? stringList("scopes", input.scopes, INTEGRATION_SCOPES) : (existing?.scopes ?? []);
  const categories =
    input.categories != null ? stringList("categories", input.categories, INTEGRATION_CATEGORIES) : (existing?.categories ?? []);
  const secrets = input.secrets != null ? checkSecrets(input.secrets) : undefined;
  if (input.previewImages != null && (!Array.isArray(input.previewImages) || input.previewImages.length > 3))
    throw badInput("previewImages holds at most 3 images");
  const icon = input.icon != null ? base64Image("icon", input.icon, ICON_MAX_BYTES) : undefined;
  const previews = input.previewImages?.map((image, index) => base64Image(`previewImages[${index}]`, image, PREVIEW_MAX_BYTES));
  if (input.script != null) {
    if (typeof input.script !== "string" || input.script.trim() === "") throw badInput("script must be the text of an ES module");
    const bytes = Buffer.byteLength(input.script);
    if (bytes > SCRIPT_MAX_BYTES) throw new DomainError("PAYLOAD_TOO_LARGE", `script is ${bytes} bytes: at most ${SCRIPT_MAX_BYTES}`);
  } else if (!existing) throw badInput("script is required to publish a new integration");

  const now = ctx.clock.now();
  const integration = await ctx.prisma.$transaction(async (tx) => {
    const iconHash = icon ? await storeBlob(tx, icon) : undefined;
    const previewHashes = previews ? await Promise.all(previews.map((image) => storeBlob(tx, image))) : undefined;
    const scriptHash = input.script != null ? await storeBlob(tx, Buffer.from(input.script)) : undefined;
    const data = {
      title,
      visibility,
      target,
      scopes,
      categories,
      manifest: manifest as Prisma.InputJsonValue,
      hasBlocks: (manifest.blocks?.length ?? 0) > 0,
      hasContentSources: (manifest.contentSources?.length ?? 0) > 0,
      blockDomains: blockDomainsOf(manifest.blocks ?? []),
      ...(iconHash ? { iconHash } : {}),
      ...(previewHashes ? { previewHashes } : {}),
      ...(scriptHash ? { scriptHash } : {}),
      ...(secrets ? { secrets } : {}),
      updatedAt: now,
    };
    if (existing) return tx.integration.update({ where: { id: existing.id }, data: { ...data, version: { increment: 1 } } });
    return tx.integration.create({
      data: { ...data, id: newId("Integration"), name, organizationId, signingSecret: randomBytes(32).toString("hex"), createdAt: now },
    });
  });
  ctx.loaders.integrationByName.clear(name);
  if (existing) await ctx.integrations.sandboxes.evict(`${existing.id}@`);
  return { integration, created: !existing };
}

/** Deletes the integration (its installations and events go with it). */
export async function deleteIntegration(ctx: CoreContext, name: string): Promise<void> {
  const integration = await requireIntegration(ctx, name);
  let revoked: string[] = [];
  await ctx.prisma.$transaction(async (tx) => {
    const installations = await tx.integrationInstallation.findMany({ where: { integrationId: integration.id }, select: { id: true } });
    revoked = await revokeInstallationTokens(
      tx,
      installations.map((row) => row.id),
    );
    await tx.integration.delete({ where: { id: integration.id } });
  });
  for (const id of revoked) ctx.tokens.forget(id);
  ctx.loaders.integrationByName.clear(name);
  await ctx.integrations.sandboxes.evict(`${integration.id}@`);
}

/** Deletes the tokens of installations; answers their ids, to forget them in this process's token cache after the commit. */
async function revokeInstallationTokens(tx: Transaction, installationIds: string[]): Promise<string[]> {
  const tokens = await tx.apiToken.findMany({ where: { installationId: { in: installationIds } }, select: { id: true } });
  await tx.apiToken.deleteMany({ where: { id: { in: tokens.map((token) => token.id) } } });
  return tokens.map((token) => token.id);
}

/** Largest `contentSecurityPolicy` accepted (characters, all directives together): it is sent as a header. */
const CSP_MAX = 4096;

/**
 * `contentSecurityPolicy`: a string, or directives by name with string sources; sent as a header
 * value, so no control characters (a stored CR/LF would break every answer it is written to).
 */
function checkContentSecurityPolicy(policy: unknown): string | Record<string, string> {
  if (typeof policy === "string") {
    checkLength("contentSecurityPolicy", policy, { max: CSP_MAX });
    return checkNoControlCharacters("contentSecurityPolicy", policy);
  }
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw badInput("contentSecurityPolicy must be a string or an object of directives with string sources");
  }
  let total = 0;
  const directives: Record<string, string> = {};
  for (const [directive, sources] of Object.entries(policy)) {
    if (!/^[a-z-]{1,64}$/.test(directive)) throw badInput("contentSecurityPolicy directives must be lowercase names like script-src");
    if (typeof sources !== "string") throw badInput(`contentSecurityPolicy.${directive} must be a string`);
    total += directive.length + sources.length + 2;
    if (total > CSP_MAX) throw badInput(`contentSecurityPolicy must be at most ${CSP_MAX} characters in all`);
    directives[directive] = checkNoControlCharacters(`contentSecurityPolicy.${directive}`, sources);
  }
  return directives;
}

/** Turns development mode on: events are POSTed to `tunnelUrl` (signed) instead of the script. */
export async function setDevelopmentMode(
  ctx: CoreContext,
  name: string,
  input: { tunnelUrl: string; all?: boolean | null },
): Promise<Integration> {
  const integration = await requireIntegration(ctx, name);
  checkLength("tunnelUrl", input.tunnelUrl, { min: 1, max: 256 });
  checkNoControlCharacters("tunnelUrl", input.tunnelUrl);
  let url: URL;
  try {
    url = new URL(input.tunnelUrl);
  } catch {
    throw badInput(`tunnelUrl must be an absolute http(s) URL (got ${quote(input.tunnelUrl)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badInput("tunnelUrl must be an http or https URL");
  if (url.username || url.password) throw badInput("tunnelUrl must not carry credentials");
  return ctx.prisma.integration.update({
    where: { id: integration.id },
    data: { devTunnelUrl: url.toString(), devAll: input.all ?? false, updatedAt: ctx.clock.now() },
  });
}

export async function disableDevelopmentMode(ctx: CoreContext, name: string): Promise<Integration> {
  const integration = await requireIntegration(ctx, name);
  return ctx.prisma.integration.update({
    where: { id: integration.id },
    data: { devTunnelUrl: null, devAll: false, updatedAt: ctx.clock.now() },
  });
}

// ---------------------------------------------------------------------------------------------
// Installations
// ---------------------------------------------------------------------------------------------

/** The status an installation takes from its configuration: `pending` while required account settings are missing. */
function statusFor(integration: Integration, configuration: Record<string, unknown>): string {
  const schema = manifestOf(integration).configurations?.account;
  const missing = (schema?.required ?? []).some((key) => configuration[key] === undefined);
  return missing ? "pending" : "active";
}

function configurationFor(integration: Integration, level: "account" | "space" | "site", configuration: unknown): Record<string, unknown> {
  return checkConfiguration(`configuration`, manifestOf(integration).configurations?.[level], configuration ?? {}, {
    partial: configuration == null,
  });
}

/** Installs `name` in an organization (its admins); `installation_setup` is sent to the script. */
export async function installIntegration(
  ctx: CoreContext,
  name: string,
  input: { organization: string; configuration?: unknown },
): Promise<IntegrationInstallation> {
  const integration = await readIntegration(ctx, name);
  await requireOrganization(ctx, input.organization, "integration.install");
  if (integration.visibility === "private" && integration.organizationId !== input.organization) {
    throw forbidden(`The integration ${quote(name)} is private to its organization: it cannot be installed in another one`);
  }
  const configuration = configurationFor(integration, "account", input.configuration);
  const now = ctx.clock.now();
  const installation = await ctx.prisma.$transaction(async (tx) => {
    const existing = await tx.integrationInstallation.findUnique({
      where: { integrationId_organizationId: { integrationId: integration.id, organizationId: input.organization } },
    });
    if (existing) throw conflict(`The integration ${quote(name)} is already installed in this organization (installation ${existing.id})`);
    const row = await tx.integrationInstallation.create({
      data: {
        id: newId("IntegrationInstallation"),
        integrationId: integration.id,
        organizationId: input.organization,
        status: statusFor(integration, configuration),
        configuration: configuration as Prisma.InputJsonValue,
        createdAt: now,
        updatedAt: now,
      },
    });
    await ctx.integrations.emit(tx, integration, row.id, { type: "installation_setup", installationId: row.id, status: row.status });
    await recordAuditEvent(ctx, tx, {
      organizationId: row.organizationId,
      action: "organization.integration.installed",
      target: { type: "integration-installation", id: row.id, label: integration.title },
      payload: { integration: integration.name },
    });
    return row;
  });
  ctx.jobs.wake();
  return installation;
}

/**
 * An installation of `name`, for admins of its organization and of the integration's: 404 when
 * the caller is in neither organization, 403 for the other members.
 */
export function readInstallation(
  ctx: CoreContext,
  name: string,
  installationId: string,
): Promise<{ integration: Integration; installation: IntegrationInstallation }> {
  return requireInstallation(ctx, name, installationId);
}

async function mayManageInstallation(ctx: CoreContext, integration: Integration, installation: IntegrationInstallation): Promise<boolean> {
  for (const [organizationId, action] of [
    [installation.organizationId, "integration.install"],
    [integration.organizationId, "integration.manage"],
  ] as const) {
    const membership = await ctx.access.membership(organizationId);
    if (membership && allows(POLICY[action].least, membership.role ?? "member")) return true;
  }
  return false;
}

/** Requires the caller to see the installation's organization (404) and be its admin (403). */
async function requireInstallation(ctx: CoreContext, name: string, installationId: string) {
  const integration = await readIntegration(ctx, name);
  const installation = await ctx.loaders.integrationInstallation.load(installationId);
  if (!installation || installation.integrationId !== integration.id) throw notFound("integration installation", installationId);
  if (!(await mayManageInstallation(ctx, integration, installation))) {
    await getOrganization(ctx, installation.organizationId).catch(() => {
      throw notFound("integration installation", installationId);
    });
    await authorize(ctx, "integration.install", { organizationId: installation.organizationId });
  }
  return { integration, installation };
}

export async function loadVisibleInstallations(ctx: CoreContext, ids: readonly string[]): Promise<(IntegrationInstallation | null)[]> {
  return Promise.all(
    ids.map(async (id) => {
      const installation = await ctx.loaders.integrationInstallation.load(id);
      if (!installation) return null;
      const integration = await ctx.loaders.integration.load(installation.integrationId);
      return integration && (await mayManageInstallation(ctx, integration, installation)) ? installation : null;
    }),
  );
}

/** Installations of `name` the caller may see: all of them for its owners, their organization's for others. */
export async function listInstallations(ctx: CoreContext, name: string, filters: { externalId?: string | null }, page: PageArgs) {
  const integration = await readIntegration(ctx, name);
  const ownerMembership = await ctx.access.membership(integration.organizationId);
  const owner = ownerMembership && allows(POLICY["integration.manage"].least, ownerMembership.role ?? "member");
  const adminOf = owner
    ? null
    : (
        await ctx.prisma.member.findMany({
          where: { userId: ctx.viewer.userId, disabled: false, role: "admin" },
          select: { organizationId: true },
        })
      ).map((row) => row.organizationId);
  // Admins of no organization it is installed in: refused like any member of the integration's organization.
  if (
    adminOf &&
    (await ctx.prisma.integrationInstallation.count({ where: { integrationId: integration.id, organizationId: { in: adminOf } } })) === 0
  ) {
    await authorize(ctx, "integration.install", { organizationId: integration.organizationId });
  }
  const where = {
    integrationId: integration.id,
    ...(adminOf ? { organizationId: { in: adminOf } } : {}),
    ...(filters.externalId ? { externalIds: { has: filters.externalId } } : {}),
  } satisfies Prisma.IntegrationInstallationWhereInput;
  return paginate<IntegrationInstallation, typeof where>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.integrationInstallation,
  });
}

export interface InstallationPatch {
  configuration?: unknown;
  externalIds?: string[] | null;
  spaceSelection?: string | null;
  siteSelection?: string | null;
}

/** Changes an installation; a new configuration is checked against the integration's `configurations.account` and sent as `installation_setup`. */
export async function updateInstallation(
  ctx: CoreContext,
  name: string,
  installationId: string,
  patch: InstallationPatch,
): Promise<IntegrationInstallation> {
  const { integration, installation } = await requireInstallation(ctx, name, installationId);
  const configuration = patch.configuration != null ? configurationFor(integration, "account", patch.configuration) : undefined;
  const externalIds = patch.externalIds != null ? stringList("externalIds", patch.externalIds) : undefined;
  const spaceSelection = patch.spaceSelection != null ? checkOneOf("space_selection", patch.spaceSelection, SELECTIONS) : undefined;
  const siteSelection = patch.siteSelection != null ? checkOneOf("site_selection", patch.siteSelection, SELECTIONS) : undefined;
  const row = await ctx.prisma.$transaction(async (tx) => {
    const updated = await tx.integrationInstallation.update({
      where: { id: installation.id },
      data: {
        // A paused installation stays paused when configured (pausing is not a configuration matter).
        ...(configuration
          ? {
              configuration: configuration as Prisma.InputJsonValue,
              status: installation.status === "paused" ? "paused" : statusFor(integration, configuration),
            }
          : {}),
        ...(externalIds ? { externalIds } : {}),
        ...(spaceSelection ? { spaceSelection } : {}),
        ...(siteSelection ? { siteSelection } : {}),
        updatedAt: ctx.clock.now(),
      },
    });
    if (configuration) {
      await ctx.integrations.emit(tx, integration, installation.id, {
        type: "installation_setup",
        installationId: installation.id,
        status: updated.status,
        previous: { status: installation.status, configuration: installation.configuration },
      });
    }
    return updated;
  });
  ctx.loaders.integrationInstallation.clear(installation.id);
  if (configuration) ctx.jobs.wake();
  return row;
}

/** Uninstalls: the installation, its spaces, sites and tokens go; `installation_deleted` is sent. */
export async function uninstallIntegration(ctx: CoreContext, name: string, installationId: string): Promise<void> {
  const { integration, installation } = await requireInstallation(ctx, name, installationId);
  let revoked: string[] = [];
  await ctx.prisma.$transaction(async (tx) => {
    revoked = await revokeInstallationTokens(tx, [installation.id]);
    await tx.integrationInstallation.delete({ where: { id: installation.id } });
    await ctx.integrations.emit(tx, integration, installation.id, {
      type: "installation_deleted",
      installationId: installation.id,
      previous: { configuration: installation.configuration },
    });
    await recordAuditEvent(ctx, tx, {
      organizationId: installation.organizationId,
      action: "organization.integration.uninstalled",
      target: { type: "integration-installation", id: installation.id, label: integration.title },
      payload: { integration: integration.name },
    });
  });
  for (const id of revoked) ctx.tokens.forget(id);
  ctx.integrations.forgetInstallation(installation.id);
  ctx.jobs.wake();
}

// ---------------------------------------------------------------------------------------------
// Spaces and sites of an installation
// ---------------------------------------------------------------------------------------------

function checkTarget(integration: Integration, kind: ContentKind) {
  if (integration.target !== "all" && integration.target !== kind) {
    throw badInput(
      `The integration ${quote(integration.name)} has target ${quote(integration.target)}: it cannot be installed on a ${kind}`,
    );
  }
}

/** The installation, for installing on its spaces or sites: visible to members of its organization. */
async function readInstallationForContent(ctx: CoreContext, name: string, installationId: string) {
  const integration = await readIntegration(ctx, name);
  const installation = await ctx.loaders.integrationInstallation.load(installationId);
  if (!installation || installation.integrationId !== integration.id || !(await ctx.access.membership(installation.organizationId))) {
    throw notFound("integration installation", installationId);
  }
  return { integration, installation };
}

export type ContentKind = "space" | "site";

/** What the caller does with a space or site of an installation, each checked by `ContentStore.authorize`. */
type ContentPurpose = "read" | "install" | "change" | "remove";

/** Rows filtered by installation and external id: the same shape for spaces and sites. */
interface ContentWhere {
  installation: Prisma.IntegrationInstallationWhereInput;
  externalIds?: { has: string };
}

interface ContentRow {
  installationId: string;
  status: string;
  configuration: Prisma.JsonValue;
}

/** How one kind of content (spaces, sites) stores its installations and checks access: all that differs between them. */
interface ContentStore<Row extends ContentRow> {
  kind: ContentKind;
  /** The row's field naming the space or site, also the events' field. */
  key: "spaceId" | "siteId";
  authorize(ctx: CoreContext, installation: IntegrationInstallation, id: string, purpose: ContentPurpose): Promise<unknown>;
  find(db: Transaction, installationId: string, id: string): Promise<Row | null>;
  create(
    db: Transaction,
    installationId: string,
    id: string,
    data: { configuration: Prisma.InputJsonValue; createdAt: Date; updatedAt: Date },
  ): Promise<Row>;
  update(
    db: Transaction,
    installationId: string,
    id: string,
    data: { configuration?: Prisma.InputJsonValue; externalIds?: string[]; updatedAt: Date },
  ): Promise<Row>;
  remove(db: Transaction, installationId: string, id: string): Promise<unknown>;
  rows(ctx: CoreContext): PageSource<Row, ContentWhere>;
}

/**
 * Installing, reading, changing, removing and listing an installation on one kind of content:
 * one set of rules for spaces and sites, each event named `<kind>_installation_setup|deleted`.
 */
function contentInstallations<Row extends ContentRow>(store: ContentStore<Row>) {
  const { kind, key } = store;
  const label = `${kind} installation`;
  return {
    /** Installs on a space or site of the installation's organization; `<kind>_installation_setup` is sent. */
    async install(ctx: CoreContext, name: string, installationId: string, id: string, configuration?: unknown): Promise<Row> {
      const { integration, installation } = await readInstallationForContent(ctx, name, installationId);
      await store.authorize(ctx, installation, id, "install");
      checkTarget(integration, kind);
      const config = configurationFor(integration, kind, configuration);
      const now = ctx.clock.now();
      const row = await ctx.prisma.$transaction(async (tx) => {
        if (await store.find(tx, installationId, id)) {
          throw conflict(`The integration ${quote(name)} is already installed on ${kind} ${id}`);
        }
        const created = await store.create(tx, installationId, id, {
          configuration: config as Prisma.InputJsonValue,
          createdAt: now,
          updatedAt: now,
        });
        await ctx.integrations.emit(tx, integration, installationId, {
          type: `${kind}_installation_setup`,
          installationId,
          [key]: id,
          status: created.status,
        });
        return created;
      });
      ctx.integrations.forgetInstallation(installationId);
      ctx.jobs.wake();
      return row;
    },

    /** The installation on a space or site, for members of its organization who read it. */
    async read(ctx: CoreContext, name: string, installationId: string, id: string): Promise<Row> {
      const { installation } = await readInstallationForContent(ctx, name, installationId);
      await store.authorize(ctx, installation, id, "read");
      const row = await store.find(ctx.prisma, installationId, id);
      if (!row) throw notFound(label, id);
      return row;
    },

    /** Changes it; a new configuration is checked against the integration's and sent as `<kind>_installation_setup`. */
    async update(
      ctx: CoreContext,
      name: string,
      installationId: string,
      id: string,
      patch: { configuration?: unknown; externalIds?: string[] | null },
    ): Promise<Row> {
      const { integration, installation } = await readInstallationForContent(ctx, name, installationId);
      await store.authorize(ctx, installation, id, "change");
      const existing = await store.find(ctx.prisma, installationId, id);
      if (!existing) throw notFound(label, id);
      const configuration = patch.configuration != null ? configurationFor(integration, kind, patch.configuration) : undefined;
      const externalIds = patch.externalIds != null ? stringList("externalIds", patch.externalIds) : undefined;
      const row = await ctx.prisma.$transaction(async (tx) => {
        const updated = await store.update(tx, installationId, id, {
          ...(configuration ? { configuration: configuration as Prisma.InputJsonValue } : {}),
          ...(externalIds ? { externalIds } : {}),
          updatedAt: ctx.clock.now(),
        });
        if (configuration) {
          await ctx.integrations.emit(tx, integration, installationId, {
            type: `${kind}_installation_setup`,
            installationId,
            [key]: id,
            status: updated.status,
            previous: { status: existing.status, configuration: existing.configuration },
          });
        }
        return updated;
      });
      if (configuration) ctx.jobs.wake();
      return row;
    },

    /** Removes it (false when it was not there); `<kind>_installation_deleted` is sent. */
    async uninstall(ctx: CoreContext, name: string, installationId: string, id: string): Promise<boolean> {
      const { integration, installation } = await readInstallationForContent(ctx, name, installationId);
      await store.authorize(ctx, installation, id, "remove");
      const removed = await ctx.prisma.$transaction(async (tx) => {
        const existing = await store.find(tx, installationId, id);
        if (!existing) return false;
        await store.remove(tx, installationId, id);
        await ctx.integrations.emit(tx, integration, installationId, {
          type: `${kind}_installation_deleted`,
          installationId,
          [key]: id,
          previous: { configuration: existing.configuration },
        });
        return true;
      });
      ctx.integrations.forgetInstallation(installationId);
      if (removed) ctx.jobs.wake();
      return removed;
    },

    /** Where an installation is (or, without `installationId`, every installation of `name` the caller sees), in the caller's organizations. */
    async list(ctx: CoreContext, name: string, installationId: string | null, filters: { externalId?: string | null }, page: PageArgs) {
      const integration = await readIntegration(ctx, name);
      if (installationId) await readInstallationForContent(ctx, name, installationId);
      const organizations = (
        await ctx.prisma.member.findMany({ where: { userId: ctx.viewer.userId, disabled: false }, select: { organizationId: true } })
      ).map((row) => row.organizationId);
      const where: ContentWhere = {
        installation: {
          integrationId: integration.id,
          organizationId: { in: organizations },
          ...(installationId ? { id: installationId } : {}),
        },
        ...(filters.externalId ? { externalIds: { has: filters.externalId } } : {}),
      };
      return paginate<Row, ContentWhere>(page, {
        sortField: "createdAt" as keyof Row & string,
        sortKind: "date",
        idField: key as keyof Row & string,
        where,
        rows: store.rows(ctx),
      });
    },
  };
}

/** Installations on spaces: the space's admins install them; readers of the space read them. */
export const spaceInstallations = contentInstallations<IntegrationSpaceInstallation>({
  kind: "space",
  key: "spaceId",
  async authorize(ctx, installation, spaceId, purpose) {
    if (purpose === "read") return requireSpace(ctx, spaceId, "space.read", { allowDeleted: true });
    const space = await requireSpace(ctx, spaceId, "integration.installOnSpace", { allowDeleted: purpose === "remove" });
    if (purpose === "install" && space.organizationId !== installation.organizationId) throw notFound("space", spaceId);
    return space;
  },
  find: (db, installationId, spaceId) =>
    db.integrationSpaceInstallation.findUnique({ where: { installationId_spaceId: { installationId, spaceId } } }),
  create: (db, installationId, spaceId, data) => db.integrationSpaceInstallation.create({ data: { installationId, spaceId, ...data } }),
  update: (db, installationId, spaceId, data) =>
    db.integrationSpaceInstallation.update({ where: { installationId_spaceId: { installationId, spaceId } }, data }),
  remove: (db, installationId, spaceId) =>
    db.integrationSpaceInstallation.delete({ where: { installationId_spaceId: { installationId, spaceId } } }),
  rows: (ctx) => ctx.prisma.integrationSpaceInstallation,
});

/** Installations on sites: the organization's admins install them; its members read them. */
export const siteInstallations = contentInstallations<IntegrationSiteInstallation>({
  kind: "site",
  key: "siteId",
  authorize: (ctx, installation, siteId, purpose) =>
    requireSite(ctx, installation.organizationId, siteId, purpose === "read" ? "site.read" : "integration.installOnSite"),
  find: (db, installationId, siteId) =>
    db.integrationSiteInstallation.findUnique({ where: { installationId_siteId: { installationId, siteId } } }),
  create: (db, installationId, siteId, data) => db.integrationSiteInstallation.create({ data: { installationId, siteId, ...data } }),
  update: (db, installationId, siteId, data) =>
    db.integrationSiteInstallation.update({ where: { installationId_siteId: { installationId, siteId } }, data }),
  remove: (db, installationId, siteId) =>
    db.integrationSiteInstallation.delete({ where: { installationId_siteId: { installationId, siteId } } }),
  rows: (ctx) => ctx.prisma.integrationSiteInstallation,
});

// ---------------------------------------------------------------------------------------------
// Installation status
// ---------------------------------------------------------------------------------------------

export const INSTALLED_TARGETS = ["organization", "space", "site"] as const;

/** An installation as the published `InstalledIntegration` has it: its status and what it is installed on. */
export interface InstalledIntegration {
  status: string;
  installationId: string;
  target: { type: (typeof INSTALLED_TARGETS)[number]; organizationId?: string; spaceId?: string; siteId?: string };
}

/** The status of `name`'s installation in the organization (members with a role); 404 when it is not installed there. */
export async function installationStatus(ctx: CoreContext, organizationId: string, name: string): Promise<string> {
  await requireOrganization(ctx, organizationId, "integration.list");
  const integration = await readIntegration(ctx, name);
  const installation = await ctx.prisma.integrationInstallation.findUnique({
    where: { integrationId_organizationId: { integrationId: integration.id, organizationId } },
    select: { status: true },
  });
  if (!installation) throw notFound("integration installation", `${name} in organization ${organizationId}`);
  return installation.status;
}

function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  const cursors = new Map<U, string>();
  const items = page.items.map((item) => {
    const mapped = map(item);
    cursors.set(mapped, page.cursorOf(item));
    return mapped;
  });
  return { ...page, items, cursorOf: (item) => cursors.get(item)! };
}

/**
 * The installations of an organization (members with a role), oldest first: in the organization
 * itself (`target` organization, the default), on its spaces or on its sites, optionally on one
 * space or site (`space` and `site` only with the matching target).
 */
export async function listInstalledIntegrations(
  ctx: CoreContext,
  organizationId: string,
  filters: { target?: string | null; space?: string | null; site?: string | null },
  page: PageArgs,
): Promise<Page<InstalledIntegration>> {
  await requireOrganization(ctx, organizationId, "integration.list");
  const target = checkOneOf("target", filters.target ?? "organization", INSTALLED_TARGETS);
  if (filters.space != null && target !== "space") throw badInput("space is only valid with target=space");
  if (filters.site != null && target !== "site") throw badInput("site is only valid with target=site");
  if (filters.space != null) {
    const space = await requireSpace(ctx, filters.space, "space.read", { allowDeleted: true });
    if (space.organizationId !== organizationId) throw notFound("space", filters.space);
  }
  if (filters.site != null) await requireSite(ctx, organizationId, filters.site, "site.read");
  const byDate = { sortField: "createdAt", sortKind: "date" } as const;
  if (target === "organization") {
    const where = { organizationId } satisfies Prisma.IntegrationInstallationWhereInput;
    const rows = await paginate<IntegrationInstallation, typeof where>(page, {
      ...byDate,
      where,
      rows: ctx.prisma.integrationInstallation,
    });
    return mapPage(rows, (row) => ({ status: row.status, installationId: row.id, target: { type: "organization", organizationId } }));
  }
  if (target === "space") {
    const where = {
      installation: { organizationId },
      ...(filters.space != null ? { spaceId: filters.space } : {}),
    } satisfies Prisma.IntegrationSpaceInstallationWhereInput;
    const rows = await paginate<IntegrationSpaceInstallation, typeof where>(page, {
      ...byDate,
      idField: "spaceId",
      where,
      rows: ctx.prisma.integrationSpaceInstallation,
    });
    return mapPage(rows, (row) => ({
      status: row.status,
      installationId: row.installationId,
      target: { type: "space", spaceId: row.spaceId },
    }));
  }
  const where = {
    installation: { organizationId },
    ...(filters.site != null ? { siteId: filters.site } : {}),
  } satisfies Prisma.IntegrationSiteInstallationWhereInput;
  const rows = await paginate<IntegrationSiteInstallation, typeof where>(page, {
    ...byDate,
    idField: "siteId",
    where,
    rows: ctx.prisma.integrationSiteInstallation,
  });
  return mapPage(rows, (row) => ({ status: row.status, installationId: row.installationId, target: { type: "site", siteId: row.siteId } }));
}

// ---------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------

export const TASK_SCHEDULE_MAX_SECONDS = 86_400;

/**
 * Queues a `task` event (the published TaskEvent) for the integration's script through the job
 * queue, run after `schedule` seconds (0 to 86,400; default 0). The integration queues its own
 * tasks: its installations' tokens (the task runs with that installation's environment) and the
 * admins of its organization (`integration.task`; the task runs with the installation in the
 * integration's own organization, when there is one, else with no installation).
 */
export async function queueIntegrationTask(
  ctx: CoreContext,
  name: string,
  input: { task?: unknown; schedule?: number | null },
): Promise<{ eventId: string; runAt: Date }> {
  const integration = await readIntegration(ctx, name);
  let installationId: string | null;
  if (ctx.viewer.installationId) {
    const installation = await ctx.loaders.integrationInstallation.load(ctx.viewer.installationId);
    if (installation?.integrationId !== integration.id)
      throw forbidden(`An installation token of another integration cannot queue tasks of ${quote(name)}`);
    installationId = installation.id;
  } else {
    await authorize(ctx, "integration.task", { organizationId: integration.organizationId });
    installationId =
      (
        await ctx.prisma.integrationInstallation.findUnique({
          where: { integrationId_organizationId: { integrationId: integration.id, organizationId: integration.organizationId } },
          select: { id: true },
        })
      )?.id ?? null;
  }
  if (!isPlainObject(input.task)) throw badInput("task must be an object (the task's payload)");
  const schedule = input.schedule ?? 0;
  if (typeof schedule !== "number" || !Number.isFinite(schedule) || schedule < 0 || schedule > TASK_SCHEDULE_MAX_SECONDS)
    throw badInput(`schedule must be a number of seconds from 0 to ${TASK_SCHEDULE_MAX_SECONDS} (got ${quote(input.schedule)})`);
  const runAt = new Date(ctx.clock.now().getTime() + Math.round(schedule * 1000));
  const event = await ctx.prisma.$transaction((tx) =>
    ctx.integrations.emit(tx, integration, installationId, { type: "task", task: input.task }, { runAt }),
  );
  ctx.jobs.wake();
  return { eventId: event.id, runAt };
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/** Delivered events of `name`, newest first (its organization's admins). Pending ones are not listed until their first delivery. */
export async function listEvents(ctx: CoreContext, name: string, page: PageArgs, { delivered = true } = {}) {
  const integration = await requireIntegration(ctx, name);
  const where = {
    integrationId: integration.id,
    ...(delivered ? { status: { in: ["success", "failed"] } } : {}),
  } satisfies Prisma.IntegrationEventWhereInput;
  return paginate<IntegrationEvent, typeof where>(page, {
    sortField: "seq",
    sortKind: "number",
    direction: "desc",
    where,
    rows: ctx.prisma.integrationEvent,
  });
}

export async function readEvent(ctx: CoreContext, name: string, eventId: string): Promise<IntegrationEvent> {
  const integration = await requireIntegration(ctx, name);
  const event = await ctx.prisma.integrationEvent.findUnique({ where: { id: eventId } });
  if (!event || event.integrationId !== integration.id) throw notFound("integration event", eventId);
  return event;
}

export async function loadVisibleEvents(ctx: CoreContext, ids: readonly string[]): Promise<(IntegrationEvent | null)[]> {
  const rows = await ctx.prisma.integrationEvent.findMany({ where: { id: { in: [...ids] } } });
  const found = new Map(rows.map((row) => [row.id, row]));
  return Promise.all(
    ids.map(async (id) => {
      const event = found.get(id);
      const integration = event ? await ctx.loaders.integration.load(event.integrationId) : null;
      if (!event || !integration) return null;
      const membership = await ctx.access.membership(integration.organizationId);
      return membership && allows(POLICY["integration.manage"].least, membership.role ?? "member") ? event : null;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Installation tokens and rendering
// ---------------------------------------------------------------------------------------------

/** A token acting as the installation: its integration's scopes, on the spaces it is installed on. */
export async function createInstallationToken(
  ctx: CoreContext,
  name: string,
  installationId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const { integration, installation } = await requireInstallation(ctx, name, installationId);
  return ctx.integrations.installationToken(integration, installation, { reuse: false });
}

export interface RenderInput {
  componentId: string;
  props: unknown;
  state?: unknown;
  context: unknown;
  action?: unknown;
}

/**
 * Renders a component of `name` for the context's space (its readers), through its installation
 * on that space (installedWhere: the rule of blocks on published pages too): a `ui_render` event
 * answered synchronously. The answer must be ContentKit (`ContentKitRenderOutput` of the
 * published schemas); anything else is a 502.
 */
export async function renderIntegration(ctx: CoreContext, name: string, input: RenderInput) {
  const integration = await readIntegration(ctx, name);
  if (typeof input.componentId !== "string" || input.componentId === "") throw badInput("componentId is required");
  if (!isPlainObject(input.props)) throw badInput("props must be an object");
  if (!isPlainObject(input.context)) throw badInput("context must be an object (ContentKitContext)");
  if (input.state !== undefined && input.state !== null && !isPlainObject(input.state)) throw badInput("state must be an object");
  const spaceId = typeof input.context.spaceId === "string" ? input.context.spaceId : null;
  if (!spaceId) throw badInput("context.spaceId is required: the space the component is rendered in");
  const space = await requireSpace(ctx, spaceId, "integration.render", { allowDeleted: true });
  const installation = await ctx.prisma.integrationInstallation.findFirst({
    where: { ...installedWhere(space.organizationId, spaceId), integrationId: integration.id },
  });
  if (!installation)
    throw new DomainError(
      "NOT_FOUND",
      `The integration ${quote(name)} is not installed on space ${spaceId} (an active installation on the space, or on all spaces of its organization)`,
    );
  const event = {
    type: "ui_render",
    componentId: input.componentId,
    props: input.props,
    ...(input.state != null ? { state: input.state } : {}),
    context: input.context,
    ...(input.action != null ? { action: input.action } : {}),
    auth: { userId: ctx.viewer.userId },
  };
  return ctx.integrations.render(integration, installation, event);
}
