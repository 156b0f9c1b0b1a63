// The REST error envelope, `{ "error": { "code": <status>, "message": "…" } }`, as the published
// API answers it: used by the REST adapter and by the download routes served beside GraphQL.
import type { GraphQLError } from "graphql";
import { boundMessage } from "../core/errors.ts";

export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { code: status, message: boundMessage(message) } }, { status, headers });
}

/** The HTTP status a GraphQL error stands for: its own, 400 for request errors, else 500. */
export function statusOf(error: GraphQLError): number {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  if (status) return status;
  return error.originalError ? 500 : 400;
}
