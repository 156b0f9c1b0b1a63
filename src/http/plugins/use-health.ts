// Operating endpoints, outside GraphQL and without a token:
//   GET /health  the process answers (liveness): always 200 while it runs;
//   GET /ready   the database answers within 2 s and has every migration of this build (readiness):
//                200, else 503 with the reason; a draining server also answers 503 here;
//   GET /metrics Prometheus text: HTTP requests per route, GraphQL operations, the database pool,
//                the process.
import type { Plugin } from "graphql-yoga";
import { collectDefaultMetrics, Gauge, type Registry } from "prom-client";
import { pendingMigrations } from "../../db/migrate.ts";
import type { Database } from "../../db/client.ts";

const READY_TIMEOUT_MS = 2000;

const json = (status: number, body: unknown) => Response.json(body, { status, headers: { "cache-control": "no-store" } });

export function useHealth(options: { database: Database; registry: Registry; isDraining: () => boolean }): Plugin {
  const { database, registry } = options;
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "db_pool_connections",
    help: "PostgreSQL pool connections by state (absent on the embedded database)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const stats = database.poolStats();
      if (!stats) return;
      this.set({ state: "total" }, stats.total);
      this.set({ state: "idle" }, stats.idle);
      this.set({ state: "waiting" }, stats.waiting);
    },
  });

  async function readiness(): Promise<Response> {
    if (options.isDraining()) return json(503, { status: "unavailable", reason: "shutting down" });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`database did not answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      const pending = await Promise.race([pendingMigrations((sql) => database.prisma.$queryRawUnsafe(sql)), timeout]);
      if (pending.length > 0) return json(503, { status: "unavailable", reason: `migrations not applied: ${pending.join(", ")}` });
      return json(200, { status: "ready", database: database.kind });
    } catch (error) {
      return json(503, { status: "unavailable", reason: `database: ${(error as Error).message}` });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      if (url.pathname === "/health") endResponse(json(200, { status: "ok" }));
      else if (url.pathname === "/ready") return readiness().then(endResponse);
      else if (url.pathname === "/metrics") {
        return registry
          .metrics()
          .then((text) =>
            endResponse(new Response(text, { headers: { "content-type": registry.contentType, "cache-control": "no-store" } })),
          );
      }
    },
  };
}
