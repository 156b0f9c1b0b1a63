// Fixtures of site tests.
import type { TestServer } from "./server.ts";

/** A site's adaptive schema (valid against the published one): a signed `plan` claim, an unsigned `beta` claim. */
export const ADAPTIVE_SCHEMA = {
  type: "object",
  properties: {
    plan: { type: "string", enum: ["free", "pro"], description: "Plan" },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      properties: { beta: { type: "boolean", description: "Beta" } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/**
 * Gives a site a custom hostname that serves it: sets it, writes the TXT record its owner would
 * (the test server's DNS table), and has it checked.
 */
export async function serveAtHostname(server: TestServer, token: string, organizationId: string, siteId: string, hostname: string) {
  await server.client(token).orgs.updateSiteById(organizationId, siteId, { hostname } as never);
  server.dns.set(`_docs-verification.${hostname}`, [`site-verification=${siteId}`]);
  const checked = await server.rest(token, "PATCH", `/v1/custom-hostnames/${hostname}`);
  if (checked.status !== 204) throw new Error(`hostname ${hostname} not verified: ${JSON.stringify(checked.body)}`);
}
