// Issue 28.6: every field that ends up in a header or a URL, driven with generated strings
// (fast-check) on both surfaces. The properties: a refusal is a 400 naming the field; an accepted
// value holds no control character; and the answers that carry a stored value in a header (a
// visitor's redirect to the fallback URL, the favicon redirect, a hostname's routing) come back
// at once, with the value as it was checked. A failure prints fast-check's seed and the shrunk value.
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";

const RUNS = 20;
// C0, C1, DEL, line and paragraph separators, a lone surrogate, NUL: what a header cannot carry.
const NASTY = ["\r\n", "\n", "\r", "\t", "\u0000", "\u0001", "\u001b", "\u007f", "\u0085", "\u009f", "\u2028", "\ud800", " ", '"', "<"];
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A URL-ish string: a web URL with nasty characters inserted, a web URL as it is, or anything. */
const urlish = fc.oneof(
  fc
    .tuple(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NASTY)), { maxLength: 3 }),
    )
    .map(([url, inserts]) =>
      inserts.reduce((text, [at, bad]) => text.slice(0, at % (text.length + 1)) + bad + text.slice(at % (text.length + 1)), url),
    ),
  fc.webUrl(),
  fc.string({ unit: "binary", maxLength: 80 }),
);

let server: TestServer;
let token: string;
let organizationId: string;
let siteId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ token, organizationId } = await server.bootstrap("Header fuzz"));
  const api = server.client(token);
  const space = (await api.orgs.createSpace(organizationId, { title: "Docs" })).data;
  const site = (await api.orgs.createSite(organizationId, { title: "Fuzzed", spaces: [space.id], visibility: "visitor-auth" as never }))
    .data;
  await api.orgs.publishSite(organizationId, site.id);
  siteId = site.id;
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** A site path as a visitor opens it: answered (not hung) within 5 s, the answer's status and Location. */
async function visit(path: string) {
  const answer = await fetch(`${server.url}${path}`, { redirect: "manual", signal: AbortSignal.timeout(5000) });
  await answer.arrayBuffer();
  return { status: answer.status, location: answer.headers.get("location") };
}

const surfaces = ["rest", "graphql"] as const;

/** One write through `surface`: the REST request, or the GraphQL mutation with `input`; its status and error message. */
async function write(surface: (typeof surfaces)[number], rest: [string, string, unknown], mutation: string, input: unknown) {
  if (surface === "rest") {
    const answer = await server.rest(token, ...rest);
    return { status: answer.status, message: answer.body?.error?.message as string | undefined };
  }
  const answer = await server.graphql(token, mutation, { input });
  return {
    status: answer.errors ? (answer.errors[0].extensions?.http?.status ?? answer.status) : 200,
    message: answer.errors?.[0].message,
  };
}

/** The answer of a write: accepted (true), refused with a 400 naming `field`, or a failure of the property. */
function accepted(surface: string, field: string, status: number, message: string | undefined): boolean {
  expect(status, `${surface} ${field}: ${message}`).toBeLessThan(500);
  if (status < 300) return true;
  expect(status).toBe(400);
  // Named as the field, not a GraphQL input that failed to coerce (which would quote it too).
  expect(message).toMatch(new RegExp(`(^|[ .$])${field}( must|:| is|\\b)`));
  expect(message).not.toMatch(/got invalid value|is not defined|was not provided/);
  return false;
}

