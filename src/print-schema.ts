// `npm run schema`: prints the GraphQL schema to schema.graphql, committed so that every
// schema change is a reviewable diff (a test fails when the file is stale).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { printSchema } from "graphql";
import { schema } from "./graphql/schema.ts";

export const SCHEMA_FILE = fileURLToPath(new URL("../schema.graphql", import.meta.url));
export const printedSchema = () => `${printSchema(schema)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  console.log(`Wrote ${SCHEMA_FILE}`);
}
