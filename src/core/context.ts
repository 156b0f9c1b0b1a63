// What a domain rule needs to run for one caller: storage, the caller, their access, the clock,
// URL building and signing, the configured limits. Knows nothing of HTTP or GraphQL; built once per request.
import type { AskModelGate } from "./ask/model.ts";
import type { LsaTrainer } from "./ask/lsa.ts";
import type { AskVectorModels } from "./ask/vector-models.ts";
import type { RevisionCache } from "./content/cache.ts";
import type { TokenVerifier, Viewer } from "./auth/tokens.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { Access } from "./auth/access.ts";
import type { Clock } from "./clock.ts";
import type { Logger } from "../logger.ts";
import type { GitRepositories } from "./git/repository.ts";
import type { GitSyncSettings } from "./git/sync-settings.ts";
import type { HtmlReaders } from "./import/html.ts";
import type { ImportLimits } from "./import/limits.ts";
import type { ImportTracker } from "./import/progress.ts";
import type { InsightsRecorder } from "./insights/recorder.ts";
import type { IntegrationRuntime } from "./integrations/runtime.ts";
import type { JobQueue } from "./jobs/index.ts";
import type { OpenAPILimits } from "./openapi/limits.ts";
import { createLoaders, type Loaders } from "./loaders.ts";
import { RequestScope } from "./request-scope.ts";
import type { Signer } from "./signer.ts";
import type { SiteRendering } from "./sites/assets.ts";
import type { SitePolicy } from "./sites/policy.ts";
import type { Urls } from "./urls.ts";

/** What every request shares, built once by `createApp` from the configuration. */
export interface Services {
  prisma: PrismaClient;
  clock: Clock;
  urls: Urls;
  /** Bearer tokens to viewers, with the cache of tokens found recently (src/core/auth/tokens.ts). */
  tokens: TokenVerifier;
  /** Decoded revisions by id (immutable), bounded in memory (src/core/content/cache.ts). */
  revisions: RevisionCache;
  /** Signs and checks capability URLs (downloads, PDFs). */
  signer: Signer;
  importLimits: ImportLimits;
  /** Bounds of OpenAPI processing (tests lower them on their own app). */
  openapiLimits: OpenAPILimits;
  jobs: JobQueue;
  /** Structured logs (pino): work that takes long, like an import, reports its progress here. */
  logger: Logger;
  /** Imports under way in this process, with their progress. */
  imports: ImportTracker;
  /** A bounded HTML reader per import (src/infra/html-worker). */
  htmlReaders: HtmlReaders;
  /** Events, sandboxes and tokens of integrations. */
  integrations: IntegrationRuntime;
  /** What published sites trust: visitor tokens' lifetime, custom hostnames' DNS proof (src/core/sites/policy.ts). */
  sites: SitePolicy;
  /** Insight events of published sites waiting to be written in batches (src/core/insights). */
  insights: InsightsRecorder;
  /** How many organizations one user may create (ORGANIZATIONS_PER_USER_MAX). */
  organizations: { maxCreatedPerUser: number };
  /** The spaces as Git repositories (src/core/git). */
  git: GitRepositories;
  /** Git Sync: the key sealing remote credentials, and whether remotes may be private hosts (src/core/git/sync.ts). */
  gitSync: GitSyncSettings;
  /** What `GET /v1/` (the published ApiInformation) says: this package's version, and when this server started. */
  release: { version: string; build: string };
  /** The code highlighter and the stylesheet, script and fonts of published pages (created on first use). */
  siteRendering: SiteRendering;
  /** The model generating Ask's answers, if configured, and its calls under way (src/core/ask/model.ts). */
  askModel: AskModelGate;
  /** Ask's vector models of sites, their bounds and the ones held in memory (src/core/ask/vectors.ts). */
  askVectors: AskVectorModels;
  /** Trains those models in worker threads, off the event loop (src/infra/lsa-trainer.ts). */
  askTrainer: LsaTrainer;
}

export interface CoreContext extends Services {
  viewer: Viewer;
  loaders: Loaders;
  access: Access;
  /** What this request keeps for itself beyond its loaders (memos, presented share keys…). */
  scope: RequestScope;
}

export function createCoreContext(services: Services, viewer: Viewer): CoreContext {
  const loaders = createLoaders(services, viewer.userId);
  // The request's own fields first, the services spread after them (Services has none of their
  // names): on Node 20 (V8 11.3) an object literal that adds properties after a spread takes a slow
  // path, ~8 µs here, where this order costs ~0.3 µs (issue 15).
  return { viewer, loaders, access: new Access(loaders, viewer.installationId), scope: new RequestScope(), ...services };
}
