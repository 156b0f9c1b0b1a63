// `npm run schema`: prints the GraphQL schema to schema.graphql, its introspection types for the
// typed REST documents (rest-adapter/graphql-env.d.ts, read by gql.tada offline), and the
// permission matrix into docs/permissions.md, all committed so that every change is a reviewable diff
// (tests fail when stale).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { outputIntrospectionFile, minifyIntrospection } from "@gql.tada/internal";
import { introspectionFromSchema, printSchema } from "graphql";
import { policyTable } from "./core/auth/policy.ts";
import { schema } from "./graphql/schema.ts";

export const SCHEMA_FILE = fileURLToPath(new URL("../schema.graphql", import.meta.url));
export const PERMISSIONS_FILE = fileURLToPath(new URL("../docs/permissions.md", import.meta.url));
export const printedSchema = () => `${printSchema(schema)}\n`;

export const INTROSPECTION_FILE = fileURLToPath(new URL("../rest-adapter/graphql-env.d.ts", import.meta.url));
export const printedIntrospection = () =>
  outputIntrospectionFile(minifyIntrospection(introspectionFromSchema(schema)), { fileType: ".d.ts", shouldPreprocess: true });

const START = "<!-- permission-matrix:start (npm run schema) -->";
const END = "<!-- permission-matrix:end -->";

/** docs/permissions.md with its permission matrix section printed from src/core/auth/policy.ts. */
export function withPolicy(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/permissions.md needs the markers ${START} and ${END}`);
  return `${readme.slice(0, start + START.length)}\n${policyTable()}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  writeFileSync(INTROSPECTION_FILE, printedIntrospection());
  writeFileSync(PERMISSIONS_FILE, withPolicy(readFileSync(PERMISSIONS_FILE, "utf8")));
  console.log(`Wrote ${SCHEMA_FILE}, ${INTROSPECTION_FILE} and the permission matrix of ${PERMISSIONS_FILE}`);
}
