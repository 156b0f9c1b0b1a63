// Development tunnels under the production default (IMPORT_ALLOW_PRIVATE_HOSTS=false): a
// tunnelUrl on this machine is reached through the same public-only agent as imports, so the
// delivery fails with the reason in the event's trace and the local server gets no connection.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let tunnel: Server;
let tunnelUrl: string;
let connections = 0;

beforeAll(async () => {
  server = await startTestServer({ importAllowPrivateHosts: false, integrations: { eventAttempts: 1 } });
  tunnel = createServer((_req, res) => res.end("OK"));
  tunnel.on("connection", () => connections++);
  await new Promise<void>((resolve) => tunnel.listen(0, "127.0.0.1", resolve));
  tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/tunnel`;
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => tunnel?.close(resolve));
});

it("refuses a development tunnel on a private address: the event fails naming it, nothing reaches the tunnel", async () => {
  const { organizationId, token } = await server.bootstrap();
  const name = "tunnel-safety";
  const published = await server.graphql(
    token,
    `mutation($name: String!, $input: PublishIntegrationInput!) { publishIntegration(name: $name, input: $input) { integration { id } } }`,
    {
      name,
      input: { organization: organizationId, title: "Tunnel", script: `export default { async fetch() { return new Response("OK"); } };` },
    },
  );
  expect(published.errors).toBeUndefined();
  expect((await server.client(token).integrations.setIntegrationDevelopmentMode(name, { tunnelUrl })).status).toBe(204);
  await server.client(token).integrations.installIntegration(name, { organization: organizationId });

  const integration = published.data.publishIntegration.integration.id as string;
  const deadline = Date.now() + 20_000;
  let events = await server.database.prisma.integrationEvent.findMany({ where: { integrationId: integration } });
  while ((events.length === 0 || events.some((event) => event.status === "pending")) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    events = await server.database.prisma.integrationEvent.findMany({ where: { integrationId: integration } });
  }
  expect(events).toHaveLength(1);
  expect(events[0].status).toBe("failed");
  const trace = (events[0].logs as { message: string }[]).map((log) => log.message).join("\n");
  expect(trace).toContain(`development tunnel ${tunnelUrl}`);
  expect(trace).toContain("127.0.0.1 is not a public address");
  expect(connections).toBe(0);
});
