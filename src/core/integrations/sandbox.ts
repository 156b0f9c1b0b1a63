// Runs integration scripts in workerd (Cloudflare's open-source Workers runtime) through
// miniflare: each integration version gets its own workerd process, kept warm (least recently
// used stopped first, at most `maxSandboxes`). The script is an ES module loaded from a string
// under a small entry module of ours, which
// - captures `console.*` of each request (AsyncLocalStorage, so concurrent events keep their own lines),
// - hands the script an execution context whose `waitUntil` promises are awaited before answering,
// - answers one JSON envelope: the script's status, headers, body and log lines.
//
// Limits. workerd as an open-source binary enforces no CPU or memory limit of its own, so this host
// watches the process while an event runs (every 20 ms, from /proc): CPU time used since the event
// began above `cpuMs`, or resident memory grown above `memoryMb`, stops the whole process (the
// events under way on it fail with the reason); a delivery taking longer than `timeoutMs` fails.
// The script runs in another process, so a loop or a runaway allocation never blocks this one.
//
// Network. Every outgoing `fetch` of a script goes through `outboundService`, here: only this
// service's own origin and the operator's allowed hosts are reached, anything else answers 403.
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { Miniflare } from "miniflare";
import type { IntegrationSettings } from "../../config.ts";

export interface SandboxLog {
  level: string;
  message: string;
  timestamp: string;
}

export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body's bytes, when asked for (`binary`): fetch events answer any content. */
  bytes?: Uint8Array<ArrayBuffer>;
  logs: SandboxLog[];
}

/** How one delivery's answer is read: as bytes (fetch events), and within a size. */
export interface AnswerOptions {
  binary?: boolean;
  /** Larger answers fail the delivery (0: no bound). */
  maxBodyBytes?: number;
}

/** A delivery that failed: why, and the lines logged until then. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly logs: SandboxLog[] = [],
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

const BINARY_HEADER = "x-sandbox-body-encoding";
const MAX_BODY_HEADER = "x-sandbox-max-body-bytes";

const ENTRY = `
import { AsyncLocalStorage } from "node:async_hooks";
import { Buffer } from "node:buffer";
import integration from "./integration.mjs";
const store = new AsyncLocalStorage();
const text = (value) => {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack || String(value);
  try { return JSON.stringify(value); } catch { return String(value); }
};
for (const level of ["log", "info", "warn", "error", "debug"]) {
  console[level] = (...args) => {
    const logs = store.getStore();
    if (logs && logs.length < 1000) logs.push({ level: level === "log" ? "info" : level, message: args.map(text).join(" ").slice(0, 10000), timestamp: new Date().toISOString() });
  };
}
export default {
  async fetch(request, env) {
    const logs = [];
    // The host's options for this delivery (not shown to the script): the answer's body as base64
    // (bytes kept, for fetch events) and a bound on its size.
    const binary = request.headers.get("${BINARY_HEADER}") === "base64";
    const maxBytes = Number(request.headers.get("${MAX_BODY_HEADER}")) || 0;
    if (request.headers.has("${BINARY_HEADER}") || request.headers.has("${MAX_BODY_HEADER}")) {
      const headers = new Headers(request.headers);
      headers.delete("${BINARY_HEADER}");
      headers.delete("${MAX_BODY_HEADER}");
      request = new Request(request, { headers });
    }
    return store.run(logs, async () => {
      const pending = [];
      const ctx = { waitUntil: (promise) => { pending.push(Promise.resolve(promise)); }, passThroughOnException() {} };
      try {
        const handler = integration && integration.fetch;
        if (typeof handler !== "function") throw new Error("the script's default export has no fetch(request, env, ctx) function");
        const response = await handler.call(integration, request, env, ctx);
        if (!(response instanceof Response)) throw new Error("the script answered " + text(response) + " instead of a Response");
        const bytes = new Uint8Array(await response.arrayBuffer());
        if (maxBytes && bytes.byteLength > maxBytes) throw new Error("the script's response body is larger than the limit of " + maxBytes + " bytes");
        const body = binary ? Buffer.from(bytes).toString("base64") : new TextDecoder().decode(bytes);
        const settled = await Promise.allSettled(pending);
        for (const result of settled) if (result.status === "rejected") logs.push({ level: "error", message: "waitUntil: " + text(result.reason), timestamp: new Date().toISOString() });
        return Response.json({ ok: true, status: response.status, headers: Object.fromEntries(response.headers), body, binary, logs });
      } catch (error) {
        await Promise.allSettled(pending);
        return Response.json({ ok: false, error: text(error).slice(0, 2000), logs });
      }
    });
  },
};
`;

interface Running {
  cpuAtStart: number;
  fail: (error: DeliveryError) => void;
}

interface Sandbox {
  key: string;
  mf: Miniflare;
  ready: Promise<void>;
  pid: number | undefined;
  baseRss: number;
  running: Set<Running>;
  watchdog: NodeJS.Timeout | undefined;
  stopped: boolean;
  startupOutput: string[];
  lastUsed: number;
}

/** Ticks per second of /proc CPU times (USER_HZ: 100 on Linux). */
const TICK_MS = 10;

