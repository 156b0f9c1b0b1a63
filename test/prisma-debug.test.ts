// Prisma's debug logger with its `enabled` predicate remembered (src/db/client.ts): it still logs
// what DEBUG asks for, also when DEBUG changes while the process runs, and nothing otherwise.
import { Debug as ClientDebug } from "@prisma/client/runtime/client";
import { Debug as AdapterDebug } from "@prisma/driver-adapter-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../src/db/client.ts";
import { openTestDatabase } from "./support/database.ts";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());
afterEach(() => {
  ClientDebug.disable();
});

/** The namespaces logged while `work` ran. */
async function logged(work: () => Promise<unknown>): Promise<string> {
  const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    await work();
    return spy.mock.calls.map((call) => call.map(String).join(" ")).join("\n");
  } finally {
    spy.mockRestore();
  }
}

describe("Prisma's debug logger", () => {
  it("logs nothing while DEBUG names nothing, and what DEBUG names once it does", async () => {
    const query = () => db.prisma.organization.findMany({ where: { title: "none" } });
    expect(ClientDebug.enabled("prisma:client:clientEngine")).toBe(false);
    expect(await logged(query)).toBe("");
    ClientDebug.enable("prisma:client:clientEngine");
    expect(ClientDebug.enabled("prisma:client:clientEngine")).toBe(true);
    expect(ClientDebug.enabled("prisma:client:request_handler")).toBe(false);
    expect(await logged(query)).toContain("query plan");
    // Excluded again: the predicate follows DEBUG, not what it answered before.
    ClientDebug.enable("prisma:client:*,-prisma:client:clientEngine");
    expect(ClientDebug.enabled("prisma:client:clientEngine")).toBe(false);
    expect(ClientDebug.enabled("prisma:client:request_handler")).toBe(true);
    ClientDebug.disable();
    expect(await logged(query)).toBe("");
  });

  it.skipIf(!process.env.DATABASE_URL)("the adapter's copy too (PostgreSQL)", async () => {
    const query = () => db.prisma.organization.findMany({ where: { title: "none" } });
    AdapterDebug.enable("prisma:driver-adapter:pg");
    try {
      expect(await logged(query)).toContain("query_raw");
    } finally {
      AdapterDebug.disable();
    }
    expect(await logged(query)).toBe("");
  });
});
