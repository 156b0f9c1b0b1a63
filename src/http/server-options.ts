// Options of the Node HTTP server: a client must send its headers within `headersTimeoutMs` and
// its whole request within `requestTimeoutMs` (408 and the connection closed otherwise), so a body
// that never arrives does not hold a connection and its memory. Node checks these every
// `connectionsCheckingInterval`, 30 s by default: checked every second here.
import type { ServerOptions } from "node:http";
import type { Config } from "../config.ts";

export type ServerTimeouts = Pick<Config, "headersTimeoutMs" | "requestTimeoutMs">;

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000 };

export function serverOptions(timeouts: Partial<ServerTimeouts> = {}): ServerOptions {
  const { headersTimeoutMs, requestTimeoutMs } = { ...DEFAULT_SERVER_TIMEOUTS, ...timeouts };
  return {
    headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
    keepAliveTimeout: 5000,
  };
}
