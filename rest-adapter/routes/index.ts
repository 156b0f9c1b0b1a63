// Every /v1 route the service serves.
import type { RestRoute } from "../route.ts";
import { collectionRoutes } from "./collections.ts";
import { organizationRoutes } from "./organizations.ts";
import { spaceRoutes } from "./spaces.ts";

export const routes: RestRoute[] = [...organizationRoutes, ...collectionRoutes, ...spaceRoutes];
