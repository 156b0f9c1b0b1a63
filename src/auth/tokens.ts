// API tokens: random, shown once, stored as a SHA-256 hash. A bearer token maps to a viewer.
import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { newId } from "../core/ids.ts";
import { unauthenticated } from "../core/errors.ts";
import type { Viewer } from "../core/context.ts";
import { systemClock, type Clock } from "../core/clock.ts";

/** A token's use is recorded (its lastUsedAt, its user's members' lastSeenAt) at most this often. */
export const ACTIVITY_INTERVAL_MS = 60_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function issueToken(prisma: PrismaClient, userId: string, label?: string, expiresAt?: Date): Promise<string> {
  return (await issueTokenRow(prisma, userId, label, expiresAt)).token;
}

/** A new token (its secret, shown once) and its stored row (which holds only the hash). */
export async function issueTokenRow(prisma: PrismaClient, userId: string, label?: string, expiresAt?: Date) {
  const token = `dps_${randomBytes(32).toString("base64url")}`;
  const row = await prisma.apiToken.create({ data: { id: newId("ApiToken"), userId, tokenHash: hashToken(token), label, expiresAt } });
  return { token, row };
}

/**
 * The viewer behind an `Authorization: Bearer <token>` header; 401 when missing or unknown.
 * Records the use (token `lastUsedAt`, the user's members' `lastSeenAt`) at most once a minute
 * per token, so reads do not write on every request.
 */
export async function authenticate(prisma: PrismaClient, authorization: string | null, clock: Clock = systemClock): Promise<Viewer> {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw unauthenticated("Missing API token: send the header Authorization: Bearer <token>");
  const token = await prisma.apiToken.findUnique({ where: { tokenHash: hashToken(match[1]) } });
  if (!token) throw unauthenticated("Invalid API token");
  const now = clock.now();
  if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) {
    throw unauthenticated(`API token expired at ${token.expiresAt.toISOString()}: create a new one`);
  }
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= ACTIVITY_INTERVAL_MS) {
    // Conditional on the value read, so concurrent requests record the use once.
    const { count } = await prisma.apiToken.updateMany({
      where: { id: token.id, lastUsedAt: token.lastUsedAt },
      data: { lastUsedAt: now },
    });
    if (count > 0) await prisma.member.updateMany({ where: { userId: token.userId }, data: { lastSeenAt: now } });
  }
  return { userId: token.userId, tokenId: token.id };
}
