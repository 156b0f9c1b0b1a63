// Issue 28.2: the rate limiter keys a request on what it has verified. A random or unknown bearer
// token is counted against the client address (before, each one got a fresh budget of its own);
// readers of sites are counted per address whatever Authorization says; refused share keys have a
// stricter budget of their own, after which requests carrying a key are refused unchecked.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";

const randomBearer = () => ({ authorization: `Bearer dps_${randomBytes(24).toString("base64url")}` });

describe("unverified tokens and site readers", () => {
  let server: TestServer;
  let token: string;
  let sitePath: string;

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { perToken: 100, perAddress: 5, windowSeconds: 60 } });
    const admin = await server.bootstrap("Limits by key");
    token = admin.token;
    const api = server.client(token);
    const space = (await api.orgs.createSpace(admin.organizationId, { title: "Read" })).data;
    const site = (await api.orgs.createSite(admin.organizationId, { title: "Read site", spaces: [space.id] })).data;
    await api.orgs.publishSite(admin.organizationId, site.id);
    sitePath = `/sites/${site.id}/`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("counts random bearer tokens against the address: 429 at the address budget, while a verified token keeps its own", async () => {
    // A real token's first request is verified by its answer: counted against the token, not the address.
    expect((await fetch(`${server.url}/v1/user`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${server.url}/v1/user`, { headers: randomBearer() })).status);
    // Before: [401, 401, 401, 401, 401, 401], each random token a fresh budget.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await fetch(`${server.url}/v1/user`, { headers: randomBearer() });
    expect(refused.headers.get("x-ratelimit-limit")).toBe("5");
    expect((await refused.json()).error.message).toContain("per client address");
    const verified = await fetch(`${server.url}/v1/user`, { headers: { authorization: `Bearer ${token}` } });
    expect(verified.status).toBe(200);
    expect(verified.headers.get("x-ratelimit-limit")).toBe("100");
  });

  it("counts a site's readers per address whatever Authorization says", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${server.url}${sitePath}?q=${i}`, { headers: randomBearer() })).status);
    // Before: none refused (each random token its own budget). The site's space is empty: its home is a 404 page.
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    // A verified token buys a reader nothing either.
    expect((await fetch(`${server.url}${sitePath}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(429);
  });
});

describe("refused share keys", () => {
  let server: TestServer;
  let published: string;
  let sitePath: string;

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { perToken: 1000, perAddress: 1000, windowSeconds: 60, credentialFailuresPerAddress: 3 },
    });
    const admin = await server.bootstrap("Share key guesses");
    const api = server.client(admin.token);
    const space = (await api.orgs.createSpace(admin.organizationId, { title: "Shared" })).data;
    const site = (
      await api.orgs.createSite(admin.organizationId, { title: "Shared site", spaces: [space.id], visibility: "share-link" as never })
    ).data;
    await api.orgs.publishSite(admin.organizationId, site.id);
    published = (await api.orgs.createSiteShareLink(admin.organizationId, site.id, { name: "Readers" })).data.urls.published!;
    sitePath = `/sites/${site.id}/`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("have a stricter budget per address: after it, requests carrying a key get 429 unchecked, others are served as before", async () => {
    // The site's space is empty: the valid key opens the site, whose home is a 404 page.
    expect((await fetch(published)).status).toBe(404);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${server.url}${sitePath}?shareKey=guess-${i}`)).status);
    // Before: [403, 403, 403, 403, 403].
    expect(statuses).toEqual([403, 403, 403, 429, 429]);
    const right = await fetch(published);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    // Without a key the site still answers (its usual 401 page): only guessing is shut out.
    expect((await fetch(`${server.url}${sitePath}`)).status).toBe(401);
  });
});
