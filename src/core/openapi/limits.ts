// How much one OpenAPI spec's processing may take (Services.openapiLimits; tests lower them).

export interface OpenAPILimits {
  /** Largest file fetched; a bigger one fails with FETCH_ERROR. */
  maxFileBytes: number;
  /** Largest `source.text` (UTF-8); a bigger one is refused with 413. */
  maxTextBytes: number;
  /** Files of one spec (the entry and the files its $refs name). */
  maxFiles: number;
  maxTotalBytes: number;
  requestTimeoutMs: number;
  /** Whole run: fetching, parsing and validating. */
  totalTimeoutMs: number;
  maxRedirects: number;
  /** Heap of the parsing worker. */
  workerHeapMb: number;
  /** Errors kept in `lastProcessedErrors` (the count says how many there were). */
  maxErrorsKept: number;
}

export const DEFAULT_OPENAPI_LIMITS: OpenAPILimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxTextBytes: 1024 * 1024,
  maxFiles: 100,
  maxTotalBytes: 20 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxRedirects: 5,
  workerHeapMb: 512,
  maxErrorsKept: 20,
};
