// Site previews (the published getSitePublishingPreviewById): a URL that opens the site as it is
// now, published or not, whatever its visibility, for one hour, as a visitor with the claims
// given. It carries a token (HS256) signed with a key derived from the site's publishing-auth
// key, so regenerating that key ends every preview at once, and a visitor token cannot pass
// for a preview (nor a preview for a visitor token). Who may read the site through the API may
// ask for one: the preview shows nothing the API does not already give them. The site server
// checks it (src/core/sites/serve.ts): previewed pages are private and never indexed.
import { createHash } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import type { Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import type { VisitorClaims } from "./conditions.ts";
import { joinUrl, requireSite, siteBaseUrl, siteSpacePathOf, structureOf } from "./index.ts";

export const PREVIEW_TTL_SECONDS = 3600;
const AUDIENCE = "site-preview";
const CLAIMS_MAX = 4096;

const previewKey = (site: Pick<Site, "authPrivateKey">) => createHash("sha256").update(`site-preview:${site.authPrivateKey}`).digest();

/** The claims of a valid, unexpired preview token of the site, or null. */
export async function previewClaims(site: Pick<Site, "id" | "authPrivateKey">, token: string, now: Date): Promise<VisitorClaims | null> {
  try {
    const { payload } = await jwtVerify(token, previewKey(site), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      subject: site.id,
      currentDate: now,
      requiredClaims: ["exp"],
    });
    const claims = payload.claims;
    return claims && typeof claims === "object" && !Array.isArray(claims) ? (claims as VisitorClaims) : {};
  } catch {
    return null;
  }
}

/**
 * A Rison value (the published encoding of `claims`): `(name:value,…)`, `!(…)` lists, `'text'`
 * (`!!` and `!'` escape), bare words, numbers, `!t`, `!f`, `!n`. Throws on anything else.
 */
export function parseRison(text: string): unknown {
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at character ${at + 1}`);
  };
  const ID = /[A-Za-z0-9_.\-/~]/;
  const value = (depth: number): unknown => {
    if (depth > 16) fail("nested too deep");
    const c = text[at];
    if (c === "(") {
      at++;
      const object: Record<string, unknown> = {};
      if (text[at] === ")") return at++, object;
      for (;;) {
        const key = value(depth + 1);
        if (typeof key !== "string" && typeof key !== "number") fail("a name expected");
        if (text[at++] !== ":") fail("':' expected");
        object[String(key)] = value(depth + 1);
        const next = text[at++];
        if (next === ")") return object;
        if (next !== ",") fail("',' or ')' expected");
      }
    }
    if (c === "!") {
      const kind = text[at + 1];
      at += 2;
      if (kind === "t") return true;
      if (kind === "f") return false;
      if (kind === "n") return null;
      if (kind === "(") {
        const list: unknown[] = [];
        if (text[at] === ")") return at++, list;
        for (;;) {
          list.push(value(depth + 1));
          const next = text[at++];
          if (next === ")") return list;
          if (next !== ",") fail("',' or ')' expected");
        }
      }
      return fail("unknown '!' value");
    }
    if (c === "'") {
      at++;
      let out = "";
      for (;;) {
        const ch = text[at++];
        if (ch === undefined) fail("unterminated string");
        if (ch === "'") return out;
        if (ch === "!") {
          const escaped = text[at++];
          if (escaped !== "!" && escaped !== "'") fail("bad escape");
          out += escaped;
        } else out += ch;
      }
    }
    const start = at;
    while (at < text.length && ID.test(text[at]!)) at++;
    if (start === at) fail("a value expected");
    const word = text.slice(start, at);
    return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(word) ? Number(word) : word;
  };
  const result = value(0);
  if (at !== text.length) fail("unexpected text");
  return result;
}

export interface PreviewOptions {
  siteSpace?: string | null;
  claims?: string | null;
  draft?: boolean | null;
  target?: string | null;
}

export async function sitePreviewUrl(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  options: PreviewOptions,
): Promise<string> {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  let claims: VisitorClaims = {};
  if (options.claims != null && options.claims !== "") {
    if (options.claims.length > CLAIMS_MAX) throw badInput(`claims: at most ${CLAIMS_MAX} characters`);
    let parsed: unknown;
    try {
      parsed = parseRison(options.claims);
    } catch (error) {
      throw badInput(`claims is not a Rison object: ${(error as Error).message}`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw badInput("claims must be a Rison object: (name:value,…)");
    claims = parsed as VisitorClaims;
  }
  const base = siteBaseUrl(ctx, site);
  let url = joinUrl(base, "");
  if (options.siteSpace != null) {
    const structure = await structureOf(ctx, site);
    const siteSpace = structure.siteSpaces.find((row) => row.id === options.siteSpace);
    if (!siteSpace) throw badInput(`siteSpace: the site has no site space ${quote(options.siteSpace)}`);
    url = joinUrl(base, siteSpacePathOf(structure, siteSpace));
  }
  if (options.target != null) {
    let target: URL;
    try {
      target = new URL(options.target, url);
    } catch {
      throw badInput("target must be a URL of the site");
    }
    if (target.href !== base && !target.href.startsWith(`${base}/`))
      throw badInput(`target must be a URL of the site (starting with ${base}/)`);
    url = target.href;
  }
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const token = await new SignJWT({ claims })
    .setProtectedHeader({ alg: "HS256" })
    .setAudience(AUDIENCE)
    .setSubject(site.id)
    .setIssuedAt(now)
    .setExpirationTime(now + PREVIEW_TTL_SECONDS)
    .sign(previewKey(site));
  const parsed = new URL(url);
  parsed.searchParams.set("preview", token);
  return parsed.href;
}