function procStats(pid: number): { cpuMs: number; rssBytes: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
    return { cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS, rssBytes: rss };
  } catch {
    return undefined;
  }
}

/** The workerd process serving `port` among this process's children (its command line names the port). */
function workerdPid(port: number): number | undefined {
  try {
    for (const task of readdirSync("/proc/self/task")) {
      const children = readFileSync(`/proc/self/task/${task}/children`, "utf8").trim();
      for (const pid of children ? children.split(/\s+/) : []) {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (cmdline.includes("workerd") && cmdline.includes(`entry=127.0.0.1:${port}\0`)) return Number(pid);
      }
    }
  } catch {
    // No /proc: limits fall back to the wall-clock bound.
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface SandboxOptions extends IntegrationSettings {
  /** This service's origin (`PUBLIC_URL`): scripts may call it. */
  apiOrigin: string;
}

export interface ScriptSource {
  /** One sandbox per key (the integration's id and version). */
  key: string;
  load: () => Promise<string>;
}

export class SandboxPool {
  private readonly sandboxes = new Map<string, Sandbox>();
  private closed = false;

  constructor(private readonly options: SandboxOptions) {}

  /** Warm sandboxes now (for the bench and the README's memory figure). */
  get size(): number {
    return this.sandboxes.size;
  }

  /** The resident memory of each warm sandbox's process, in bytes. */
  memory(): number[] {
    return [...this.sandboxes.values()].map((sandbox) => (sandbox.pid ? (procStats(sandbox.pid)?.rssBytes ?? 0) : 0));
  }

  /** POSTs `body` (multipart, of `contentType`) to the script's `/v1` and answers its envelope; throws DeliveryError. */
  async dispatch(source: ScriptSource, body: ArrayBuffer, contentType: string, options: AnswerOptions = {}): Promise<SandboxAnswer> {
    if (this.closed) throw new DeliveryError("the service is shutting down");
    const sandbox = await this.sandboxFor(source);
    const before = sandbox.pid ? procStats(sandbox.pid) : undefined;
    let fail!: (error: DeliveryError) => void;
    const failed = new Promise<never>((_resolve, reject) => (fail = reject));
    const running: Running = { cpuAtStart: before?.cpuMs ?? 0, fail };
    sandbox.running.add(running);
    this.watch(sandbox);
    const timeout = setTimeout(
      () => fail(new DeliveryError(`the script did not answer within ${this.options.timeoutMs} ms`)),
      this.options.timeoutMs,
    );
    try {
      const response = await Promise.race([
        sandbox.mf.dispatchFetch("http://integration/v1", {
          method: "POST",
          body,
          headers: {
            "content-type": contentType,
            ...(options.binary ? { [BINARY_HEADER]: "base64" } : {}),
            ...(options.maxBodyBytes ? { [MAX_BODY_HEADER]: String(options.maxBodyBytes) } : {}),
          },
        }),
        failed,
      ]);
      const text = await Promise.race([response.text(), failed]);
      let envelope: {
        ok: boolean;
        status?: number;
        headers?: Record<string, string>;
        body?: string;
        binary?: boolean;
        error?: string;
        logs?: SandboxLog[];
      };
      try {
        envelope = JSON.parse(text);
      } catch {
        throw new DeliveryError(`the sandbox answered something unreadable (${text.slice(0, 200)})`);
      }
      const logs = Array.isArray(envelope.logs) ? envelope.logs : [];
      if (!envelope.ok) throw new DeliveryError(`the script failed: ${envelope.error ?? "unknown error"}`, logs);
      const answer: SandboxAnswer = { status: envelope.status ?? 500, headers: envelope.headers ?? {}, body: envelope.body ?? "", logs };
      if (envelope.binary) {
        answer.bytes = new Uint8Array(Buffer.from(answer.body, "base64"));
        answer.body = "";
      }
      return answer;
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`the sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timeout);
      sandbox.running.delete(running);
      failed.catch(() => {});
      sandbox.lastUsed = Date.now();
    }
  }

  /** Stops the sandbox of `key` (a new version was published, or the integration deleted). */
  async evict(keyPrefix: string): Promise<void> {
    for (const sandbox of [...this.sandboxes.values()])
      if (sandbox.key.startsWith(keyPrefix)) await this.stop(sandbox, "the integration changed");
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sandboxes.values()].map((sandbox) => this.stop(sandbox, "the service is shutting down")));
  }

  private async sandboxFor(source: ScriptSource): Promise<Sandbox> {
    const existing = this.sandboxes.get(source.key);
    if (existing && !existing.stopped) {
      // Most recently used last: Map order is insertion order.
      this.sandboxes.delete(source.key);
      this.sandboxes.set(source.key, existing);
      await existing.ready;
      return existing;
    }
    while (this.sandboxes.size >= this.options.maxSandboxes) {
      const oldest = [...this.sandboxes.values()].find((sandbox) => sandbox.running.size === 0) ?? this.sandboxes.values().next().value!;
      await this.stop(oldest, "too many warm sandboxes");
    }
    const script = await source.load();
    const port = await freePort();
    const startupOutput: string[] = [];
    const mf = new Miniflare({
      host: "127.0.0.1",
      port,
      modules: [
        { type: "ESModule", path: "/integration/entry.mjs", contents: ENTRY },
        { type: "ESModule", path: "/integration/integration.mjs", contents: script },
      ],
      modulesRoot: "/integration",
      compatibilityDate: "2025-05-25",
      compatibilityFlags: ["nodejs_compat"],
      outboundService: (request: unknown) => this.outbound(request as Request) as never,
      handleRuntimeStdio: (stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) => {
        for (const stream of [stdout, stderr]) {
          stream.on("data", (chunk: Buffer) => {
            if (startupOutput.length < 50) startupOutput.push(chunk.toString().slice(0, 2000));
          });
        }
      },
    });
    const sandbox: Sandbox = {
      key: source.key,
      mf,
      ready: Promise.resolve(),
      pid: undefined,
      baseRss: 0,
      running: new Set(),
      watchdog: undefined,
      stopped: false,
      startupOutput,
      lastUsed: Date.now(),
    };
    sandbox.ready = mf.ready.then(
      () => {
        sandbox.pid = workerdPid(port);
        sandbox.baseRss = (sandbox.pid ? procStats(sandbox.pid)?.rssBytes : 0) ?? 0;
      },
      async (error: unknown) => {
        this.sandboxes.delete(source.key);
        sandbox.stopped = true;
        await mf.dispose().catch(() => {});
        const output = startupOutput
          .join("")
          .replace(/\x1b\[[0-9;]*m/g, "")
          .trim();
        const uncaught = output.match(/Uncaught[^\n]*/)?.[0];
        throw new DeliveryError(`the script failed to start: ${uncaught ?? (error instanceof Error ? error.message : String(error))}`);
      },
    );
    this.sandboxes.set(source.key, sandbox);
    await sandbox.ready;
    return sandbox;
  }

  private watch(sandbox: Sandbox): void {
    if (sandbox.watchdog || !sandbox.pid) return;
    const limitBytes = this.options.memoryMb * 1024 * 1024;
    sandbox.watchdog = setInterval(() => {
      if (sandbox.running.size === 0) {
        clearInterval(sandbox.watchdog);
        sandbox.watchdog = undefined;
        return;
      }
      const stats = procStats(sandbox.pid!);
      if (!stats) return void this.stop(sandbox, "the sandbox process ended");
      const grown = stats.rssBytes - sandbox.baseRss;
      if (grown > limitBytes) {
        return void this.stop(
          sandbox,
          `memory limit exceeded: the sandbox grew by ${Math.round(grown / 1048576)} MB (limit ${this.options.memoryMb} MB)`,
        );
      }
      const used = Math.max(...[...sandbox.running].map((running) => stats.cpuMs - running.cpuAtStart));
      if (used > this.options.cpuMs) {
        return void this.stop(sandbox, `CPU time limit exceeded: ${used} ms (limit ${this.options.cpuMs} ms)`);
      }
    }, 20);
    sandbox.watchdog.unref();
  }

  private async stop(sandbox: Sandbox, reason: string): Promise<void> {
    if (this.sandboxes.get(sandbox.key) === sandbox) this.sandboxes.delete(sandbox.key);
    if (sandbox.stopped) return;
    sandbox.stopped = true;
    clearInterval(sandbox.watchdog);
    for (const running of sandbox.running) running.fail(new DeliveryError(`the sandbox was stopped: ${reason}`));
    await sandbox.mf.dispose().catch(() => {});
  }

  /** Outgoing fetch of a script: this service and the allowed hosts only. */
  private async outbound(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const api = new URL(this.options.apiOrigin);
    const allowed = url.origin === api.origin || this.options.allowedHosts.includes(url.hostname.toLowerCase());
    if (!allowed) {
      return new Response(`fetch to ${url.host} is not allowed for integration scripts (INTEGRATION_ALLOWED_HOSTS)`, { status: 403 });
    }
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
  }
}
