// Ask with a model (issue 33): an OpenAI-compatible endpoint configured by the operator gets the
// retrieved passages and its streamed text is the answer, citing the same pages. The endpoint here
// is a real HTTP server on 127.0.0.1 started by the test: it streams its tokens, hangs, fails or
// redirects on cue. Its failures and its deadline give the extractive answer, never a hang or a 500.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateComponent } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

interface ModelCall {
  path: string;
  authorization?: string;
  body: { model: string; stream: boolean; messages: { role: string; content: string }[] };
}

let model: Server;
const calls: ModelCall[] = [];
let redirectedTo = 0;
let server: TestServer;
let A: { organizationId: string; token: string };
let site: { id: string };
const TIMEOUT_MS = 6000;

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

beforeAll(async () => {
  model = createServer(async (request, response) => {
    if (request.url === "/elsewhere") {
      redirectedTo++;
      response.end("{}");
      return;
    }
    const body = JSON.parse(await bodyOf(request)) as ModelCall["body"];
    calls.push({ path: request.url!, authorization: request.headers.authorization, body });
    const prompt = body.messages.at(-1)!.content;
    if (prompt.includes("hang")) return; // never answers
    if (prompt.includes("broken")) {
      response.writeHead(500).end("{}");
      return;
    }
    if (prompt.includes("verbose")) {
      // 100 events of 100 characters: more than an answer keeps.
      response.writeHead(200, { "Content-Type": "text/event-stream" });
      for (let index = 0; index < 100; index++)
        response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "x".repeat(100) } }] })}\n\n`);
      response.end("data: [DONE]\n\n");
      return;
    }
    if (prompt.includes("moved")) {
      response.writeHead(302, { Location: "/elsewhere" }).end();
      return;
    }
    response.writeHead(200, { "Content-Type": "text/event-stream" });
    for (const token of ["Sign each ", "delivery ", "with the secret [1]."]) {
      response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: token } }] })}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
  const port = (model.address() as AddressInfo).port;
  server = await startTestServer({
    askModel: { url: `http://127.0.0.1:${port}/v1`, name: "fake-model", key: "test-key", timeoutMs: TIMEOUT_MS, concurrency: 4 },
  });
  A = await server.bootstrap("Model askers");
  const api = server.client(A.token);
  const { data: space } = await api.orgs.createSpace(A.organizationId, { title: "Handbook" });
  const created = await server.graphql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: {
      space: space.id,
      title: "Webhooks",
      markdown: "Receive callbacks.\n\n## Signature\n\nVerify the signature of each delivery with the shared secret.",
    },
  });
  expect(created.errors).toBeUndefined();
  const { data } = await api.orgs.createSite(A.organizationId, { title: "Model docs", spaces: [space.id] });
  await api.orgs.publishSite(A.organizationId, data.id);
  site = data;
});

afterAll(async () => {
  await server?.close();
  model?.closeAllConnections();
  await new Promise((resolve) => model?.close(resolve));
});

async function ask(question: string) {
  const events = [];
  for await (const event of server
    .client(A.token)
    .orgs.streamAskInSite(A.organizationId, site.id, { question, scope: { mode: "all" } }, { format: "markdown" })) {
    expect(validateComponent("SearchAIAnswerStream", event)).toEqual([]);
    events.push(event.answer);
  }
  return events;
}

const markdownOf = (answer: { answer?: unknown }) => (answer.answer as { markdown?: string }).markdown;

describe("Ask with a model", () => {
  it("sends the retrieved passages to the model and streams its text, citing the same pages", async () => {
    const events = await ask("How do I verify a webhook signature?");
    // The sources first, before any text; then the text as it is written.
    expect(events[0].answer).toEqual({});
    expect(events[0].sources).toEqual([expect.objectContaining({ type: "page", sections: ["signature"] })]);
    // Each text event is the answer so far (tokens read together make one event).
    const texts = events.map(markdownOf).filter(Boolean) as string[];
    expect(texts.at(-1)).toBe("Sign each delivery with the secret [1].");
    expect(texts.length).toBeGreaterThan(1);
    for (const [index, text] of texts.entries()) if (index) expect(text.startsWith(texts[index - 1])).toBe(true);
    expect(events.at(-1)!.sources).toEqual(events[0].sources);
    const call = calls.at(-1)!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.authorization).toBe("Bearer test-key");
    expect(call.body.model).toBe("fake-model");
    expect(call.body.stream).toBe(true);
    expect(call.body.messages.at(-1)!.content).toContain(
      `[1] Webhooks › Signature (${server.url}/sites/${site.id}/webhooks#signature)\nVerify the signature of each delivery with the shared secret.`,
    );
    expect(call.body.messages.at(-1)!.content).toContain("Question: How do I verify a webhook signature?");
  });

  it("cuts a hung model at its deadline, answering extractively, while another question is answered", async () => {
    const started = performance.now();
    const hung = ask("webhook signature hang");
    const other = await ask("How do I verify a webhook signature?");
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(markdownOf(other.at(-1)!)).toBe("Sign each delivery with the secret [1].");
    const events = await hung;
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TIMEOUT_MS + 3000);
    expect(markdownOf(events.at(-1)!)).toContain("1. [Webhooks › Signature]");
    expect(markdownOf(events.at(-1)!)).toContain("> Verify the signature of each delivery with the shared secret.");
  });

  it("answers extractively when the model fails or redirects (a redirect is not followed)", async () => {
    for (const question of ["webhook signature broken", "webhook signature moved"]) {
      const events = await ask(question);
      expect(markdownOf(events.at(-1)!)).toContain("The passages of Model docs that best answer it:");
    }
    expect(redirectedTo).toBe(0);
  });

  it("keeps at most 4000 characters of a model's answer", async () => {
    const events = await ask("webhook signature verbose");
    expect(markdownOf(events.at(-1)!)).toBe(`${"x".repeat(4000)}…`);
  });

  it("does not call the model when nothing is retrieved", async () => {
    const before = calls.length;
    const events = await ask("zzzqqq");
    expect(events.map(markdownOf)).toEqual(["No page of Model docs answers this question.\n"]);
    expect(calls.length).toBe(before);
  });
});
