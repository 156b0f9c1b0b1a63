// Fixtures of site tests.

/** A site's adaptive schema (valid against the published one): a signed `plan` claim, an unsigned `beta` claim. */
export const ADAPTIVE_SCHEMA = {
  type: "object",
  properties: {
    plan: { type: "string", enum: ["free", "pro"], description: "Plan" },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      properties: { beta: { type: "boolean", description: "Beta" } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};
