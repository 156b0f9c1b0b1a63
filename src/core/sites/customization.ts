// Site customization: the settings a site was given, over the defaults below. Both surfaces
// answer the whole settings object (the published schema requires every group); a PUT replaces
// what was set, a site space's PATCH overrides single groups for that variant. Settings are
// checked against the published API's schemas; the published HTML uses what `pageLook` reads.
import type { ValidateFunction } from "ajv";
import { Prisma, type Site, type SiteSpace } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound } from "../errors.ts";
import { requireSite, writeSite } from "./index.ts";
import { siteLoaders } from "./loaders.ts";
import { DEFAULT_MONOSPACE_FONT, DEFAULT_TEXT_FONT, MONOSPACE_FONTS, TEXT_FONTS } from "./fonts.ts";
import { checkFontReferences, customFontReference } from "../fonts/faces.ts";
import { publishedValidator } from "../published-schemas.ts";

const color = (light: string, dark = light) => ({ light, dark });

/** What a site looks like before anyone customizes it. */
export const DEFAULT_CUSTOMIZATION = {
  styling: {
    theme: "clean",
    primaryColor: color("#346ddb"),
    infoColor: color("#787878"),
    successColor: color("#02c39a"),
    warningColor: color("#f77f00"),
    dangerColor: color("#fb5607"),
    corners: "rounded",
    depth: "subtle",
    links: "default",
    font: "Inter",
    monospaceFont: "IBMPlexMono",
    codeTheme: {
      default: { light: "default-light", dark: "default-dark" },
      openapi: { light: "default-light", dark: "default-dark" },
    },
    background: "plain",
    icons: "regular",
    sidebar: { background: "default", list: "default" },
    search: "subtle",
  },
  internationalization: { locale: "en" },
  favicon: {},
  header: { preset: "default", links: [] },
  footer: { groups: [] },
  themes: { default: "light", toggeable: true },
  feedback: { enabled: false },
  ai: { mode: "search" },
  advancedCustomization: { enabled: false },
  trademark: { enabled: true },
  externalLinks: { target: "self" },
  pagination: { enabled: true },
  pageActions: { items: ["markdown"] },
  privacyPolicy: {},
  socialPreview: {},
  socialAccounts: [],
  insights: { trackingCookie: true },
} as const;

export type Customization = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `override` over `base`, group by group and key by key; null in an override resets a key to the base. */
export function mergeCustomization(base: Customization, override: Customization): Customization {
  const merged: Customization = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) continue;
    merged[key] = isPlainObject(value) && isPlainObject(base[key]) ? mergeCustomization(base[key] as Customization, value) : value;
  }
  return merged;
}

/** The site's whole settings: the defaults, what was set, and when it was set. */
export function siteCustomization(site: Pick<Site, "customization" | "customizationUpdatedAt">): Customization {
  const settings = mergeCustomization(DEFAULT_CUSTOMIZATION as unknown as Customization, site.customization as Customization);
  return site.customizationUpdatedAt ? { ...settings, updatedAt: site.customizationUpdatedAt.toISOString() } : settings;
}

// ---------------------------------------------------------------------------------------------
// Writing: validated against the published API's schemas (SiteCustomizationSettingsInput for the
// site, the site-space override body for a variant), compiled once from @gitbook/api's spec.

const SITE_SPACE_OVERRIDE_SCHEMA =
  "#/paths/~1orgs~1{organizationId}~1sites~1{siteId}~1site-spaces~1{siteSpaceId}~1customization/patch/requestBody/content/application~1json/schema";
/** Bounds the work one body can cause before it is validated. */
const CUSTOMIZATION_MAX_BYTES = 64 * 1024;

function validatorOf(kind: "site" | "override"): ValidateFunction {
  return publishedValidator(kind === "site" ? "#/components/schemas/SiteCustomizationSettingsInput" : SITE_SPACE_OVERRIDE_SCHEMA);
}

