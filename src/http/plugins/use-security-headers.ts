// Security headers on every response, whatever produced it (GraphQL, REST, files, errors):
// nothing is sniffed into another type, nothing is framed by another site, no referrer leaves,
// and a response that is not a page may load nothing. Pages (GraphiQL) get a policy that keeps
// their own scripts and styles; a response that set its own policy (file downloads) keeps it.
import type { Plugin } from "graphql-yoga";

const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/** The headers of an API answer (not a page): also written by Node-level answers (src/http/client-error.ts). */
export const API_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": API_POLICY,
} as const;
const PAGE_POLICY = "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'";

export function useSecurityHeaders(): Plugin {
  return {
    onResponse({ response }) {
      const headers = response.headers;
      headers.set("X-Content-Type-Options", "nosniff");
      headers.set("Referrer-Policy", "no-referrer");
      if (!headers.has("X-Frame-Options")) headers.set("X-Frame-Options", "DENY");
      if (!headers.has("Content-Security-Policy")) {
        const page = (headers.get("content-type") ?? "").startsWith("text/html");
        headers.set("Content-Security-Policy", page ? PAGE_POLICY : API_POLICY);
      }
    },
  };
}
