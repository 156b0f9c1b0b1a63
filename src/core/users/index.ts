// Users by id: the public profile anyone signed in may read, and changes a user makes to their own
// account. The e-mail address is private: it is shown to the user themself only.
import type { User } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, forbidden, notFound } from "../errors.ts";
import { characterCount } from "../errors.ts";
import { checkNoControlCharacters, checkUrl } from "../validate.ts";

/** A user as the caller may see them: `email` is null unless it is the caller's own account. */
export interface UserProfile {
  user: User;
  own: boolean;
}

/** The user with this id (404 when there is none); an integration's token sees its own user only. */
export async function getUserProfile(ctx: CoreContext, userId: string): Promise<UserProfile> {
  const user = await ctx.loaders.user.load(userId);
  if (!user || (ctx.viewer.installationId && userId !== ctx.viewer.userId)) throw notFound("user", userId);
  return { user, own: user.id === ctx.viewer.userId };
}

export interface UserPatch {
  displayName?: string;
  /** null removes the photo. */
  photoURL?: string | null;
}

/** Changes the caller's own account: another user's is refused (403), an unknown one is 404. */
export async function updateUser(ctx: CoreContext, userId: string, patch: UserPatch): Promise<UserProfile> {
  const data: { displayName?: string; photoURL?: string | null } = {};
  if (patch.displayName !== undefined) {
    const name = checkNoControlCharacters("displayName", patch.displayName);
    const length = characterCount(name);
    if (length < 1 || length > 64 || !name.trim()) throw badInput(`displayName must be 1 to 64 characters, not blank (got ${length})`);
    data.displayName = name;
  }
  if (patch.photoURL !== undefined) {
    data.photoURL = patch.photoURL === null ? null : checkUrl("photoURL", patch.photoURL);
  }
  if (Object.keys(data).length === 0) throw badInput("Nothing to change: give displayName or photoURL");
  const { user } = await getUserProfile(ctx, userId);
  if (user.id !== ctx.viewer.userId || ctx.viewer.installationId) throw forbidden("You may change your own account only");
  const updated = await ctx.prisma.user.update({ where: { id: user.id }, data });
  ctx.loaders.user.clear(user.id).prime(user.id, updated);
  return { user: updated, own: true };
}
