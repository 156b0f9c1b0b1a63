// What a domain rule needs to run for one caller: storage, the caller, their access, the clock
// and URL building. Knows nothing of HTTP or GraphQL; built once per request.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { Access } from "../auth/access.ts";
import type { Clock } from "./clock.ts";
import type { JobQueue } from "./jobs/index.ts";
import { createLoaders, type Loaders } from "./loaders.ts";
import { Urls } from "./urls.ts";

export interface Viewer {
  userId: string;
  tokenId: string;
}

export interface Services {
  prisma: PrismaClient;
  clock: Clock;
  urls: Urls;
  jobs: JobQueue;
}

export interface CoreContext extends Services {
  viewer: Viewer;
  loaders: Loaders;
  access: Access;
}

export function createCoreContext(services: Services, viewer: Viewer): CoreContext {
  const loaders = createLoaders(services.prisma, viewer.userId);
  loaders.startViewerLoads();
  return { ...services, viewer, loaders, access: new Access(loaders) };
}

export type Transaction = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
