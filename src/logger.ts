// Structured logs: one JSON object per line on stdout (pino), with ISO times and level names, so
// any log collector reads them without a parser of ours.
import { pino, type Logger } from "pino";
import type { YogaLogger } from "graphql-yoga";
import type { LogLevel } from "./config.ts";

export type { Logger };

/** No line of the log is longer: a longer one (a 5xx whose error quotes a large value) is cut. */
export const LOG_LINE_MAX = 16 * 1024;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: boundLine },
    },
    // Asynchronous: a large line never blocks the event loop; pino flushes what is buffered at exit.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A line over LOG_LINE_MAX becomes a short line that says so, with its level, time and start. */
export function boundLine(line: string): string {
  if (line.length <= LOG_LINE_MAX) return line;
  const field = (name: string) => new RegExp(`"${name}":"([^"]{0,40})"`).exec(line.slice(0, 200))?.[1];
  return `${JSON.stringify({
    level: field("level") ?? "error",
    time: field("time"),
    msg: `log line of ${line.length} characters cut at ${LOG_LINE_MAX / 8}`,
    head: line.slice(0, LOG_LINE_MAX / 8),
  })}\n`;
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
      // A client's mistake (a domain error, a GraphQL request error, any error whose status is
      // below 500) is no server error: the request's own line (info, or warn for 401 and 429)
      // records it once, without a stack (issue 34). Yoga logs every error its mask replaced.
      if (error && level === "error" && isClientError(error)) logger.debug({ code: codeOf(error) }, "client error");
      else if (error) logger[level]({ err: error }, text || (error as Error).message);
      else logger[level](text);
    };
  return { debug: forward("debug"), info: forward("info"), warn: forward("warn"), error: forward("error") };
}

function statusOf(error: unknown): number | undefined {
  const candidate = error as { status?: unknown; extensions?: { http?: { status?: unknown } }; originalError?: unknown };
  const status = candidate.extensions?.http?.status ?? candidate.status;
  if (typeof status === "number") return status;
  if (candidate.originalError) return statusOf(candidate.originalError);
  return undefined;
}

const codeOf = (error: unknown) =>
  (error as { code?: unknown; extensions?: { code?: unknown } }).extensions?.code ?? (error as { code?: unknown }).code;

/** An error a client caused: a status below 500, or a GraphQL request error (no path, no original error). */
function isClientError(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status < 500;
  const graphql = error as { name?: unknown; path?: unknown; originalError?: unknown };
  return graphql.name === "GraphQLError" && !graphql.path && !graphql.originalError;
}
