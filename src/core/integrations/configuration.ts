// Integration configurations (`configurations.account|space|site` of a manifest): a JSON
// Schema-like object `{ properties: { <name>: { type, title, description, default, enum } }, required }`.
// A configuration given at install or update is checked against it: unknown keys, wrong types,
// values outside `enum` and missing required keys are 400s naming the key. Defaults are filled in.
import { badInput, quote } from "../errors.ts";

export interface ConfigurationProperty {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  completion_url?: string;
}

export interface ConfigurationSchema {
  properties: Record<string, ConfigurationProperty>;
  required?: string[];
}

function typeMatches(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      // Types of the published manifests beyond JSON Schema's (`button`…): any value.
      return true;
  }
}

/**
 * `value` checked against `schema` (no schema: any object). `partial`: required keys may be
 * missing (an installation made without a configuration waits for one, status `pending`).
 */
export function checkConfiguration(
  field: string,
  schema: ConfigurationSchema | undefined,
  value: unknown,
  { partial = false } = {},
): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw badInput(`${field} must be an object`);
  const config = { ...(value as Record<string, unknown>) };
  if (!schema) return config;
  for (const [key, item] of Object.entries(config)) {
    const property = schema.properties[key];
    if (!property)
      throw badInput(
        `${field}.${key} is not a setting of this integration (settings: ${Object.keys(schema.properties).join(", ") || "none"})`,
      );
    if (!typeMatches(property.type, item)) throw badInput(`${field}.${key} must be of type ${property.type} (got ${quote(item)})`);
    if (property.enum && !property.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(item))) {
      throw badInput(
        `${field}.${key} must be one of ${property.enum.map((allowed) => JSON.stringify(allowed)).join(", ")} (got ${quote(item)})`,
      );
    }
  }
  for (const [key, property] of Object.entries(schema.properties)) {
    if (config[key] === undefined && property.default !== undefined) config[key] = property.default;
  }
  if (!partial) {
    const missing = (schema.required ?? []).filter((key) => config[key] === undefined);
    if (missing.length) throw badInput(`${field} misses required settings: ${missing.join(", ")}`);
  }
  return config;
}
