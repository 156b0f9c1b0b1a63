// The MCP server of a published site, at `/~gitbook/mcp` as GitBook serves it (tools search, ask,
// list_pages, get_page): Streamable HTTP
// (the official SDK's web-standard transport), stateless, answering JSON. Its tools read the site
// exactly as the visitor who calls it may (share link, visitor token, claims: src/core/sites/serve.ts).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { QUERY_MAX } from "../core/search/index.ts";
import { askAnswerMarkdown, type ReaderPage, type SiteReader } from "../core/sites/serve.ts";
import { errorResponse } from "./errors.ts";

/** The path of the endpoint inside a site. */
export const SITE_MCP_PATH = "~gitbook/mcp";
/** A JSON-RPC message of these tools fits well within this. */
const MCP_BODY_MAX_BYTES = 64 * 1024;
/** The longest page URL or path a caller may name. */
const PAGE_REFERENCE_MAX = 2048;

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const line = (page: ReaderPage) => `- [${page.title}](${page.url}.md)${page.description ? `: ${page.description}` : ""}`;

function siteServer(reader: SiteReader): McpServer {
  const server = new McpServer({ name: reader.title, version: "1.0.0" });
  server.registerTool(
    "search",
    {
      description: `Searches the documentation of ${reader.title}; answers the best pages with their URL and a snippet (matches in **bold**).`,
      inputSchema: { query: z.string().min(1).max(QUERY_MAX).describe("What to look for") },
    },
    async ({ query }) => {
      const results = await reader.search(query);
      return text(
        results.length
          ? results.map((result) => `${line(result)}\n  ${result.snippet.replace(/\s+/g, " ")}`).join("\n")
          : `No page of ${reader.title} matches “${query}”.`,
      );
    },
  );
  server.registerTool(
    "ask",
    {
      description: `Answers a question about ${reader.title} with the passages of its pages that best answer it, quoted with their links (extracted, not generated).`,
      inputSchema: { question: z.string().min(1).max(QUERY_MAX).describe("The question") },
    },
    async ({ question }) => text(askAnswerMarkdown(reader.title, question, await reader.ask(question))),
  );
  server.registerTool(
    "list_pages",
    { description: `Lists every page of ${reader.title} with its URL (add .md for its Markdown) and description.` },
    async () => text(reader.pages().map(line).join("\n") || "This site has no pages."),
  );
  server.registerTool(
    "get_page",
    {
      description: `The Markdown of one page of ${reader.title}, by its URL (from search or list_pages) or its path in the site.`,
      inputSchema: { url: z.string().min(1).max(PAGE_REFERENCE_MAX).describe("The page's URL or path") },
    },
    async ({ url }) => {
      const page = await reader.page(url);
      if (!page) return { ...text(`No page at ${url} in ${reader.title} (list_pages lists them).`), isError: true };
      return text(`Source: ${page.url}\n\n${page.markdown}`);
    },
  );
  return server;
}

/** Answers one MCP request (a POST of JSON-RPC) with the tools of `reader`. */
export async function answerSiteMcp(request: Request, reader: SiteReader): Promise<Response> {
  // Stateless: no session, so no stream to open (GET) or end (DELETE).
  if (request.method !== "POST") return errorResponse(405, "This MCP endpoint takes POST (Streamable HTTP, stateless)", { Allow: "POST" });
  const server = siteServer(reader);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_MAX_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
