// Readers of published sites are rate limited per address by a limiter that counts in the process
// and syncs with the shared store in batches (src/http/batched-rate-limit.ts): no store call per
// request, one per key per sync, and the limit still holds across instances sharing the store.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchedRateLimiter } from "../src/http/batched-rate-limit.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

/** A shared store (as the PostgreSQL rows are for instances), counting the calls it gets. */
function sharedStore(points: number) {
  const store = new RateLimiterMemory({ points, duration: 60 });
  const calls: [string, number][] = [];
  const consume = store.consume.bind(store);
  store.consume = (key: string | number, amount = 1) => {
    calls.push([String(key), amount]);
    return consume(key, amount);
  };
  return { store, calls };
}

const outcome = (promise: Promise<RateLimiterRes>) =>
  promise.then(
    (result) => ({ allowed: true, remaining: result.remainingPoints }),
    (refusal: RateLimiterRes) => ({ allowed: false, remaining: refusal.remainingPoints }),
  );

describe("batched rate limiter", () => {
  it("decides each request locally, sends one store call per key per sync, and sees the other instances' counts after it", async () => {
    const { store, calls } = sharedStore(6);
    const a = new BatchedRateLimiter(store, 6, 60, 60_000);
    const b = new BatchedRateLimiter(store, 6, 60, 60_000);
    for (let i = 0; i < 3; i++) expect((await outcome(a.consume("1.2.3.4"))).allowed).toBe(true);
    for (let i = 0; i < 2; i++) expect((await outcome(b.consume("1.2.3.4"))).allowed).toBe(true);
    expect((await outcome(a.consume("5.6.7.8"))).remaining).toBe(5);
    expect(calls).toEqual([]);

    await a.sync();
    await b.sync();
    expect(calls).toEqual([
      ["1.2.3.4", 3],
      ["5.6.7.8", 1],
      ["1.2.3.4", 2],
    ]);
    // b learnt a's 3: 5 of 6 used, so one more passes and the next is refused, on either instance once synced.
    expect(await outcome(b.consume("1.2.3.4"))).toEqual({ allowed: true, remaining: 0 });
    expect((await outcome(b.consume("1.2.3.4"))).allowed).toBe(false);
    // a learns of b's requests at its next sync of that key: until then it decides on what it knew
    // (the bound: one sync interval late), after it, it refuses too.
    await b.sync();
    expect((await outcome(a.consume("1.2.3.4"))).allowed).toBe(true);
    await a.sync();
    expect((await outcome(a.consume("1.2.3.4"))).allowed).toBe(false);
    expect((await outcome(a.consume("5.6.7.8"))).allowed).toBe(true);
  });

  it("counts what a sync has sent until the store answers: a slow store lets nothing through twice", async () => {
    // The store's answer is held, as a PostgreSQL upsert under load or waiting on a lock is.
    const { store, calls } = sharedStore(5);
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const consume = store.consume.bind(store);
    store.consume = async (key: string | number, amount = 1) => {
      await held;
      return consume(key, amount);
    };
    const limiter = new BatchedRateLimiter(store, 5, 60, 60_000);
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await outcome(limiter.consume("k"))).remaining);
    const sync = limiter.sync(); // sends 3, and waits
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 3; i++) remaining.push((await outcome(limiter.consume("k"))).remaining);
    // Before: the 3 sent were forgotten until the store answered, so Remaining went back up to 4 and
    // the 6th request passed.
    expect(remaining).toEqual([4, 3, 2, 1, 0, 0]);
    expect((await outcome(limiter.consume("k"))).allowed).toBe(false);
    answer();
    await sync;
    expect((await outcome(limiter.consume("k"))).allowed).toBe(false);
    await limiter.sync();
    // The 5 counted since the first sync was sent (refused ones count, as in rate-limiter-flexible).
    expect(calls).toEqual([
      ["k", 3],
      ["k", 5],
    ]);
  });

  it("keeps counting locally when the store fails", async () => {
    const failing = new RateLimiterMemory({ points: 2, duration: 60 });
    failing.consume = () => Promise.reject(new Error("store down"));
    const limiter = new BatchedRateLimiter(failing, 2, 60, 60_000);
    await limiter.consume("k");
    await limiter.sync();
    await limiter.consume("k");
    expect((await outcome(limiter.consume("k"))).allowed).toBe(false);
  });
});

describe("readers of a published site", () => {
  let server: TestServer;
  let sitePath: string;

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { perToken: 100, perAddress: 4, windowSeconds: 60 } });
    const admin = await server.bootstrap("Reader limits");
    const api = server.client(admin.token);
    const space = (await api.orgs.createSpace(admin.organizationId, { title: "Read" })).data;
    const site = (await api.orgs.createSite(admin.organizationId, { title: "Read site", spaces: [space.id] })).data;
    await api.orgs.publishSite(admin.organizationId, site.id);
    sitePath = `/sites/${site.id}/`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("are limited per address with their own budget: 429 beyond it, while the API's address budget is untouched", async () => {
    const statuses: number[] = [];
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.url}${sitePath}`);
      statuses.push(response.status);
      remaining.push(response.headers.get("x-ratelimit-remaining"));
      await response.arrayBuffer();
    }
    // (The site's space has no page yet: its home answers the site's 404 page.)
    expect(statuses.map((status) => status === 429)).toEqual([false, false, false, false, true]);
    expect(remaining).toEqual(["3", "2", "1", "0", "0"]);
    const api = await fetch(`${server.url}/v1/user`);
    expect(api.status).toBe(401);
    expect(api.headers.get("x-ratelimit-remaining")).toBe("3");
  });
});
