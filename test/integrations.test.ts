// Integrations end to end: the official CLI publishes an integration written with
// @gitbook/runtime (test/fixtures/integrations/hello) and tails its events; installing it in an
// organization and on a space sends events that run the script in its workerd sandbox (log lines
// in the trace, the API called back with the installation's token); editing the space's content
// sends space_content_updated; the render route answers the script's button; installation
// tokens are refused where the installation is not; development mode POSTs signed events to a
// tunnel served here on 127.0.0.1. Responses of the official client are validated against the
// published OpenAPI schemas.
import { execFile, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import LZString from "lz-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";

const FIXTURE = resolve("test/fixtures/integrations/hello");
let server: TestServer;
let org: string;
let token: string;
const NAME = `hello-${Date.now().toString(36)}`;

const run = promisify(execFile);
let home: string;
let workdir: string;

function cliEnv() {
  return { ...process.env, GITBOOK_ENDPOINT: server.url, GITBOOK_TOKEN: token, HOME: home, TMPDIR: workdir };
}

/** The fixture's manifest for this test's organization and name, in a directory of its own. */
function writeManifest(dir: string, name: string) {
  const manifest = `name: ${name}
title: Hello integration
organization: ${org}
visibility: private
description: Logs its events, calls the API back with its installation token, renders a button.
script: ${join(FIXTURE, "src/index.tsx")}
scopes:
  - space:content:read
blocks:
  - id: hello-button
    title: Hello button
configurations:
  account:
    properties:
      greeting:
        type: string
        title: Greeting
        default: Hello
secrets:
  API_KEY: not-a-real-key
`;
  writeFileSync(join(dir, "gitbook-manifest.yaml"), manifest);
}

/** Waits until every event of `name` is delivered (success or failed after its last attempt). */
async function settled(name: string, { count, timeoutMs = 20_000 }: { count: number; timeoutMs?: number }) {
  const integration = await server.database.prisma.integration.findUniqueOrThrow({ where: { name } });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await server.database.prisma.integrationEvent.findMany({
      where: { integrationId: integration.id },
      orderBy: { seq: "asc" },
    });
    if (events.length >= count && events.every((event) => event.status !== "pending")) return events;
    if (Date.now() > deadline)
      throw new Error(`events of ${name} not delivered: ${JSON.stringify(events.map((e) => [e.payload, e.status]))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const logsOf = (event: { logs: unknown }) =>
  (event.logs as { message: string; level: string }[]).map((log) => `[${log.level}] ${log.message}`);

beforeAll(async () => {
  server = await startTestServer({ integrations: { eventAttempts: 2, cpuMs: 400, memoryMb: 96, timeoutMs: 8000 } });
  ({ organizationId: org, token } = await server.bootstrap());
  home = mkdtempSync(join(tmpdir(), "gitbook-home-"));
  workdir = mkdtempSync(join(tmpdir(), "gitbook-cli-"));
  writeManifest(workdir, NAME);
  // `gitbook publish` bundles src/index.tsx with esbuild and POSTs it: the integration exists from here.
  const published = await run(process.execPath, [resolve("node_modules/@gitbook/cli/cli.js"), "publish"], {
    cwd: workdir,
    env: cliEnv(),
    timeout: 60_000,
  });
  expect(published.stdout + published.stderr).toContain(`Integration "${NAME}" published`);
});

afterAll(async () => {
  await server?.close();
});

describe("publishing with the official CLI", () => {
  it("stores the manifest, the script and the secrets (never returned), version 1", async () => {
    const { data } = await server.client(token).integrations.getIntegrationByName(NAME);
    expect(data).toMatchObject({
      name: NAME,
      version: 1,
      title: "Hello integration",
      visibility: "private",
      target: "all",
      scopes: ["space:content:read"],
    });
    expect(data.blocks?.[0]).toMatchObject({ id: "hello-button", title: "Hello button" });
    expect(JSON.stringify(data)).not.toContain("not-a-real-key");
    const row = await server.database.prisma.integration.findUniqueOrThrow({ where: { name: NAME } });
    expect(row.secrets).toEqual({ API_KEY: "not-a-real-key" });
    const script = await server.database.prisma.blob.findUniqueOrThrow({ where: { hash: row.scriptHash! } });
    expect(Buffer.from(script.data).toString()).toContain("hello-integration: installation_setup");
  });

  it("publishing again makes a new version", async () => {
    await run(process.execPath, [resolve("node_modules/@gitbook/cli/cli.js"), "publish"], { cwd: workdir, env: cliEnv(), timeout: 60_000 });
    expect((await server.client(token).integrations.getIntegrationByName(NAME)).data.version).toBe(2);
  });

  it("a private integration is invisible to other organizations and cannot be installed there", async () => {
    const other = await server.bootstrap();
    expect((await server.rest(other.token, "GET", `/v1/integrations/${NAME}`)).status).toBe(404);
    expect(
      (await server.rest(other.token, "POST", `/v1/integrations/${NAME}/installations`, { organization: other.organizationId })).status,
    ).toBe(404);
    const listed = await server.client(other.token).integrations.listIntegrations();
    expect(listed.data.items.map((item) => item.name)).not.toContain(NAME);
  });
});

describe("installing, events and the sandbox", () => {
  let installationId: string;
  let spaceId: string;

  it("installing in the organization sends installation_setup, which the script logs", async () => {
    const { data, status } = await server.client(token).integrations.installIntegration(NAME, { organization: org });
    expect(status).toBe(201);
    expect(data).toMatchObject({ status: "active", configuration: { greeting: "Hello" }, target: { organization: org } });
    installationId = data.id;
    const [event] = await settled(NAME, { count: 1 });
    expect(event!.status).toBe("success");
    expect(logsOf(event!)).toContain(`[info] hello-integration: installation_setup ${installationId} (active)`);
    expect(logsOf(event!)).toContain("[info] secret API_KEY has 14 characters");

    const listed = await server.client(token).integrations.listIntegrationEvents(NAME);
    expect(listed.data.items[0]).toMatchObject({
      id: event!.id,
      status: "success",
      installationId,
      payload: { type: "installation_setup", installationId, status: "active" },
    });
    const one = await server.client(token).integrations.getIntegrationEvent(NAME, event!.id);
    expect(one.data.trace?.logs.map((log) => log.message)).toContain(`hello-integration: installation_setup ${installationId} (active)`);
  });

  it("installing on a space sends space_installation_setup; the script reads the space with its installation token", async () => {
    spaceId = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Docs with hello" })).body.id;
    const { status, data } = await server.client(token).integrations.installIntegrationOnSpace(NAME, installationId, { space: spaceId });
    expect(status).toBe(201);
    expect(data).toMatchObject({ integration: NAME, installation: installationId, space: spaceId, status: "active" });
    const events = await settled(NAME, { count: 2 });
    const setup = events.find((event) => (event.payload as { type: string }).type === "space_installation_setup")!;
    expect(setup.status).toBe("success");
    expect(logsOf(setup)).toContain(`[info] hello-integration: space_installation_setup, space title "Docs with hello"`);
    const spaces = await server.client(token).integrations.listIntegrationSpaceInstallations(NAME);
    expect(spaces.data.items.map((item) => item.space)).toEqual([spaceId]);
    const installed = await server.client(token).spaces.listSpaceIntegrations(spaceId);
    expect(installed.data.items.map((item) => item.name)).toEqual([NAME]);
  });

  it("editing the space's content sends space_content_updated", async () => {
    const edit = await server.graphql(token, `mutation($input: EditContentInput!) { editContent(input: $input) { revision { id } } }`, {
      input: { space: spaceId, edits: [{ createPage: { title: "New page", markdown: "Hello" } }] },
    });
    expect(edit.errors).toBeUndefined();
    const revisionId = edit.data.editContent.revision.id;
    const events = await settled(NAME, { count: 3 });
    const updated = events.find((event) => (event.payload as { type: string }).type === "space_content_updated")!;
    expect(updated.payload).toMatchObject({ spaceId, revisionId, installationId });
    expect(updated.status).toBe("success");
    expect(logsOf(updated)).toContain(
      `[info] hello-integration: space_content_updated ${spaceId} revision ${revisionId}, title "Docs with hello"`,
    );
  });

  it("render answers the script's button (POST, and GET with the lz-string compressed request)", async () => {
    const body = {
      componentId: "hello-button",
      props: { label: "docs" },
      context: { type: "document", spaceId, editable: true, theme: "light" },
    };
    const { data } = await server.client(token).integrations.renderIntegrationUiWithPost(NAME, body as never);
    expect(data).toMatchObject({
      type: "element",
      state: { clicks: 0 },
      element: { type: "block", children: [{ type: "button", label: "Hello docs", onPress: { action: "click" } }] },
    });
    const request = LZString.compressToEncodedURIComponent(JSON.stringify(body));
    const viaGet = await server.client(token).integrations.renderIntegrationUiWithGet(NAME, { request });
    expect(viaGet.status).toBe(200);
    expect(viaGet.data).toEqual(data);
    // A reader of the space may render; a member of another organization may not see it.
    const reader = await server.addMember(org, "read");
    expect((await server.rest(reader.token, "POST", `/v1/integrations/${NAME}/render`, body)).status).toBe(200);
    expect((await server.rest(token, "GET", `/v1/integrations/${NAME}/render?request=not-lz`)).status).toBe(400);
  });

  it("an installation token acts on the spaces of its installation only, with its scopes", async () => {
    const { data } = await server.client(token).integrations.createIntegrationInstallationToken(NAME, installationId);
    const installationToken = data.token;
    expect((await server.rest(installationToken, "GET", `/v1/spaces/${spaceId}`)).status).toBe(200);
    // space:content:read only: no edits.
    expect((await server.rest(installationToken, "PATCH", `/v1/spaces/${spaceId}`, { title: "Renamed" })).status).toBe(403);
    const elsewhere = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Not installed" })).body.id;
    expect((await server.rest(installationToken, "GET", `/v1/spaces/${elsewhere}`)).status).toBe(404);
    const viaGraphQL = await server.graphql(installationToken, `query($id: ID!) { space(id: $id) { title } }`, { id: elsewhere });
    expect(viaGraphQL.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(
      (await server.graphql(installationToken, `query($id: ID!) { space(id: $id) { title } }`, { id: spaceId })).data.space.title,
    ).toBe("Docs with hello");
    // Nor can it manage the integration or its installations.
    expect((await server.rest(installationToken, "GET", `/v1/integrations/${NAME}/events`)).status).toBe(403);
  });

  it("gitbook tail prints the events and their log lines", async () => {
    const tail = spawn(process.execPath, [resolve("node_modules/@gitbook/cli/cli.js"), "tail"], { cwd: workdir, env: cliEnv() });
    let output = "";
    tail.stdout.on("data", (chunk) => (output += chunk));
    tail.stderr.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 30_000;
    while (!output.includes("hello-integration: space_content_updated") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    tail.kill();
    expect(output).toContain("[success]");
    expect(output).toContain("hello-integration: space_content_updated");
  });

  it("tasks: the integration's admins and its installation tokens queue task events, delivered through the queue", async () => {
    const client = server.client(token);
    const queued = await client.integrations.queueIntegrationTask(NAME, { task: { type: "sync", page: 1 } });
    expect(queued.status).toBe(204);
    const byAdmin = (await settled(NAME, { count: 4 })).find((event) => (event.payload as { type: string }).type === "task")!;
    expect(byAdmin.payload).toEqual({ eventId: byAdmin.id, type: "task", task: { type: "sync", page: 1 } });
    // Queued by an admin, the task runs with the installation in the integration's own organization.
    expect(byAdmin.installationId).toBe(installationId);
    expect(byAdmin.status, logsOf(byAdmin).join("\n")).toBe("success");
    // The script logs the task it was handed (JSON: key order is the database's).
    const handed = logsOf(byAdmin).find((line) => line.startsWith("[info] hello-integration: task "));
    expect(JSON.parse(handed!.slice("[info] hello-integration: task ".length))).toEqual({ type: "sync", page: 1 });

    // The integration's installation token (what the script holds) queues its own tasks.
    const installationToken = (await client.integrations.createIntegrationInstallationToken(NAME, installationId)).data.token;
    expect((await server.client(installationToken).integrations.queueIntegrationTask(NAME, { task: { type: "from-script" } })).status).toBe(
      204,
    );
    const events = await settled(NAME, { count: 5 });
    const byToken = events.find((event) => JSON.stringify(event.payload).includes("from-script"))!;
    expect(byToken).toMatchObject({ status: "success", installationId });
    expect(logsOf(byToken)).toContain(`[info] hello-integration: task {"type":"from-script"}`);

    // Bad input: 400 naming the field, nothing queued.
    for (const [body, field] of [
      [{}, "task"],
      [{ task: "sync" }, "task"],
      [{ task: {}, schedule: 86_401 }, "schedule"],
      [{ task: {}, schedule: -1 }, "schedule"],
      [{ task: {}, schedule: "soon" }, "schedule"],
    ] as const) {
      const refused = await server.rest(token, "POST", `/v1/integrations/${NAME}/tasks`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.message).toContain(field);
    }
    expect(await server.database.prisma.integrationEvent.count({ where: { integration: { name: NAME } } })).toBe(5);
    // Members who are not admins, other organizations, other integrations' tokens: refused.
    const editor = await server.addMember(org, "edit");
    expect((await server.rest(editor.token, "POST", `/v1/integrations/${NAME}/tasks`, { task: {} })).status).toBe(403);
    const other = await server.bootstrap();
    expect((await server.rest(other.token, "POST", `/v1/integrations/${NAME}/tasks`, { task: {} })).status).toBe(404);
    expect((await server.rest(token, "POST", "/v1/integrations/no-such-integration/tasks", { task: {} })).status).toBe(404);
  });

  it("a scheduled task waits in the queue for its delay, then runs", async () => {
    const name = `${NAME}-later`;
    const script = `export default { async fetch(request) {
      const form = await request.formData();
      console.log("task " + JSON.stringify(JSON.parse(form.get("event")).task));
      return new Response("ok");
    } };`;
    const published = await server.rest(token, "POST", `/v1/integrations/${name}`, {
      organization: org,
      title: "Later",
      script,
      visibility: "private",
    });
    expect(published.status).toBe(200);
    const installed = (await server.client(token).integrations.installIntegration(name, { organization: org })).data.id;
    await settled(name, { count: 1 });
    expect((await server.client(token).integrations.queueIntegrationTask(name, { task: { n: 1 }, schedule: 120 })).status).toBe(204);
    const event = await server.database.prisma.integrationEvent.findFirstOrThrow({
      where: { integration: { name }, installationId: installed },
      orderBy: { seq: "desc" },
    });
    expect(event.payload).toMatchObject({ type: "task", task: { n: 1 } });
    const job = (await server.database.prisma.job.findMany({ where: { kind: "integration.event" } })).find(
      (row) => (row.payload as { eventId?: string }).eventId === event.id,
    )!;
    expect(job.runAt.getTime() - server.clock.now().getTime()).toBe(120_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await server.database.prisma.integrationEvent.findUniqueOrThrow({ where: { id: event.id } })).status).toBe("pending");
    // A token of another integration's installation cannot queue this one's tasks.
    const otherToken = (await server.client(token).integrations.createIntegrationInstallationToken(name, installed)).data.token;
    expect((await server.rest(otherToken, "POST", `/v1/integrations/${NAME}/tasks`, { task: {} })).status).toBe(403);
    server.clock.advance(121_000);
    server.app.jobs.wake();
    const [, ran] = await settled(name, { count: 2 });
    expect(ran).toMatchObject({ id: event.id, status: "success" });
    expect(logsOf(ran!)).toContain(`[info] task {"n":1}`);
  });

  it("configuration is checked against the manifest: a wrong type is 400 and changes nothing", async () => {
    const response = await server.rest(token, "PATCH", `/v1/integrations/${NAME}/installations/${installationId}`, {
      configuration: { greeting: 42 },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain("configuration.greeting must be of type string");
    const unknown = await server.rest(token, "PATCH", `/v1/integrations/${NAME}/installations/${installationId}`, {
      configuration: { other: "x" },
    });
    expect(unknown.status).toBe(400);
    expect((await server.client(token).integrations.getIntegrationInstallationById(NAME, installationId)).data.configuration).toEqual({
      greeting: "Hello",
    });
    const ok = await server
      .client(token)
      .integrations.updateIntegrationInstallation(NAME, installationId, { configuration: { greeting: "Bonjour" } });
    expect(ok.data.configuration).toEqual({ greeting: "Bonjour" });
  });
});

describe("development mode", () => {
  let tunnel: Server;
  let tunnelUrl: string;
  const received: { headers: IncomingMessage["headers"]; body: Buffer }[] = [];
  let answer = 200;

  beforeAll(async () => {
    tunnel = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(answer).end(answer === 200 ? "OK" : "tunnel broke");
      });
    });
    await new Promise<void>((r) => tunnel.listen(0, "127.0.0.1", r));
    tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/tunnel`;
  });

  afterAll(() => new Promise((r) => tunnel.close(r)));

  it("delivers events to the tunnel, signed with the integration's secret", async () => {
    const name = `${NAME}-dev`;
    const dir = mkdtempSync(join(tmpdir(), "gitbook-dev-"));
    writeManifest(dir, name);
    await run(process.execPath, [resolve("node_modules/@gitbook/cli/cli.js"), "publish"], { cwd: dir, env: cliEnv(), timeout: 60_000 });
    const set = await server.client(token).integrations.setIntegrationDevelopmentMode(name, { tunnelUrl });
    expect(set.status).toBe(204);
    const secret = (
      await server.graphql(
        token,
        `query($name: String!) { integration(name: $name) { signingSecret developmentMode { tunnelUrl all } } }`,
        { name },
      )
    ).data.integration;
    expect(secret.developmentMode).toEqual({ tunnelUrl, all: false });
    await server.client(token).integrations.installIntegration(name, { organization: org });
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("success");
    const delivery = received.at(-1)!;
    const timestamp = String(delivery.headers["x-gitbook-timestamp"]);
    const expected = createHmac("sha256", secret.signingSecret).update(`${timestamp}.`).update(delivery.body).digest("hex");
    expect(delivery.headers["x-gitbook-signature"]).toBe(expected);
    expect(delivery.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(new Uint8Array(delivery.body).buffer as ArrayBuffer, {
      headers: { "content-type": delivery.headers["content-type"]! },
    }).formData();
    expect(JSON.parse(String(form.get("event")))).toMatchObject({ type: "installation_setup", eventId: event!.id });
    expect(JSON.parse(String(form.get("environment")))).toMatchObject({
      apiEndpoint: server.url,
      integration: { name },
      signingSecrets: { integration: secret.signingSecret },
    });

    // A tunnel answering 500 fails the delivery, retried once (eventAttempts 2), with the reason in the trace.
    answer = 500;
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Dev" })).body.id;
    const installation = (await server.client(token).integrations.listIntegrationInstallations(name)).data.items[0]!.id;
    await server.client(token).integrations.installIntegrationOnSpace(name, installation, { space });
    let events = await settled(name, { count: 2 });
    expect(events[1]!.status).toBe("failed");
    expect(logsOf(events[1]!).join("\n")).toContain("delivery 1 of 2 failed: answered 500: tunnel broke (retried)");
    // The failed attempt's job is released (its retry scheduled) after the event row is written.
    while ((await server.database.prisma.job.count({ where: { lockedBy: { not: null } } })) > 0)
      await new Promise((r) => setTimeout(r, 20));
    server.clock.advance(60_000);
    await server.app.jobs.runDue();
    events = await settled(name, { count: 2 });
    expect(logsOf(events[1]!).join("\n")).toContain("delivery 2 of 2 failed: answered 500: tunnel broke");

    // A tunnel that is down: the reason is in the trace.
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, "127.0.0.1", r));
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}/`;
    await new Promise((r) => down.close(r));
    await server.client(token).integrations.setIntegrationDevelopmentMode(name, { tunnelUrl: downUrl });
    await server.client(token).integrations.updateIntegrationInstallation(name, installation, { configuration: { greeting: "Hi" } });
    events = await settled(name, { count: 3 });
    expect(logsOf(events[2]!).join("\n")).toMatch(/delivery 1 of 2 failed: development tunnel .*ECONNREFUSED/);

    expect((await server.client(token).integrations.disableIntegrationDevelopmentMode(name)).status).toBe(205);
  });
});

describe("scripts that misbehave", () => {
  /** Publishes a raw ES module (no runtime library) and installs it; returns the name. */
  async function publishRaw(suffix: string, script: string) {
    const name = `${NAME}-${suffix}`;
    const published = await server.rest(token, "POST", `/v1/integrations/${name}`, {
      organization: org,
      title: `Raw ${suffix}`,
      script,
      visibility: "private",
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    await server.client(token).integrations.installIntegration(name, { organization: org });
    return name;
  }

  async function canaryWhile(work: Promise<unknown>) {
    const started = performance.now();
    const response = await server.rest(token, "GET", `/v1/orgs/${org}`);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeLessThan(1000);
    await work;
  }

  it("a script that throws fails its event with the error in the trace", async () => {
    const name = await publishRaw(
      "throws",
      `export default { async fetch() { console.error("about to fail"); throw new Error("boom"); } };`,
    );
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("failed");
    const trace = logsOf(event!).join("\n");
    expect(trace).toContain("[error] about to fail");
    expect(trace).toContain("the script failed: Error: boom");
  });

  it("a paused installation gets no events (failed, not retried, the reason in the trace) and stays paused when configured", async () => {
    const name = await publishRaw("paused", `export default { async fetch() { console.log("delivered"); return new Response("OK"); } };`);
    const [setup] = await settled(name, { count: 1 });
    expect(setup!.status).toBe("success");
    const installation = setup!.installationId!;
    await server.database.prisma.integrationInstallation.update({ where: { id: installation }, data: { status: "paused" } });
    const patched = await server.rest(token, "PATCH", `/v1/integrations/${name}/installations/${installation}`, { configuration: {} });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.status).toBe("paused");
    const events = await settled(name, { count: 2 });
    expect(events[1]!.status).toBe("failed");
    expect(events[1]!.attempts).toBe(1);
    expect(logsOf(events[1]!)).toEqual([`[error] not delivered: the installation ${installation} is paused`]);
  });

  it("a script that throws while it loads fails its event with the error in the trace", async () => {
    const name = await publishRaw("loadfail", `throw new Error("broken at load"); export default {};`);
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("failed");
    expect(logsOf(event!).join("\n")).toMatch(/the script failed to start: Uncaught Error: broken at load/);
  });

  it("an infinite loop is stopped by the CPU limit, while other requests are answered", async () => {
    const name = await publishRaw("loop", `export default { async fetch() { for (;;) {} } };`);
    await canaryWhile(settled(name, { count: 1 }));
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("failed");
    expect(logsOf(event!).join("\n")).toMatch(/CPU time limit exceeded: \d+ ms \(limit 400 ms\)/);
  });

  it("unbounded allocation is stopped by the memory limit, while other requests are answered", async () => {
    const name = await publishRaw(
      "alloc",
      `export default { async fetch() { const kept = []; for (;;) kept.push(new Array(1e5).fill(Math.random())); } };`,
    );
    await canaryWhile(settled(name, { count: 1 }));
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("failed");
    expect(logsOf(event!).join("\n")).toMatch(/memory limit exceeded|CPU time limit exceeded/);
  });

  it("a garbage answer fails the event; a garbage render is a 502 naming the problem", async () => {
    const name = await publishRaw(
      "garbage",
      `export default { async fetch(request) {
        const form = await request.formData();
        const event = JSON.parse(form.get("event"));
        if (event.type === "ui_render") return new Response(JSON.stringify({ type: "element", element: { type: "nonsense" } }));
        return 42;
      } };`,
    );
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("failed");
    expect(logsOf(event!).join("\n")).toContain("the script answered 42 instead of a Response");
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Garbage" })).body.id;
    // Rendered where it is installed: on the space (test/integration-endpoints.test.ts has the rule).
    const installation = (await server.client(token).integrations.listIntegrationInstallations(name)).data.items[0]!.id;
    await server.client(token).integrations.installIntegrationOnSpace(name, installation, { space });
    const render = await server.rest(token, "POST", `/v1/integrations/${name}/render`, {
      componentId: "x",
      props: {},
      context: { type: "document", spaceId: space },
    });
    expect(render.status).toBe(502);
    expect(render.body.error.message).toContain("invalid ContentKit element");
  });

  it("a script may not fetch other hosts", async () => {
    const name = await publishRaw(
      "fetcher",
      `export default { async fetch() {
        const outside = await fetch("http://example.com/");
        console.log("outside answered " + outside.status + ": " + (await outside.text()));
        return new Response("OK");
      } };`,
    );
    const [event] = await settled(name, { count: 1 });
    expect(event!.status).toBe("success");
    expect(logsOf(event!).join("\n")).toContain("outside answered 403: fetch to example.com is not allowed");
  });
});

describe("bad input", () => {
  it("refuses bad names, fields and scripts with 400 and changes nothing", async () => {
    const count = await server.database.prisma.integration.count();
    for (const [name, body, message] of [
      ["bad name!", { organization: org, title: "X y", script: "export default {}" }, "integrationName"],
      [`${NAME}-x`, { organization: org, title: "X y" }, "script is required"],
      [`${NAME}-x`, { organization: org, title: "X y", script: "export default {}", visibility: "secret" }, "visibility must be one of"],
      [
        `${NAME}-x`,
        { organization: org, title: "X y", script: "export default {}", scopes: ["space:everything"] },
        "scopes must be one of",
      ],
      [
        `${NAME}-x`,
        { organization: org, title: "X y", script: "export default {}", categories: ["analytics", "games"] },
        "categories must be one of",
      ],
      [`${NAME}-x`, { organization: org, title: "X y", script: "export default {}", icon: "bm90IGEgcG5n" }, "icon must be a PNG"],
      [
        `${NAME}-x`,
        { organization: org, title: "X y", script: "export default {}", configurations: { account: { properties: {}, required: ["x"] } } },
        "not in its properties",
      ],
    ] as const) {
      const response = await server.rest(token, "POST", `/v1/integrations/${encodeURIComponent(name)}`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.message).toContain(message);
    }
    expect(await server.database.prisma.integration.count()).toBe(count);
    const graphql = await server.graphql(
      token,
      `mutation { publishIntegration(name: "x y", input: { title: "X y", script: "x", organization: "${org}" }) { created } }`,
    );
    expect(graphql.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
  });

  it("only admins of the organization publish in it", async () => {
    const editor = await server.addMember(org, "edit");
    const response = await server.rest(editor.token, "POST", `/v1/integrations/${NAME}-editor`, {
      organization: org,
      title: "By editor",
      script: "export default {}",
    });
    expect(response.status).toBe(403);
  });
});
