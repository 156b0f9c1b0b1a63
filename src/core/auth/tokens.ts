// API tokens: random, shown once, stored as a SHA-256 hash. A bearer token maps to a viewer.
import { hash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import { unauthenticated } from "../errors.ts";
import { systemClock, type Clock } from "../clock.ts";

/** Who a request acts as: the user a bearer token names, and that token. */
export interface Viewer {
  userId: string;
  tokenId: string;
  /** Set when the token is an integration installation's: it acts only within that installation. */
  installationId?: string;
}

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
 * Tokens found recently, per app (its TokenVerifier): a request of the same caller within TOKEN_CACHE_MS
 * (on the service's clock, which tests hold still) skips the token lookup, the first sequential
 * statement of every request. Bounded in size. A revoke through this process forgets the token at
 * once (`forget`); another instance sharing the database refuses it within TOKEN_CACHE_MS.
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

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const viewerOf = (token: CachedToken): Viewer => ({
  userId: token.userId,
  tokenId: token.id,
  ...(token.installationId ? { installationId: token.installationId } : {}),
});

/** Bearer tokens to viewers, for one database; one per app (`Services.tokens`), with its cache. */
export class TokenVerifier {
  readonly #cache = new Map<string, CachedToken>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock = systemClock,
  ) {}

  async #find(tokenHash: string, now: number): Promise<CachedToken | null> {
    const cached = this.#cache.get(tokenHash);
    if (cached && cached.until > now) return cached;
    this.#cache.delete(tokenHash);
    const row = await this.prisma.apiToken.findUnique({
      where: { tokenHash },
      select: { id: true, userId: true, installationId: true, lastUsedAt: true, expiresAt: true },
    });
    if (!row) return null;
    // Map order is insertion order: the first key is the oldest entry.
    if (this.#cache.size >= TOKEN_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    const entry = { ...row, until: now + TOKEN_CACHE_MS };
    this.#cache.set(tokenHash, entry);
    return entry;
  }

  /** Drops a revoked token from the cache, so that this process refuses it from the next request. */
  forget(tokenId: string): void {
    for (const [hash, entry] of this.#cache) if (entry.id === tokenId) this.#cache.delete(hash);
  }

  /**
   * The viewer behind an `Authorization: Bearer <token>` header; 401 when missing or unknown.
   * Records the use (token `lastUsedAt`, the user's members' `lastSeenAt`) at most once a minute
   * per token, so reads do not write on every request.
   */
  async authenticate(authorization: string | null): Promise<Viewer> {
    const match = authorization?.match(BEARER);
    if (!match) throw unauthenticated("Missing API token: send the header Authorization: Bearer <token>");
    const now = this.clock.now();
    const token = await this.#find(hashToken(match[1]), now.getTime());
    if (!token) throw unauthenticated("Invalid API token");
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) {
      throw unauthenticated(`API token expired at ${token.expiresAt.toISOString()}: create a new one`);
    }
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= ACTIVITY_INTERVAL_MS) {
      const lastUsedAt = token.lastUsedAt;
      token.lastUsedAt = now; // other requests of this process need not try again
      // Conditional on the value read, so concurrent requests (and instances) record the use once.
      const { count } = await this.prisma.apiToken.updateMany({
        where: { id: token.id, lastUsedAt },
        data: { lastUsedAt: now },
      });
      if (count > 0) await this.prisma.member.updateMany({ where: { userId: token.userId }, data: { lastSeenAt: now } });
    }
    return viewerOf(token);
  }

  /**
   * What `authenticate` answers, without a promise, when it would answer from the cache alone: the
   * token found within TOKEN_CACHE_MS, not expired, its use recorded within ACTIVITY_INTERVAL_MS.
   * Undefined otherwise (a missing or unknown token, an expired one, a use to record): `authenticate`
   * decides those (issue 15: nearly every request of a client is the first case, and its three
   * promises and awaits were a tenth of a one-statement read's promises).
   */
  cachedViewer(authorization: string | null): Viewer | undefined {
    const match = authorization?.match(BEARER);
    if (!match) return undefined;
    const token = this.#cache.get(hashToken(match[1]));
    if (!token) return undefined;
    const now = this.clock.now().getTime();
    if (token.until <= now || (token.expiresAt && token.expiresAt.getTime() <= now)) return undefined;
    if (!token.lastUsedAt || now - token.lastUsedAt.getTime() >= ACTIVITY_INTERVAL_MS) return undefined;
    return viewerOf(token);
  }

  /**
   * Whether the bearer token of `authorization` is one this process has verified (found in the
   * database, not expired): the rate limiter counts such a token against its own budget, and any
   * other (random, unknown, expired, not yet seen) against the client address (issue 28). No I/O.
   */
  isVerified(authorization: string | null): boolean {
    const match = authorization?.match(BEARER);
    if (!match) return false;
    const token = this.#cache.get(hashToken(match[1]));
    return !!token && !(token.expiresAt && token.expiresAt.getTime() <= this.clock.now().getTime());
  }
}
