// The streaming bound on a GraphQL body's document (src/http/body.ts, QueryLengthScanner): what
// it sees of the top-level "query" string, however the body is cut into chunks, is never more
// than the document's real UTF-8 size (so it never refuses a document the exact check would let
// through), and is the exact size for a document without escapes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QueryLengthScanner } from "../src/http/body.ts";

function scan(bytes: Uint8Array, cuts: number[]): number {
  const scanner = new QueryLengthScanner();
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const at = Math.min(cut, bytes.length);
    scanner.push(bytes.subarray(from, Math.max(from, at)));
    from = Math.max(from, at);
  }
  scanner.push(bytes.subarray(from));
  return scanner.queryBytes;
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });

describe("QueryLengthScanner", () => {
  it("is a lower bound of the query's UTF-8 size, exact without escapes, whatever the chunks", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }),
        fc.boolean(),
        fc.array(fc.nat(2000), { maxLength: 12 }),
        (query, others, queryFirst, cuts) => {
          const rest = Object.fromEntries(Object.entries(others).filter(([key]) => key !== "query"));
          const body = JSON.stringify(queryFirst ? { query, ...rest } : { ...rest, query });
          const bytes = Buffer.from(body);
          const seen = scan(bytes, cuts);
          const size = Buffer.byteLength(query);
          expect(seen).toBeLessThanOrEqual(size);
          if (!JSON.stringify(query).slice(1, -1).includes("\\")) expect(seen).toBe(size);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("sees a 10 MB document of aliases as over 64 KiB within its first chunk, and ignores non-objects", () => {
    const body = Buffer.from(JSON.stringify({ query: `{ ${"a: viewer { id } ".repeat(600_000)} }` }));
    const scanner = new QueryLengthScanner();
    scanner.push(body.subarray(0, 65_536 + 100));
    expect(scanner.queryBytes).toBeGreaterThan(65_536);
    expect(scan(Buffer.from(`[${JSON.stringify({ query: "x".repeat(100) })}]`), [])).toBe(0);
    expect(scan(Buffer.from(JSON.stringify({ variables: { query: "x".repeat(100) }, query: "{ a }" })), [7, 30])).toBe(5);
    expect(scan(Buffer.from('{"query":"a\\"b\\\\","x":"\\\\\\""}'), [12, 13, 14])).toBeLessThanOrEqual(4);
    // An escape cut by a chunk boundary (found by the property above): it is 1 byte, not 5.
    expect(scan(Buffer.from(JSON.stringify({ query: "\u0000" })), [11])).toBeLessThanOrEqual(1);
  });
});
