// Runs integration scripts in workerd (Cloudflare's open-source Workers runtime, the npm package
// `workerd`), started directly: each integration version gets its own workerd process serving one
// worker, kept warm (least recently used stopped first, at most `maxSandboxes`). The process is
// given a small text configuration and two module files in a directory of its own: the stored
// script, and an entry module of ours, which
// - captures `console.*` of each request (AsyncLocalStorage, so concurrent events keep their own lines),
// - hands the script an execution context whose `waitUntil` promises are awaited before answering,
// - answers one JSON envelope: the script's status, headers, body and log lines.
// Started this way a process is ready in a fraction of what miniflare took (it adds a loopback
// server and a dozen internal workers to every process): that is the cold render (docs/performance.md "Speed
// and memory").
//
// Limits. workerd as an open-source binary enforces no CPU or memory limit of its own, so this host
// watches the process while an event runs (every 20 ms, from /proc): CPU time used since the event
// began above `cpuMs`, or resident memory grown above `memoryMb`, stops the whole process (the
// events under way on it fail with the reason); a delivery taking longer than `timeoutMs` fails.
// The script runs in another process, so a loop or a runaway allocation never blocks this one.
//
// Network. The worker's `globalOutbound` is an external service in proxy style: every outgoing
// `fetch` of a script arrives, with its absolute URL, at a small HTTP server of this process on
// 127.0.0.1 (one per pool), which reaches only this service's own origin and the operator's
// allowed hosts; anything else answers 403.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, fetch as undiciFetch } from "undici";
import type { IntegrationSettings } from "../config.ts";
import { stripUnsafeText } from "../core/input.ts";
import {
  type AnswerOptions,
  DeliveryError,
  type SandboxAnswer,
  type SandboxLog,
  type ScriptSandbox,
  type ScriptSource,
} from "../core/integrations/sandbox.ts";

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
  child: ChildProcess | undefined;
  /** Its directory (configuration and modules), removed when it stops. */
  dir: string | undefined;
  /** Where its worker listens (127.0.0.1). */
  port: number;
  ready: Promise<void>;
  pid: number | undefined;
  baseRss: number;
  running: Set<Running>;
  watchdog: NodeJS.Timeout | undefined;
  stopped: boolean;
  /** Why the pool stopped it (a limit), for the events under way whose request then fails. */
  stopReason?: string;
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

/** The workerd binary of the `workerd` npm package (resolved once, at the first start). */
const workerdBinary: { path?: string } = {};
function workerdPath(): string {
  workerdBinary.path ??= (createRequire(import.meta.url)("workerd") as { default: string }).default;
  return workerdBinary.path;
}

