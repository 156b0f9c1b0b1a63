// What runs integrations: the events they are sent (rows of "IntegrationEvent", delivered by a
// job of the durable queue, src/core/jobs), the environment each delivery carries (the published
// `IntegrationEnvironment`, with a token of the installation), the sandboxes scripts run in
// (sandbox.ts), development mode (signed POSTs to the tunnel), and rendering of UI components.
//
// Delivery is the runtime protocol of `@gitbook/runtime`: a POST to `/v1` whose body is
// multipart/form-data with `event` (the published Event JSON), `environment` and `fetch-body`.
// At least once: a failed delivery is retried (`eventAttempts` in all, backoff 1 s, 4 s, 16 s …);
// every attempt's log lines and failure reason go to the event's trace. A script that does not
// handle an event type answers 406 (the runtime's `Integration does not handle …`): that counts
// as delivered.
import { createHmac } from "node:crypto";
import { type Dispatcher, fetch as undiciFetch } from "undici";
import type { Integration, IntegrationEvent, IntegrationInstallation, Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import { issueTokenRow } from "../auth/tokens.ts";
import type { IntegrationSettings } from "../../config.ts";
import type { Clock } from "../clock.ts";
import type { Transaction } from "../../db/transaction.ts";
import { newId } from "../ids.ts";
import type { JobQueue } from "../jobs/index.ts";
import type { Urls } from "../urls.ts";
import { DomainError, quote } from "../errors.ts";
import { contentKitProblem } from "./contentkit.ts";
import { installedWhere, manifestOf } from "./installed.ts";
import { type AnswerOptions, DeliveryError, type SandboxAnswer, type SandboxLog, type ScriptSandbox } from "./sandbox.ts";

export const EVENT_JOB = "integration.event";
/** Lifetime of the installation tokens given to scripts (reused until half of it is left). */
const TOKEN_TTL_MS = 60 * 60 * 1000;
const TRACE_MAX_LINES = 500;
export const SIGNATURE_HEADER = "x-gitbook-signature";
export const TIMESTAMP_HEADER = "x-gitbook-timestamp";

const badGateway = (message: string) => new DomainError("BAD_GATEWAY", message);

export interface EventPayload {
  type: string;
  installationId?: string;
  [key: string]: unknown;
}

interface RuntimeServices {
  prisma: PrismaClient;
  clock: Clock;
  urls: Urls;
  jobs: JobQueue;
  /** How development tunnels are reached: `publicOnly` unless private hosts are allowed (IMPORT_ALLOW_PRIVATE_HOSTS). */
  tunnelDispatcher?: Dispatcher;
  /** Where the scripts run (src/infra/workerd-sandbox.ts, built in src/app.ts). */
  sandboxes: ScriptSandbox;
}

/** A user that stands for an integration: its installation tokens act as it (never a member). */
const integrationUserEmail = (integration: Pick<Integration, "id">) => `${integration.id.toLowerCase()}@integrations.invalid`;

/** The `signingSecret`-keyed HMAC of a development-mode delivery: hex SHA-256 over `<timestamp>.<body>`. */
export function signDelivery(secret: string, timestamp: string, body: Uint8Array): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
}

