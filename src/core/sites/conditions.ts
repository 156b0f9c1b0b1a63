// Adaptive-content conditions: a small expression language over the visitor's claims, e.g.
// `visitor.claims.unsigned.beta == true && visitor.claims.plan != "free"`. Parsed by jsep (a
// well-kept JavaScript-expression parser) and evaluated here by walking the tree: no JavaScript
// `eval`, no function calls beyond `includes`, no access to anything but the `visitor` object.
import jsep from "jsep";
import { badInput, quote } from "../errors.ts";
import { checkLength } from "../validate.ts";

export const CONDITION_MAX = 1024;

const BINARY: ReadonlySet<string> = new Set(["==", "!=", "===", "!==", "<", "<=", ">", ">=", "&&", "||"]);
const UNARY: ReadonlySet<string> = new Set(["!", "-"]);
/** Keys that would reach JavaScript's object machinery rather than claim values. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

type Node = jsep.Expression;

/** Throws a message naming what is not allowed; returns nothing when the tree is in the language. */
function checkNode(node: Node): void {
  switch (node.type) {
    case "Literal":
      return;
    case "Identifier":
      if (node.name !== "visitor") throw new Error(`unknown name ${quote(node.name)} (conditions start from visitor)`);
      return;
    case "MemberExpression": {
      const member = node as jsep.MemberExpression;
      checkNode(member.object);
      if (member.computed) {
        if (member.property.type !== "Literal") throw new Error("computed property names must be literals");
        if (FORBIDDEN_KEYS.has(String((member.property as jsep.Literal).value))) throw new Error("that property cannot be read");
      } else if (FORBIDDEN_KEYS.has((member.property as jsep.Identifier).name)) {
        throw new Error("that property cannot be read");
      }
      return;
    }
    case "BinaryExpression": {
      const binary = node as jsep.BinaryExpression;
      if (!BINARY.has(binary.operator)) throw new Error(`operator ${quote(binary.operator)} is not supported`);
      checkNode(binary.left);
      checkNode(binary.right);
      return;
    }
    case "UnaryExpression": {
      const unary = node as jsep.UnaryExpression;
      if (!UNARY.has(unary.operator)) throw new Error(`operator ${quote(unary.operator)} is not supported`);
      checkNode(unary.argument);
      return;
    }
    case "ArrayExpression":
      for (const element of (node as jsep.ArrayExpression).elements) if (element) checkNode(element);
      return;
    case "CallExpression": {
      const call = node as jsep.CallExpression;
      const callee = call.callee as jsep.MemberExpression;
      if (
        callee.type !== "MemberExpression" ||
        callee.computed ||
        (callee.property as jsep.Identifier).name !== "includes" ||
        call.arguments.length !== 1
      ) {
        throw new Error("the only call is <list or text>.includes(<value>)");
      }
      checkNode(callee.object);
      checkNode(call.arguments[0]);
      return;
    }
    default:
      throw new Error(`${node.type} is not supported`);
  }
}

export function parseCondition(source: string): Node {
  const tree = jsep(source);
  checkNode(tree);
  return tree;
}

/** A condition as written: 1 to 1024 characters that parse in the language (else 400 naming `field`). */
export function checkCondition(field: string, source: string): string {
  checkLength(field, source, { min: 1, max: CONDITION_MAX });
  try {
    parseCondition(source);
  } catch (error) {
    throw badInput(`${field} is not a valid condition: ${(error as Error).message}`);
  }
  return source;
}

const own = (value: unknown, key: string) =>
  typeof value === "object" && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;

function evaluate(node: Node, scope: { visitor: unknown }): unknown {
  switch (node.type) {
    case "Literal":
      return (node as jsep.Literal).value;
    case "Identifier":
      return scope.visitor;
    case "MemberExpression": {
      const member = node as jsep.MemberExpression;
      const object = evaluate(member.object, scope);
      const key = member.computed ? String((member.property as jsep.Literal).value) : (member.property as jsep.Identifier).name;
      if (Array.isArray(object) && key === "length") return object.length;
      return own(object, key);
    }
    case "UnaryExpression": {
      const unary = node as jsep.UnaryExpression;
      const value = evaluate(unary.argument, scope);
      return unary.operator === "!" ? !value : typeof value === "number" ? -value : undefined;
    }
    case "BinaryExpression": {
      const { operator, left, right } = node as jsep.BinaryExpression;
      if (operator === "&&") return evaluate(left, scope) && evaluate(right, scope);
      if (operator === "||") return evaluate(left, scope) || evaluate(right, scope);
      const a = evaluate(left, scope);
      const b = evaluate(right, scope);
      switch (operator) {
        case "==":
        case "===":
          return a === b;
        case "!=":
        case "!==":
          return a !== b;
      }
      // Orderings compare numbers with numbers and strings with strings only.
      if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string"))) return false;
      return operator === "<" ? a < b : operator === "<=" ? a <= b : operator === ">" ? a > b : a >= b;
    }
    case "ArrayExpression":
      return (node as jsep.ArrayExpression).elements.map((element) => (element ? evaluate(element, scope) : undefined));
    case "CallExpression": {
      const call = node as jsep.CallExpression;
      const target = evaluate((call.callee as jsep.MemberExpression).object, scope);
      const argument = evaluate(call.arguments[0], scope);
      if (Array.isArray(target)) return target.includes(argument);
      if (typeof target === "string" && typeof argument === "string") return target.includes(argument);
      return false;
    }
    default:
      return undefined;
  }
}

/** The visitor's claims as conditions see them: `visitor.claims.<signed>` and `visitor.claims.unsigned.<name>`. */
export interface VisitorClaims {
  [claim: string]: unknown;
  unsigned?: Record<string, unknown>;
}

/** Whether a visitor with `claims` sees what `condition` guards (no condition: always). Never throws. */
export function conditionHolds(condition: string | null, claims: VisitorClaims): boolean {
  if (!condition) return true;
  try {
    return evaluate(parseCondition(condition), { visitor: { claims } }) === true;
  } catch {
    return false;
  }
}
