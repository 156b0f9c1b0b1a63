// API tokens: random, shown once, stored as a SHA-256 hash. A bearer token maps to a viewer.
import { hash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import { unauthenticated } from "../errors.ts";
import type { Viewer } from "../context.ts";
import { systemClock, type Clock } from "../clock.ts";

/** A token's use is recorded (its lastUsedAt, its user's members' lastSeenAt) at most this often. */
export const ACTIVITY_INTERVAL_MS = 60_000;

// One-shot `hash` (Node >= 20.12): a third of the CPU of createHash().update().digest(), which
// builds a Hash object per call; every request hashes its token here and in the rate limiter (issue 15).
const hashToken = (token: string) => hash("sha256", token, "hex");

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
 * Tokens found recently, per database client: a request of the same caller within TOKEN_CACHE_MS
 * (on the service's clock, which tests hold still) skips the token lookup, the first sequential
 * statement of every request. Bounded in size. A revoke through this process forgets the token at
 * once (forgetToken); another instance sharing the database refuses it within TOKEN_CACHE_MS.
 */
export const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_SIZE = 10_000;
interface CachedToken {
  id: string;
  userId: string;
  installationId: string | null;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  until: number;
}
const tokenCaches = new WeakMap<PrismaClient, Map<string, CachedToken>>();

async function findToken(prisma: PrismaClient, tokenHash: string, now: number): Promise<CachedToken | null> {
  let cache = tokenCaches.get(prisma);
  if (!cache) tokenCaches.set(prisma, (cache = new Map()));
  const cached = cache.get(tokenHash);
  if (cached && cached.until > now) return cached;
  cache.delete(tokenHash);
  const row = await prisma.apiToken.findUnique({
    where: { tokenHash },
    select: { id: true, userId: true, installationId: true, lastUsedAt: true, expiresAt: true },
  });
  if (!row) return null;
  // Map order is insertion order: the first key is the oldest entry.
  if (cache.size >= TOKEN_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  const entry = { ...row, until: now + TOKEN_CACHE_MS };
  cache.set(tokenHash, entry);
  return entry;
}

/** Drops a revoked token from the cache, so that this process refuses it from the next request. */
export function forgetToken(prisma: PrismaClient, tokenId: string): void {
  const cache = tokenCaches.get(prisma);
  for (const [hash, entry] of cache ?? []) if (entry.id === tokenId) cache!.delete(hash);
}

/**
 * The viewer behind an `Authorization: Bearer <token>` header; 401 when missing or unknown.
 * Records the use (token `lastUsedAt`, the user's members' `lastSeenAt`) at most once a minute
 * per token, so reads do not write on every request.
 */
export async function authenticate(prisma: PrismaClient, authorization: string | null, clock: Clock = systemClock): Promise<Viewer> {
  const match = authorization?.match(BEARER);
  if (!match) throw unauthenticated("Missing API token: send the header Authorization: Bearer <token>");
  const now = clock.now();
  const token = await findToken(prisma, hashToken(match[1]), now.getTime());
  if (!token) throw unauthenticated("Invalid API token");
  if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) {
    throw unauthenticated(`API token expired at ${token.expiresAt.toISOString()}: create a new one`);
  }
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= ACTIVITY_INTERVAL_MS) {
    const lastUsedAt = token.lastUsedAt;
    token.lastUsedAt = now; // other requests of this process need not try again
    // Conditional on the value read, so concurrent requests (and instances) record the use once.
    const { count } = await prisma.apiToken.updateMany({
      where: { id: token.id, lastUsedAt },
      data: { lastUsedAt: now },
    });
    if (count > 0) await prisma.member.updateMany({ where: { userId: token.userId }, data: { lastSeenAt: now } });
  }
  return viewerOf(token);
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const viewerOf = (token: CachedToken): Viewer => ({
  userId: token.userId,
  tokenId: token.id,
  ...(token.installationId ? { installationId: token.installationId } : {}),
});

/**
 * What `authenticate` answers, without a promise, when it would answer from the cache alone: the
 * token found within TOKEN_CACHE_MS, not expired, its use recorded within ACTIVITY_INTERVAL_MS.
 * Undefined otherwise (a missing or unknown token, an expired one, a use to record): `authenticate`
 * decides those (issue 15: nearly every request of a client is the first case, and its three
 * promises and awaits were a tenth of a one-statement read's promises).
 */
export function cachedViewer(prisma: PrismaClient, authorization: string | null, clock: Clock = systemClock): Viewer | undefined {
  const match = authorization?.match(BEARER);
  if (!match) return undefined;
  const token = tokenCaches.get(prisma)?.get(hashToken(match[1]));
  if (!token) return undefined;
  const now = clock.now().getTime();
  if (token.until <= now || (token.expiresAt && token.expiresAt.getTime() <= now)) return undefined;
  if (!token.lastUsedAt || now - token.lastUsedAt.getTime() >= ACTIVITY_INTERVAL_MS) return undefined;
  return viewerOf(token);
}

/**
 * Whether the bearer token of `authorization` is one this process has verified (found in the
 * database, not expired): the rate limiter counts such a token against its own budget, and any
 * other (random, unknown, expired, not yet seen) against the client address (issue 28). No I/O.
 */
export function isVerifiedToken(prisma: PrismaClient, authorization: string | null, clock: Clock = systemClock): boolean {
  const match = authorization?.match(BEARER);
  if (!match) return false;
  const token = tokenCaches.get(prisma)?.get(hashToken(match[1]));
  return !!token && !(token.expiresAt && token.expiresAt.getTime() <= clock.now().getTime());
}
