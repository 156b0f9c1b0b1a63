// A request's share of the limits, as the request's context carries it: the rate limit and the
// cost rule put their numbers here, and the API's `rateLimit` field reads them.

export interface RequestBudget {
  /** The document's estimated cost and the most one document may cost . */
  cost?: { cost: number; maxCost: number };
  /** The window's request budget as the X-RateLimit-* headers show it . */
  window?: () => Promise<{ limit: number; remaining: number; resetAt: Date }>;
}
