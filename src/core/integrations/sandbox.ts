// What the integration runtime needs from a script sandbox: dispatch a request to an integration's
// script and read its answer and logs. The workerd implementation lives in src/infra
// (workerd-sandbox.ts) and is built by the composition root (src/app.ts); core holds only this.

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

export interface ScriptSource {
  /** One sandbox per key (the integration's id and version). */
  key: string;
  load: () => Promise<string>;
}

/** Runs integration scripts, one isolated sandbox per script version. */
export interface ScriptSandbox {
  /** Sandboxes running now. */
  readonly size: number;
  /** Resident memory of each running sandbox, in bytes. */
  memory(): number[];
  /** Sends one request to the script of `source`; DeliveryError when it gives no usable answer. */
  dispatch(source: ScriptSource, body: ArrayBuffer, contentType: string, options?: AnswerOptions): Promise<SandboxAnswer>;
  /** Stops the sandboxes whose key starts with `keyPrefix` (a script replaced or removed). */
  evict(keyPrefix: string): Promise<void>;
  close(): Promise<void>;
}
