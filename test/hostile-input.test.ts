// Permanent property-based hostile-input test (fast-check), on both databases: every route of the
// REST route table and every GraphQL mutation of the schema is driven with generated hostile
// inputs — path ids that are valid ids of a seeded organization or hostile strings, query
// parameters, bodies and variables of wrong types, huge sizes, NUL bytes, lone surrogates, deep
// nesting, huge numbers, forged cursors. The properties: never a 5xx; a refusal is the surface's
// envelope (REST `{ error: { code, message } }` with JSON content type, GraphQL errors with an
// `extensions.code` that is not INTERNAL_SERVER_ERROR); and a refusal changes nothing (a digest of
// every table's rows, rate-limit counters and the job queue left out, is the same after it).
//
// Runtime is bounded by the number of runs per route and per mutation (RUNS_PER_ROUTE,
// RUNS_PER_MUTATION; HOSTILE_RUNS=<n> multiplies both for a longer local hunt). A failure prints
// fast-check's seed and the shrunk counterexample.
import fc from "fast-check";
import {
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { schema } from "../src/graphql/schema.ts";
import { routes } from "../rest-adapter/routes/index.ts";
import { captureLogs } from "./support/logs.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const FACTOR = Number(process.env.HOSTILE_RUNS ?? 1);
const RUNS_PER_ROUTE = 2 * FACTOR;
const RUNS_PER_MUTATION = 2 * FACTOR;

let server: TestServer;
/** The server's log: a refused request is one short line, never an `error` (issue 34). */
const logs = captureLogs();

let admin: BootstrapResult;
/** Valid ids of the seeded organization, by the name path parameters and arguments use. */
const ids: Record<string, string> = {};

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const FORGED_CURSORS = [
  cursor({ v: "9999999999", d: 2, id: "cr_x" }),
  cursor({ v: "+275760-09-13T00:00:00.000Z", d: 1, id: "spc_x" }),
  cursor({ v: "a\u0000", id: "spc_x" }),
  cursor([1, 2]),
  cursor(null),
  "not-base64!",
  "eyJ2IjoxfQ",
];

const NASTY = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ufeff",
  "../../etc/passwd",
  "' OR 1=1 --",
  '"',
  "\\",
  "null",
  "NaN",
  "-1",
  "0",
  "1.5",
  "2147483648",
  "9223372036854775808",
  "99999999999999999999999",
  "1e400",
  "__proto__",
  "constructor",
  "<script>alert(1)</script>",
  "💥".repeat(60),
  `spc_${"x".repeat(300)}`,
  "http://127.0.0.1:1/",
  "http://[::1]/",
  "file:///etc/passwd",
  ...FORGED_CURSORS,
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }).map((n) => "x".repeat(10 ** n)) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, -0, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e308, -1e308, Number.MAX_SAFE_INTEGER * 10, 9999999999),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const deepArray = fc.integer({ min: 10, max: 200 }).map((depth) => {
  let value: unknown = "deep";
  for (let i = 0; i < depth; i++) value = [value];
  return value;
});

/** Field names of every input object in the schema, so bodies hit the fields routes read. */
const FIELD_NAMES = [
  ...new Set(
    Object.values(schema.getTypeMap())
      .filter(isInputObjectType)
      .flatMap((type) => Object.keys(type.getFields())),
  ),
];
const fieldName = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...FIELD_NAMES) }, { weight: 1, arbitrary: hostileString });

const { json } = fc.letrec<{ json: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    deepArray,
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("json"), { maxLength: 4 }),
  object: fc.dictionary(fieldName, tie("json"), { maxKeys: 5 }),
}));

