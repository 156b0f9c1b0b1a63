// Issue 28 (3, 4): the service answers by every name it is reached by, service paths before site
// routing whatever the Host; a custom hostname is refused when no one can own it, is pending until
// its DNS record is found, and only then serves its site. DNS cannot run here: the test server's
// TXT table stands for the records a domain's owner would set (test/support/server.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_QUERY, subscribeSse } from "./support/realtime.ts";
import { unclaimableReason } from "../src/core/sites/hostname-rules.ts";
import { requestWithHost, startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string };
let B: { organizationId: string; token: string };

const withHost = (path: string, host: string) => requestWithHost(server.url, path, host);

async function publishedSite(owner: { organizationId: string; token: string }, title: string) {
  const api = server.client(owner.token);
  const { data: space } = await api.orgs.createSpace(owner.organizationId, { title });
  await server.graphql(owner.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Welcome", markdown: `Words of ${title}.` },
  });
  const { data: site } = await api.orgs.createSite(owner.organizationId, { title, spaces: [space.id] });
  await api.orgs.publishSite(owner.organizationId, site.id);
  return site;
}

const setHostname = (owner: { organizationId: string; token: string }, siteId: string, hostname: string | null) =>
  server.rest(owner.token, "PATCH", `/v1/orgs/${owner.organizationId}/sites/${siteId}`, { hostname });

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Host owner");
  B = await server.bootstrap("Host squatter");
});

afterAll(async () => {
  await server?.close();
});

describe("the service by another of its names", () => {
  it("answers its landing page, reference, OpenAPI document and sites when reached as localhost or an IP while PUBLIC_URL names 127.0.0.1", async () => {
    const { port } = new URL(server.url);
    const site = await publishedSite(A, "Reached by name");
    for (const host of [`localhost:${port}`, "10.0.0.12", `127.0.0.10:${port}`]) {
      // Before: "/" on a Host other than PUBLIC_URL's was taken for a custom hostname: 404 "No published site here".
      const landing = await withHost("/", host);
      expect(landing.status, host).toBe(200);
      expect(landing.body).toContain('href="/graphql"');
      expect((await withHost("/reference", host)).body).toContain("swagger-ui");
      expect((await withHost("/openapi.json", host)).headers["content-type"]).toContain("application/json");
      expect((await withHost("/health", host)).status).toBe(200);
      // A signed PDF link with a bad signature: the PDF route's refusal, not a site's 404 page.
      const pdf = await withHost("/pdf/nothing?sig=x", host);
      expect(pdf.body).not.toContain("No published site here");
      const page = await withHost(`/sites/${site.id}/`, host);
      expect(page.status).toBe(200);
      expect(page.body).toContain("Words of Reached by name.");
    }
  });
});

