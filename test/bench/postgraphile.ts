// Test-only: PostGraphile 5 (amber preset) over the bench's own PostgreSQL database, in a child
// process of the bench (test/bench/peer.ts), the peer a frontend team would pick instead of this
// service (issue 35). It needs Node >= 22: the bench runs it on BENCH_NODE (Node 24).
// PostGraphile does no authorization here: it answers whatever the database role may read.
// Protocol as service.ts: "ready" with its URL, "usage" (CPU time and RSS), "exit".
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";

async function main() {
  const connectionString = process.env.BENCH_DATABASE_URL;
  if (!connectionString) throw new Error("BENCH_DATABASE_URL is required");
  const pgl = postgraphile({
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ connectionString, schemas: ["public"] })],
    grafserv: { graphqlPath: "/graphql", graphiql: false },
    grafast: { explain: false },
  });
  const serv = pgl.createServ(grafserv);
  const server = createServer();
  await serv.addTo(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.on("message", async (message: { type: string }) => {
    if (message.type === "usage") {
      globalThis.gc?.();
      process.send!({ type: "usage", rss: process.memoryUsage().rss, cpu: process.cpuUsage() });
    } else if (message.type === "exit") {
      server.closeAllConnections();
      server.close();
      await pgl.release();
      process.exit(0);
    }
  });
  process.send!({ type: "ready", url });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
