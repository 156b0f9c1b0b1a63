// ContentKit answers of integration scripts, checked against the published schema
// (`ContentKitRenderOutput` in @gitbook/api's OpenAPI document) with Ajv, compiled once.
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);
const SPEC_ID = "gitbook-api";
const compiled: { validate?: ValidateFunction } = {};

function validator(): ValidateFunction {
  if (!compiled.validate) {
    const spec = require("@gitbook/api/spec/openapi.json") as { components: { schemas: Record<string, object> } };
    // `PlainObject` lacks `type: object`, so under `oneOf` a string matches both it and `string`:
    // read it as the object it describes.
    const schemas = { ...spec.components.schemas, PlainObject: { ...spec.components.schemas.PlainObject, type: "object" } };
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, validateFormats: false });
    ajv.addSchema({ $id: SPEC_ID, components: { ...spec.components, schemas } });
    compiled.validate = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/ContentKitRenderOutput` });
  }
  return compiled.validate;
}

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
