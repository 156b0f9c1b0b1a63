// How much one website import may fetch, and from where (src/core/import/index.ts).

export interface ImportLimits {
  maxPages: number;
  maxDepth: number;
  /** Largest response read (pages and images); the root over it is 413, others are skipped. */
  maxBytes: number;
  maxFiles: number;
  maxFileBytes: number;
  requestTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  /** Pages with more elements (opening tags) are refused: the root 413, others skipped. */
  maxNodesPerPage: number;
  /** Links (and images) read per page: those beyond are neither followed nor rewritten. */
  maxLinksPerPage: number;
  /** CPU deadline of reading or converting one page in the worker thread (it is terminated). */
  htmlTimeoutMs: number;
  /** False: refuse hosts that resolve to non-public addresses (SSRF), checked at connect time. */
  allowPrivateHosts: boolean;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxPages: 50,
  maxDepth: 3,
  maxBytes: 2 * 1024 * 1024,
  maxFiles: 50,
  maxFileBytes: 2 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  totalTimeoutMs: 20_000,
  maxRedirects: 5,
  maxNodesPerPage: 20_000,
  maxLinksPerPage: 1000,
  htmlTimeoutMs: 5000,
  allowPrivateHosts: false,
};