function checkAgainst(kind: "site" | "override", value: unknown): Customization {
  if (!isPlainObject(value)) throw badInput("customization must be an object of settings");
  if (Buffer.byteLength(JSON.stringify(value)) > CUSTOMIZATION_MAX_BYTES)
    throw badInput(`customization must be at most ${CUSTOMIZATION_MAX_BYTES} bytes of JSON`);
  const validate = validatorOf(kind);
  if (!validate(value)) {
    const [error] = validate.errors ?? [];
    const where = error?.instancePath ? error.instancePath.slice(1).replace(/\//g, ".") : "customization";
    const detail =
      error?.params && "missingProperty" in error.params
        ? `${where}.${error.params.missingProperty} is required`
        : `${where} ${error?.message ?? "is not valid"}`;
    throw badInput(`customization does not match the published schema: ${detail}`);
  }
  return value;
}

/** PUT: the whole settings of the site replace what was set. */
export async function updateSiteCustomization(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  settings: unknown,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  const { updatedAt: _ignored, ...checked } = checkAgainst("site", settings);
  await checkFontReferences(ctx, site.organizationId, checked);
  return writeSite(ctx, siteId, (now) => ({ customization: checked as never, customizationUpdatedAt: now }));
}

/** `patch` over a stored override: null removes a key, objects merge key by key. */
function applyOverride(stored: Customization, patch: Customization): Customization {
  const result: Customization = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (isPlainObject(value) && isPlainObject(result[key]) && key !== "localizedTitle")
      result[key] = applyOverride(result[key] as Customization, value);
    else result[key] = value;
  }
  return result;
}

async function siteSpaceOf(ctx: CoreContext, siteId: string, siteSpaceId: string): Promise<SiteSpace> {
  const row = await siteLoaders(ctx).siteSpace.load(siteSpaceId);
  if (!row || row.siteId !== siteId) throw notFound("site space", siteSpaceId);
  return row;
}

/** PATCH: overrides of single settings for one site space (null resets one to the site's). */
export async function overrideSiteSpaceCustomization(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  siteSpaceId: string,
  patch: unknown,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  const checked = checkAgainst("override", patch);
  await checkFontReferences(ctx, site.organizationId, checked);
  const row = await siteSpaceOf(ctx, siteId, siteSpaceId);
  const customization = applyOverride((row.customization as Customization | null) ?? {}, checked);
  const [updated] = await ctx.prisma.$transaction([
    ctx.prisma.siteSpace.update({ where: { id: row.id }, data: { customization: customization as never } }),
    ctx.prisma.site.update({ where: { id: siteId }, data: { updatedAt: ctx.clock.now() } }),
  ]);
  siteLoaders(ctx).forget(siteId);
  return updated;
}

/** DELETE: the site space shows the site's settings again; false when it had no override. */
export async function deleteSiteSpaceCustomization(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  siteSpaceId: string,
): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, "site.configure");
  const row = await siteSpaceOf(ctx, siteId, siteSpaceId);
  if (row.customization == null) return false;
  await ctx.prisma.$transaction([
    ctx.prisma.siteSpace.update({ where: { id: row.id }, data: { customization: Prisma.DbNull } }),
    ctx.prisma.site.update({ where: { id: siteId }, data: { updatedAt: ctx.clock.now() } }),
  ]);
  siteLoaders(ctx).forget(siteId);
  return true;
}

/** What a site space looks like: the site's settings with the site space's overrides. */
export function siteSpaceCustomization(site: Site, siteSpace: Pick<SiteSpace, "customization">): Customization {
  const settings = siteCustomization(site);
  return siteSpace.customization == null ? settings : mergeCustomization(settings, siteSpace.customization as Customization);
}

