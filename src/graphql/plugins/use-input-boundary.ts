// The input boundary of /graphql (src/core/input.ts): variables and the document's string
// literals are checked before anything runs, so a NUL, a lone surrogate or a hostile nesting is a
// 400 naming where it is, never a failure deep in a query. The literal check is a validation
// rule, so it is cached with the document's validation and costs nothing on repeats.
import { GraphQLError, type ValidationRule } from "graphql";
import type { Plugin } from "graphql-yoga";
import { findInputProblem, unsafeTextReason } from "../../core/input.ts";
import { refusalExtensions } from "./use-graphql-limits.ts";

// A new object each time: Yoga removes `http` from the extensions it sends.
const badRequest = () => refusalExtensions("BAD_REQUEST");

const safeStringLiterals: ValidationRule = (context) => ({
  StringValue(node) {
    const reason = unsafeTextReason(node.value);
    if (reason) context.reportError(new GraphQLError(`A string in the document ${reason}`, { nodes: node, extensions: badRequest() }));
  },
});

export function useInputBoundary(): Plugin {
  return {
    onParams({ params }) {
      for (const [name, value] of [
        ["query", params.query],
        ["operationName", params.operationName],
      ] as const) {
        const reason = typeof value === "string" ? unsafeTextReason(value) : undefined;
        if (reason) throw new GraphQLError(`${name} ${reason}`, { extensions: badRequest() });
      }
      const problem = findInputProblem(params.variables ?? {}, "");
      if (problem) throw new GraphQLError(`Variable $${problem.message}`, { extensions: badRequest() });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(safeStringLiterals);
    },
  };
}
