// API tokens: random, shown once, stored as a SHA-256 hash. A bearer token maps to a viewer.
import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { newId } from "../core/ids.ts";
import { unauthenticated } from "../core/errors.ts";
import type { Viewer } from "../core/context.ts";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function issueToken(prisma: PrismaClient, userId: string, label?: string): Promise<string> {
  const token = `dps_${randomBytes(32).toString("base64url")}`;
  await prisma.apiToken.create({ data: { id: newId("ApiToken"), userId, tokenHash: hashToken(token), label } });
  return token;
}

/** The viewer behind an `Authorization: Bearer <token>` header; 401 when missing or unknown. */
export async function authenticate(prisma: PrismaClient, authorization: string | null): Promise<Viewer> {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw unauthenticated("Missing API token: send the header Authorization: Bearer <token>");
  const token = await prisma.apiToken.findUnique({ where: { tokenHash: hashToken(match[1]) } });
  if (!token) throw unauthenticated("Invalid API token");
  return { userId: token.userId, tokenId: token.id };
}
