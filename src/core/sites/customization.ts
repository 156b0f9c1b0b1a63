// Site customization: the settings a site was given, over the defaults below. Both surfaces
// answer the whole settings object (the published schema requires every group); a PUT replaces
// what was set, a site space's PATCH overrides single groups for that variant.
import type { Site } from "../../generated/prisma/client.ts";

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