describe.each(["fallbackURL", "logoutURL"])("site publishing auth %s", (field) => {
  it.each(surfaces)("over %s: refused with its name or stored without control characters; a visitor is answered", async (surface) => {
    await fc.assert(
      fc.asyncProperty(urlish, async (value) => {
        const { status, message } = await write(
          surface,
          ["PATCH", `/v1/orgs/${organizationId}/sites/${siteId}/publishing/auth`, { [field]: value }],
          `mutation($input: UpdateSitePublishingAuthInput!) { updateSitePublishingAuth(input: $input) { publishingAuth { fallbackURL } } }`,
          { site: siteId, [field]: value },
        );
        const stored = await server.database.prisma.site.findUniqueOrThrow({ where: { id: siteId } });
        const kept = field === "fallbackURL" ? stored.authFallbackURL : stored.authLogoutURL;
        if (accepted(surface, field, status, message)) expect(kept).toBe(value);
        if (kept !== null) expect(CONTROL.test(kept)).toBe(false);
        const visitor = await visit(`/sites/${siteId}/`);
        expect([302, 401]).toContain(visitor.status);
        if (visitor.location !== null) expect(CONTROL.test(visitor.location)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("organization logo", () => {
  it.each(surfaces)("over %s: refused with its name or stored without control characters", async (surface) => {
    await fc.assert(
      fc.asyncProperty(urlish, async (value) => {
        const { status, message } = await write(
          surface,
          ["PATCH", `/v1/orgs/${organizationId}`, { logo: value }],
          `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { organization { id } } }`,
          { id: organizationId, logo: value },
        );
        const stored = await server.database.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } });
        if (accepted(surface, "logo", status, message)) expect(stored.logo).toBe(value);
        if (stored.logo !== null) expect(CONTROL.test(stored.logo)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("site favicon (customization)", () => {
  it.each(surfaces)("over %s: whatever is stored, the favicon answer's Location is a clean URL", async (surface) => {
    const base = (await server.rest(token, "GET", `/v1/orgs/${organizationId}/sites/${siteId}/customization`)).body;
    await fc.assert(
      fc.asyncProperty(urlish, async (value) => {
        const customization = { ...base, favicon: { icon: { light: value, dark: value } } };
        const { status, message } = await write(
          surface,
          ["PUT", `/v1/orgs/${organizationId}/sites/${siteId}/customization`, customization],
          `mutation($input: UpdateSiteCustomizationInput!) { updateSiteCustomization(input: $input) { site { id } } }`,
          { site: siteId, customization },
        );
        accepted(surface, "favicon", status, message);
        const icon = await visit(`/sites/${siteId}/favicon.ico`);
        expect(icon.status).toBeLessThan(500);
        if (icon.location !== null) {
          expect(CONTROL.test(icon.location)).toBe(false);
          expect(new URL(icon.location).protocol).toMatch(/^https?:$/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("site hostname", () => {
  it.each(
    surfaces,
  )("over %s: refused with its name or a plain lowercase name; the service still answers at its own host", async (surface) => {
    const hostnameish = fc.oneof(
      urlish,
      fc.domain(),
      fc.tuple(fc.domain(), fc.constantFrom(...NASTY)).map(([domain, bad]) => `docs.${domain}${bad}`),
    );
    await fc.assert(
      fc.asyncProperty(hostnameish, async (value) => {
        const { status, message } = await write(
          surface,
          ["PATCH", `/v1/orgs/${organizationId}/sites/${siteId}`, { hostname: value }],
          `mutation($input: UpdateSiteInput!) { updateSite(input: $input) { site { id } } }`,
          { site: siteId, hostname: value },
        );
        const stored = await server.database.prisma.site.findUniqueOrThrow({ where: { id: siteId } });
        if (accepted(surface, "hostname", status, message)) expect(stored.hostname).toBe(value);
        if (stored.hostname !== null) expect(stored.hostname).toMatch(/^[a-z0-9.-]+$/);
        expect((await visit(`/sites/${siteId}/`)).status).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("slow connections to every site path, with bad values stored", () => {
  const HEADERS_TIMEOUT_MS = 1000;
  const REQUEST_TIMEOUT_MS = 2000;
  // Node checks its timeouts every second (src/http/server-options.ts): the bound is the timeout, plus
  // that interval, plus a margin for a loaded machine.
  const SLACK_MS = 2500;
  let slow: TestServer;
  let slowToken: string;
  let slowSite: string;
  const paths = ["", "welcome", "welcome.md", "sitemap.xml", "llms.txt", "robots.txt", "favicon.ico", "~search?q=x", "missing/page"];

  beforeAll(async () => {
    slow = await startTestServer({}, { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const admin = await slow.bootstrap("Slow readers");
    slowToken = admin.token;
    const api = slow.client(admin.token);
    const space = (await api.orgs.createSpace(admin.organizationId, { title: "Docs" })).data;
    const site = (
      await api.orgs.createSite(admin.organizationId, { title: "Slow", spaces: [space.id], visibility: "visitor-auth" as never })
    ).data;
    await api.orgs.publishSite(admin.organizationId, site.id);
    slowSite = site.id;
    // Values stored before the input rules (or by hand): what a header cannot carry.
    await slow.database.prisma.site.update({
      where: { id: site.id },
      data: { authFallbackURL: "https://ok.example/\r\nSet-Cookie: x=1", authLogoutURL: "https://ok.example/\u0001" },
    });
  }, 60_000);
  afterAll(async () => {
    await slow?.close();
  });

  /** Sends `head` and then one byte of `trickle` every 200 ms; resolves when the server answers or closes, with the time it took. */
  function trickle(head: string, drip: string): Promise<{ ms: number; answer: string }> {
    const { hostname, port } = new URL(slow.url);
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const socket = connect({ host: hostname, port: Number(port) });
      let answer = "";
      let index = 0;
      const timer = setInterval(() => {
        if (index < drip.length && !socket.destroyed) socket.write(drip[index++]);
      }, 200);
      const done = () => {
        clearInterval(timer);
        resolve({ ms: performance.now() - started, answer: answer.split("\r\n")[0] });
      };
      socket.setTimeout(REQUEST_TIMEOUT_MS + 10_000, () => {
        clearInterval(timer);
        socket.destroy();
        reject(new Error(`connection still open after ${REQUEST_TIMEOUT_MS + 10_000} ms`));
      });
      socket.on("connect", () => socket.write(head));
      socket.on("data", (chunk) => {
        answer += chunk.toString("latin1");
      });
      socket.on("close", done);
      socket.on("error", () => {});
    });
  }

  it("answers every path at once, a 401 page and no header from the bad values", async () => {
    for (const path of paths) {
      const answer = await fetch(`${slow.url}/sites/${slowSite}/${path}`, { redirect: "manual", signal: AbortSignal.timeout(5000) });
      await answer.arrayBuffer();
      expect(answer.status, path).toBe(401);
      expect(answer.headers.get("set-cookie"), path).toBeNull();
      expect(answer.headers.get("location"), path).toBeNull();
    }
  });

  it("closes a connection whose headers never end within the headers timeout, on every path, while others are answered", async () => {
    const host = new URL(slow.url).host;
    const stalls = paths.map((path) =>
      trickle(`GET /sites/${slowSite}/${path} HTTP/1.1\r\nHost: ${host}\r\n`, "X-Slow: ".padEnd(400, "a")),
    );
    // A reader and an API client, both answered while nine connections stall.
    const reader = await fetch(`${slow.url}/sites/${slowSite}/`, { signal: AbortSignal.timeout(5000) });
    expect(reader.status).toBe(401);
    const api = await slow.rest(slowToken, "GET", "/v1/user");
    expect(api.status).toBe(200);
    for (const { ms, answer } of await Promise.all(stalls)) {
      expect(ms).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
      expect(answer === "" || answer.startsWith("HTTP/1.1 408")).toBe(true);
    }
  });

  it("closes a connection whose body never ends within the request timeout", async () => {
    const host = new URL(slow.url).host;
    const stalls = paths
      .slice(0, 3)
      .map((path) =>
        trickle(
          `POST /sites/${slowSite}/${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n`,
          "b".repeat(1000),
        ),
      );
    for (const { ms, answer } of await Promise.all(stalls)) {
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
      // Answered at once (a site takes no body) or cut at the request timeout.
      expect(answer === "" || /^HTTP\/1\.1 (4\d\d)/.test(answer)).toBe(true);
    }
  });
});
