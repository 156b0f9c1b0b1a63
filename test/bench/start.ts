// Test-only: how the one-service bench scripts (profile.ts, memory.ts, tail.ts) start: the service
// child (service.ts) on a fresh database (a scratch PostgreSQL database with DATABASE_URL, else
// in-memory PGlite; the same seed as `npm run bench`), BENCH_NODE_FLAGS as its Node flags, and
// the reads `npm run bench` measures.
import { routes } from "../../rest-adapter/routes/index.ts";
import { createScratchDatabase } from "../support/database.ts";
import { startChild, type Child } from "./protocol.ts";

/** The GraphQL query of 100 spaces with their relations (the bench's "relations" row). */
export const RELATIONS_QUERY = `query($id: ID!) { organization(id: $id) { spaces(first: 100) { totalCount nodes { id title organization { id title } parent { id title } permissions { edit } } } } }`;

export interface BenchRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export async function startBenchService() {
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
  const execArgv = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  const child: Child = await startChild(
    new URL("./service.ts", import.meta.url).pathname,
    { BENCH_DATABASE_URL: scratch?.url ?? "" },
    execArgv,
  );
  const s = await child.next<any>();
  const headers = { authorization: `Bearer ${s.token}`, "content-type": "application/json" };
  /** The REST route's operation sent to /graphql as a frontend sends it: its text and variables. */
  const graphqlOf = (path: string, variables: Record<string, unknown>): BenchRequest => {
    const route = routes.find((r) => r.method === "GET" && r.path === path);
    if (!route) throw new Error(`no route GET ${path}`);
    return { method: "POST", path: "/graphql", headers, body: JSON.stringify({ query: route.document, variables }) };
  };
  const requests: Record<
    "space" | "list" | "page" | "relations" | "site" | "graphql-space" | "graphql-list" | "graphql-page",
    BenchRequest
  > = {
    space: { method: "GET", path: `/v1/spaces/${s.spaceId}`, headers },
    list: { method: "GET", path: `/v1/orgs/${s.organizationId}/spaces?limit=100`, headers },
    page: { method: "GET", path: `/v1/spaces/${s.contentSpaceId}/content/page/${s.pageId}`, headers },
    relations: {
      method: "POST",
      path: "/graphql",
      headers,
      body: JSON.stringify({ query: RELATIONS_QUERY, variables: { id: s.organizationId } }),
    },
    site: { method: "GET", path: s.sitePagePath, headers: {} },
    "graphql-space": graphqlOf("/v1/spaces/:spaceId", { id: s.spaceId }),
    "graphql-list": graphqlOf("/v1/orgs/:organizationId/spaces", { id: s.organizationId, first: 100 }),
    "graphql-page": graphqlOf("/v1/spaces/:spaceId/content/page/:pageId", {
      space: s.contentSpaceId,
      page: s.pageId,
      document: true,
      markdown: false,
    }),
  };
  return {
    child,
    kind: s.kind as string,
    url: s.url as string,
    requests,
    /** Ends the child (an error while it closes, a request still under way, does not end the script) and drops the scratch database. */
    async stop() {
      child.process.removeAllListeners("exit");
      const exited = new Promise((resolve) => child.process.once("exit", resolve));
      child.process.send({ type: "exit" });
      await exited;
      await scratch?.drop();
    },
  };
}
