// Public HTTP endpoints of integrations (`urls.publicEndpoint`, built by src/core/urls.ts):
//   <PUBLIC_URL>/v1/integrations/{name}/integration[/…]                             the integration
//   <PUBLIC_URL>/v1/integrations/{name}/integration/installations/{installationId}[/…]  an installation
//   …/integration/installations/{installationId}/spaces/{spaceId}[/…]              its installation on a space
//   …/integration/installations/{installationId}/sites/{siteId}[/…]                its installation on a site
// Any method and sub-path under one is delivered at once to the script as a `fetch` event (the
// published `FetchEvent`: `request` { method, url, headers }, the body as the `fetch-body` part,
// `installationId` (and `spaceId` or `siteId`) with an environment naming the installation (and
// the space or site installation) for the others), with the same sandbox limits as every event;
// the script's Response is the answer, with the integration's `contentSecurityPolicy` added as a
// header of its own ("sent as headers when processing the script fetch event"). No token: these
// are the integration's own public endpoints (OAuth callbacks, webhooks of other services).
//
// A paused installation (and a paused space or site installation) gets no fetch events: 403
// envelope, the script does not run and nothing is recorded. A pending one (required settings
// missing) still does: completing its configuration (an OAuth callback) goes through it.
//
// Answers: 404 for an unknown integration, installation, or space or site the installation is not
// on; 403 for a paused one; 502 when the script fails (throws,
// loops past its limits, answers garbage or a body over `endpointMaxResponseBytes`) or answers
// 500 (what `@gitbook/runtime` answers for an exception in the handler): the caller gets the
// reason in one line, the trace goes to the integration's events. Each request is recorded as
// one event (`status` success/failed, its log lines), written after the answer, without a job.
import type { Integration, IntegrationInstallation, Prisma } from "../../generated/prisma/client.ts";
import type { Services } from "../context.ts";
import { DomainError, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { contentSecurityPolicyHeader } from "./csp.ts";
import { manifestOf } from "./installed.ts";
import { DeliveryError, type SandboxAnswer, type SandboxLog } from "./sandbox.ts";

const PREFIX = /^\/v1\/integrations\/([a-zA-Z0-9\-_.]+)\/integration(?=\/|$)/;

export interface EndpointTarget {
  name: string;
  /** null: the integration's own endpoint. */
  installationId: string | null;
  /** The installation's endpoint on one space or site (`…/spaces/{id}`, `…/sites/{id}`). */
  content?: { kind: "space" | "site"; id: string };
}

/** A path segment decoded; "" (which names nothing) when it is not a valid escape. */
const segment = (raw: string | undefined) => {
  try {
    return decodeURIComponent(raw ?? "");
  } catch {
    return "";
  }
};

/** The endpoint a request path is under, or null when it is not a public endpoint's. */
export function endpointOf(pathname: string): EndpointTarget | null {
  const match = pathname.match(PREFIX);
  if (!match) return null;
  const name = match[1]!;
  const rest = pathname.slice(match[0].length);
  const installation = rest.match(/^\/installations(?:\/([^/]*))?(?=\/|$)/);
  if (!installation) return { name, installationId: null };
  const installationId = segment(installation[1]);
  const content = rest.slice(installation[0].length).match(/^\/(spaces|sites)(?:\/([^/]*))?(?=\/|$)/);
  if (!content) return { name, installationId };
  return { name, installationId, content: { kind: content[1] === "spaces" ? "space" : "site", id: segment(content[2]) } };
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
const HOP_HEADERS: ReadonlySet<string> = new Set([
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
const DROPPED_ANSWER_HEADERS: ReadonlySet<string> = new Set([...HOP_HEADERS, "set-cookie", "content-length"]);
/** Not written into the event record (the script still gets them). */
const SECRET_HEADER = /authorization|cookie|token|secret|signature|session|password|api-?key/i;
/**
 * What a page a script serves may do: it runs in an opaque origin (no `allow-same-origin`), so it
 * reads nothing of this origin (the API, the sites' visitor cookies).
 */
const SANDBOX_POLICY =
  "sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation";
/** The methods the published FetchRequest names, in its spelling (the runtime's `new Request` normalizes them). */
const PUBLISHED_METHODS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "DELETE"]);

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
    if (!integration) throw new DomainError("NOT_FOUND", `No integration named ${quote(target.name)}`);
    return { integration, installation: null };
  }
  const { content } = target;
  const [installation, contentRow] = target.installationId
    ? await Promise.all([
        prisma.integrationInstallation.findUnique({ where: { id: target.installationId }, include: { integration: true } }),
        !content?.id
          ? null
          : content.kind === "space"
            ? prisma.integrationSpaceInstallation.findUnique({
                where: { installationId_spaceId: { installationId: target.installationId, spaceId: content.id } },
                select: { status: true },
              })
            : prisma.integrationSiteInstallation.findUnique({
                where: { installationId_siteId: { installationId: target.installationId, siteId: content.id } },
                select: { status: true },
              }),
      ])
    : [null, null];
  if (!installation || installation.integration.name !== target.name) {
    throw new DomainError("NOT_FOUND", `No installation ${quote(target.installationId)} of the integration ${quote(target.name)}`);
  }
  if (content && !contentRow) {
    throw new DomainError(
      "NOT_FOUND",
      `The installation ${quote(installation.id)} of ${quote(target.name)} is not on the ${content.kind} ${quote(content.id)}`,
    );
  }
  if (installation.status === "paused" || contentRow?.status === "paused") {
    const what = contentRow?.status === "paused" ? `on the ${content!.kind} "${content!.id}" ` : "";
    throw new DomainError(
      "FORBIDDEN",
      `The installation ${quote(installation.id)} of ${quote(target.name)} ${what}is paused: its endpoint receives no requests`,
    );
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
    ...(target.content ? { [target.content.kind === "space" ? "spaceId" : "siteId"]: target.content.id } : {}),
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
    throw badGateway(`The integration ${quote(integration.name)} could not answer: ${reason} (its events show the trace as ${eventId})`);
  }
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!DROPPED_ANSWER_HEADERS.has(name.toLowerCase())) answerHeaders.set(name, value);
  }
  // A policy of its own besides the script's (every policy given applies), so none of its directives undoes it;
  // and the integration's `contentSecurityPolicy`, sent as a header of its own as the published API says.
  answerHeaders.append("content-security-policy", SANDBOX_POLICY);
  const declared = contentSecurityPolicyHeader(manifestOf(integration).contentSecurityPolicy);
  if (declared) answerHeaders.append("content-security-policy", declared);
  return { status: answer.status, headers: answerHeaders, body: answer.bytes ?? new TextEncoder().encode(answer.body) };
}
