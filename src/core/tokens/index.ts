// API tokens of the caller: create (the secret is shown once), list (never the secret), revoke,
// optionally expiring. A token acts as its user, so these are the caller's own operations: no
// organization role is involved, and another user's token is not found.
import type { ApiToken, PrismaClient } from "../../generated/prisma/client.ts";
import { issueTokenRow } from "../auth/tokens.ts";
import type { Clock } from "../clock.ts";
import type { CoreContext } from "../context.ts";
import { badInput, DomainError, notFound, quote } from "../errors.ts";
import { checkLength } from "../validate.ts";

export const TOKEN_LABEL_MAX = 100;
export const TOKEN_EXPIRY_DAYS_MAX = 3650;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface NewToken {
  /** The secret: shown once, stored only as a hash. */
  token: string;
  apiToken: ApiToken;
}

function expiryOf(clock: Clock, expiresInDays: number | null | undefined): Date | undefined {
  if (expiresInDays == null) return undefined;
  if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > TOKEN_EXPIRY_DAYS_MAX) {
    throw badInput(`expiresInDays must be a whole number from 1 to ${TOKEN_EXPIRY_DAYS_MAX} (got ${expiresInDays})`);
  }
  return new Date(clock.now().getTime() + expiresInDays * DAY_MS);
}

function labelOf(label: string | null | undefined): string | undefined {
  return label == null ? undefined : checkLength("label", label.trim(), { min: 1, max: TOKEN_LABEL_MAX });
}

/** A new token for the caller. */
export async function createApiToken(
  core: CoreContext,
  input: { label?: string | null; expiresInDays?: number | null },
): Promise<NewToken> {
  const label = labelOf(input.label);
  const expiresAt = expiryOf(core.clock, input.expiresInDays);
  const { token, row } = await issueTokenRow(core.prisma, core.viewer.userId, label, expiresAt);
  return { token, apiToken: row };
}

/** The caller's tokens, newest first. */
export function listApiTokens(core: CoreContext): Promise<ApiToken[]> {
  return core.prisma.apiToken.findMany({ where: { userId: core.viewer.userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

/** Revokes one of the caller's tokens (the one in use too); another user's is not found. */
export async function revokeApiToken(core: CoreContext, id: string): Promise<string> {
  const { count } = await core.prisma.apiToken.deleteMany({ where: { id, userId: core.viewer.userId } });
  if (count === 0) throw notFound("API token", id);
  core.tokens.forget(id);
  return id;
}

/** The operator's way in (`cli token`): a token for an existing user, found by e-mail. */
export async function issueTokenForEmail(
  prisma: PrismaClient,
  clock: Clock,
  input: { email: string; label?: string; expiresInDays?: number },
): Promise<{ userId: string; token: string; expiresAt: string | null }> {
  const label = labelOf(input.label ?? "cli");
  const expiresAt = expiryOf(clock, input.expiresInDays);
  const user = await prisma.user.findUnique({ where: { email: input.email.toLowerCase() } });
  if (!user) throw new DomainError("NOT_FOUND", `No user has the e-mail ${quote(input.email)}`);
  const { token, row } = await issueTokenRow(prisma, user.id, label, expiresAt);
  return { userId: user.id, token, expiresAt: row.expiresAt?.toISOString() ?? null };
}
