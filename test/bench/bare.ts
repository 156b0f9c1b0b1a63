// Test-only: the bare baseline of `npm run bench`, a `node:http` + `pg` server with no framework.
// For each benchmarked request it checks the bearer token, runs SQL and sends the same bytes the
// service sent. One server per set of routes run.ts sends: "same" replays the very statements the
// service issued for that request on a warm read (recorded by service.ts), stage by stage as the
// service awaited them (statements of a stage together); "cold" replays those of an uncached read
// (the page read recorded in a fresh service process, before its caches of immutable content were
// filled: run.ts); "one" runs one hand-written statement that fetches the same data. Statements
// the service sent as named prepared statements are sent so here too, on sessions that plan them
// as the service's do; the one hand-written statement is sent so as well.
// The body is the service's, serialized again per request (JSON.stringify of the parsed body), so
// that the baseline pays for serialization but not for shaping; run.ts asserts byte equality.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import type { BareRoute, Statement } from "./protocol.ts";

/**
 * The pools the bare handler sends on: `plain` for what the service sent unnamed, `prepared` for
 * what it sent as a named prepared statement, whose sessions plan those once (a generic plan) as the
 * service's read pool does (src/db/client.ts).
 */
interface Pools {
  plain: pg.Pool;
  prepared: pg.Pool;
}

/** One name per distinct text (recordings of two service processes may reuse a name for another text). */
const names = new Map<string, string>();
const asSent = (statement: Statement): pg.QueryConfig =>
  statement.name === undefined
    ? (statement as pg.QueryConfig)
    : { ...statement, name: names.get(statement.text) ?? names.set(statement.text, `bare_${names.size + 1}`).get(statement.text)! };

function serve(pools: Pools, routes: BareRoute[]): Promise<string> {
  const table = new Map(
    routes.map((route) => [
      `${route.method} ${route.path}`,
      {
        ...route,
        parsed: JSON.parse(route.body),
        stages: route.stages.map((stage) =>
          stage.map((statement) => ({ config: asSent(statement), pool: statement.name === undefined ? pools.plain : pools.prepared })),
        ),
      },
    ]),
  );
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const route = table.get(`${req.method} ${req.url}`);
    if (!route) return void res.writeHead(404).end();
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (createHash("sha256").update(token).digest("hex") !== route.tokenHash) return void res.writeHead(401).end();
    for await (const chunk of req) void chunk; // a GraphQL POST body is read, as the service reads it
    try {
      for (const stage of route.stages) await Promise.all(stage.map(({ config, pool }) => pool.query(config)));
    } catch (error) {
      return void res.writeHead(500).end(String(error));
    }
    const body = JSON.stringify(route.parsed);
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

process.on("message", async (message: { type: string; databaseUrl: string; sets: Record<string, BareRoute[]> }) => {
  if (message.type === "exit") process.exit(0);
  if (message.type === "usage") return void process.send!({ type: "usage", rss: process.memoryUsage().rss, cpu: process.cpuUsage() });
  if (message.type !== "routes") return;
  // Ten connections each, as the service's pools have by default.
  const pools = {
    plain: new pg.Pool({ connectionString: message.databaseUrl, max: 10 }),
    prepared: new pg.Pool({ connectionString: message.databaseUrl, max: 10, options: "-c plan_cache_mode=force_generic_plan" }),
  };
  const urls: Record<string, string> = {};
  for (const [name, routes] of Object.entries(message.sets)) urls[name] = await serve(pools, routes);
  process.send!({ type: "ready", urls });
});
