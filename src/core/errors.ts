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
export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `No ${what} found with id "${id}"`);
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const conflict = (message: string) => new DomainError("CONFLICT", message);
export const gone = (message: string) => new DomainError("GONE", message);
export const tooMany = (message: string) => new DomainError("TOO_MANY_REQUESTS", message);
export const unauthenticated = (message: string) => new DomainError("UNAUTHENTICATED", message);
