import type { PrismaClient } from "../generated/prisma/client.ts";

/** The Prisma client of an interactive transaction, as `$transaction(async (tx) => …)` passes it. */
export type Transaction = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
