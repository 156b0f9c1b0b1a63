// Bounds on what one GraphQL request may ask of the server, checked before it runs:
// - the body of /graphql: at most `maxBodyBytes`, counted as it arrives; a JSON body above
//   `anonymousBodyBytes` (or of unknown length) is read only after its bearer token checks out,
//   so an anonymous client cannot make the server read and parse megabytes;
// - the document: at most `maxDocumentBytes` (followed as the body streams in: a body whose
//   `query` is over it is refused without being held, decoded or parsed) and `maxTokens` (parsing
//   stops at the limit), fields repeated under one response name (checked on the parsed document,
//   before validation compares every pair of them), then depth, aliases and directives (GraphQL
//   Armor's validation rules);
// - the estimated cost, computed with the variables: every field costs 1, and what a list field
//   selects is multiplied by its `first` (the default page size when absent) or by the number of
//   `ids` of `nodes(ids:)`, itself capped.
// REST routes run trusted documents (rest-adapter/routes) and are exempt from the cost.
// Refusals: 400 (413 for sizes) with `extensions.code` naming the limit.
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import {
  GraphQLError,
  Kind,
  getNamedType,
  isAbstractType,
  isListType,
  isNonNullType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { GraphQLContext } from "../builder.ts";
import type { GraphQLLimits } from "../../config.ts";
import type { Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../core/pagination.ts";
import { readGraphQLBody, readTextUpTo, type GraphQLBodyRead } from "../../http/body.ts";
import { urlOf } from "../../http/request-url.ts";
import { toGraphQLError } from "./use-error-masking.ts";

/** A refusal of the request as a whole: no data, the status and the code of the limit. */
export function limitError(message: string, code: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

/**
 * Armor's errors carry no code: give them one, and the status of a bad request. Yoga marks parse
 * and validation errors as the spec's (`spec`, answered 200 to application/json clients); these
 * are refusals of ours, a 400 for every client, so `spec` stays false whatever Yoga sets.
 */
const annotate = (code: string) => [
  (_context: unknown, error: GraphQLError) => {
    Object.assign(error.extensions as Record<string, unknown>, refusalExtensions(code));
  },
];

/** A refusal found while parsing: Yoga would answer a parse error 200 to JSON clients; this is a 400 for every client. */
const parseRefusal = (message: string, code: string) => new GraphQLError(message, { extensions: refusalExtensions(code) });

/** `extensions` of a refused request: the code, and a status Yoga keeps for every client. */
export function refusalExtensions(code: string, status = 400) {
  const http = { status };
  Object.defineProperty(http, "spec", { get: () => false, set: () => {}, enumerable: true });
  return { code, http };
}

/** List multiplier of a plain list (not a connection): its size is the data's, not the client's. */
const PLAIN_LIST_FACTOR = 10;
/** Nesting of the document's text that the parser is given at all (the depth limit is far below). */
const MAX_DOCUMENT_NESTING = 100;

export function useGraphQLLimits(services: Services, limits: GraphQLLimits): Plugin {
  let graphqlEndpoint = "/graphql";
  /** Parsed documents that passed the repeated-field check (held while Yoga's parser cache holds them). */
  const checkedDocuments = new WeakSet<DocumentNode>();
  /** Each operation's cost as a function of its variables (costPlan), while its document is held. */
  const costPlans = new WeakMap<OperationDefinitionNode, CostTerm>();
  const byteLength = (text: string) => Buffer.byteLength(text);
  const documentTooLarge = (size: string) =>
    limitError(`The document is ${size} bytes: at most ${limits.maxDocumentBytes} bytes`, "DOCUMENT_TOO_LARGE", 413);

  async function parseJsonBody(request: Request): Promise<Record<string, unknown>> {
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > limits.maxBodyBytes) {
      throw limitError(`Request body is ${declared} bytes: at most ${limits.maxBodyBytes} bytes`, "BODY_TOO_LARGE", 413);
    }
    if (declared === null || Number(declared) > limits.anonymousBodyBytes) {
      try {
        await services.tokens.authenticate(request.headers.get("authorization"));
      } catch (error) {
        if (error instanceof DomainError) {
          const refusal = toGraphQLError(error);
          refusal.message = `${error.message} (needed before a request body above ${limits.anonymousBodyBytes} bytes is read)`;
          // The body is left unread: the connection is closed after the answer rather than kept
          // alive, which would make the server take in the rest of the body to discard it.
          Object.assign(refusal.extensions as Record<string, unknown>, {
            http: { status: error.status, headers: { connection: "close" } },
          });
          throw refusal;
        }
        throw error;
      }
    }
    let read: GraphQLBodyRead;
    try {
      read = await readGraphQLBody(request, limits.maxBodyBytes, limits.maxDocumentBytes);
    } catch {
      // The client went away or the request timeout cut the body off: nobody reads this answer.
      throw limitError("Request body ended before it was complete", "BAD_REQUEST");
    }
    if (read.kind === "too-large") throw limitError(`Request body is over ${limits.maxBodyBytes} bytes`, "BODY_TOO_LARGE", 413);
    if (read.kind === "document-too-large") throw documentTooLarge(`over ${limits.maxDocumentBytes}`);
    const text = read.text;
    // Decoding and parsing megabytes are each tens of milliseconds of CPU: other requests get
    // their turn in between.
    if (text.length > limits.anonymousBodyBytes) await new Promise((resolve) => setImmediate(resolve));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw limitError("Request body is not valid JSON", "BAD_REQUEST");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw limitError("Request body must be a JSON object with a query", "BAD_REQUEST");
    }
    return body as Record<string, unknown>;
  }

  return {
    onPluginInit({ addPlugin }) {
      addPlugin(maxTokensPlugin({ n: limits.maxTokens, onReject: annotate("TOKEN_LIMIT") }) as Plugin);
      addPlugin(maxDepthPlugin({ n: limits.maxDepth, onReject: annotate("DEPTH_LIMIT") }) as Plugin);
      addPlugin(maxAliasesPlugin({ n: limits.maxAliases, onReject: annotate("ALIAS_LIMIT") }) as Plugin);
      addPlugin(maxDirectivesPlugin({ n: limits.maxDirectives, onReject: annotate("DIRECTIVE_LIMIT") }) as Plugin);
    },
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    onRequestParse({ request, url, requestParser, setRequestParser, fetchAPI }) {
      if (url.pathname !== graphqlEndpoint || request.method !== "POST") return;
      const type = (request.headers.get("content-type") ?? "").toLowerCase();
      if (/^application\/(graphql\+)?json/.test(type)) {
        setRequestParser((request) => parseJsonBody(request) as never);
      } else if (requestParser && request.body && !type.startsWith("multipart/form-data")) {
        // Yoga's other parsers (application/graphql, form-urlencoded) read the whole body: it is
        // read within the bound first. A multipart upload is bounded by its declared length
        // (useFileDownloads), which Node holds the body to.
        setRequestParser(async (request) => {
          const declared = request.headers.get("content-length");
          const text =
            declared !== null && Number(declared) > limits.maxBodyBytes ? null : await readTextUpTo(request, limits.maxBodyBytes);
          if (text === null) throw limitError(`Request body is over ${limits.maxBodyBytes} bytes`, "BODY_TOO_LARGE", 413);
          return requestParser(new fetchAPI.Request(request.url, { method: request.method, headers: request.headers, body: text }));
        });
      }
    },
    onParams({ params }) {
      if (typeof params.query !== "string") return;
      if (params.query.length > limits.maxDocumentBytes / 4 && byteLength(params.query) > limits.maxDocumentBytes) {
        throw documentTooLarge(String(byteLength(params.query)));
      }
      // The parser recurses once per level: a document nested thousands of levels would exhaust
      // the stack before the token or depth limits could say no.
      if (nestingOf(params.query) > MAX_DOCUMENT_NESTING) {
        throw limitError(
          `The document is nested more than ${MAX_DOCUMENT_NESTING} levels deep (braces, brackets, parentheses)`,
          "DEPTH_LIMIT",
        );
      }
    },
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (!result || result instanceof Error || !("definitions" in result)) return;
        // Yoga's parser cache hands a repeated document's parsed form again: checked once (issue 35).
        if (checkedDocuments.has(result as DocumentNode)) return;
        const repeated = mostRepeatedField(result as DocumentNode);
        if (repeated === "too-large") {
          replaceParseResult(
            parseRefusal(
              `The document expands to more than ${MAX_EXPANDED_FIELDS} fields once its fragments are spread, or spreads a fragment within itself`,
              "COST_LIMIT",
            ),
          );
        } else if (repeated && repeated.count > limits.maxRepeatedFields) {
          replaceParseResult(
            parseRefusal(
              `The field "${repeated.name}" is selected ${repeated.count} times in one selection set (fragments merged): at most ${limits.maxRepeatedFields}`,
              "FIELD_REPEAT_LIMIT",
            ),
          );
        } else {
          checkedDocuments.add(result as DocumentNode);
        }
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request && urlOf(request).pathname !== graphqlEndpoint) return; // a REST route: trusted
      const operation = operationToCost(args.document, args.operationName ?? undefined);
      // Worked out once per operation of a parsed document: Yoga's parser cache hands a repeated
      // document's same nodes again, and they hold their plan while it keeps them.
      let plan = operation ? costPlans.get(operation) : 0;
      if (plan === undefined) costPlans.set(operation!, (plan = costPlan(args.schema, args.document, operation!, limits)));
      const cost = costWith(plan, (args.variableValues ?? {}) as Record<string, unknown>);
      if (typeof cost === "string") {
        setResultAndStopExecution({ errors: [limitError(cost, "NODE_IDS_LIMIT")] });
        return;
      }
      // What `rateLimit { cost maxCost }` answers (src/graphql/rate-limit.ts).
      const context = args.contextValue as Partial<GraphQLContext>;
      context.budget = { ...context.budget, cost: { cost, maxCost: limits.maxCost } };
      if (cost > limits.maxCost) {
        setResultAndStopExecution({
          errors: [
            limitError(
              `Query cost ${cost} is over the limit of ${limits.maxCost}: each field costs 1, and lists multiply what they select by first (default ${DEFAULT_PAGE_SIZE}) or by the number of ids; ask for fewer items or fewer nested lists`,
              "COST_LIMIT",
            ),
          ],
        });
      }
    },
  };
}

