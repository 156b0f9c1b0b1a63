// A logger whose JSON lines a test reads back (the app's own pino logger, written to memory).
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/logger.ts";

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as written. */
  raw(): string[];
  /** Every line written so far, parsed. */
  lines(): Record<string, any>[];
  clear(): void;
}

export function captureLogs(level: "debug" | "info" = "info"): CapturedLogs {
  let raw: string[] = [];
  let pending = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      pending += chunk.toString("utf8");
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      raw.push(...parts.filter(Boolean));
      done();
    },
  });
  return {
    logger: createLogger(level, sink),
    raw: () => raw,
    lines: () => raw.map((line) => JSON.parse(line)),
    clear: () => {
      raw = [];
    },
  };
}