/** Raw bodies: not JSON, nested beyond any parser's stack, a lone surrogate escaped, and so on. */
const RAW_BODIES = [
  "",
  "{",
  "not json",
  "[]",
  "null",
  '"string"',
  '{"title":"\\ud800"}',
  '{"title":"\\u0000"}',
  '{"a":1e400}',
  `{"title":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
  `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`,
];
const body = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fieldName, json, { maxKeys: 6 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: json.map((value) => JSON.stringify(value) ?? "null") },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 5, max: 6 }).map((n) => JSON.stringify({ title: "x".repeat(10 ** n), markdown: "y".repeat(10 ** n) })),
  },
);

/** A URL path segment or query value, already encoded (lone surrogates as their raw UTF-8 bytes). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return `${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ""))}%ED%A0%80`;
  }
}
const RAW_SEGMENTS = ["%00", "%ED%A0%80", "%", "%zz", "%FF%FE", "..", ".", "9999999999", "-1", "0", "1.5", "%20"];
const segment = (valid: string | undefined) =>
  fc.oneof(
    ...(valid ? [{ weight: 3, arbitrary: fc.constant(encodeURIComponent(valid)) }] : []),
    { weight: 2, arbitrary: hostileString.filter((text) => text.length <= 2000).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );

const AUTHORIZATIONS = [...Array(12).fill("admin"), "none", "Bearer nope", `Bearer ${"a".repeat(5000)}`, "Basic YTpi", "Bearer"];
const authorization = fc
  .constantFrom(...AUTHORIZATIONS)
  .map((value) => (value === "admin" ? `Bearer ${admin.token}` : value === "none" ? undefined : value));

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/** Tables that change on every request or in the background, whatever its outcome. */
const VOLATILE = /rate|^Job$|^_migrations$/i;
let tables: string[] = [];

async function snapshot(): Promise<Record<string, string>> {
  // Finish background work started by earlier accepted requests first, so it is not mistaken for
  // a change made by a refused one.
  await server.app.jobs.runDue();
  const select = tables
    .map((table) => `(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM "${table}" t) AS "${table}"`)
    .join(", ");
  const [row] = await server.database.prisma.$queryRawUnsafe<Record<string, string>[]>(`SELECT ${select}`);
  return row;
}

function changedTables(before: Record<string, string>, after: Record<string, string>) {
  return tables.filter((table) => before[table] !== after[table]);
}

/** The last digest, valid until a request is accepted (an accepted request may change state). */
let known: Record<string, string> | undefined;

async function checkUnchangedOnRefusal(refused: boolean, describeRequest: () => string) {
  if (!refused) {
    known = undefined;
    return;
  }
  const before = known ?? (await snapshot());
  const after = await snapshot();
  known = after;
  expect(changedTables(before, after), `a refused request changed state: ${describeRequest()}`).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------

async function gql(query: string, variables: Record<string, unknown>) {
  const response = await server.graphql(admin.token, query, variables);
  return response.data;
}

beforeAll(async () => {
  // Strict imports with short timeouts: generated URLs must not wander off or wait 10 s.
  server = await startTestServer(
    {
      importAllowPrivateHosts: false,
      importLimits: { allowPrivateHosts: false, requestTimeoutMs: 500, totalTimeoutMs: 1000 },
    },
    {},
    { logger: logs.logger },
  );
  admin = await server.bootstrap("Hostile org");
  ids.organizationId = admin.organizationId;
  ids.userId = admin.userId;
  const organization = admin.organizationId;
  ids.collectionId = (
    await gql(`mutation($i: CreateCollectionInput!) { createCollection(input: $i) { collection { id } } }`, {
      i: { organization, title: "Coll" },
    })
  )?.createCollection.collection.id;
  ids.spaceId = (
    await gql(`mutation($i: CreateSpaceInput!) { createSpace(input: $i) { space { id } } }`, { i: { organization, title: "Space" } })
  )?.createSpace.space.id;
  ids.pageId = (
    await gql(`mutation($i: CreatePageInput!) { createPage(input: $i) { page { id } } }`, {
      i: { space: ids.spaceId, title: "Page", markdown: "Hello\n" },
    })
  )?.createPage.page.id;
  ids.teamId = (
    await gql(`mutation($i: CreateTeamInput!) { createTeam(input: $i) { team { id } } }`, { i: { organization, title: "Team" } })
  )?.createTeam.team.id;
  const changeRequest = await server.rest(admin.token, "POST", `/v1/spaces/${ids.spaceId}/change-requests`, { subject: "CR" });
  ids.changeRequestId = changeRequest.body?.id;
  const comment = await server.rest(admin.token, "POST", `/v1/spaces/${ids.spaceId}/comments`, { body: { markdown: "Hi" } });
  ids.commentId = comment.body?.id;
  const site = await server.rest(admin.token, "POST", `/v1/orgs/${organization}/sites`, { title: "Site" });
  ids.siteId = site.body?.id;
  tables = (
    await server.database.prisma.$queryRawUnsafe<{ tablename: string }[]>(
      `SELECT tablename::text AS tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    )
  )
    .map((row) => row.tablename)
    .filter((table) => !VOLATILE.test(table));
}, 60_000);