/** Fields the repeat check looks at before it gives up on a document (fragments spread into fragments multiply). */
const MAX_EXPANDED_FIELDS = 100_000;

/**
 * The response name selected most often in one selection set, counted as validation merges them:
 * the fields of a set with those of its inline fragments and of each fragment it spreads (once
 * per name), and the sub-selections of same-named fields together; "too-large" when the document
 * expands to more than MAX_EXPANDED_FIELDS fields (fragments within fragments) or spreads a
 * fragment within itself.
 */
export function mostRepeatedField(document: DocumentNode): { name: string; count: number } | "too-large" | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  let most: { name: string; count: number } | undefined;
  let budget = MAX_EXPANDED_FIELDS;
  const visit = (sets: readonly SelectionSetNode[], depth: number): boolean => {
    // Deeper than any document may be nested: fragments spread within themselves (validation refuses them too).
    if (depth > MAX_DOCUMENT_NESTING) return false;
    const byName = new Map<string, SelectionSetNode[]>();
    const counts = new Map<string, number>();
    const spread = new Set<string>();
    const collect = (set: SelectionSetNode): boolean => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if (--budget < 0) return false;
          const name = selection.alias?.value ?? selection.name.value;
          counts.set(name, (counts.get(name) ?? 0) + 1);
          if (selection.selectionSet) {
            const children = byName.get(name);
            if (children) children.push(selection.selectionSet);
            else byName.set(name, [selection.selectionSet]);
          }
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          if (!collect(selection.selectionSet)) return false;
        } else if (!spread.has(selection.name.value)) {
          spread.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment && !collect(fragment.selectionSet)) return false;
        }
      }
      return true;
    };
    for (const set of sets) if (!collect(set)) return false;
    for (const [name, count] of counts) if (!most || count > most.count) most = { name, count };
    for (const children of byName.values()) if (!visit(children, depth + 1)) return false;
    return true;
  };
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && !visit([definition.selectionSet], 0)) return "too-large";
  }
  return most;
}

