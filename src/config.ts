// Environment → typed configuration, read once at start-up. The only reader of `process.env`:
// everything else gets its settings from `createApp` (src/app.ts) through the services object.
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./core/import/limits.ts";

export interface Config {
  port: number;
  /** Base of every absolute URL the API returns (`urls.*`). */
  publicUrl: string;
  /** PostgreSQL connection string; when unset the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database. */
  dataDir: string;
  /** Create the demo organization on first start of an empty database. */
  seedDemo: boolean;
  /**
   * Key of the HMAC that signs file download URLs. Unset: a random key made at start-up, so URLs
   * handed out before a restart, or by another instance, stop working (set it in production).
   */
  filesSecret: string | undefined;
  /** Bounds of website imports; `allowPrivateHosts` from IMPORT_ALLOW_PRIVATE_HOSTS. */
  importLimits: ImportLimits;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const filesSecret = env.FILES_SECRET || undefined;
  if (filesSecret !== undefined && filesSecret.length < 32) {
    throw new Error("FILES_SECRET must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)");
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  return {
    port,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "./data",
    seedDemo: env.SEED_DEMO !== "false",
    filesSecret,
    importLimits: { ...DEFAULT_IMPORT_LIMITS, allowPrivateHosts: env.IMPORT_ALLOW_PRIVATE_HOSTS !== "false" },
  };
}
