// Introspection can be turned off (INTROSPECTION_ENABLED; off by default in production): the
// schema is then not readable through __schema/__type, though `schema.graphql` stays public.
// `__typename` stays: clients need it to tell types apart.
import { GraphQLError, type ValidationRule } from "graphql";
import type { Plugin } from "graphql-yoga";
import { refusalExtensions } from "./use-graphql-limits.ts";

const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === "__schema" || node.name.value === "__type") {
      context.reportError(
        new GraphQLError(`Introspection is turned off on this server (${node.name.value}); the schema is published as schema.graphql`, {
          nodes: node,
          extensions: refusalExtensions("INTROSPECTION_DISABLED"),
        }),
      );
    }
  },
});

export function useIntrospectionToggle(enabled: boolean): Plugin {
  if (enabled) return {};
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(noIntrospection);
    },
  };
}