/** Deepest nesting of {, [ and ( in a document, outside strings and comments. */
export function nestingOf(document: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < document.length; i++) {
    const c = document[i];
    if (c === "#") {
      while (i < document.length && document[i] !== "\n" && document[i] !== "\r") i++;
    } else if (c === '"') {
      if (document.startsWith('"""', i)) {
        const end = document.indexOf('"""', i + 3);
        i = end < 0 ? document.length : end + 2;
      } else {
        for (i++; i < document.length && document[i] !== '"' && document[i] !== "\n"; i++) if (document[i] === "\\") i++;
      }
    } else if (c === "{" || c === "[" || c === "(") {
      if (++depth > deepest) deepest = depth;
    } else if (c === "}" || c === "]" || c === ")") {
      depth--;
    }
  }
  return deepest;
}

function unwrapToList(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** Where a variable's value decides the cost, the first refusal met (`nodes(ids:)` over its cap). */
interface CostRefusal {
  message?: string;
}
/** A part of an operation's cost: a number, or what it is for given variables. */
type CostTerm = number | ((variables: Record<string, unknown>, refusal: CostRefusal) => number);

/** The sum of terms, its constant part added up once. */
function sumOf(terms: CostTerm[]): CostTerm {
  let constant = 0;
  const dynamic: Exclude<CostTerm, number>[] = [];
  for (const term of terms) {
    if (typeof term === "number") constant += term;
    else dynamic.push(term);
  }
  if (dynamic.length === 0) return constant;
  return (variables, refusal) => {
    let total = constant;
    for (const term of dynamic) total += term(variables, refusal);
    return total;
  };
}

/** 1 + factor × what the field selects. */
function fieldCost(factor: CostTerm, selected: CostTerm): CostTerm {
  if (typeof factor === "number" && typeof selected === "number") return 1 + factor * selected;
  return (variables, refusal) =>
    1 +
    (typeof factor === "number" ? factor : factor(variables, refusal)) *
      (typeof selected === "number" ? selected : selected(variables, refusal));
}

/** A list's size from its `first`: the page size limit above it, the default page size when absent. */
const pageFactor = (first: unknown) =>
  typeof first === "number" && Number.isFinite(first) && first >= 1 ? Math.min(first, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;

/** The operation a request runs: the one named, else the first; undefined when there is none. */
export function operationToCost(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (!operationName || definition.name?.value === operationName) return definition;
  }
  return undefined;
}

/**
 * The cost of the operation (see the top of the file), or a message when `nodes(ids:)` asks for
 * too many ids.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  limits: Pick<GraphQLLimits, "maxNodeIds">,
): number | string {
  const operation = operationToCost(document, operationName);
  return operation ? costWith(costPlan(schema, document, operation, limits), variables) : 0;
}

/** The cost a plan (costPlan) gives for these variables, or its refusal. */
export function costWith(plan: CostTerm, variables: Record<string, unknown>): number | string {
  if (typeof plan === "number") return plan;
  const refusal: CostRefusal = {};
  const cost = plan(variables, refusal);
  return refusal.message ?? cost;
}

/**
 * An operation's cost as a function of its variables, worked out once per document: only `first`
 * and `ids` given as variables are left to each request (a number when there are none).
 * Fragments are costed once each, so repeating them cannot make this slow.
 */
export function costPlan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limits: Pick<GraphQLLimits, "maxNodeIds">,
): CostTerm {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const root =
    operation.operation === "mutation"
      ? schema.getMutationType()
      : operation.operation === "subscription"
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  if (!root) return 0;
  const fragmentCosts = new Map<string, CostTerm>();

  const idsCount = (count: number, refusal: CostRefusal) => {
    if (count > limits.maxNodeIds) refusal.message ??= `nodes(ids:) takes at most ${limits.maxNodeIds} ids (got ${count})`;
    return count;
  };

  const costOf = (selectionSet: SelectionSetNode | undefined, type: GraphQLNamedType): CostTerm => {
    if (!selectionSet) return 0;
    const terms: CostTerm[] = [];
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        if (!fragmentCosts.has(name)) {
          fragmentCosts.set(name, 0); // a cycle (refused by validation anyway) costs nothing more
          const fragment = fragments.get(name);
          const on = fragment && schema.getType(fragment.typeCondition.name.value);
          fragmentCosts.set(name, fragment && on ? costOf(fragment.selectionSet, on) : 0);
        }
        terms.push(fragmentCosts.get(name)!);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        terms.push(costOf(selection.selectionSet, on ?? type));
      } else {
        const name = selection.name.value;
        if (name.startsWith("__")) continue; // introspection and __typename
        // On an interface or union, the field is found on any of its object types.
        const candidates = isAbstractType(type) ? schema.getPossibleTypes(type) : isObjectType(type) ? [type] : [];
        const field: GraphQLField<unknown, unknown> | undefined =
          candidates.map((t) => t.getFields()[name]).find(Boolean) ??
          (type as { getFields?: () => Record<string, GraphQLField<unknown, unknown>> }).getFields?.()[name];
        if (!field) continue;
        let factor: CostTerm = 1;
        const args = new Map((selection.arguments ?? []).map((arg) => [arg.name.value, arg.value]));
        if (field.args.some((arg) => arg.name === "first")) {
          // Above the page size limit the list refuses itself (400 naming first): count it as that limit.
          const first = args.get("first");
          factor =
            first?.kind === Kind.VARIABLE
              ? (
                  (variable) => (variables) =>
                    pageFactor(variables[variable])
                )(first.name.value)
              : pageFactor(first?.kind === Kind.INT ? Number(first.value) : undefined);
        } else if (field.args.some((arg) => arg.name === "ids")) {
          const ids = args.get("ids");
          if (ids?.kind === Kind.VARIABLE) {
            const variable = ids.name.value;
            factor = (variables, refusal) => {
              const value = variables[variable];
              return idsCount(Array.isArray(value) ? value.length : 1, refusal);
            };
          } else {
            const count = ids?.kind === Kind.LIST ? ids.values.length : 1;
            factor = count > limits.maxNodeIds ? (_variables, refusal) => idsCount(count, refusal) : count;
          }
        } else if (unwrapToList(field.type) && !type.name.endsWith("Connection")) {
          // A connection's nodes and edges are the page `first` already counted.
          factor = PLAIN_LIST_FACTOR;
        }
        terms.push(fieldCost(factor, costOf(selection.selectionSet, getNamedType(field.type))));
      }
    }
    return sumOf(terms);
  };
  return costOf(operation.selectionSet, root);
}