/** Statuses seen, per surface, printed at the end: a run that only ever saw 401s would prove little. */
const seen: Record<string, Record<number, number>> = { rest: {}, graphql: {} };
const count = (surface: "rest" | "graphql", status: number) => {
  seen[surface][status] = (seen[surface][status] ?? 0) + 1;
};

afterAll(async () => {
  console.log(`statuses seen: ${JSON.stringify(seen)}; tables compared: ${tables.length}`);
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// REST: every route of the table
// ---------------------------------------------------------------------------------------------

/** Deletions last (and the organization's own last of all), so earlier routes find the seeded rows. */
const orderedRoutes = [...routes].sort(
  (a, b) =>
    Number(a.method === "DELETE") - Number(b.method === "DELETE") ||
    Number(a.path === "/v1/orgs/:organizationId") - Number(b.path === "/v1/orgs/:organizationId"),
);

describe("REST routes with hostile inputs", () => {
  for (const route of orderedRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
      const paramsArbitrary = fc.tuple(...params.map((name) => segment(ids[name])));
      const queryArbitrary = fc.array(
        fc.tuple(fc.constantFrom(...Object.keys(route.query ?? {}), "page", "limit", "unknown"), segment(undefined)),
        { maxLength: 3 },
      );
      const withBody = route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
      await fc.assert(
        fc.asyncProperty(
          paramsArbitrary,
          queryArbitrary,
          withBody ? body : fc.constant(undefined),
          authorization,
          async (values, query, payload, auth) => {
            let path = route.path;
            params.forEach((name, index) => {
              path = path.replace(`:${name}`, values[index]);
            });
            const search = query.map(([key, value]) => `${key}=${value}`).join("&");
            const url = `${server.url}${path}${search ? `?${search}` : ""}`;
            const describeRequest = () => `${route.method} ${url.slice(0, 300)} body ${String(payload).slice(0, 300)}`;
            const response = await fetch(url, {
              method: route.method,
              headers: {
                ...(payload !== undefined ? { "content-type": "application/json" } : {}),
                ...(auth ? { authorization: auth } : {}),
              },
              body: payload,
            });
            const text = await response.text();
            count("rest", response.status);
            // A "." or ".." segment is removed by the client before sending (WHATWG URL), so the
            // request may name another published operation: one not built answers its 501 envelope.
            const movedElsewhere = path.split("/").some((part) => /^(\.|%2e){1,2}$/i.test(part));
            const unbuilt = response.status === 501 && /is part of the published API but not built in this service/.test(text);
            if (!(movedElsewhere && unbuilt)) expect(response.status, `${describeRequest()} → ${text.slice(0, 300)}`).toBeLessThan(500);
            if (response.status >= 400) {
              expect(response.headers.get("content-type"), describeRequest()).toMatch(/^application\/json/);
              expect(JSON.parse(text), describeRequest()).toEqual({ error: { code: response.status, message: expect.any(String) } });
            }
            await checkUnchangedOnRefusal(response.status >= 400, describeRequest);
          },
        ),
        { numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// GraphQL: every mutation of the schema
// ---------------------------------------------------------------------------------------------

const ALL_IDS = () => Object.values(ids).filter(Boolean);

/** A value for `type`: mostly well typed with hostile leaves, sometimes of the wrong type. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  // Wrong types are rare per value, since one anywhere refuses the whole request before it runs.
  const wrong = { weight: 1, arbitrary: json };
  if (isNonNullType(type))
    return fc.oneof({ weight: 30, arbitrary: valueFor(type.ofType, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  if (depth > 4) return fc.constant(null);
  if (isListType(type))
    return fc.oneof({ weight: 20, arbitrary: fc.array(valueFor(type.ofType, depth + 1), { maxLength: 3 }) }, wrong, {
      weight: 1,
      arbitrary: fc.constant(Array.from({ length: 1000 }, () => "x")),
    });
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const record = fc.record(Object.fromEntries(fields.map((field) => [field.name, valueFor(field.type, depth + 1)])), {
      requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
    });
    return fc.oneof({ weight: 20, arbitrary: record }, wrong);
  }
  if (isEnumType(type))
    return fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...type.getValues().map((value) => value.name)) },
      { weight: 1, arbitrary: hostileString },
    );
  switch (getNamedType(type).name) {
    case "ID":
      return fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...ALL_IDS()) }, { weight: 8, arbitrary: hostileString }, wrong);
    case "Int":
    case "Float":
      return fc.oneof({ weight: 20, arbitrary: hostileNumber }, wrong);
    case "Boolean":
      return fc.oneof({ weight: 20, arbitrary: fc.boolean() }, wrong);
    case "String":
      return fc.oneof({ weight: 20, arbitrary: hostileString }, wrong);
    default:
      return json; // custom scalars (JSON, DateTime, …)
  }
}

const printType = (type: GraphQLInputType): string => type.toString();

const mutations = Object.values(schema.getMutationType()?.getFields() ?? {}).sort(
  (a, b) => Number(/^delete/.test(a.name)) - Number(/^delete/.test(b.name)),
);

describe("GraphQL mutations with hostile inputs", () => {
  for (const field of mutations) {
    it(field.name, async () => {
      const args: readonly GraphQLArgument[] = field.args;
      const definitions = args.map((arg, index) => `$a${index}: ${printType(arg.type)}`).join(", ");
      const call = args.map((arg, index) => `${arg.name}: $a${index}`).join(", ");
      const selection = isCompositeType(getNamedType(field.type)) ? " { __typename }" : "";
      const query = `mutation${definitions ? `(${definitions})` : ""} { ${field.name}${call ? `(${call})` : ""}${selection} }`;
      await fc.assert(
        fc.asyncProperty(fc.tuple(...args.map((arg) => valueFor(arg.type))), authorization, async (values, auth) => {
          const variables = Object.fromEntries(values.map((value, index) => [`a${index}`, value]));
          const payload = JSON.stringify({ query, variables });
          const describeRequest = () => `${field.name} ${payload.slice(0, 400)}`;
          const response = await fetch(`${server.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
            body: payload,
          });
          const text = await response.text();
          count("graphql", response.status);
          expect(response.status, `${describeRequest()} → ${text.slice(0, 300)}`).toBeLessThan(500);
          const result = JSON.parse(text) as {
            data?: Record<string, unknown> | null;
            errors?: { message: string; extensions?: { code?: string } }[];
          };
          for (const error of result.errors ?? []) {
            expect(error.extensions?.code, `${describeRequest()} → ${text.slice(0, 300)}`).toEqual(expect.any(String));
            expect(error.extensions?.code, describeRequest()).not.toBe("INTERNAL_SERVER_ERROR");
          }
          const refused = !!result.errors?.length && result.data?.[field.name] == null;
          if (refused) expect(response.status, describeRequest()).toBeGreaterThanOrEqual(400);
          await checkUnchangedOnRefusal(refused, describeRequest);
        }),
        { numRuns: RUNS_PER_MUTATION, endOnFailure: true },
      );
    });
  }
});

describe("the log of the whole hostile run", () => {
  it("has no error line and no line over 4 KB for a refused request", () => {
    const refusals = logs.lines().filter((line) => typeof line.status === "number" && line.status >= 400 && line.status < 500);
    expect(refusals.length).toBeGreaterThan(100);
    expect(refusals.filter((line) => line.level === "error")).toEqual([]);
    expect(
      logs
        .raw()
        .filter((line) => line.length > 4096 && /"status":4\d\d/.test(line))
        .map((line) => line.slice(0, 300)),
    ).toEqual([]);
    expect(
      logs
        .lines()
        .filter((line) => line.level === "error")
        .map((line) => line.msg),
    ).toEqual([]);
  });
});
