// Adaptive content settings of a site: the JSON Schema (draft-07) of its visitors' claims, and
// the template conditions built from it. The schema is checked with ajv against the draft-07
// meta-schema; claims in `unsigned` are those a visitor may give as `visitor.<name>` parameters.
import { Ajv, type ValidateFunction } from "ajv";
import type { Site } from "../../generated/prisma/client.ts";
import { authorize } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { badInput } from "../errors.ts";
import { requireSite, writeSite } from "./index.ts";

/** The schema of a site that has not set one: no signed claims, no unsigned ones. */
export const EMPTY_ADAPTIVE_SCHEMA = {
  type: "object",
  properties: {
    unsigned: { type: "object", description: "Unsigned claims of the site visitor.", properties: {}, additionalProperties: false },
  },
  additionalProperties: false,
};

/** Bounds the work a schema can cause: its JSON size. */
const SCHEMA_MAX_BYTES = 64 * 1024;

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });

export function adaptiveSchemaOf(site: Site) {
  return {
    jsonSchema: (site.adaptiveSchema as Record<string, unknown> | null) ?? EMPTY_ADAPTIVE_SCHEMA,
    updatedAt: site.adaptiveSchemaUpdatedAt ?? site.createdAt,
  };
}

/** The schema of a site the caller sees, if it may read it (an installation's token: with `site:adaptive:read`). */
export async function readAdaptiveSchema(ctx: CoreContext, site: Site) {
  await authorize(ctx, "site.readAdaptiveSchema", { site });
  return adaptiveSchemaOf(site);
}

/** A draft-07 JSON Schema of an object, whose `unsigned` property (if any) is an object schema. */
export function checkAdaptiveSchema(jsonSchema: unknown): Record<string, unknown> {
  if (typeof jsonSchema !== "object" || jsonSchema === null || Array.isArray(jsonSchema))
    throw badInput("jsonSchema must be a JSON Schema object");
  if (Buffer.byteLength(JSON.stringify(jsonSchema)) > SCHEMA_MAX_BYTES)
    throw badInput(`jsonSchema must be at most ${SCHEMA_MAX_BYTES} bytes of JSON`);
  const schema = jsonSchema as Record<string, unknown>;
  if (schema.$schema !== undefined && schema.$schema !== "http://json-schema.org/draft-07/schema#") {
    throw badInput('jsonSchema.$schema must be "http://json-schema.org/draft-07/schema#" (draft-07)');
  }
  if (!ajv.validateSchema(schema))
    throw badInput(`jsonSchema is not a valid draft-07 JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: "jsonSchema" })}`);
  if (schema.type !== "object" || typeof schema.properties !== "object" || schema.properties === null) {
    throw badInput('jsonSchema must describe an object: type "object" with properties');
  }
  const unsigned = (schema.properties as Record<string, any>).unsigned;
  if (unsigned !== undefined && (unsigned?.type !== "object" || typeof unsigned?.properties !== "object")) {
    throw badInput("jsonSchema.properties.unsigned must be an object schema with properties");
  }
  try {
    ajv.compile(schema);
  } catch (error) {
    throw badInput(`jsonSchema does not compile: ${(error as Error).message}`);
  }
  return schema;
}

export async function updateAdaptiveSchema(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  jsonSchema: unknown,
) {
  await requireSite(ctx, organizationId, siteId, "site.updateAdaptiveSchema");
  const schema = checkAdaptiveSchema(jsonSchema);
  return writeSite(ctx, siteId, (now) => ({ adaptiveSchema: schema as never, adaptiveSchemaUpdatedAt: now }));
}

interface TemplateCondition {
  description: string;
  condition: string;
}

/** Useful conditions from the schema: each boolean claim true, each enumerated value, each number present. */
export function templateConditions(jsonSchema: Record<string, unknown>): TemplateCondition[] {
  const items: TemplateCondition[] = [];
  const walk = (properties: Record<string, any>, prefix: string, label: string) => {
    for (const [name, property] of Object.entries(properties ?? {})) {
      if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) continue;
      const path = `${prefix}.${name}`;
      if (name === "unsigned" && prefix === "visitor.claims") {
        walk(property?.properties, path, "unsigned ");
      } else if (property?.type === "boolean") {
        items.push({ description: `Visitors whose ${label}claim "${name}" is true`, condition: `${path} == true` });
      } else if (Array.isArray(property?.enum)) {
        for (const value of property.enum)
          items.push({
            description: `Visitors whose ${label}claim "${name}" is ${JSON.stringify(value)}`,
            condition: `${path} == ${JSON.stringify(value)}`,
          });
      } else if (property?.type === "object") {
        walk(property.properties, path, label);
      } else if (property?.type === "array" && property.items?.type === "string" && Array.isArray(property.items.enum)) {
        for (const value of property.items.enum)
          items.push({
            description: `Visitors whose ${label}claim "${name}" includes ${JSON.stringify(value)}`,
            condition: `${path}.includes(${JSON.stringify(value)})`,
          });
      }
    }
  };
  walk(jsonSchema.properties as Record<string, any>, "visitor.claims", "");
  return items;
}

/** A validator of a visitor's unsigned claims against the schema's `unsigned` object (cached per schema). */
const unsignedValidators = new WeakMap<object, ValidateFunction>();
export function unsignedClaimsValidator(jsonSchema: Record<string, any>): ValidateFunction | null {
  const unsigned = jsonSchema.properties?.unsigned;
  if (!unsigned) return null;
  let validate = unsignedValidators.get(unsigned);
  if (!validate) unsignedValidators.set(unsigned, (validate = ajv.compile(unsigned)));
  return validate;
}
