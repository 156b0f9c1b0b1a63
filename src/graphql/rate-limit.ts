// `rateLimit`: what a document costs and what is left of the caller's budget, in the answer
// itself, as GitHub's GraphQL API shows it, so that a frontend can pace itself without reading
// headers. The numbers are the ones the limits use: the cost rule's estimate (use-graphql-limits.ts)
// and the request window (use-rate-limit.ts, the X-RateLimit-* headers).
import { builder } from "./builder.ts";

interface RateLimitShape {
  cost: number;
  maxCost: number;
  limit: number;
  remaining: number;
  resetAt: Date;
}

const RateLimitRef = builder.objectRef<RateLimitShape>("RateLimit").implement({
  description: "This request's cost and the caller's request budget",
  fields: (t) => ({
    cost: t.exposeInt("cost", {
      description: "The estimated cost of this document: each field costs 1, and a list multiplies what it selects by its size",
    }),
    maxCost: t.exposeInt("maxCost", { description: "The most one document may cost; a costlier one is refused before it runs" }),
    limit: t.exposeInt("limit", { description: "Requests allowed per window (per token, or per client address without one)" }),
    remaining: t.exposeInt("remaining", { description: "Requests left in the current window, this one counted" }),
    resetAt: t.expose("resetAt", { type: "DateTime", description: "When the current window ends and the budget is whole again" }),
  }),
});

builder.queryField("rateLimit", (t) =>
  t.field({
    description: "What this request costs and what is left of the caller's request budget",
    type: RateLimitRef,
    resolve: async (_root, _args, { budget }) => {
      const window = (await budget?.window?.()) ?? { limit: 0, remaining: 0, resetAt: new Date(0) };
      return { cost: budget?.cost?.cost ?? 0, maxCost: budget?.cost?.maxCost ?? 0, ...window };
    },
  }),
);
