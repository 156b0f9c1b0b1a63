// `npm run -s cli -- token` while the server holds the embedded database (PGlite allows one
// process): the CLI asks the running server instead, over loopback, with the secret the server
// wrote into its data directory. Whoever can read that file can read the database beside it, so
// the endpoint gives nobody a power they did not have; from any other address it does not exist.
import { timingSafeEqual } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import type { Services } from "../../core/context.ts";
import { DomainError, quote } from "../../core/errors.ts";
import { isEmail } from "../../core/email.ts";
import { issueTokenForEmail } from "../../core/tokens/index.ts";
import { readTextUpTo } from "../body.ts";
import { errorResponse } from "../errors.ts";
import { addressOf } from "../request-url.ts";
import { OPERATOR_TOKEN_PATH } from "../../operator-file.ts";

const MAX_BODY_BYTES = 4096;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function sameSecret(given: string | null, secret: string): boolean {
  const presented = Buffer.from(given?.replace(/^Operator\s+/i, "") ?? "");
  const expected = Buffer.from(secret);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

async function issue(services: Services, request: Request): Promise<Response> {
  const text = await readTextUpTo(request, MAX_BODY_BYTES);
  if (text === null) return errorResponse(413, `The body is over ${MAX_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResponse(400, "The body is not JSON: expected { email, label?, expiresInDays? }");
  }
  const { email, label, expiresInDays } = (body ?? {}) as Record<string, unknown>;
  if (typeof email !== "string" || !isEmail(email))
    return errorResponse(400, `email: expected an e-mail address (got ${quote(String(email))})`);
  if (label !== undefined && typeof label !== "string") return errorResponse(400, "label: expected a string");
  if (expiresInDays !== undefined && typeof expiresInDays !== "number") return errorResponse(400, "expiresInDays: expected a whole number");
  try {
    return Response.json(await issueTokenForEmail(services.prisma, services.clock, { email, label, expiresInDays }));
  } catch (error) {
    if (error instanceof DomainError) return errorResponse(error.status, error.message);
    throw error;
  }
}

/** `secret` unset (a server on PostgreSQL, where the CLI opens the database itself): no endpoint. */
export function useOperatorToken(services: Services, secret: string | undefined): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      if (!secret || url.pathname !== OPERATOR_TOKEN_PATH) return;
      if (!LOOPBACK.test(addressOf(serverContext))) return endResponse(errorResponse(404, `No route ${OPERATOR_TOKEN_PATH}`));
      if (request.method !== "POST") return endResponse(errorResponse(405, "Use POST", { Allow: "POST" }));
      if (!sameSecret(request.headers.get("authorization"), secret))
        return endResponse(
          errorResponse(401, "Authorization: expected `Operator <secret>` with the secret of the server's data directory"),
        );
      return issue(services, request).then(endResponse);
    },
  };
}
