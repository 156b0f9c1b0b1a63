// Test-only: how `npm run bench` talks to its child processes (the service and the bare handler).
import { fork, type ChildProcess } from "node:child_process";

export const SPACES = 1000;
export const COLLECTIONS = 20;
/** Pages of the space whose page read is measured (the issue measured a 330-page revision). */
export const CONTENT_PAGES = 330;

/** One SQL statement as pg received it. */
export interface Statement {
  text: string;
  values?: unknown[];
  rowMode?: string;
}

/** What the bare handler answers at one path: the statements to run, then the body to send. */
export interface BareRoute {
  method: string;
  path: string;
  /** SHA-256 (hex) of the bearer token the request must carry. */
  tokenHash: string;
  /** "same", "cold": the service's statements (of a warm, an uncached read) in its stages; "one": one hand-written statement. */
  stages: Statement[][];
  body: string;
}

export interface Child {
  process: ChildProcess;
  /** Sends a message and resolves with the child's next message. */
  ask<T = any>(message: object): Promise<T>;
  next<T = any>(): Promise<T>;
}

export function startChild(file: string, env: Record<string, string | undefined>, execArgv: string[] = []): Child {
  const child = fork(file, [], {
    env: { ...process.env, ...env },
    execArgv: ["--import", "tsx", "--expose-gc", ...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // Structured clone: recorded statement values (Buffers, arrays) reach the bare handler intact.
    serialization: "advanced",
  });
  const waiting: ((message: any) => void)[] = [];
  const queued: any[] = [];
  child.on("message", (message) => {
    const resolve = waiting.shift();
    if (resolve) resolve(message);
    else queued.push(message);
  });
  child.on("exit", (code) => {
    if (code) {
      console.error(`${file} exited with ${code}`);
      process.exit(1);
    }
    // Asked to exit, the child answers by exiting: whoever waits for its answer goes on.
    for (const resolve of waiting.splice(0)) resolve({ type: "exited" });
  });
  const next = <T>() => (queued.length ? Promise.resolve(queued.shift() as T) : new Promise<T>((resolve) => waiting.push(resolve)));
  return {
    process: child,
    next,
    ask(message) {
      const reply = next<any>();
      child.send(message);
      return reply;
    },
  };
}
