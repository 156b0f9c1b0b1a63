// `npm start`: opens the database (embedded PGlite unless DATABASE_URL is set), applies
// migrations, seeds a demo organization on first start, and serves GraphQL and REST.
import { createServer } from "node:http";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { seedDemo } from "./core/bootstrap/index.ts";
import { sweepDeletedSpaces } from "./core/spaces/index.ts";
import { openDatabase } from "./db/client.ts";

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

async function main() {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const { yoga, services, close: stopJobs } = createApp({ database, config });
  const demo = config.seedDemo ? await seedDemo(database.prisma) : null;

  const sweep = () =>
    sweepDeletedSpaces(services).then(
      (count) => count && console.log(`Removed ${count} space(s) deleted more than 7 days ago`),
      (error) => console.error("Sweep of deleted spaces failed:", error),
    );
  await sweep();
  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);

  const server = createServer(yoga);
  server.listen(config.port, config.host, () => {
    const where = database.kind === "pglite" ? `embedded database in ${config.dataDir}` : "PostgreSQL";
    console.log(`Serving on ${config.publicUrl} (${where})`);
    console.log(`  GraphQL + GraphiQL: ${config.publicUrl}/graphql`);
    console.log(`  REST:               ${config.publicUrl}/v1`);
    if (demo) {
      console.log(`Created a demo organization (${demo.organizationId}) with a sample space. API token:`);
      console.log(`  ${demo.token}`);
      console.log(`Try: curl -H "Authorization: Bearer ${demo.token}" ${config.publicUrl}/v1/orgs`);
      console.log(`Or open ${config.publicUrl}/graphql with the header {"Authorization": "Bearer ${demo.token}"}`);
    }
  });

  const shutdown = () => {
    clearInterval(sweeper);
    server.close(() => void stopJobs().then(() => database.close()).then(() => process.exit(0)));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
