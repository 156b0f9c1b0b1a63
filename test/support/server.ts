// A real HTTP server of the whole app on its own fresh database (in-memory PGlite, or a fresh
// PostgreSQL database when DATABASE_URL is set), with helpers to call both surfaces.
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, type App, type AppConfig } from "../../src/app.ts";
import { DEFAULT_GRAPHQL_LIMITS } from "../../src/config.ts";
import { createHttpServer } from "../../src/http/client-error.ts";
import type { ServerTimeouts } from "../../src/http/server-options.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { bootstrapOrganization, type BootstrapResult } from "../../src/core/bootstrap/index.ts";
import type { Database } from "../../src/db/client.ts";
import { issueToken } from "../../src/core/auth/tokens.ts";
import { newId } from "../../src/core/ids.ts";
import { openTestDatabase } from "./database.ts";
import { createClient } from "./openapi.ts";
import type { Logger } from "../../src/logger.ts";

export interface GraphQLResponse<T = any> {
  status: number;
  data?: T;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; http?: { status?: number } } }[];
}

export interface TestServer {
  url: string;
  database: Database;
  app: App;
  clock: ManualClock;
  /**
   * The TXT records custom-hostname checks read (name → values): DNS cannot run here, so tests set
   * the records a domain's owner would, unless their config gives its own resolver.
   */
  dns: Map<string, string[]>;
  /** A new organization with a new admin user and their token. */
  bootstrap(title?: string): Promise<BootstrapResult>;
  /** A new user added to `organizationId` with `role` (null = guest), and their token. */
  addMember(organizationId: string, role: string | null): Promise<{ userId: string; token: string }>;
  /** The official client, validating every response against the published OpenAPI schemas. */
  client(token?: string): ReturnType<typeof createClient>;
  graphql<T = any>(token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>>;
  rest(token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

let counter = 0;

/** `config`: settings beside PUBLIC_URL (the server's own address), e.g. lower import limits. */
export async function startTestServer(
  config: Omit<AppConfig, "publicUrl"> = {},
  timeouts: Partial<ServerTimeouts> = {},
  /** PostgreSQL's statement_timeout, when not the execution deadline as main.ts sets it. */
  {
    statementTimeoutMs,
    logger,
  }: {
    statementTimeoutMs?: number;
    /** Where the app's log lines go (silent unless a test reads them). */
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const database = await openTestDatabase({
    statementTimeoutMs: statementTimeoutMs ?? config.graphqlLimits?.executionTimeoutMs ?? DEFAULT_GRAPHQL_LIMITS.executionTimeoutMs,
  });
  const clock = new ManualClock(new Date("2026-01-15T10:00:00Z"));
  let handler: App["yoga"] | undefined;
  const server: Server = createHttpServer(timeouts, (req, res) => handler!(req, res), {
    rateLimitHeaders: (address) => app.rateLimitHeaders(address),
    logger,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Test files make thousands of requests with one token: rate limits are tested on their own.
  const rateLimits = { perToken: 1_000_000, perAddress: 1_000_000, windowSeconds: 60, ...config.rateLimits };
  // The job worker wakes when a job is enqueued here; it does not poll on a timer, so that idle
  // polling never adds to the SQL statement counts tests assert (tests run due jobs with runDue).
  // Test servers import from sites served on 127.0.0.1: private hosts are allowed unless a test
  // says otherwise (the production default is false; test/import-safety.test.ts checks it).
  const dns = new Map<string, string[]>();
  const resolveTxt = async (name: string) => {
    const values = dns.get(name);
    if (!values) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return values.map((value) => [value]);
  };
  const app = createApp({
    database,
    config: { importAllowPrivateHosts: true, resolveTxt, ...config, rateLimits, publicUrl: url },
    clock,
    jobs: { pollIntervalMs: 24 * 3_600_000 },
    logger,
  });
  handler = app.yoga;

  const bootstrap = (title = `Org ${++counter}`) =>
    bootstrapOrganization(database.prisma, { organizationTitle: title, email: `admin-${newId("User").slice(4)}@example.com` });

  async function addMember(organizationId: string, role: string | null) {
    const userId = newId("User");
    await database.prisma.user.create({ data: { id: userId, email: `${userId}@example.com`, displayName: `Member ${userId}` } });
    await database.prisma.member.create({ data: { organizationId, userId, role } });
    return { userId, token: await issueToken(database.prisma, userId) };
  }

  async function graphql(token: string | undefined, query: string, variables?: Record<string, unknown>) {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as object) };
  }

  async function rest(token: string | undefined, method: string, path: string, body?: unknown) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    // An event stream's body is its text (the events), not JSON.
    const streamed = /^text\/event-stream/.test(response.headers.get("content-type") ?? "");
    return { status: response.status, body: streamed ? text : text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  return {
    url,
    database,
    app,
    clock,
    dns,
    bootstrap,
    addMember,
    client: (token) => createClient({ endpoint: url, token }),
    graphql,
    rest,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await database.close();
    },
  };
}

/** A GET of `path` on the server at `url` with its own Host header (fetch does not let one set it). */
export function requestWithHost(
  url: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString("utf8"), headers: response.headers }),
      );
    });
    request.on("error", reject);
    request.end();
  });
}
