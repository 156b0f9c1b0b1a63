// The notifications token (published createUserNotificationsToken): what a frontend's notifications
// client holds to follow the caller's own notifications without their API token. Here a user's
// notifications are the events of their own user channels (user-profile, user-organizations,
// user-api-tokens), and the token opens exactly those on GET /v1/channels, passed as the `token`
// query parameter (a browser's EventSource cannot send an Authorization header). It is signed with
// the app's signer (FILES_SECRET), names its user and the API token it was made with, and opens
// streams for NOTIFICATIONS_TOKEN_SECONDS after it is made. It is not stored: revoking the API
// token behind it revokes it too (the realtime bus checks that token when a stream opens and after
// every write that may change it), and a stream it opened lasts as long as that API token.
import type { CoreContext } from "../context.ts";
import { badInput, unauthenticated } from "../errors.ts";
import type { Signer } from "../signer.ts";

export const NOTIFICATIONS_TOKEN_SECONDS = 600;
const PREFIX = "ntf";
const fieldsOf = (userId: string, tokenId: string, expires: number) => ["notifications-token", userId, tokenId, String(expires)];

export function createNotificationsToken(ctx: CoreContext): { token: string; expiresAt: Date } {
  if (ctx.viewer.installationId) throw badInput("An integration's token has no notifications");
  const expires = ctx.signer.nowSeconds() + NOTIFICATIONS_TOKEN_SECONDS;
  const { userId, tokenId } = ctx.viewer;
  const token = `${PREFIX}.${userId}.${tokenId}.${expires}.${ctx.signer.sign(fieldsOf(userId, tokenId, expires))}`;
  return { token, expiresAt: new Date(expires * 1000) };
}

/** The viewer a notifications token was made for; 401 when it is malformed, forged or expired. */
export function verifyNotificationsToken(signer: Signer, token: string): { userId: string; tokenId: string } {
  const parts = token.split(".");
  const [prefix, userId, tokenId, exp, sig] = parts;
  const expires = Number(exp);
  if (parts.length !== 5 || prefix !== PREFIX || !/^\d{1,12}$/.test(exp) || !signer.verify(fieldsOf(userId, tokenId, expires), sig)) {
    throw unauthenticated("Invalid notifications token");
  }
  if (expires <= signer.nowSeconds()) {
    throw unauthenticated(`Notifications token expired at ${new Date(expires * 1000).toISOString()}: create a new one`);
  }
  return { userId, tokenId };
}

/** Whether a realtime channel is one of a user's own channels, the only ones the token opens. */
export const isNotificationsChannel = (channel: string | undefined) =>
  channel === "user-profile" || channel === "user-organizations" || channel === "user-api-tokens";
