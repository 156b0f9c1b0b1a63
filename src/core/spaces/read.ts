// Reading a space: the caller's role decides whether it exists for them. Apart from the space
// rules (index.ts) so that content, search, sites and change requests, which all start here,
// import none of the space writes (and those writes can use them in turn).
import type { Space } from "../../generated/prisma/client.ts";
import { authorize, POLICY, type Action } from "../auth/policy.ts";
import { atLeast, type Role } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { conflict, notFound, quote } from "../errors.ts";

/** The space and the caller's role on it, if the caller can read it; 404 otherwise. */
export async function readSpace(ctx: CoreContext, id: string): Promise<{ space: Space; role: Role }> {
  const now = readSpaceNow(ctx, id);
  if (now) return now;
  const space = await ctx.loaders.space.load(id);
  const role = space ? await ctx.access.roleOnSpace(space) : null;
  if (!space || !atLeast(role, "read")) throw notFound("space", id);
  return { space, role: role! };
}

/**
 * `readSpace` without a promise, when the request already holds the space and what decides the
 * caller's role on it (a space's view primes all of it); undefined otherwise. Throws its 404.
 */
export function readSpaceNow(ctx: CoreContext, id: string): { space: Space; role: Role } | undefined {
  const space = ctx.loaders.space.peek(id);
  if (space === undefined) return undefined;
  const role = space ? ctx.access.roleOnSpaceNow(space) : null;
  if (role === undefined) return undefined;
  if (!space || !atLeast(role, "read")) throw notFound("space", id);
  return { space, role: role! };
}

export async function loadVisibleSpaces(ctx: CoreContext, ids: readonly string[]) {
  return Promise.all(
    ids.map((id) =>
      readSpace(ctx, id).then(
        (r) => r.space,
        () => null,
      ),
    ),
  );
}

/** The space (404 unless readable), if the caller may do `action` on it (else 403). */
export async function requireSpace(ctx: CoreContext, id: string, action: Action, { allowDeleted = false } = {}) {
  const { space } = await readSpace(ctx, id);
  if (space.deletedAt && !allowDeleted) {
    throw conflict(`Space ${quote(id)} is deleted: restore it before you ${POLICY[action].does}`);
  }
  await authorize(ctx, action, { space });
  return space;
}
