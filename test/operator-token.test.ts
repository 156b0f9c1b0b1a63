// The loopback endpoint through which `cli token` gets a token from a server that holds the
// embedded database: only from a loopback address, only with the secret, bad input named, and
// nothing issued by a refused call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { bootstrapOrganization } from "../src/core/bootstrap/index.ts";
import type { Database } from "../src/db/client.ts";
import { openTestDatabase } from "./support/database.ts";

const SECRET = "3f9a1c7e5b2d8046a1e9c3b7d5f20864c1a3e5f7092b4d6e8a0c2e4f6a8b0d2c";
let database: Database;
let app: App;

beforeAll(async () => {
  database = await openTestDatabase();
  app = createApp({ database, config: { publicUrl: "http://localhost:4000" }, startJobs: false, operatorSecret: SECRET });
  await bootstrapOrganization(database.prisma, { organizationTitle: "Operators", email: "op@example.com" });
});

afterAll(async () => {
  await app.close();
  await database.close();
});

const from = (remoteAddress: string) => ({ req: { socket: { remoteAddress } } });
const ask = (body: unknown, { address = "127.0.0.1", authorization = `Operator ${SECRET}`, method = "POST" } = {}) =>
  app.yoga.fetch(
    "http://localhost:4000/operator/token",
    { method, headers: { authorization, "content-type": "application/json" }, body: method === "POST" ? JSON.stringify(body) : undefined },
    from(address),
  );
const tokens = () => database.prisma.apiToken.count();

describe("POST /operator/token", () => {
  it("issues a working token for a user by e-mail, from loopback with the secret", async () => {
    const before = await tokens();
    const response = await ask({ email: "Op@example.com", label: "terminal", expiresInDays: 2 }, { address: "::ffff:127.0.0.1" });
    expect(response.status).toBe(200);
    const issued = (await response.json()) as { token: string; userId: string; expiresAt: string };
    expect(Object.keys(issued).sort()).toEqual(["expiresAt", "token", "userId"]);
    expect(await tokens()).toBe(before + 1);
    const viewer = await app.yoga.fetch("http://localhost:4000/v1/user", { headers: { authorization: `Bearer ${issued.token}` } });
    expect(((await viewer.json()) as { email: string }).email).toBe("op@example.com");
  });

  it("refuses every other caller and bad input, naming the field, and issues nothing", async () => {
    const before = await tokens();
    const cases: [Response, number, RegExp][] = [
      [await ask({ email: "op@example.com" }, { address: "10.1.2.3" }), 404, /No route \/operator\/token/],
      [await ask({ email: "op@example.com" }, { authorization: `Operator ${SECRET.slice(1)}x` }), 401, /Authorization/],
      [await ask({ email: "op@example.com" }, { authorization: "" }), 401, /Authorization/],
      [await ask(undefined, { method: "GET" }), 405, /POST/],
      [await ask({ email: "not-an-address" }), 400, /^email: /],
      [await ask({ email: "op@example.com", label: 7 }), 400, /^label: /],
      [await ask({ email: "op@example.com", expiresInDays: 0 }), 400, /expiresInDays/],
      [await ask({ email: "nobody@example.com" }), 404, /No user has the e-mail "nobody@example.com"/],
      [await ask({ email: "op@example.com", label: "x".repeat(5000) }), 413, /over 4096 bytes/],
    ];
    for (const [response, status, message] of cases) {
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect({ status: response.status, message: body.error.message }).toMatchObject({ status, message: expect.stringMatching(message) });
    }
    expect(await tokens()).toBe(before);
  });

  it("does not exist on a server without the secret (PostgreSQL, where the CLI opens the database itself)", async () => {
    const plain = createApp({ database, config: { publicUrl: "http://localhost:4000" }, startJobs: false });
    try {
      const response = await plain.yoga.fetch("http://localhost:4000/operator/token", { method: "POST", body: "{}" }, from("127.0.0.1"));
      expect(response.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
