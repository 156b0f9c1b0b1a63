// KnownLoader (src/core/loaders.ts, issue 15): a DataLoader that also says, without a promise, the
// value it holds for a key. Its loads, primes and clears answer as DataLoader's do; `peek` knows a
// primed value and one a settled batch gave, and forgets what a clear forgot, including a batch's
// value when a clear of its key came while it ran.
import { describe, expect, it } from "vitest";
import { KnownLoader } from "../src/core/loaders.ts";

/** A loader whose batches are recorded and resolve when `release` is called. */
function loader() {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  let version = 0;
  const known = new KnownLoader<string, string | null>(async (keys) => {
    batches.push([...keys]);
    const seen = version;
    await new Promise<void>((resolve) => pending.push(resolve));
    return keys.map((key) => (key === "missing" ? null : key === "bad" ? new Error("bad") : `${key}@${seen}`));
  });
  return {
    known,
    batches,
    release: () => pending.splice(0).forEach((resolve) => resolve()),
    bump: () => version++,
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("KnownLoader", () => {
  it("peeks a primed value without loading, and gives it to a load as DataLoader does", async () => {
    const { known, batches } = loader();
    known.prime("a", "primed");
    known.prime("a", "second"); // the first value of a key is kept
    known.prime("none", null);
    expect(known.peek("a")).toBe("primed");
    expect(known.peek("none")).toBeNull();
    expect(known.peek("b")).toBeUndefined();
    expect(await known.load("a")).toBe("primed");
    expect(await known.loadMany(["a", "none"])).toEqual(["primed", null]);
    expect(batches).toEqual([]);
  });

  it("peeks what a batch gave once it settled, null included, and no error", async () => {
    const { known, release, batches } = loader();
    const loads = known.loadMany(["a", "missing", "bad"]);
    await tick();
    expect(known.peek("a")).toBeUndefined(); // still loading
    release();
    const [a, missing, bad] = await loads;
    expect([a, missing]).toEqual(["a@0", null]);
    expect(bad).toBeInstanceOf(Error);
    expect(known.peek("a")).toBe("a@0");
    expect(known.peek("missing")).toBeNull();
    expect(known.peek("bad")).toBeUndefined();
    // A key loading keeps its load's value: a prime meanwhile changes nothing, as in DataLoader.
    const c = known.load("c");
    known.prime("c", "primed");
    await tick();
    release();
    expect(await c).toBe("c@0");
    expect(known.peek("c")).toBe("c@0");
    expect(batches).toEqual([["a", "missing", "bad"], ["c"]]);
  });

  it("forgets what clear and clearAll forget, and a batch's value for a key cleared while it ran", async () => {
    const { known, release, bump } = loader();
    known.prime("a", "primed");
    known.clear("a");
    expect(known.peek("a")).toBeUndefined();
    const first = known.loadMany(["a", "b"]);
    await tick();
    known.clear("a"); // while the batch runs: its value for "a" is not held
    release();
    expect(await first).toEqual(["a@0", "b@0"]);
    expect(known.peek("a")).toBeUndefined();
    expect(known.peek("b")).toBe("b@0");
    bump();
    const again = known.load("a");
    await tick();
    release();
    expect(await again).toBe("a@1");
    expect(known.peek("a")).toBe("a@1");
    const during = known.load("d");
    await tick();
    known.clearAll();
    release();
    expect(await during).toBe("d@1");
    expect(known.peek("d")).toBeUndefined();
    expect(known.peek("a")).toBeUndefined();
  });
});
