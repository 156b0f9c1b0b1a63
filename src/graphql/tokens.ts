// The caller's API tokens: list (without secrets), create (the secret is in the payload, once),
// revoke. Self-service like `viewer`: a token acts as its user, so no organization role applies.
import type { ApiToken } from "../generated/prisma/client.ts";
import { createApiToken, listApiTokens, revokeApiToken, TOKEN_EXPIRY_DAYS_MAX, TOKEN_LABEL_MAX } from "../core/tokens/index.ts";
import { forbidden } from "../core/errors.ts";
import { builder } from "./builder.ts";
import { UserRef } from "./organizations.ts";

const ApiTokenRef = builder.objectRef<ApiToken>("ApiToken").implement({
  description: "An API token of a user, without its secret (shown once, when it is created)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the token (`tok_…`), to revoke it" }),
    label: t.exposeString("label", { nullable: true, description: "What the token is for, as given when it was created" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the token was created" }),
    lastUsedAt: t.expose("lastUsedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the token was last used (recorded at most once a minute)",
    }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true, description: "When the token stops working; null: never" }),
    current: t.boolean({
      description: "Is this the token of the request that reads it",
      resolve: (token, _args, { core }) => token.id === core.viewer.tokenId,
    }),
  }),
});

builder.objectField(UserRef, "apiTokens", (t) =>
  t.field({
    type: [ApiTokenRef],
    description: "The user's API tokens, newest first, without their secrets (only readable for the caller)",
    resolve: (user, _args, { core }) => {
      if (user.id !== core.viewer.userId) throw forbidden("Only a user can list their own API tokens");
      return listApiTokens(core);
    },
  }),
);

const CreateApiTokenPayload = builder.simpleObject("CreateApiTokenPayload", {
  description: "Result of the createApiToken mutation",
  fields: (t) => ({
    token: t.string({ description: "The secret, for `Authorization: Bearer <token>`: shown only now, stored only as a hash" }),
    apiToken: t.field({ type: ApiTokenRef, description: "The new token's description" }),
  }),
});

const RevokeApiTokenPayload = builder.simpleObject("RevokeApiTokenPayload", {
  description: "Result of the revokeApiToken mutation",
  fields: (t) => ({ revokedTokenId: t.id({ description: "Id of the token revoked: it is refused from now on" }) }),
});

builder.mutationFields((t) => ({
  createApiToken: t.field({
    type: CreateApiTokenPayload,
    description: "Creates an API token for the caller; its secret is in the payload and shown only this once",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateApiTokenInput", {
          description: "Input of the createApiToken mutation",
          fields: (f) => ({
            label: f.string({ description: `What the token is for (1 to ${TOKEN_LABEL_MAX} characters)` }),
            expiresInDays: f.int({
              description: `Days until the token stops working (1 to ${TOKEN_EXPIRY_DAYS_MAX}); absent: it does not expire`,
            }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => createApiToken(core, input),
  }),
  revokeApiToken: t.field({
    type: RevokeApiTokenPayload,
    description: "Revokes one of the caller's API tokens (the one in use too); another user's is not found",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RevokeApiTokenInput", {
          description: "Input of the revokeApiToken mutation",
          fields: (f) => ({ id: f.id({ required: true, description: "Id of the token (`tok_…`)" }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ revokedTokenId: await revokeApiToken(core, input.id) }),
  }),
}));
