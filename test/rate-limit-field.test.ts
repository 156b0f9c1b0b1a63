// Issue 35: `rateLimit { cost maxCost limit remaining resetAt }` shows a frontend what a document
// costs and what is left of its budget, the same numbers the limits use and the headers show.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";

const QUERY = `{ rateLimit { cost maxCost limit remaining resetAt } viewer { id } }`;

describe("rateLimit", () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { perToken: 40, perAddress: 7, windowSeconds: 60 },
      graphqlLimits: { maxCost: 3_000 } as never,
    });
    ({ token } = await server.bootstrap("Budgets"));
  });
  afterAll(async () => {
    await server?.close();
  });

  async function ask(query: string, bearer?: string) {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ query }),
    });
    return { headers: response.headers, body: (await response.json()) as { data?: any; errors?: unknown[] } };
  }

  it("answers the document's cost and the token's window, as the headers show them", async () => {
    // The token's first request is counted once answered (this process has not verified it yet),
    // the second when it arrives: both paths show what the headers show.
    const first = await ask(QUERY, token);
    expect(first.body.errors).toBeUndefined();
    // By hand: rateLimit 1 + its five fields, viewer 1 + id 1.
    expect(first.body.data.rateLimit).toMatchObject({ cost: 8, maxCost: 3_000, limit: 40 });
    expect(first.body.data.rateLimit.remaining).toBe(Number(first.headers.get("x-ratelimit-remaining")));
    // Rounded up to the second, at resolve time and at answer time: at most a second apart.
    const reset = Date.parse(first.body.data.rateLimit.resetAt) / 1000;
    expect(Math.abs(reset - Number(first.headers.get("x-ratelimit-reset")))).toBeLessThanOrEqual(1);
    expect(reset - Date.now() / 1000).toBeGreaterThan(50);
    const second = await ask(QUERY, token);
    expect(second.body.data.rateLimit.remaining).toBe(first.body.data.rateLimit.remaining - 1);
  });

  it("costs a list by its size", async () => {
    const listed = await ask(`{ rateLimit { cost } integrations(first: 20) { nodes { name title } } }`, token);
    // rateLimit 1 + cost 1; integrations 1 + 20 × (nodes 1 + name 1 + title 1).
    expect(listed.body.data.rateLimit.cost).toBe(2 + 1 + 20 * 3);
  });
});
