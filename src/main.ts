// `npm start`: validates the configuration, opens the database (embedded PGlite unless
// DATABASE_URL is set; migrations applied), binds the port, then seeds the demo organization on
// first start, and serves GraphQL, REST and the operating endpoints until SIGTERM/SIGINT, when it
// drains the requests under way (bounded by SHUTDOWN_TIMEOUT_MS) and releases the database.
//
// Output: JSON log lines on stdout (pino); the human start-up banner (URLs, the demo token) on
// stderr, so a log collector reading stdout gets JSON only and the token stays out of the logs.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { DEMO_EMAIL, issueDevelopmentToken, seedDemo } from "./core/bootstrap/index.ts";
import { collectUnreferencedBlobs } from "./core/blobs.ts";
import { sweepDeletedSpaces } from "./core/spaces/index.ts";
import { openDatabase } from "./db/client.ts";
import { outsideAnswer } from "./http/client-error.ts";
import { createLogger } from "./logger.ts";
import { loopbackUrl, removeOperatorFile, writeOperatorFile } from "./operator-file.ts";

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** A blob is collected only once it is a day old and nothing names it. */
const BLOB_GRACE_MS = 24 * 60 * 60 * 1000;

const say = (line = "") => process.stderr.write(`${line}\n`);

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    // A statement of an operation stopped at its deadline is cancelled by PostgreSQL itself.
    statementTimeoutMs: config.graphqlLimits.executionTimeoutMs,
    directReads: config.databaseDirectReads,
  });
  if (config.databaseDirectReads && !database.directReads.on) logger.warn({ reason: database.directReads.reason }, "direct reads are off");

  let starterToken: string | undefined;
  // The embedded database admits one process: the CLI then asks this server for tokens (operator-file.ts).
  const operatorSecret = database.kind === "pglite" ? randomBytes(32).toString("hex") : undefined;
  let draining = false;
  let inFlight = 0;
  const {
    yoga,
    services,
    close: stopJobs,
    createServer,
    rateLimitHeaders,
  } = createApp({
    database,
    config,
    logger,
    starterToken: () => starterToken,
    isDraining: () => draining,
    operatorSecret,
  });

  const server = createServer(config, (request: IncomingMessage, response: ServerResponse) => {
    if (draining) {
      // A request on a kept-alive connection after shutdown began: refused (the envelope of its
      // surface, with the security and X-RateLimit-* headers every answer carries) and closed.
      void outsideAnswer({ graphqlEndpoint: yoga.graphqlEndpoint, rateLimitHeaders }, request.socket.remoteAddress, {
        status: 503,
        message: "The server is shutting down; retry on another instance",
        path: request.url,
        code: "SHUTTING_DOWN",
      }).then(({ headers, body }) => {
        response.writeHead(503, { ...headers, "Retry-After": "5" });
        response.end(body);
      });
      return;
    }
    inFlight++;
    response.once("close", () => inFlight--);
    // Returned: the server answers (or closes) a request its promise leaves without an answer.
    return yoga(request, response);
  });

  try {
    await listen(server, config);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (operatorSecret) {
    const { port } = server.address() as AddressInfo;
    writeOperatorFile(config.dataDir, { url: loopbackUrl(config.host, port), secret: operatorSecret, pid: process.pid });
  }
  // Signals are handled from the moment the port is bound (before seeding and the first sweep),
  // so a SIGTERM right after the banner still drains and releases the database.
  let sweeper: NodeJS.Timeout | undefined;
  // The sweep under way, awaited before the database closes (else it fails, logged as an error).
  let sweeping: Promise<void> | undefined;
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting without waiting");
      process.exit(1);
    }
    stopping = true;
    draining = true;
    // Realtime streams end now (each completes), or they would hold the drain until its deadline.
    services.realtime.close();
    if (sweeper) clearInterval(sweeper);
    const startedAt = Date.now();
    logger.info({ signal, inFlight, timeoutMs: config.shutdownTimeoutMs }, "shutting down: draining requests under way");
    let finishing = false;
    const finish = async () => {
      if (finishing) return;
      finishing = true;
      clearTimeout(deadline);
      try {
        await stopJobs();
        await sweeping;
        if (operatorSecret) removeOperatorFile(config.dataDir);
        await database.close();
        logger.info({ ms: Date.now() - startedAt }, "stopped");
        process.exit(0);
      } catch (error) {
        logger.error({ err: error }, "closing the database failed");
        process.exit(1);
      }
    };
    const deadline = setTimeout(() => {
      logger.warn({ inFlight }, "drain timeout: closing the connections still open");
      server.closeAllConnections();
      // The deadline holds even when a connection the server no longer tracks keeps server.close()
      // from calling back (seen under load): the process stops now rather than never.
      void finish();
    }, config.shutdownTimeoutMs);
    server.close(() => void finish());
    // Idle kept-alive connections would hold server.close() until they time out.
    server.closeIdleConnections();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  const where = database.kind === "pglite" ? `embedded database in ${config.dataDir}` : "PostgreSQL";
  logger.info({ host: config.host, port: config.port, publicUrl: config.publicUrl, database: database.kind }, "listening");
  say(`Serving on ${config.publicUrl} (${where}), listening on ${config.host}:${config.port}`);
  say(`  GraphQL + GraphiQL: ${config.publicUrl}/graphql`);
  say(`  REST:               ${config.publicUrl}/v1 (reference: ${config.publicUrl}/reference)`);
  say(`  Health:             ${config.publicUrl}/health, ${config.publicUrl}/ready, ${config.publicUrl}/metrics`);

  // After the port is bound: a start that fails on a busy port has created nothing.
  const demo = config.seedDemo ? await seedDemo(services) : null;
  if (demo) {
    starterToken = demo.token;
    logger.info({ organizationId: demo.organizationId, userId: demo.userId }, "demo organization created");
    say(`Created a demo organization (${demo.organizationId}) with a sample space, its user ${DEMO_EMAIL}. API token:`);
    say(`  ${demo.token}`);
    say(`Try: curl -H "Authorization: Bearer ${demo.token}" ${config.publicUrl}/v1/orgs`);
    say(`Or open ${config.publicUrl}/graphql (the token is already in its headers)`);
    say(`Its published site, with a page of every block: ${services.urls.site(`/${demo.siteId}`)}/blocks`);
  } else {
    // GraphiQL opens with a working token on every development start, not only the first.
    const development = config.seedDemo && config.graphiqlEnabled ? await issueDevelopmentToken(services) : null;
    if (development) {
      starterToken = development.token;
      say(`Demo user ${development.email}; an API token for this start (valid one day, also in GraphiQL's headers):`);
      say(`  ${development.token}`);
    }
    say(`Another token, while the server runs: npm run -s cli -- token --email ${development?.email ?? "<e-mail of a user>"}`);
    say("  (or the createApiToken mutation with a token you already have)");
  }

  // Spaces first: their revisions go with them, and then the blobs only they named.
  const sweep = () => {
    if (stopping) return;
    sweeping = sweepOnce().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  };
  const sweepOnce = async () => {
    try {
      const spaces = await sweepDeletedSpaces(services);
      if (spaces) logger.info({ count: spaces }, "removed spaces deleted more than 7 days ago");
      const blobs = await collectUnreferencedBlobs(services, BLOB_GRACE_MS);
      if (blobs) logger.info({ count: blobs }, "removed blobs no longer referenced");
    } catch (error) {
      logger.error({ err: error }, "sweep of deleted spaces and unreferenced blobs failed");
    }
  };
  await sweep();
  if (!stopping) sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
}

/** Resolves once listening; a busy port becomes one line naming PORT. */
function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        reject(new Error(`PORT ${config.port} is already in use on ${config.host}: stop the other server or set PORT to a free port`));
      } else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
        reject(new Error(`HOST ${config.host} is not an address of this machine: set HOST (e.g. 127.0.0.1 or 0.0.0.0)`));
      } else if (error.code === "EACCES") {
        reject(new Error(`PORT ${config.port} needs privileges on ${config.host}: set PORT to 1024 or above`));
      } else reject(error);
    });
    server.listen(config.port, config.host, () => resolve());
  });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