export class IntegrationRuntime {
  readonly sandboxes: ScriptSandbox;
  private readonly tokens = new Map<string, { token: string; until: number }>();
  /** Writes done after the answer (records of fetch events): `close()` waits for them. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly services: RuntimeServices,
    readonly settings: IntegrationSettings,
  ) {
    this.sandboxes = services.sandboxes;
  }

  register(): void {
    this.services.jobs.register(EVENT_JOB, (payload: { eventId: string }, { attempt }) => this.runEvent(payload.eventId, attempt));
  }

  async close(): Promise<void> {
    await this.sandboxes.close();
    await Promise.allSettled([...this.pending]);
  }

  /** Runs `work` after the answer was sent; its failure is reported to `onError`, and `close()` waits for it. */
  afterAnswer(work: Promise<unknown>, onError: (error: unknown) => void): void {
    const tracked = work.catch(onError).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Records an event for the script and enqueues its delivery (at `runAt`, default now), inside `tx` (call `jobs.wake()` after the commit). */
  async emit(
    tx: Transaction,
    integration: Integration,
    installationId: string | null,
    payload: EventPayload,
    { runAt }: { runAt?: Date } = {},
  ): Promise<IntegrationEvent> {
    const id = newId("IntegrationEvent");
    const now = this.services.clock.now();
    const event = await tx.integrationEvent.create({
      data: {
        id,
        integrationId: integration.id,
        installationId,
        payload: { eventId: id, ...payload } as Prisma.InputJsonValue,
        createdAt: now,
        updatedAt: now,
      },
    });
    await this.services.jobs.enqueue(EVENT_JOB, { eventId: id }, { maxAttempts: this.settings.eventAttempts, runAt }, tx);
    return event;
  }

  /**
   * `space_content_updated` for every installation on the space (installedWhere: `space_selection:
   * all` too), inside the transaction that moved its head; returns whether any was recorded (then
   * wake the queue after the commit).
   */
  async contentUpdated(tx: Transaction, spaceId: string, revisionId: string, userId: string): Promise<boolean> {
    const installed = await tx.integrationInstallation.findMany({ where: installedWhere(null, spaceId), include: { integration: true } });
    if (installed.length === 0) return false;
    const user = await tx.user.findUnique({ where: { id: userId } });
    for (const installation of installed) {
      await this.emit(tx, installation.integration, installation.id, {
        type: "space_content_updated",
        installationId: installation.id,
        spaceId,
        revisionId,
        updatedBy: user
          ? [
              {
                object: "user",
                id: user.id,
                displayName: user.displayName,
                email: user.email,
                ...(user.photoURL ? { photoURL: user.photoURL } : {}),
              },
            ]
          : [],
      });
    }
    return installed.length > 0;
  }

  /** Forgets the cached token of an installation (uninstalled, or its spaces changed). */
  forgetInstallation(installationId: string): void {
    this.tokens.delete(installationId);
  }

  /** A token acting as the installation (its scopes, on what it is installed on), valid for an hour. */
  async installationToken(
    integration: Integration,
    installation: IntegrationInstallation,
    { reuse = true } = {},
  ): Promise<{ token: string; expiresAt: Date }> {
    const now = this.services.clock.now().getTime();
    const cached = reuse ? this.tokens.get(installation.id) : undefined;
    if (cached && cached.until - now > TOKEN_TTL_MS / 2) return { token: cached.token, expiresAt: new Date(cached.until) };
    const prisma = this.services.prisma;
    const email = integrationUserEmail(integration);
    // Not an upsert: two first deliveries at once (an event and a fetch) would both insert, and one
    // would fail on the unique email (PostgreSQL). ON CONFLICT DO NOTHING, then read.
    await prisma.user.createMany({ data: [{ id: newId("User"), email, displayName: integration.title }], skipDuplicates: true });
    const user = await prisma.user.findUniqueOrThrow({ where: { email } });
    await prisma.apiToken.deleteMany({ where: { installationId: installation.id, expiresAt: { lt: new Date(now) } } });
    const expiresAt = new Date(now + TOKEN_TTL_MS);
    const { token, row } = await issueTokenRow(prisma, user.id, `installation ${installation.id}`, expiresAt);
    await prisma.apiToken.update({ where: { id: row.id }, data: { installationId: installation.id } });
    if (this.tokens.size > 10_000) this.tokens.clear();
    if (reuse) this.tokens.set(installation.id, { token, until: expiresAt.getTime() });
    return { token, expiresAt };
  }

  /** The published `Integration` as scripts see it in their environment. */
  integrationJson(integration: Integration): Record<string, unknown> {
    const manifest = manifestOf(integration);
    const location = this.services.urls.api(`/integrations/${integration.name}`);
    return {
      object: "integration",
      name: integration.name,
      version: integration.version,
      title: integration.title,
      description: manifest.description ?? "",
      ...(manifest.summary ? { summary: manifest.summary } : {}),
      previewImages: [],
      target: integration.target,
      verified: false,
      visibility: integration.visibility,
      scopes: integration.scopes,
      categories: integration.categories,
      blocks: manifest.blocks ?? [],
      contentSources: manifest.contentSources ?? [],
      configurations: manifest.configurations ?? {},
      externalLinks: manifest.externalLinks ?? [],
      owner: { object: "organization", id: integration.organizationId },
      urls: {
        location,
        app: this.services.urls.app(`/integrations/${integration.name}`),
        assets: `${location}/assets`,
        publicEndpoint: this.services.urls.integrationEndpoint(integration.name),
        publicContentEndpoint: this.services.urls.integrationEndpoint(integration.name),
      },
      permissions: { admin: false },
    };
  }

  installationJson(integration: Integration, installation: IntegrationInstallation, spaces: number): Record<string, unknown> {
    const location = this.services.urls.api(`/integrations/${integration.name}/installations/${installation.id}`);
    const endpoint = this.services.urls.installationEndpoint(integration.name, installation.id);
    return {
      id: installation.id,
      status: installation.status,
      space_selection: installation.spaceSelection,
      site_selection: installation.siteSelection,
      spaces,
      configuration: installation.configuration,
      externalIds: installation.externalIds,
      target: { organization: installation.organizationId },
      createdAt: installation.createdAt.toISOString(),
      updatedAt: installation.updatedAt.toISOString(),
      urls: { location, app: location, publicEndpoint: endpoint, publicContentEndpoint: endpoint },
    };
  }

  /** The published `IntegrationEnvironment` of a delivery. */
  async environment(
    integration: Integration,
    installation: IntegrationInstallation | null,
    scope: { spaceId?: string; siteId?: string } = {},
  ): Promise<Record<string, unknown>> {
    const prisma = this.services.prisma;
    const token = installation ? (await this.installationToken(integration, installation)).token : undefined;
    const environment: Record<string, unknown> = {
      apiEndpoint: this.services.urls.publicUrl,
      // The integration acts through its installation here: there is no separate integration principal.
      apiTokens: { integration: token ?? "", ...(token ? { installation: token } : {}) },
      authToken: token ?? "",
      integration: this.integrationJson(integration),
      secrets: integration.secrets,
      signingSecrets: { integration: integration.signingSecret },
    };
    if (installation) {
      // One round trip: the installation's space count and the space or site installation together.
      const [spaces, spaceRow, siteRow] = await Promise.all([
        prisma.integrationSpaceInstallation.count({ where: { installationId: installation.id } }),
        scope.spaceId
          ? prisma.integrationSpaceInstallation.findUnique({
              where: { installationId_spaceId: { installationId: installation.id, spaceId: scope.spaceId } },
            })
          : null,
        scope.siteId
          ? prisma.integrationSiteInstallation.findUnique({
              where: { installationId_siteId: { installationId: installation.id, siteId: scope.siteId } },
            })
          : null,
      ]);
      environment.installation = this.installationJson(integration, installation, spaces);
      // The published IntegrationSpaceInstallation / IntegrationSiteInstallation of the event's scope.
      const contentInstallation = (
        row: { status: string; configuration: unknown; externalIds: unknown },
        path: `spaces/${string}` | `sites/${string}`,
      ) => {
        const endpoint = this.services.urls.contentInstallationEndpoint(integration.name, installation.id, path);
        return {
          status: row.status,
          configuration: row.configuration,
          externalIds: row.externalIds,
          integration: integration.name,
          installation: installation.id,
          urls: {
            location: this.services.urls.api(`/integrations/${integration.name}/installations/${installation.id}/${path}`),
            publicEndpoint: endpoint,
            publicContentEndpoint: endpoint,
          },
        };
      };
      if (spaceRow)
        environment.spaceInstallation = { space: spaceRow.spaceId, ...contentInstallation(spaceRow, `spaces/${spaceRow.spaceId}`) };
      if (siteRow) environment.siteInstallation = { site: siteRow.siteId, ...contentInstallation(siteRow, `sites/${siteRow.siteId}`) };
    }
    return environment;
  }

  /** Whether deliveries for `installation` go to the integration's development tunnel. */
  tunnelFor(integration: Integration, installation: IntegrationInstallation | null): string | null {
    if (!integration.devTunnelUrl) return null;
    if (integration.devAll || !installation || installation.organizationId === integration.organizationId) return integration.devTunnelUrl;
    return null;
  }

  /**
   * Sends one event to the script (or the tunnel) and answers what it said; DeliveryError when it
   * failed. `fetchEvent`: the request body of a `fetch` event (its `fetch-body` part; none for GET and
   * HEAD) and how its answer is read.
   */
  async deliver(
    integration: Integration,
    installation: IntegrationInstallation | null,
    event: Record<string, unknown>,
    fetchEvent?: { body: Blob | null; answer: AnswerOptions },
  ): Promise<SandboxAnswer> {
    const environment = await this.environment(integration, installation, {
      spaceId: typeof event.spaceId === "string" ? event.spaceId : (event.context as { spaceId?: string } | undefined)?.spaceId,
      siteId: typeof event.siteId === "string" ? event.siteId : (event.context as { siteId?: string } | undefined)?.siteId,
    });
    const form = new FormData();
    form.set("event", JSON.stringify(event));
    form.set("environment", JSON.stringify(environment));
    if (!fetchEvent) form.set("fetch-body", "");
    else if (fetchEvent.body) form.set("fetch-body", fetchEvent.body);
    const request = new Request("http://integration/v1", { method: "POST", body: form });
    const body = await request.arrayBuffer();
    const contentType = request.headers.get("content-type")!;
    const tunnel = this.tunnelFor(integration, installation);
    if (tunnel) return this.deliverToTunnel(integration, tunnel, body, contentType, fetchEvent?.answer);
    if (!integration.scriptHash) throw new DeliveryError("the integration has no script");
    const scriptHash = integration.scriptHash;
    return this.sandboxes.dispatch(
      {
        key: `${integration.id}@${integration.version}:${scriptHash}`,
        load: async () => {
          const blob = await this.services.prisma.blob.findUnique({ where: { hash: scriptHash } });
          if (!blob) throw new DeliveryError("the integration's script is missing");
          return Buffer.from(blob.data).toString("utf8");
        },
      },
      body,
      contentType,
      fetchEvent?.answer,
    );
  }

  private async deliverToTunnel(
    integration: Integration,
    tunnel: string,
    body: ArrayBuffer,
    contentType: string,
    options: AnswerOptions = {},
  ): Promise<SandboxAnswer> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(new URL("v1", tunnel.endsWith("/") ? tunnel : `${tunnel}/`), {
        dispatcher: this.services.tunnelDispatcher,
        method: "POST",
        body,
        headers: {
          "content-type": contentType,
          [TIMESTAMP_HEADER]: timestamp,
          [SIGNATURE_HEADER]: signDelivery(integration.signingSecret, timestamp, new Uint8Array(body)),
        },
        redirect: "manual",
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      const reason =
        error instanceof Error && error.name === "TimeoutError"
          ? `no answer within ${this.settings.timeoutMs} ms`
          : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
      throw new DeliveryError(`development tunnel ${tunnel}: ${reason}`);
    }
    const headers = Object.fromEntries(response.headers);
    if (!options.binary) return { status: response.status, headers, body: await response.text().catch(() => ""), logs: [] };
    const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (options.maxBodyBytes && bytes.byteLength > options.maxBodyBytes)
      throw new DeliveryError(`development tunnel ${tunnel}: its response body is larger than the limit of ${options.maxBodyBytes} bytes`);
    return { status: response.status, headers, body: "", bytes, logs: [] };
  }

  /**
   * A `ui_render` answered now (not queued): the script's ContentKit element, checked against the
   * published schema; a failure or anything else is a 502 naming the problem.
   */
  async render(
    integration: Integration,
    installation: IntegrationInstallation,
    event: Record<string, unknown>,
  ): Promise<{ output: unknown; cacheControl: string | null }> {
    let answer: SandboxAnswer;
    try {
      answer = await this.deliver(integration, installation, event);
    } catch (error) {
      throw badGateway(`The integration ${quote(integration.name)} could not render: ${(error as Error).message}`);
    }
    if (answer.status < 200 || answer.status >= 300)
      throw badGateway(`The integration ${quote(integration.name)} answered ${answer.status} to ui_render: ${answer.body.slice(0, 500)}`);
    let output: unknown;
    try {
      output = JSON.parse(answer.body);
    } catch {
      throw badGateway(
        `The integration ${quote(integration.name)} answered ui_render with something that is not JSON: ${quote(answer.body.slice(0, 200))}`,
      );
    }
    const problem = contentKitProblem(output);
    if (problem)
      throw badGateway(`The integration ${quote(integration.name)} answered ui_render with an invalid ContentKit element: ${problem}`);
    return { output, cacheControl: answer.headers["cache-control"] ?? null };
  }

  /** The job: one delivery attempt of an event, its outcome and trace written to the row. */
  private async runEvent(eventId: string, attempt: number): Promise<void> {
    const prisma = this.services.prisma;
    const event = await prisma.integrationEvent.findUnique({ where: { id: eventId }, include: { integration: true } });
    if (!event || event.status === "success") return;
    const installation = event.installationId
      ? await prisma.integrationInstallation.findUnique({ where: { id: event.installationId } })
      : null;
    const stamp = () => this.services.clock.now().toISOString();
    if (installation?.status === "paused") {
      // Not delivered, not retried: a paused installation gets no events (nor fetch requests, endpoints.ts).
      await prisma.integrationEvent.update({
        where: { id: event.id },
        data: {
          status: "failed",
          attempts: attempt,
          logs: [
            ...((event.logs as unknown as SandboxLog[]) ?? []),
            { level: "error", message: `not delivered: the installation ${installation.id} is paused`, timestamp: stamp() },
          ].slice(-TRACE_MAX_LINES) as unknown as Prisma.InputJsonValue,
          updatedAt: this.services.clock.now(),
        },
      });
      return;
    }
    let logs: SandboxLog[] = [];
    let failure: string | null = null;
    try {
      const answer = await this.deliver(event.integration, installation, event.payload as Record<string, unknown>);
      logs = answer.logs;
      if (answer.status === 406)
        logs.push({ level: "info", message: `not handled by the integration (406): ${answer.body.slice(0, 500)}`, timestamp: stamp() });
      else if (answer.status < 200 || answer.status >= 300) failure = `answered ${answer.status}: ${answer.body.slice(0, 500)}`;
    } catch (error) {
      if (error instanceof DeliveryError) {
        logs = error.logs;
        failure = error.message;
      } else failure = error instanceof Error ? error.message : String(error);
    }
    const last = attempt >= this.settings.eventAttempts;
    if (failure)
      logs.push({
        level: "error",
        message: `delivery ${attempt} of ${this.settings.eventAttempts} failed: ${failure}${last ? "" : " (retried)"}`,
        timestamp: stamp(),
      });
    const previous = (event.logs as unknown as SandboxLog[]) ?? [];
    await prisma.integrationEvent.update({
      where: { id: event.id },
      data: {
        status: failure ? "failed" : "success",
        attempts: attempt,
        logs: [...previous, ...logs].slice(-TRACE_MAX_LINES) as unknown as Prisma.InputJsonValue,
        updatedAt: this.services.clock.now(),
      },
    });
    if (failure && !last) throw new Error(failure);
  }
}
