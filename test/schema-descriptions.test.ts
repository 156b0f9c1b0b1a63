// Every type and every field of the GraphQL schema has a description (GraphiQL's docs, the
// printed schema.graphql and introspection show them): root types, objects, interfaces, inputs,
// enums, scalars, and the fields of objects, interfaces and inputs.
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType, type GraphQLNamedType } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../src/graphql/schema.ts";

const BUILT_IN_SCALARS = ["String", "Int", "Float", "Boolean", "ID"];

const namedTypes = Object.values(schema.getTypeMap()).filter(
  (type) => !type.name.startsWith("__") && !BUILT_IN_SCALARS.includes(type.name),
);

function undescribed(type: GraphQLNamedType): string[] {
  const missing = type.description?.trim() ? [] : [type.name];
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) {
      if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
    }
  }
  return missing;
}

describe("schema descriptions", () => {
  it("the root types describe themselves", () => {
    expect(schema.getQueryType()!.description).toMatch(/\w{3,}/);
    expect(schema.getMutationType()!.description).toMatch(/\w{3,}/);
  });

  it("every type and every field has a description", () => {
    expect(namedTypes.length).toBeGreaterThan(200);
    expect(namedTypes.flatMap(undescribed)).toEqual([]);
  });

  it("covers every kind of type it walks", () => {
    const kinds = new Set(
      namedTypes.map((type) =>
        [isObjectType, isInterfaceType, isInputObjectType, isEnumType, isScalarType, isUnionType].findIndex((is) => is(type)),
      ),
    );
    // Objects, interfaces, inputs, enums and scalars exist, so each is checked by the test above.
    for (const kind of [0, 1, 2, 3, 4]) expect(kinds.has(kind)).toBe(true);
  });

  it("descriptions are sentences about the item, not placeholders", () => {
    const texts = namedTypes.flatMap((type) => [
      type.description ?? "",
      ...(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)
        ? Object.values(type.getFields()).map((field) => field.description ?? "")
        : []),
    ]);
    expect(texts.filter((text) => /\b(TODO|FIXME|TBD)\b/.test(text))).toEqual([]);
  });
});
