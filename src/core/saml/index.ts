// SAML providers of an organization and the SSO logins they offer. Managing providers (reading
// them included: they hold the identity provider's configuration) needs an organization admin
// (`saml.manage`); the list of SSO logins (id, label, start URL) any member (`sso.list`).
import { X509Certificate } from "node:crypto";
import type { SamlProvider } from "../../generated/prisma/client.ts";
import { authorize } from "../auth/policy.ts";
import { isRole, ROLES, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { type PageArgs } from "../pagination.ts";
import { getOrganization, pageOfOrganization, requireOrganization } from "../organizations/index.ts";
import { checkLength, checkUrl } from "../validate.ts";

/** Limits of the published schemas SAMLProviderLabel, SAMLProviderEntityID and SAMLProviderCertificate. */
export const SAML_LABEL_MAX = 30;
export const SAML_ENTITY_ID_MAX = 1024;
export const SAML_CERTIFICATE_MAX = 10000;

/**
 * `active`: usable to sign in; `pending`: not fully configured. Every provider is created with
 * all of its identity provider's settings (entity id, SSO URL, certificate), so it is active.
 */
export const SAML_PROVIDER_STATUSES = ["active", "pending"] as const;
export type SamlProviderStatus = (typeof SAML_PROVIDER_STATUSES)[number];
export const samlProviderStatus = (_provider: SamlProvider): SamlProviderStatus => "active";

/** The service provider's side of a SAML provider: what the identity provider is configured with. */
export function samlService(ctx: CoreContext, provider: { id: string }) {
  const entityID = ctx.urls.absolute(`/sso/saml/${provider.id}`);
  return { entityID, acsURL: `${entityID}/acs`, startURL: `${entityID}/start` };
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const CERTIFICATE_FORMAT =
  "certificate must be one X.509 certificate in PEM format (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----, or the base64 between those lines)";

/**
 * The certificate as a normalized PEM string (64-character lines, no trailing newline). Accepts
 * the PEM text, or its base64 body alone (as identity providers' metadata gives it, in
 * `<X509Certificate>`); refuses anything else, and more than one certificate.
 */
export function checkCertificate(value: string): string {
  checkLength("certificate", value, { max: SAML_CERTIFICATE_MAX });
  const text = value.trim();
  if (!text) throw badInput("certificate is required");
  let pem: string;
  if (text.includes("-----BEGIN")) {
    const blocks = [...text.matchAll(PEM_BLOCK)];
    if (blocks.length !== 1 || blocks[0][1] !== "CERTIFICATE" || blocks[0][0] !== text) throw badInput(CERTIFICATE_FORMAT);
    pem = text;
  } else {
    const body = text.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw badInput(CERTIFICATE_FORMAT);
    pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/.{1,64}/g, "$&\n")}-----END CERTIFICATE-----`;
  }
  let normalized: string;
  try {
    normalized = new X509Certificate(pem).toString().trim();
  } catch {
    throw badInput(CERTIFICATE_FORMAT);
  }
  return checkLength("certificate", normalized, { max: SAML_CERTIFICATE_MAX });
}

function checkRequiredText(field: string, value: string, max: number): string {
  checkLength(field, value, { min: 1, max });
  if (!value.trim()) throw badInput(`${field} must not be blank`);
  return value;
}

function checkDefaultRole(value: string | null): Role | null {
  if (value !== null && !isRole(value)) throw badInput(`defaultRole must be one of ${ROLES.join(", ")} or null (got ${quote(value)})`);
  return value;
}

/** A team of the organization as a provider's default team, or null; 400 otherwise. */
async function checkDefaultTeam(ctx: CoreContext, organizationId: string, teamId: string | null): Promise<string | null> {
  if (teamId === null) return null;
  const team = await ctx.loaders.team.load(teamId);
  if (!team || team.organizationId !== organizationId) throw badInput(`defaultTeam: no team ${quote(teamId)} in this organization`);
  return teamId;
}

export interface SamlProviderInput {
  label: string;
  entityID: string;
  ssoURL: string;
  certificate: string;
  defaultTeam?: string | null;
  defaultRole?: string | null;
}

/** Every field checked, in the order of the published body; the first problem is the 400. */
async function checkFields(ctx: CoreContext, organizationId: string, input: Partial<SamlProviderInput>) {
  const data: Partial<Pick<SamlProvider, "label" | "entityID" | "ssoURL" | "certificate" | "defaultTeamId" | "defaultRole">> = {};
  if (input.label !== undefined) data.label = checkRequiredText("label", input.label, SAML_LABEL_MAX);
  if (input.entityID !== undefined) data.entityID = checkRequiredText("entityID", input.entityID, SAML_ENTITY_ID_MAX);
  if (input.certificate !== undefined) data.certificate = checkCertificate(input.certificate);
  if (input.ssoURL !== undefined) data.ssoURL = checkUrl("ssoURL", input.ssoURL);
  if (input.defaultRole !== undefined) data.defaultRole = checkDefaultRole(input.defaultRole);
  if (input.defaultTeam !== undefined) data.defaultTeamId = await checkDefaultTeam(ctx, organizationId, input.defaultTeam);
  return data;
}

/** The provider, when it belongs to `organizationId` and the caller may manage its providers. */
export async function readSamlProvider(ctx: CoreContext, organizationId: string, id: string): Promise<SamlProvider> {
  await requireOrganization(ctx, organizationId, "saml.manage");
  const provider = await ctx.prisma.samlProvider.findFirst({ where: { id, organizationId } });
  if (!provider) throw notFound("SAML provider", id);
  return provider;
}

/** For `node(id:)`: the providers the caller may manage, null for the others. */
export async function loadVisibleSamlProviders(ctx: CoreContext, ids: readonly string[]): Promise<(SamlProvider | null)[]> {
  const rows = await ctx.prisma.samlProvider.findMany({ where: { id: { in: [...ids] } } });
  const found = new Map(rows.map((row) => [row.id, row]));
  return Promise.all(
    ids.map(async (id) => {
      const provider = found.get(id);
      if (!provider) return null;
      const visible = await getOrganization(ctx, provider.organizationId)
        .then(() => authorize(ctx, "saml.manage", { organizationId: provider.organizationId }))
        .then(
          () => true,
          () => false,
        );
      return visible ? provider : null;
    }),
  );
}

export const listSamlProviders = (ctx: CoreContext, organizationId: string, page: PageArgs) =>
  pageOfOrganization<SamlProvider>(ctx, organizationId, "saml.manage", page, ctx.prisma.samlProvider);

/** The organization's SSO logins (every active provider), oldest first: any member may list them. */
export async function listSsoLogins(ctx: CoreContext, organizationId: string) {
  await requireOrganization(ctx, organizationId, "sso.list");
  const providers = await ctx.prisma.samlProvider.findMany({ where: { organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return providers
    .filter((provider) => samlProviderStatus(provider) === "active")
    .map((provider) => ({ id: provider.id, label: provider.label, startURL: samlService(ctx, provider).startURL }));
}

export async function createSamlProvider(ctx: CoreContext, organizationId: string, input: SamlProviderInput) {
  await requireOrganization(ctx, organizationId, "saml.manage");
  const data = await checkFields(ctx, organizationId, {
    ...input,
    defaultTeam: input.defaultTeam ?? null,
    defaultRole: input.defaultRole ?? null,
  });
  return ctx.prisma.samlProvider.create({
    data: {
      id: newId("SamlProvider"),
      organizationId,
      label: data.label!,
      entityID: data.entityID!,
      ssoURL: data.ssoURL!,
      certificate: data.certificate!,
      defaultTeamId: data.defaultTeamId ?? null,
      defaultRole: data.defaultRole ?? null,
    },
  });
}

/** Absent fields stay; `defaultTeam` null removes the default team, `defaultRole` null makes SSO members guests. */
export async function updateSamlProvider(ctx: CoreContext, organizationId: string, id: string, patch: Partial<SamlProviderInput>) {
  await readSamlProvider(ctx, organizationId, id);
  const data = await checkFields(ctx, organizationId, patch);
  return ctx.prisma.samlProvider.update({ where: { id }, data });
}

export async function deleteSamlProvider(ctx: CoreContext, organizationId: string, id: string) {
  await readSamlProvider(ctx, organizationId, id);
  await ctx.prisma.samlProvider.delete({ where: { id } });
}
