// ContentKit answers of integration scripts, checked against the published schema
// (`ContentKitRenderOutput` in @gitbook/api's OpenAPI document) with Ajv, compiled once.
import type { ValidateFunction } from "ajv";
import { publishedValidator } from "../published-schemas.ts";

const validator = (): ValidateFunction => publishedValidator("#/components/schemas/ContentKitRenderOutput");

/** Deeper answers are refused before validation, whose recursion would otherwise overflow the stack. */
const MAX_DEPTH = 100;

/** Whether `value` nests arrays and objects deeper than `max` (walked without recursion). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Why `output` is no ContentKit render output (the first problem, with its JSON pointer), or null. */
export function contentKitProblem(output: unknown): string | null {
  if (nestedDeeperThan(output, MAX_DEPTH)) return `/ is nested deeper than ${MAX_DEPTH} levels`;
  const validate = validator();
  if (validate(output)) return null;
  const error = validate.errors?.[0];
  return error
    ? `${error.instancePath || "/"} ${error.message ?? "is invalid"}${error.params && "additionalProperty" in error.params ? ` (${String(error.params.additionalProperty)})` : ""}`
    : "invalid";
}
