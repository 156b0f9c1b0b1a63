// Domain errors: what went wrong, in terms both surfaces translate the same way
// (GraphQL `extensions.code` + `extensions.http.status`; REST status + error envelope).

export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "GONE"
  | "PAYLOAD_TOO_LARGE"
  | "REQUEST_TIMEOUT"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "BAD_GATEWAY"
  | "TOO_MANY_REQUESTS";

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BAD_GATEWAY: 502,
  TOO_MANY_REQUESTS: 429,
};

export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Structured detail for GraphQL clients (`extensions`), e.g. the conflicting pages of a merge. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
    this.status = STATUS[code];
  }
}

export const badInput = (message: string) => new DomainError("BAD_REQUEST", message);
export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `No ${what} found with id ${quote(id)}`);
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const conflict = (message: string) => new DomainError("CONFLICT", message);
export const gone = (message: string) => new DomainError("GONE", message);
export const tooMany = (message: string) => new DomainError("TOO_MANY_REQUESTS", message);
export const unauthenticated = (message: string) => new DomainError("UNAUTHENTICATED", message);

/** How much of a client's value a message may repeat (issue 34): enough to recognise it, never a payload. */
export const QUOTE_MAX = 100;
/** Above this, a client error's message is cut: no message can echo a large input, whatever built it. */
export const MESSAGE_MAX = 1000;

/**
 * A client's value as a message quotes it: JSON-quoted, at most QUOTE_MAX characters of it, and
 * when cut, its full length. Every validation message quotes input through this.
 */
export function quote(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= QUOTE_MAX) return JSON.stringify(text);
  const prefix = [...text.slice(0, QUOTE_MAX * 2)].slice(0, QUOTE_MAX).join("");
  const length = characterCount(text);
  return length <= QUOTE_MAX ? JSON.stringify(text) : `${JSON.stringify(`${prefix}…`)} (${length} characters)`;
}

/** The length in characters (code points), counted without copying the string (issue 34: a 900 KB value is refused without being spread into an array). */
export function characterCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++, count++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
  }
  return count;
}

// A JSON-style double-quoted string, escapes included.
const QUOTED = /"(?:[^"\\]|\\.)*"/gs;

/**
 * The last guard on a client error's message, whatever built it (ours, or GraphQL's own "got
 * invalid value" messages): every quoted run longer than QUOTE_MAX is cut as `quote` cuts it, and
 * the whole at MESSAGE_MAX characters.
 */
export function boundMessage(message: string): string {
  if (message.length <= QUOTE_MAX) return message;
  const bounded = message.replace(QUOTED, (run) => {
    if (run.length <= QUOTE_MAX + 2) return run;
    let inner: string;
    try {
      inner = JSON.parse(run) as string;
    } catch {
      inner = run.slice(1, -1);
    }
    const length = characterCount(inner);
    // A run `quote` already cut (its prefix and "…") stays as it is: bounding twice changes nothing.
    if (length <= QUOTE_MAX || (length === QUOTE_MAX + 1 && inner.endsWith("…"))) return run;
    return quote(inner);
  });
  if (bounded.length <= MESSAGE_MAX) return bounded;
  return `${[...bounded.slice(0, MESSAGE_MAX)].slice(0, MESSAGE_MAX - 1).join("")}… (message cut at ${MESSAGE_MAX} of ${characterCount(bounded)} characters)`;
}

/** Each error's message bounded in place (boundMessage), for every transport that answers errors. */
export function boundErrorMessages<T extends readonly unknown[]>(errors: T): T {
  for (const error of errors as readonly { message?: unknown }[]) {
    if (typeof error?.message !== "string") continue;
    const bounded = boundMessage(error.message);
    if (bounded !== error.message) error.message = bounded;
  }
  return errors;
}
