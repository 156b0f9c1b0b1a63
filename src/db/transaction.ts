import type { PrismaClient } from "../generated/prisma/client.ts";

/** The Prisma client of an interactive transaction, as `$transaction(async (tx) => …)` passes it. */
export type Transaction = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * Bounds of an interactive write transaction that holds a few statements (a write and its audit
 * event): Prisma's defaults (2 s to start, 5 s in all) fail writes on a busy embedded database,
 * where statements queue one at a time.
 */
export const WRITE_TRANSACTION = { maxWait: 15_000, timeout: 30_000 };