/** What the published HTML uses of the settings, each value checked again (it goes into HTML and CSS). */
export interface PageLook {
  title: string | null;
  /** #rgb to #rrggbbaa, for light and dark. */
  primaryColor: string;
  primaryColorDark: string;
  /** The header style (`styling.theme`): clean, muted, bold, gradient. */
  theme: string;
  /** The theme readers get first, and whether they may switch it (remembered in their browser). */
  mode: "light" | "dark" | "system";
  toggeable: boolean;
  /** The favicon: an http(s) URL, or an emoji; null for the default. */
  favicon: { url: string } | { emoji: string } | null;
  /** The header logo (light and dark), http(s) URLs. */
  logo: { light: string; dark: string } | null;
  /** Header links to URLs (the other kinds of targets are not shown). */
  links: { title: string; url: string }[];
  /** Whether pages ask "Was this page helpful?" (`feedback.enabled`). */
  feedback: boolean;
  /** `styling.font` and `styling.monospaceFont` when one of the published names (fonts.ts), else the defaults. */
  font: string;
  monospaceFont: string;
  /** `styling.headingFont` when one of the published names; null: headings use `font`. */
  headingFont: string | null;
  /**
   * The custom fonts (ids) the font settings name, when they name one (a definition with
   * `custom: true`): the page uses the font if the organization still has it, else the default.
   */
  customFonts: { font: string | null; headingFont: string | null; monospaceFont: string | null };
}

const HEX = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const webUrl = (value: unknown): string | null => {
  if (typeof value !== "string" || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
};

/** The settings the published HTML uses: title, colors, header style, theme, favicon, logo, header links. */
export function pageLook(settings: Customization): PageLook {
  const styling = (settings.styling ?? {}) as Record<string, any>;
  const color = styling.primaryColor?.light;
  const primaryColor = typeof color === "string" && HEX.test(color) ? color : DEFAULT_CUSTOMIZATION.styling.primaryColor.light;
  const dark = styling.primaryColor?.dark;
  const themes = (settings.themes ?? {}) as Record<string, unknown>;
  const favicon = (settings.favicon ?? {}) as Record<string, any>;
  const header = (settings.header ?? {}) as Record<string, any>;
  const iconUrl = webUrl(favicon.icon?.light) ?? webUrl(favicon.icon?.dark);
  // An emoji is its character(s) or its code points in hex (`1f389`, `1f468-200d-1f4bb`).
  const emoji =
    typeof favicon.emoji !== "string"
      ? null
      : /^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6})*$/i.test(favicon.emoji)
        ? String.fromCodePoint(...favicon.emoji.split("-").map((code: string) => Math.min(Number.parseInt(code, 16), 0x10ffff)))
        : favicon.emoji.length <= 16 && !/[<>&"'\s]/.test(favicon.emoji)
          ? favicon.emoji
          : null;
  const logoLight = webUrl(header.logo?.light);
  const links: PageLook["links"] = [];
  for (const link of Array.isArray(header.links) ? header.links.slice(0, 12) : []) {
    const url = link?.to?.kind === "url" ? webUrl(link.to.url) : null;
    if (url && typeof link.title === "string" && link.title.trim()) links.push({ title: link.title.slice(0, 100), url });
  }
  return {
    title: typeof settings.title === "string" ? settings.title : null,
    primaryColor,
    primaryColorDark: typeof dark === "string" && HEX.test(dark) ? dark : primaryColor,
    theme: typeof styling.theme === "string" && /^[a-z]+$/.test(styling.theme) ? styling.theme : "clean",
    mode: themes.default === "dark" || themes.default === "system" ? themes.default : "light",
    toggeable: themes.toggeable !== false,
    favicon: iconUrl ? { url: iconUrl } : emoji ? { emoji } : null,
    logo: logoLight ? { light: logoLight, dark: webUrl(header.logo?.dark) ?? logoLight } : null,
    links,
    feedback: (settings.feedback as Record<string, unknown> | undefined)?.enabled === true,
    // A font given as a definition shows only when it names a custom font of the organization
    // (`customFonts`, read with the page); otherwise, or until then, the default.
    font: typeof styling.font === "string" && Object.hasOwn(TEXT_FONTS, styling.font) ? styling.font : DEFAULT_TEXT_FONT,
    monospaceFont:
      typeof styling.monospaceFont === "string" && Object.hasOwn(MONOSPACE_FONTS, styling.monospaceFont)
        ? styling.monospaceFont
        : DEFAULT_MONOSPACE_FONT,
    headingFont: typeof styling.headingFont === "string" && Object.hasOwn(TEXT_FONTS, styling.headingFont) ? styling.headingFont : null,
    customFonts: {
      font: customFontReference(styling.font),
      headingFont: customFontReference(styling.headingFont),
      monospaceFont: customFontReference(styling.monospaceFont),
    },
  };
}
