// Merge rules, as the published API has them: an organization's `{ type: "none" }` or
// `{ type: "rules", rules: [...] }`, a space's the same or `{ type: "inherit" }` (the
// organization's). Every rule must pass for a merge, unless the one merging is listed in an
// `allow_bypass` rule. Approvals count when current: the reviewer's latest review, of the change
// request's head revision.
import type { ChangeRequest, ChangeRequestReview, Organization, Space } from "../../generated/prisma/client.ts";
import type { Transaction } from "../../db/transaction.ts";
import { badInput, conflict, quote } from "../errors.ts";

/** The rules this service evaluates. */
export const MERGE_RULE_NAMES = [
  "require_at_least_one_review",
  "require_at_least_one_approved_review",
  "require_all_reviews_approved",
  "require_specific_reviewers",
  "require_one_of_specific_reviewers",
  "allow_bypass",
  "require_up_to_date_change_request",
  "require_change_request_subject",
  "require_author_to_merge",
] as const;
/** Published rules that need something this service does not have (agents, descriptions, expressions). */
const UNSUPPORTED_RULES = ["require_agent_review", "require_change_request_description", "custom"];
const WITH_USERS = ["require_specific_reviewers", "require_one_of_specific_reviewers", "allow_bypass"];
export const MERGE_RULES_MAX = 20;
const RULE_USERS_MAX = 50;

export type MergeRule = { rule: (typeof MERGE_RULE_NAMES)[number]; users?: string[] };
export type MergeRules = { type: "none" } | { type: "inherit" } | { type: "rules"; rules: MergeRule[] };

/** A review with whether it is still current. */
export interface Review {
  row: ChangeRequestReview;
  outdated: boolean;
}

/**
 * The reviews of a change request, oldest first, each marked outdated when it is not of the
 * change request's head or a later review by the same reviewer exists. One statement.
 */
export async function reviewsOf(db: Pick<Transaction, "changeRequestReview">, changeRequest: ChangeRequest): Promise<Review[]> {
  const rows = await db.changeRequestReview.findMany({
    where: { changeRequestId: changeRequest.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const latest = new Map(rows.map((row) => [row.reviewerId, row.id]));
  return rows.map((row) => ({ row, outdated: row.revisionId !== changeRequest.revisionId || latest.get(row.reviewerId) !== row.id }));
}

/**
 * A merge rules configuration from input, checked (400 naming the field); `inherit` only where
 * `allowInherit` (a space). Users named by rules are not checked against the members: a rule
 * naming someone who left simply cannot be met by them.
 */
export function checkMergeRules(value: unknown, allowInherit: boolean, field = "mergeRules"): MergeRules {
  const types = allowInherit ? ["inherit", "none", "rules"] : ["none", "rules"];
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badInput(`${field} must be an object with type ${types.join(", ")}`);
  const { type, rules } = value as { type?: unknown; rules?: unknown };
  if (typeof type !== "string" || !types.includes(type))
    throw badInput(`${field}.type must be one of ${types.join(", ")} (got ${quote(type)})`);
  if (type !== "rules") return { type } as MergeRules;
  if (!Array.isArray(rules) || rules.length > MERGE_RULES_MAX)
    throw badInput(`${field}.rules must be a list of at most ${MERGE_RULES_MAX} rules`);
  return {
    type: "rules",
    rules: rules.map((rule: unknown, index) => {
      const at = `${field}.rules[${index}]`;
      const name = typeof rule === "object" && rule !== null ? (rule as { rule?: unknown }).rule : undefined;
      if (typeof name === "string" && UNSUPPORTED_RULES.includes(name))
        throw badInput(`${at}.rule ${quote(name)} is not supported by this service`);
      if (typeof name !== "string" || !(MERGE_RULE_NAMES as readonly string[]).includes(name)) {
        throw badInput(`${at}.rule must be one of ${MERGE_RULE_NAMES.join(", ")} (got ${quote(name)})`);
      }
      if (!WITH_USERS.includes(name)) return { rule: name as MergeRule["rule"] };
      const users = (rule as { users?: unknown }).users;
      if (
        !Array.isArray(users) ||
        users.length === 0 ||
        users.length > RULE_USERS_MAX ||
        users.some((user) => typeof user !== "string" || !user)
      ) {
        throw badInput(`${at}.users must list between 1 and ${RULE_USERS_MAX} user ids`);
      }
      return { rule: name as MergeRule["rule"], users: [...new Set(users as string[])] };
    }),
  };
}

/** The rules that apply in a space: its own, or the organization's when it inherits. */
export function effectiveMergeRules(space: Space, organization: Organization): MergeRules {
  const own = space.mergeRules as MergeRules;
  return own.type === "inherit" ? (organization.mergeRules as MergeRules) : own;
}

/** Why each rule that fails does, for merging `changeRequest` now as `actorId`; empty when it may be merged. */
export function unmetMergeRules(
  rules: MergeRules,
  context: { changeRequest: ChangeRequest; reviews: Review[]; actorId: string; upToDate: boolean },
): string[] {
  if (rules.type !== "rules") return [];
  const { changeRequest, actorId } = context;
  if (rules.rules.some((rule) => rule.rule === "allow_bypass" && rule.users!.includes(actorId))) return [];
  const current = context.reviews.filter((review) => !review.outdated);
  const approvers = new Set(current.filter((review) => review.row.status === "approved").map((review) => review.row.reviewerId));
  const unmet: string[] = [];
  for (const rule of rules.rules) {
    switch (rule.rule) {
      case "require_at_least_one_review":
        if (current.length === 0) unmet.push("it needs at least one current review");
        break;
      case "require_at_least_one_approved_review":
        if (approvers.size === 0) unmet.push("it needs at least one current approval");
        break;
      case "require_all_reviews_approved":
        if (current.length === 0 || approvers.size < current.length)
          unmet.push("every current review must approve it (and there must be one)");
        break;
      case "require_specific_reviewers": {
        const missing = rule.users!.filter((user) => !approvers.has(user));
        if (missing.length) unmet.push(`it needs a current approval from each of ${missing.join(", ")}`);
        break;
      }
      case "require_one_of_specific_reviewers":
        if (!rule.users!.some((user) => approvers.has(user)))
          unmet.push(`it needs a current approval from one of ${rule.users!.join(", ")}`);
        break;
      case "require_up_to_date_change_request":
        if (!context.upToDate) unmet.push("it must first be updated with the space's newest content");
        break;
      case "require_change_request_subject":
        if (!changeRequest.subject.trim()) unmet.push("it needs a subject");
        break;
      case "require_author_to_merge":
        if (actorId !== changeRequest.createdById) unmet.push("only its author may merge it");
        break;
      case "allow_bypass":
        break;
    }
  }
  return unmet;
}

/** Refuses (409, every unmet rule named) a merge the rules do not allow yet. */
export function checkMergeRulesMet(...args: Parameters<typeof unmetMergeRules>): void {
  const unmet = unmetMergeRules(...args);
  if (unmet.length) {
    throw conflict(
      `Change request #${args[1].changeRequest.number} cannot be merged yet: the merge rules are not met: ${unmet.join("; ")}`,
    );
  }
}
