// An integration's `contentSecurityPolicy` (the published `IntegrationContentSecurityPolicy`: a
// string, or directives by name), "sent as headers when processing the script fetch event and the
// blocks fetch events":
// - as a `Content-Security-Policy` header of its own on the answers of its public endpoints
//   (endpoints.ts) and of its site scripts (site-scripts.ts): every policy given applies, so it
//   only restricts what the answer may do;
// - merged into the policy of the published pages that load its site script (src/core/sites/
//   serve.ts), where it must widen the page's policy to let the script reach what it declares
//   (`connect-src https://api.example.com`, its images, frames, fonts). Only fetch directives
//   (`*-src`) are merged, as a union with the page's (its fallback directive when it has none);
//   the page keeps its own `base-uri`, `form-action`, `frame-ancestors` and the rest. Script
//   directives take host sources and 'self' only: no keyword ('unsafe-inline', 'unsafe-eval',
//   'strict-dynamic', nonces, hashes), no scheme or wildcard source, so no inline or arbitrary
//   script runs on a page.

/** The published `IntegrationContentSecurityPolicy` (a string, or directives) as one header value; null when none. */
export function contentSecurityPolicyHeader(policy: unknown): string | null {
  let value: string | null = null;
  if (typeof policy === "string") value = policy;
  else if (typeof policy === "object" && policy !== null && !Array.isArray(policy)) {
    value = Object.entries(policy)
      .filter((entry): entry is [string, string] => typeof entry[1] === "string" && /^[a-z-]+$/.test(entry[0]))
      .map(([directive, sources]) => (sources.trim() ? `${directive} ${sources.trim()}` : directive))
      .join("; ");
  }
  // A header value holds no line breaks or other control characters.
  value = value?.replace(/[\u0000-\u001f\u007f]+/g, " ").trim() ?? null;
  return value ? value : null;
}

/** A policy's directives in order, each once (a repeated directive is ignored, as browsers do). */
function parsePolicy(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    const directive = name?.toLowerCase();
    if (!directive || !/^[a-z-]+$/.test(directive) || directives.has(directive)) continue;
    directives.set(directive, sources);
  }
  return directives;
}

/** Where a fetch directive falls back when a policy does not have it (CSP Level 3). */
const FALLBACKS: Record<string, string[]> = {
  "script-src-elem": ["script-src", "default-src"],
  "script-src-attr": ["script-src", "default-src"],
  "style-src-elem": ["style-src", "default-src"],
  "style-src-attr": ["style-src", "default-src"],
  "worker-src": ["child-src", "script-src", "default-src"],
  "frame-src": ["child-src", "default-src"],
};
const SCRIPT_DIRECTIVES: ReadonlySet<string> = new Set([
  "default-src",
  "script-src",
  "script-src-elem",
  "script-src-attr",
  "worker-src",
  "child-src",
]);
/** A host source (scheme optional, `*.` subdomains, port, path), or 'self': what script directives may add. */
const HOST_SOURCE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::(?:\d+|\*))?(?:\/[^\s;,]*)?$/i;

const safeSource = (directive: string, source: string) =>
  !source.includes(",") && (!SCRIPT_DIRECTIVES.has(directive) || source === "'self'" || HOST_SOURCE.test(source));

/**
 * `base` widened by the fetch directives of `additions` (integrations' policies as header values):
 * each `*-src` directive of an addition becomes the union of its sources and the page's (the
 * page's fallback directive when it has none), without 'none' once there is another source.
 */
export function mergeContentSecurityPolicies(base: string, additions: readonly (string | null | undefined)[]): string {
  const merged = parsePolicy(base);
  const effective = (directive: string) => {
    for (const name of [directive, ...(FALLBACKS[directive] ?? (directive === "default-src" ? [] : ["default-src"]))]) {
      const sources = merged.get(name);
      if (sources) return sources;
    }
    return [];
  };
  let changed = false;
  for (const addition of additions) {
    if (!addition) continue;
    for (const [directive, sources] of parsePolicy(addition)) {
      if (!directive.endsWith("-src")) continue;
      const added = sources.filter((source) => source.toLowerCase() !== "'none'" && safeSource(directive, source));
      if (added.length === 0) continue;
      const union = [...new Set([...effective(directive), ...added])];
      merged.set(
        directive,
        union.filter((source) => source.toLowerCase() !== "'none'"),
      );
      changed = true;
    }
  }
  if (!changed) return base;
  return [...merged].map(([directive, sources]) => [directive, ...sources].join(" ")).join("; ");
}