/** The worker: the entry module in front of the script, with Node.js compatibility; its fetch goes to `outbound`. */
const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "outbound", external = (address = "127.0.0.1:1", http = (style = proxy))),
  ],
  sockets = [(name = "entry", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "entry.mjs", esModule = embed "entry.mjs"),
    (name = "integration.mjs", esModule = embed "integration.mjs"),
  ],
  compatibilityDate = "2025-05-25",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "outbound",
);
`;

/** Headers of one hop, not passed on by the outbound proxy. */
const HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
  "content-length",
]);

export interface SandboxOptions extends IntegrationSettings {
  /** This service's origin (`PUBLIC_URL`): scripts may call it. */
  apiOrigin: string;
}

export class SandboxPool implements ScriptSandbox {
  private readonly sandboxes = new Map<string, Sandbox>();
  private closed = false;
  /** Connections to the sandboxes' workers, kept alive between deliveries. */
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  /** The outbound proxy every sandbox's fetch goes through (started with the first sandbox). */
  private outboundServer: Promise<{ server: Server; port: number }> | undefined;
  /**
   * Kills the sandboxes' processes when this process exits without closing the pool (process.exit,
   * an uncaught exception, a test worker ending): workerd does not end with its parent. Registered
   * with the first sandbox, removed by close(). (A SIGKILL of this process still leaves them.)
   */
  private readonly onExit = () => {
    for (const sandbox of this.sandboxes.values()) {
      sandbox.child?.kill("SIGKILL");
      if (sandbox.dir) rmSync(sandbox.dir, { recursive: true, force: true });
    }
  };
  private exitHooked = false;

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
        undiciFetch(`http://127.0.0.1:${sandbox.port}/v1`, {
          dispatcher: this.agent,
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
      // What the script wrote is kept in its event's trace: without what the database cannot store
      // (a NUL or a lone surrogate in one line made the whole record fail, and the trace was lost).
      const logs = Array.isArray(envelope.logs)
        ? envelope.logs.map((log) => ({ ...log, message: stripUnsafeText(String(log.message)) }))
        : [];
      if (!envelope.ok) throw new DeliveryError(`the script failed: ${stripUnsafeText(envelope.error ?? "unknown error")}`, logs);
      const answer: SandboxAnswer = { status: envelope.status ?? 500, headers: envelope.headers ?? {}, body: envelope.body ?? "", logs };
      if (envelope.binary) {
        answer.bytes = new Uint8Array(Buffer.from(answer.body, "base64"));
        answer.body = "";
      }
      return answer;
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      // The connection broke because the pool stopped the sandbox at a limit: that is the reason,
      // whichever of the two the event loop saw first under load.
      if (sandbox.stopReason) throw new DeliveryError(`the sandbox was stopped: ${sandbox.stopReason}`);
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
    if (this.exitHooked) process.off("exit", this.onExit);
    this.exitHooked = false;
    await Promise.all([...this.sandboxes.values()].map((sandbox) => this.stop(sandbox, "the service is shutting down")));
    const outbound = await this.outboundServer?.catch(() => undefined);
    outbound?.server.closeAllConnections();
    await new Promise<void>((resolve) => (outbound ? outbound.server.close(() => resolve()) : resolve()));
    await this.agent.close().catch(() => {});
  }

  private async sandboxFor(source: ScriptSource): Promise<Sandbox> {
    // Looked up again after each wait: two deliveries of a new version at once (an event and a
    // fetch) start one sandbox, not two with one lost to the map (and never stopped).
    for (;;) {
      const existing = this.sandboxes.get(source.key);
      if (existing && !existing.stopped) {
        // Most recently used last: Map order is insertion order.
        this.sandboxes.delete(source.key);
        this.sandboxes.set(source.key, existing);
        await existing.ready;
        return existing;
      }
      if (this.sandboxes.size < this.options.maxSandboxes) break;
      const oldest = [...this.sandboxes.values()].find((sandbox) => sandbox.running.size === 0) ?? this.sandboxes.values().next().value!;
      await this.stop(oldest, "too many warm sandboxes");
    }
    if (this.closed) throw new DeliveryError("the service is shutting down");
    const sandbox: Sandbox = {
      key: source.key,
      child: undefined,
      dir: undefined,
      port: 0,
      ready: Promise.resolve(),
      pid: undefined,
      baseRss: 0,
      running: new Set(),
      watchdog: undefined,
      stopped: false,
      startupOutput: [],
      lastUsed: Date.now(),
    };
    sandbox.ready = this.start(sandbox, source).catch(async (error: unknown) => {
      if (this.sandboxes.get(source.key) === sandbox) this.sandboxes.delete(source.key);
      await this.kill(sandbox);
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`the sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.sandboxes.set(source.key, sandbox);
    if (!this.exitHooked) {
      process.on("exit", this.onExit);
      this.exitHooked = true;
    }
    await sandbox.ready;
    return sandbox;
  }

  /** Writes the sandbox's directory, starts its workerd and waits until it listens (or ends: the script failed to start). */
  private async start(sandbox: Sandbox, source: ScriptSource): Promise<void> {
    const binary = workerdPath();
    const [script, outbound] = await Promise.all([source.load(), this.outbound()]);
    const dir = await mkdtemp(join(tmpdir(), "integration-sandbox-"));
    sandbox.dir = dir;
    await Promise.all([
      writeFile(join(dir, "config.capnp"), CONFIG),
      writeFile(join(dir, "entry.mjs"), ENTRY),
      writeFile(join(dir, "integration.mjs"), script),
    ]);
    // A delivery that began before close() (a queued event still running) starts no process after it.
    if (sandbox.stopped || this.closed) throw new DeliveryError("the sandbox was stopped before it started");
    const child = spawn(
      binary,
      [
        "serve",
        join(dir, "config.capnp"),
        "--experimental",
        "--control-fd=3",
        "--socket-addr=entry=127.0.0.1:0",
        `--external-addr=outbound=127.0.0.1:${outbound.port}`,
      ],
      { stdio: ["ignore", "pipe", "pipe", "pipe"] },
    );
    sandbox.child = child;
    sandbox.pid = child.pid;
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on("data", (chunk: Buffer) => {
        if (sandbox.startupOutput.length < 50) sandbox.startupOutput.push(chunk.toString().slice(0, 2000));
      });
    }
    const exited = new Promise<never>((_resolve, reject) => {
      child.once("error", (error) => reject(new DeliveryError(`the sandbox failed to start: ${error.message}`)));
      child.once("exit", (code, signal) => {
        // After the start: the watchdog or the next delivery finds it gone.
        for (const running of sandbox.running)
          running.fail(new DeliveryError(`the sandbox process ended (${signal ?? `exit code ${code}`})`));
        const output = sandbox.startupOutput
          .join("")
          .replace(/\x1b\[[0-9;]*m/g, "")
          .trim();
        const uncaught = output.match(/Uncaught[^\n]*/)?.[0];
        reject(
          new DeliveryError(
            `the script failed to start: ${uncaught ?? (output.split("\n").at(-1) || `workerd ended (${signal ?? `exit code ${code}`})`)}`,
          ),
        );
      });
    });
    exited.catch(() => {});
    const listening = new Promise<number>((resolve) => {
      createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).on("line", (line) => {
        try {
          const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
          if (message.event === "listen" && message.socket === "entry" && message.port) resolve(message.port);
        } catch {
          // Not a control message of ours.
        }
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new DeliveryError(`the sandbox did not start within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
    });
    try {
      sandbox.port = await Promise.race([listening, exited, late]);
    } finally {
      clearTimeout(timer);
    }
    if (sandbox.stopped || this.closed) throw new DeliveryError("the sandbox was stopped while it started");
    sandbox.baseRss = (sandbox.pid ? procStats(sandbox.pid)?.rssBytes : 0) ?? 0;
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
    sandbox.stopReason = reason;
    clearInterval(sandbox.watchdog);
    for (const running of sandbox.running) running.fail(new DeliveryError(`the sandbox was stopped: ${reason}`));
    await this.kill(sandbox);
  }

  /** Ends the sandbox's process (a loop does not stop it from ending) and removes its directory. */
  private async kill(sandbox: Sandbox): Promise<void> {
    sandbox.stopped = true;
    const child = sandbox.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const ended = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await ended;
    }
    if (sandbox.dir) await rm(sandbox.dir, { recursive: true, force: true }).catch(() => {});
  }

  /** The outbound proxy: one HTTP server on 127.0.0.1 for every sandbox of the pool. */
  private outbound(): Promise<{ server: Server; port: number }> {
    this.outboundServer ??= new Promise((resolve, reject) => {
      // workerd sends the absolute URL and no Host header.
      const server = createServer({ requireHostHeader: false }, (request, response) => void this.proxy(request, response));
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port }));
    });
    return this.outboundServer;
  }

  /** One outgoing fetch of a script (its absolute URL in the request line), answered by `fetchOutside`. */
  private async proxy(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name)) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const method = incoming.method ?? "GET";
      const response = await this.fetchOutside(
        new Request(incoming.url ?? "", {
          method,
          headers,
          body: method === "GET" || method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks),
        }),
      );
      const answerHeaders: [string, string][] = [];
      for (const [name, value] of response.headers) {
        // The body is passed on decoded: not its encoding, nor its length before decoding.
        if (!HOP_HEADERS.has(name) && name !== "content-encoding") answerHeaders.push([name, value]);
      }
      const body = Buffer.from(await response.arrayBuffer());
      outgoing.writeHead(response.status, [...answerHeaders.flat(), "content-length", String(body.byteLength)]);
      outgoing.end(body);
    } catch (error) {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`fetch failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Outgoing fetch of a script: this service and the allowed hosts only. */
  private async fetchOutside(request: Request): Promise<Response> {
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
