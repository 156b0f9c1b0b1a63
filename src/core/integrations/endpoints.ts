// Public HTTP endpoints of integrations (`urls.publicEndpoint`, built by src/core/urls.ts):
//   <PUBLIC_URL>/v1/integrations/{name}/integration[/…]                             the integration
//   <PUBLIC_URL>/v1/integrations/{name}/integration/installations/{installationId}[/…]  an installation
// Any method and sub-path under one is delivered at once to the script as a `fetch` event (the
// published `FetchEvent`: `request` { method, url, headers }, the body as the `fetch-body` part,
// `installationId` and an environment naming the installation for the second), with the same
// sandbox limits as every event; the script's Response is the answer. No token: these are the
// integration's own public endpoints (OAuth callbacks, webhooks of other services).
//
// Answers: 404 for an unknown integration or installation; 502 when the script fails (throws,
// loops past its limits, answers garbage or a body over `endpointMaxResponseBytes`) or answers
// 500 (what `@gitbook/runtime` answers for an exception in the handler): the caller gets the
// reason in one line, the trace goes to the integration's events. Each request is recorded as
// one event (`status` success/failed, its log lines), written after the answer, without a job.
import type { Integration, IntegrationInstallation, Prisma } from "../../generated/prisma/client.ts";
import type { Services } from "../context.ts";
import { DomainError } from "../errors.ts";
import { newId } from "../ids.ts";
import { DeliveryError, type SandboxAnswer, type SandboxLog } from "./sandbox.ts";

const PREFIX = /^\/v1\/integrations\/([a-zA-Z0-9\-_.]+)\/integration(?=\/|$)/;

export interface EndpointTarget {
  name: string;
  /** null: the integration's own endpoint. */
  installationId: string | null;
}

/** The endpoint a request path is under, or null when it is not a public endpoint's. */
export function endpointOf(pathname: string): EndpointTarget | null {
  const match = pathname.match(PREFIX);
  if (!match) return null;
  const name = match[1]!;
  const rest = pathname.slice(match[0].length);
  const installation = rest.match(/^\/installations(?:\/([^/]*))?(?=\/|$)/);
  if (!installation) return { name, installationId: null };
  let installationId = "";
  try {
    installationId = decodeURIComponent(installation[1] ?? "");
  } catch {
    // Not a valid escape: no such installation.
  }
  return { name, installationId };
}

export interface EndpointRequest {
  method: string;
  /** The URL as the caller addressed it (PUBLIC_URL + path + query). */
  url: string;
  headers: Headers;
  /** null for GET and HEAD (no `fetch-body` part). */
  body: Uint8Array<ArrayBuffer> | null;
}

export interface EndpointAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/** Request headers that belong to the hop, not to the request the script sees. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "host",
  "content-length",
  "proxy-connection",
]);
/** Response headers the script does not set: the hop's, and cookies (this origin's cookies are the published sites' visitors'). */
const DROPPED_ANSWER_HEADERS = new Set([...HOP_HEADERS, "set-cookie", "content-length"]);
/** Not written into the event record (the script still gets them). */
const SECRET_HEADER = /authorization|cookie|token|secret|signature|session|password|api-?key/i;
/**
 * What a page a script serves may do: it runs in an opaque origin (no `allow-same-origin`), so it
 * reads nothing of this origin (the API, the sites' visitor cookies).
 */
const SANDBOX_POLICY =
  "sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation";
/** The methods the published FetchRequest names, in its spelling (the runtime's `new Request` normalizes them). */
const PUBLISHED_METHODS = new Set(["GET", "POST", "PUT", "DELETE"]);

const badGateway = (message: string) => new DomainError("BAD_GATEWAY", message);

/** What the caller is told of a failure: its first line with text (never a stack), bounded. */
const firstLine = (text: string) =>
  (
    text
      .split("\n")
      .map((line) => line.trim())
      .find(Boolean) ?? "unknown error"
  ).slice(0, 300);

async function targetOf(
  services: Services,
  target: EndpointTarget,
): Promise<{ integration: Integration; installation: IntegrationInstallation | null }> {
  const prisma = services.prisma;
  if (target.installationId === null) {
    const integration = await prisma.integration.findUnique({ where: { name: target.name } });
    if (!integration) throw new DomainError("NOT_FOUND", `No integration named "${target.name}"`);
    return { integration, installation: null };
  }
  const installation = target.installationId
    ? await prisma.integrationInstallation.findUnique({ where: { id: target.installationId }, include: { integration: true } })
    : null;
  if (!installation || installation.integration.name !== target.name) {
    throw new DomainError("NOT_FOUND", `No installation "${target.installationId}" of the integration "${target.name}"`);
  }
  const { integration, ...row } = installation;
  return { integration, installation: row };
}

