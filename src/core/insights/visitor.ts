// What an insight event says of its visitor, from the request alone (no cookie, no third party):
// browser, device, operating system and bot from the user agent; visitor and session ids as
// hashes of the site, the client address and the user agent (a visitor per day, a session per
// half hour), so the address itself is never stored.
import { createHash } from "node:crypto";

/** Published SiteInsightsVisitorBot names, by a token their user agents carry (first match wins). */
const BOTS: readonly (readonly [RegExp, string])[] = [
  [/googlebot|google-inspectiontool|storebot-google/i, "googlebot"],
  [/bingbot|bingpreview/i, "bingbot"],
  [/duckassistbot/i, "duckassist"],
  [/duckduckbot/i, "duckduckbot"],
  [/facebookexternalhit|facebookbot/i, "facebookbot"],
  [/meta-externalagent|meta-externalfetcher/i, "meta-fetcher"],
  [/applebot/i, "applebot"],
  [/gptbot/i, "gptbot"],
  [/chatgpt-user|oai-searchbot/i, "chatgpt"],
  [/claudebot/i, "claudebot"],
  [/claude-code/i, "claude-code"],
  [/claude-user|claude-searchbot|anthropic-ai/i, "anthropic"],
  [/perplexity/i, "perplexity"],
  [/cohere/i, "cohere"],
  [/mistralai/i, "mistral"],
  [/deepseek/i, "deepseek"],
  [/bytespider/i, "bytespider"],
  [/ccbot/i, "ccbot"],
  [/amazonbot/i, "amazonbot"],
  [/youbot/i, "youbot"],
  [/cursor\//i, "cursor"],
  [/github-copilot/i, "github-copilot"],
  [/grok/i, "grok"],
  [/gemini|google-extended/i, "gemini"],
  [/bot\b|crawler|spider|slurp|headless|curl\/|wget\/|python-requests|httpclient|node-fetch|undici|axios/i, "unknown"],
];

export interface VisitorTraits {
  browser: "chrome" | "firefox" | "safari" | "edge" | "ie" | "opera" | "unknown";
  device: "desktop" | "tablet" | "mobile" | "unknown";
  os: "windows" | "macos" | "linux" | "android" | "ios" | "unknown";
  /** Null for a person. */
  bot: string | null;
}

export function visitorTraits(userAgent: string | null | undefined): VisitorTraits {
  const ua = (userAgent ?? "").slice(0, 512);
  if (!ua) return { browser: "unknown", device: "unknown", os: "unknown", bot: "unknown" };
  const bot = BOTS.find(([pattern]) => pattern.test(ua))?.[1] ?? null;
  const browser = /edg(e|a|ios)?\//i.test(ua)
    ? "edge"
    : /opr\/|opera/i.test(ua)
      ? "opera"
      : /firefox|fxios/i.test(ua)
        ? "firefox"
        : /chrome|crios|chromium/i.test(ua)
          ? "chrome"
          : /msie |trident\//i.test(ua)
            ? "ie"
            : /safari/i.test(ua)
              ? "safari"
              : "unknown";
  const os = /android/i.test(ua)
    ? "android"
    : /iphone|ipad|ipod/i.test(ua)
      ? "ios"
      : /windows/i.test(ua)
        ? "windows"
        : /mac os x|macintosh/i.test(ua)
          ? "macos"
          : /linux|x11/i.test(ua)
            ? "linux"
            : "unknown";
  const device =
    /ipad|tablet/i.test(ua) || (/android/i.test(ua) && !/mobile/i.test(ua))
      ? "tablet"
      : /mobi|iphone|ipod/i.test(ua)
        ? "mobile"
        : os === "unknown"
          ? "unknown"
          : "desktop";
  return { browser, device, os, bot };
}

const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 22);

/** A visitor per site, address, user agent and UTC day; a session per visitor and half hour. */
export function visitorIds(siteId: string, address: string, userAgent: string | null | undefined, at: Date) {
  const day = at.toISOString().slice(0, 10);
  const halfHour = Math.floor(at.getTime() / 1_800_000).toString();
  const visitorId = hash("visitor", siteId, address, userAgent ?? "", day);
  return { visitorId, sessionId: hash("session", visitorId, halfHour) };
}

/** The published `utm_*` parameters of a URL, and the referrer's domain. */
export function campaignOf(url: string, referrer: string | null | undefined) {
  let params: URLSearchParams | undefined;
  try {
    params = new URL(url).searchParams;
  } catch {
    params = undefined;
  }
  let referrerDomain: string | null = null;
  if (referrer) {
    try {
      referrerDomain = new URL(referrer).hostname || null;
    } catch {
      referrerDomain = null;
    }
  }
  const param = (name: string) => params?.get(name)?.slice(0, 256) || null;
  return {
    referrer: referrer ? referrer.slice(0, 2048) : null,
    referrerDomain,
    utmSource: param("utm_source"),
    utmMedium: param("utm_medium"),
    utmCampaign: param("utm_campaign"),
    utmTerm: param("utm_term"),
    utmContent: param("utm_content"),
  };
}
