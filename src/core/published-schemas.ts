// The published API's schemas (@gitbook/api's spec/openapi.json) as validators: the spec is loaded
// into one Ajv on first use (it is large; most processes need it late or never), and Ajv compiles
// each schema once when first asked for it and keeps it.
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { lazily } from "./lazily.ts";

const SPEC_ID = "gitbook-api";

interface PublishedSpec {
  paths: Record<string, unknown>;
  components: { schemas: Record<string, { properties?: unknown; allOf?: { properties?: { type?: { enum?: string[] } } }[] }> };
}

export const publishedSpec = lazily(() => createRequire(import.meta.url)("@gitbook/api/spec/openapi.json") as PublishedSpec);

const specAjv = lazily(() => {
  const spec = publishedSpec();
  // `PlainObject` (visitor claims, ContentKit props) lacks `type: object`, so under a `oneOf` a
  // string would match both it and `string`: read it as the object it describes.
  const schemas = { ...spec.components.schemas, PlainObject: { ...spec.components.schemas.PlainObject, type: "object" } };
  // Formats are not checked (the spec's own, such as `icon`, have no definition): where one
  // matters (a URL, a timestamp) the caller checks it; shapes, enums, lengths and patterns are.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, validateFormats: false });
  ajv.addSchema({ $id: SPEC_ID, paths: spec.paths, components: { ...spec.components, schemas } });
  return ajv;
});

/** The validator of the published schema at `pointer`, a JSON pointer into the spec (`#/components/schemas/Name`). */
export function publishedValidator(pointer: string): ValidateFunction {
  const validate = specAjv().getSchema(`${SPEC_ID}${pointer}`);
  if (!validate) throw new Error(`The published spec has no schema at ${pointer}`);
  return validate;
}