/** Fetch events are written by anonymous callers: only the newest `endpointEventsKept` of an integration are kept. */
async function recordFetchEvent(services: Services, integrationId: string, data: Prisma.IntegrationEventUncheckedCreateInput) {
  const prisma = services.prisma;
  await prisma.integrationEvent.create({ data });
  const fetchEvents = { integrationId, payload: { path: ["type"], equals: "fetch" } } satisfies Prisma.IntegrationEventWhereInput;
  const oldestKept = await prisma.integrationEvent.findFirst({
    where: fetchEvents,
    orderBy: { seq: "desc" },
    skip: services.integrations.settings.endpointEventsKept - 1,
    select: { seq: true },
  });
  if (oldestKept) await prisma.integrationEvent.deleteMany({ where: { ...fetchEvents, seq: { lt: oldestKept.seq } } });
}

/** Delivers one request to the script behind `target` and answers what it said (DomainError: 404, 502). */
export async function answerEndpointRequest(services: Services, target: EndpointTarget, request: EndpointRequest): Promise<EndpointAnswer> {
  const { integration, installation } = await targetOf(services, target);
  const runtime = services.integrations;
  const eventId = newId("IntegrationEvent");
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) if (!HOP_HEADERS.has(name)) headers[name] = value;
  const upper = request.method.toUpperCase();
  const method = PUBLISHED_METHODS.has(upper) ? upper.toLowerCase() : upper;
  const event = {
    eventId,
    type: "fetch",
    ...(installation ? { installationId: installation.id } : {}),
    request: { method, url: request.url, headers },
  };
  const started = performance.now();
  const createdAt = services.clock.now();
  let answer: SandboxAnswer | null = null;
  let failure: string | null = null;
  let logs: SandboxLog[] = [];
  let internal = false;
  try {
    answer = await runtime.deliver(integration, installation, event, {
      body: request.body ? new Blob([request.body], { type: request.headers.get("content-type") ?? "" }) : null,
      answer: { binary: true, maxBodyBytes: runtime.settings.endpointMaxResponseBytes },
    });
    logs = answer.logs;
    if (answer.status === 500) failure = `the script answered 500: ${new TextDecoder().decode(answer.bytes?.subarray(0, 500))}`;
  } catch (error) {
    if (error instanceof DeliveryError) {
      logs = error.logs;
      failure = error.message;
    } else {
      // Not the script's doing (the database, …): logged here, named in the trace, not told the caller.
      services.logger.error({ err: error, eventId }, "delivering an integration fetch event failed");
      failure = `the service could not deliver the request: ${error instanceof Error ? error.message.trim() : String(error)}`;
      internal = true;
    }
  }
  const path = new URL(request.url).pathname;
  const elapsed = Math.round(performance.now() - started);
  logs.push({
    level: failure ? "error" : "info",
    message: failure
      ? `fetch ${upper} ${path} failed after ${elapsed} ms: ${failure}`
      : `fetch ${upper} ${path} answered ${answer!.status} in ${elapsed} ms`,
    timestamp: services.clock.now().toISOString(),
  });
  runtime.afterAnswer(
    recordFetchEvent(services, integration.id, {
      id: eventId,
      integrationId: integration.id,
      installationId: installation?.id ?? null,
      // The record keeps no credentials: no query string, no secret-looking header.
      payload: {
        ...event,
        request: {
          method,
          url: request.url.split("?")[0]!,
          headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !SECRET_HEADER.test(name))),
        },
      } as Prisma.InputJsonValue,
      status: failure ? "failed" : "success",
      attempts: 1,
      logs: logs.slice(-500) as unknown as Prisma.InputJsonValue,
      createdAt,
      updatedAt: services.clock.now(),
    }),
    (error) => services.logger.error({ err: error, eventId }, "recording an integration fetch event failed"),
  );
  if (failure || !answer) {
    const reason = internal ? "the service could not deliver the request" : firstLine(failure ?? "");
    throw badGateway(`The integration "${integration.name}" could not answer: ${reason} (its events show the trace as ${eventId})`);
  }
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!DROPPED_ANSWER_HEADERS.has(name.toLowerCase())) answerHeaders.set(name, value);
  }
  // A policy of its own besides the script's (every policy given applies), so none of its directives undoes it.
  answerHeaders.append("content-security-policy", SANDBOX_POLICY);
  return { status: answer.status, headers: answerHeaders, body: answer.bytes ?? new TextEncoder().encode(answer.body) };
}
