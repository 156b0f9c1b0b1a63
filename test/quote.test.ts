// Issue 34.2: one rule for quoting a client's value in a message, and a last bound on any message
// and any log line, whatever built them.
import { describe, expect, it } from "vitest";
import { boundMessage, characterCount, MESSAGE_MAX, quote } from "../src/core/errors.ts";
import { boundLine, LOG_LINE_MAX } from "../src/logger.ts";

describe("quote", () => {
  it("repeats a short value whole, JSON-quoted", () => {
    expect(quote("fr")).toBe('"fr"');
    expect(quote('say "hi"')).toBe('"say \\"hi\\""');
    expect(quote(42)).toBe('"42"');
    expect(quote("é".repeat(100))).toBe(`"${"é".repeat(100)}"`);
  });

  it("cuts a long value at 100 characters and states its length", () => {
    expect(quote("x".repeat(101))).toBe(`"${"x".repeat(100)}…" (101 characters)`);
    expect(quote("y".repeat(900_000))).toBe(`"${"y".repeat(100)}…" (900000 characters)`);
    // Characters, not UTF-16 units: an emoji is one.
    expect(quote("😀".repeat(150))).toBe(`"${"😀".repeat(100)}…" (150 characters)`);
  });

  it("counts characters without splitting pairs", () => {
    expect(characterCount("a😀b")).toBe(3);
    expect(characterCount("\ud800")).toBe(1);
  });
});

describe("boundMessage", () => {
  it("leaves a short message alone", () => {
    expect(boundMessage('role must be one of admin, read (got "x")')).toBe('role must be one of admin, read (got "x")');
  });

  it("cuts every long quoted run, escapes included, and is idempotent", () => {
    const message = `Variable "$n" got invalid value "${"q".repeat(500)}"; Int cannot represent "${'w\\"'.repeat(300)}"`;
    const once = boundMessage(message);
    expect(once).toBe(
      `Variable "$n" got invalid value "${"q".repeat(100)}…" (500 characters); Int cannot represent "${'w\\"'.repeat(50)}…" (600 characters)`,
    );
    expect(boundMessage(once)).toBe(once);
  });

  it("cuts a long message without quotes at MESSAGE_MAX", () => {
    const bounded = boundMessage(`No route GET /v1/${"p".repeat(5_000)}`);
    expect(bounded.length).toBeLessThan(MESSAGE_MAX + 60);
    expect(bounded.endsWith(`… (message cut at ${MESSAGE_MAX} of 5017 characters)`)).toBe(true);
  });
});

describe("boundLine", () => {
  it("keeps a normal line and shortens a huge one to valid JSON with its level", () => {
    const line = '{"level":"info","time":"2026-11-28T13:00:00.000Z","msg":"ok"}\n';
    expect(boundLine(line)).toBe(line);
    const huge = `{"level":"error","time":"2026-11-28T13:00:00.000Z","err":{"message":"${"m".repeat(LOG_LINE_MAX)}"}}\n`;
    const bounded = boundLine(huge);
    expect(bounded.length).toBeLessThan(LOG_LINE_MAX / 4);
    expect(bounded.endsWith("\n")).toBe(true);
    expect(JSON.parse(bounded)).toMatchObject({
      level: "error",
      time: "2026-11-28T13:00:00.000Z",
      msg: expect.stringMatching(/^log line of \d+ characters cut/),
    });
  });
});
