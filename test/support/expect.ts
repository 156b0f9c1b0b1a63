// Assertions shared by the test files: errors on both surfaces, and GraphQL data without errors.
import { GitBookAPIError } from "@gitbook/api";
import { expect } from "vitest";
import { validateResponse } from "./openapi.ts";
import type { GraphQLResponse, TestServer } from "./server.ts";

/** The status and message of a failed client call (fails the test if the call succeeds). */
export async function restFailure(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof GitBookAPIError) return { status: error.code, message: error.errorMessage };
    throw error;
  }
  throw new Error("expected the request to fail");
}

/** A client call that must fail with `status`, its message naming `mentions` when given. */
export async function expectRestError(call: Promise<unknown>, status: number, mentions?: string) {
  const failure = await restFailure(call);
  expect(failure.status, failure.message).toBe(status);
  if (mentions) expect(failure.message).toContain(mentions);
}

/** Raw REST call that must fail with the error envelope `{ error: { code: status, message } }`. */
export async function expectRawRestError(
  server: TestServer,
  token: string,
  method: string,
  path: string,
  body: unknown,
  status: number,
  mentions?: string,
) {
  const response = await server.rest(token, method, path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(status);
  if (mentions) expect(response.body.error.message).toContain(mentions);
}

/**
 * A GraphQL error: a domain error with `extensions.code`, or ("VALIDATION") a request error of
 * GraphQL itself (a variable that does not coerce: HTTP 400, nothing executed). Either way it
 * names `mentions` when given.
 */
export function expectGraphQLError(response: GraphQLResponse, code: string | "VALIDATION", mentions?: string) {
  expect(response.errors, JSON.stringify(response.data)).toBeDefined();
  const [error] = response.errors!;
  if (code === "VALIDATION") {
    expect(response.status, error.message).toBe(400);
    expect(response.data ?? null).toBeNull();
  } else {
    expect(error.extensions?.code, error.message).toBe(code);
  }
  if (mentions) expect(error.message).toContain(mentions);
}

/** The data of a GraphQL request that must succeed without errors. */
export async function graphqlData<T = any>(
  server: TestServer,
  token: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const response = await server.graphql<T>(token, query, variables);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data!;
}

/** A REST call whose answer must satisfy the published schema of its operation. */
export async function publishedRest(
  server: Pick<TestServer, "rest">,
  token: string | undefined,
  method: string,
  url: string,
  body?: unknown,
) {
  const response = await server.rest(token, method, url, body);
  expect(validateResponse(method, url, response.status, response.body)).toEqual([]);
  return response;
}