describe("custom hostnames", () => {
  it("refuses names no one can prove (IP-like, wildcard DNS, local), with a 400 naming hostname and nothing changed", async () => {
    const site = await publishedSite(A, "Refused names");
    for (const hostname of ["127.0.0.10", "10.0.0.12", "127.0.0.1.nip.io", "docs.10.0.0.1.sslip.io", "app.lvh.me", "docs.app.localhost"]) {
      const answer = await setHostname(A, site.id, hostname);
      expect(answer.status, hostname).toBe(400);
      expect(answer.body.error.message).toContain(`hostname "${hostname}" cannot be used`);
    }
    const { data } = await server.client(A.token).orgs.getSiteById(A.organizationId, site.id);
    expect(data.hostname).toBeUndefined();
  });

  it("names the service's own host and what lies under it as unclaimable, and lets a real domain be claimed", () => {
    // Hand-written cases of the rule the routes and the router share.
    expect(unclaimableReason("docs.example.com", "service.example.org")).toBeNull();
    expect(unclaimableReason("docs.service.example.org", "service.example.org")).toContain("service's own host");
    expect(unclaimableReason("service.example.org", "service.example.org")).toContain("service's own host");
    expect(unclaimableReason("my-service.example.org", "service.example.org")).toBeNull();
    expect(unclaimableReason("1.2.3.4", "service.example.org")).toContain("IP address");
    expect(unclaimableReason("a.b.123", "service.example.org")).toContain("IP address");
    expect(unclaimableReason("x.nip.io.example.com", "service.example.org")).toBeNull();
  });

  it("is pending until its TXT record is found, then serves the site; removing it stops that", async () => {
    const site = await publishedSite(A, "Proven docs");
    const hostname = "docs.proven.example.com";
    expect((await setHostname(A, site.id, hostname)).status).toBe(200);

    // Pending: the name routes nothing (the service answers it), and says so.
    expect((await withHost("/", hostname)).body).not.toContain("Words of Proven docs.");
    const pending = await server.rest(A.token, "GET", `/v1/custom-hostnames/${hostname}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      object: "custom-hostname",
      hostname,
      target: { type: "site", site: site.id },
      isActive: false,
      status: "dns_no_cname",
      urls: { location: `${server.url}/v1/custom-hostnames/${hostname}` },
    });
    const record = await server.graphql(
      A.token,
      `query($h: String!) { customHostname(hostname: $h) { verified verification { type name value } } }`,
      {
        h: hostname,
      },
    );
    expect(record.data.customHostname).toEqual({
      verified: false,
      verification: { type: "TXT", name: `_docs-verification.${hostname}`, value: `site-verification=${site.id}` },
    });

    // Its channel tells a subscriber when the name is proven; another organization cannot listen.
    const channel = { channel: "custom-hostname", customHostname: hostname };
    const outsider = await subscribeSse(server.url, B.token, CHANNEL_QUERY, { channel });
    expect(outsider.status).toBe(404);
    outsider.close();
    const watcher = await subscribeSse(server.url, A.token, CHANNEL_QUERY, { channel });
    expect(watcher.status).toBe(200);
    for (let i = 0; i < 100 && server.app.services.realtime.openSubscriptions === 0; i++) await new Promise((r) => setTimeout(r, 10));

    // No record, then a record naming another site: refused, naming the record to set.
    const missing = await server.rest(A.token, "PATCH", `/v1/custom-hostnames/${hostname}`);
    expect(missing.status).toBe(409);
    expect(missing.body.error.message).toContain(`_docs-verification.${hostname}`);
    expect(missing.body.error.message).toContain(`site-verification=${site.id}`);
    server.dns.set(`_docs-verification.${hostname}`, ["site-verification=site_someone-else"]);
    expect((await server.rest(A.token, "PATCH", `/v1/custom-hostnames/${hostname}`)).status).toBe(409);
    expect((await withHost("/", hostname)).body).not.toContain("Words of Proven docs.");

    server.dns.set(`_docs-verification.${hostname}`, ["v=spf1 -all", `site-verification=${site.id}`]);
    expect((await server.rest(A.token, "PATCH", `/v1/custom-hostnames/${hostname}`)).status).toBe(204);
    const active = await server.rest(A.token, "GET", `/v1/custom-hostnames/${hostname}`);
    expect(active.body).toMatchObject({ isActive: true, status: "dns_passed" });
    const proven = await watcher.next(3000);
    expect(proven?.event).toBe("next");
    expect(JSON.parse(proven!.data).data.channel).toMatchObject({ channel: "custom-hostname" });
    watcher.close();
    const home = await withHost("/", hostname);
    expect(home.status).toBe(200);
    expect(home.body).toContain("Words of Proven docs.");
    // Service paths stay the service's on the site's own name.
    expect((await withHost("/reference", hostname)).body).toContain("swagger-ui");

    // Another organization neither sees nor removes it.
    expect((await server.rest(B.token, "GET", `/v1/custom-hostnames/${hostname}`)).status).toBe(404);
    expect((await server.rest(B.token, "DELETE", `/v1/custom-hostnames/${hostname}`)).status).toBe(404);
    expect((await withHost("/", hostname)).body).toContain("Words of Proven docs.");

    expect((await server.rest(A.token, "DELETE", `/v1/custom-hostnames/${hostname}`)).status).toBe(205);
    expect((await withHost("/", hostname)).body).not.toContain("Words of Proven docs.");
    expect((await server.rest(A.token, "GET", `/v1/custom-hostnames/${hostname}`)).status).toBe(404);
    expect((await server.rest(A.token, "DELETE", `/v1/custom-hostnames/${hostname}`)).status).toBe(404);
  });

  it("lets another site take a pending claim (a claim is no proof) but never a verified name", async () => {
    const owner = await publishedSite(A, "Owner docs");
    const squatter = await publishedSite(B, "Squatter docs");
    const hostname = "docs.owned.example.com";
    // The squatter claims first: pending, it serves nothing, and the owner can still take the name.
    expect((await setHostname(B, squatter.id, hostname)).status).toBe(200);
    expect((await withHost("/", hostname)).body).not.toContain("Words of Squatter docs.");
    expect((await setHostname(A, owner.id, hostname)).status).toBe(200);
    expect((await server.client(B.token).orgs.getSiteById(B.organizationId, squatter.id)).data.hostname).toBeUndefined();
    server.dns.set(`_docs-verification.${hostname}`, [`site-verification=${owner.id}`]);
    expect((await server.rest(A.token, "PATCH", `/v1/custom-hostnames/${hostname}`)).status).toBe(204);

    // Verified: the squatter is refused and nothing changes.
    const taken = await setHostname(B, squatter.id, hostname);
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain(`hostname "${hostname}" is already used`);
    expect((await withHost("/", hostname)).body).toContain("Words of Owner docs.");
    // The squatter's record naming its own site proves nothing for a name it does not hold.
    server.dns.set(`_docs-verification.${hostname}`, [`site-verification=${squatter.id}`]);
    expect((await server.rest(B.token, "PATCH", `/v1/custom-hostnames/${hostname}`)).status).toBe(404);
    expect((await withHost("/", hostname)).body).toContain("Words of Owner docs.");

    // Changing the name makes the new one pending again.
    expect((await setHostname(A, owner.id, "docs2.owned.example.com")).status).toBe(200);
    expect((await withHost("/", "docs2.owned.example.com")).body).not.toContain("Words of Owner docs.");
  });
});
