// Structured logs: one JSON object per line on stdout (pino), with ISO times and level names, so
// any log collector reads them without a parser of ours.
import { pino, type Logger } from "pino";
import type { YogaLogger } from "graphql-yoga";
import type { LogLevel } from "./config.ts";

export type { Logger };

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** For tests and tools that have nothing to say. */
export const silentLogger: Logger = pino({ level: "silent" });

/** Yoga's own messages (masked errors, warnings) through the same logger. */
export function yogaLogger(logger: Logger): YogaLogger {
  const forward =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      const error = args.find((arg) => arg instanceof Error);
      const text = args
        .filter((arg) => !(arg instanceof Error))
        .map(String)
        .join(" ");
      if (error) logger[level]({ err: error }, text || (error as Error).message);
      else logger[level](text);
    };
  return { debug: forward("debug"), info: forward("info"), warn: forward("warn"), error: forward("error") };
}
