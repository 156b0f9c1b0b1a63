// Per-request DataLoaders over raw rows. Every relation a resolver or a rule follows goes
// through one of these, so a request issues one statement per relation and level, never one
// per row. They are raw: visibility is decided by src/core/auth/access.ts on top of them.
import { organizationLoaders } from "./organizations/loaders.ts";
import { collectionLoaders } from "./collections/loaders.ts";
import { spaceLoaders } from "./spaces/loaders.ts";
import { contentLoaders } from "./content/loaders.ts";
import { changeRequestLoaders } from "./change-requests/loaders.ts";
import { memberLoaders } from "./members/loaders.ts";
import { teamLoaders } from "./teams/loaders.ts";
import { viewerLoaders } from "./grants/loaders.ts";
import { openAPILoaders } from "./openapi/loaders.ts";
import { translationLoaders } from "./translations/loaders.ts";
import { fontLoaders } from "./fonts/loaders.ts";
import { integrationLoaders } from "./integrations/loaders.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { RevisionCache } from "./content/cache.ts";

export * from "./loader-kit.ts";

/** Every domain's loaders (`src/core/<domain>/loaders.ts`), in one list. */
const DOMAINS = [
  organizationLoaders,
  collectionLoaders,
  spaceLoaders,
  contentLoaders,
  changeRequestLoaders,
  memberLoaders,
  teamLoaders,
  viewerLoaders,
  openAPILoaders,
  translationLoaders,
  fontLoaders,
  integrationLoaders,
] as const;

type LoadersOf<T> = T extends (prisma: PrismaClient, viewerUserId: string | null, loaders: never, revisions: RevisionCache) => infer L
  ? L
  : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
export type Loaders = UnionToIntersection<LoadersOf<(typeof DOMAINS)[number]>>;

/**
 * The loaders of one request, created lazily by domain: a request builds only the domains it
 * touches (a space read uses 4 of 11), where building all of them cost ~100 DataLoaders per
 * request (issue 15). Each name is a getter on a shared prototype, made once: the first access
 * to any loader of a domain builds that domain's loaders (they may share state, such as the
 * space counters) and every later access returns the same objects.
 */
class LazyLoaders {
  readonly domains: unknown[] = new Array(DOMAINS.length);
  constructor(
    readonly prisma: PrismaClient,
    readonly viewerUserId: string | null,
    readonly revisions: RevisionCache,
  ) {}
}
for (const [index, factory] of DOMAINS.entries()) {
  // The names of a domain's loaders: building them sends nothing (loaders load on demand).
  for (const name of Object.keys(factory(null as never, null, null as never, null as never))) {
    if (name in LazyLoaders.prototype) throw new Error(`Two domains define the loader ${name}`);
    Object.defineProperty(LazyLoaders.prototype, name, {
      get(this: LazyLoaders) {
        // A domain gets the request's loaders too, to prime other domains' with rows it read.
        const domain = (this.domains[index] ??= factory(this.prisma, this.viewerUserId, this as never, this.revisions)) as Record<
          string,
          unknown
        >;
        return domain[name];
      },
    });
  }
}

/**
 * The request's operation is over (src/graphql/plugins/use-loader-release.ts): its loaders drop
 * the domains they built, with every row and promise they hold, so that none of it outlives the
 * request in a scavenge. A later use builds the domain again (fresh, empty caches).
 */
export function releaseLoaders(loaders: Loaders): void {
  if (loaders instanceof LazyLoaders) loaders.domains.fill(undefined);
}

/** The loaders of one request, for the viewer: every domain's, built when first used. */
export function createLoaders(services: { prisma: PrismaClient; revisions: RevisionCache }, viewerUserId: string | null): Loaders {
  return new LazyLoaders(services.prisma, viewerUserId, services.revisions) as unknown as Loaders;
}
