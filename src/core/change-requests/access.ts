// Finding a change request the caller may see or act on. A change request is addressed within its
// space by id or by number ("3"); it is as visible as its space, and acting on it takes the
// caller's role on the space (src/core/auth/policy.ts).
import type { ChangeRequest, Space } from "../../generated/prisma/client.ts";
import { authorize, type Action } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { conflict, notFound } from "../errors.ts";
import { INT4_MAX } from "../input.ts";
import { readSpace, requireSpace } from "../spaces/read.ts";

export const CHANGE_REQUEST_STATUSES = ["draft", "open", "archived", "merged"] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** The change request `idOrNumber` of the space, without any permission check (404 when missing). */
export async function findChangeRequest(ctx: CoreContext, spaceId: string, idOrNumber: string): Promise<ChangeRequest> {
  // A number beyond the column's range names no change request (and must not reach the query).
  const changeRequest =
    /^[1-9][0-9]{0,9}$/.test(idOrNumber) && Number(idOrNumber) <= INT4_MAX
      ? await ctx.loaders.changeRequestByNumber.load(`${spaceId}:${Number(idOrNumber)}`)
      : await ctx.loaders.changeRequest.load(idOrNumber);
  if (!changeRequest || changeRequest.spaceId !== spaceId) throw notFound("change request", idOrNumber);
  return changeRequest;
}

/** A change request of a space the caller can read (404 otherwise). */
export async function readChangeRequest(
  ctx: CoreContext,
  spaceId: string,
  idOrNumber: string,
): Promise<{ space: Space; changeRequest: ChangeRequest }> {
  const { space } = await readSpace(ctx, spaceId);
  const changeRequest = await findChangeRequest(ctx, spaceId, idOrNumber);
  await authorize(ctx, "changeRequest.read", { space });
  return { space, changeRequest };
}

/** A change request the caller may do `action` on (404 unless readable, 403 without the role). */
export async function requireChangeRequest(
  ctx: CoreContext,
  spaceId: string,
  idOrNumber: string,
  action: Action,
): Promise<{ space: Space; changeRequest: ChangeRequest }> {
  const { space } = await readSpace(ctx, spaceId);
  const changeRequest = await findChangeRequest(ctx, spaceId, idOrNumber);
  await requireSpace(ctx, spaceId, action);
  return { space, changeRequest };
}

/** Merged and archived change requests keep their content as it is (409). */
export function checkChangeRequestActive(changeRequest: ChangeRequest, doing: string): void {
  if (changeRequest.status === "merged" || changeRequest.status === "archived") {
    throw conflict(
      `Change request #${changeRequest.number} is ${changeRequest.status}: it cannot ${doing}` +
        (changeRequest.status === "archived" ? " (set its status to open or draft first)" : ""),
    );
  }
}
