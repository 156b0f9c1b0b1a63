// How the REST engine hands a row's variables to the operation (graphql-jit through Yoga's
// pipeline), on a schema of its own so that no resolver fallback hides it: a parameter left out
// of the request leaves its variable out, so the schema's argument and input-field defaults
// apply, as they do for the same operation over GraphQL (JSON has no undefined).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSchema, createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedValues, useRestAdapter } from "../rest-adapter/index.ts";
import type { RestRoute } from "../rest-adapter/route.ts";
import { routes } from "../rest-adapter/routes/index.ts";
import { schema as realSchema } from "../src/graphql/schema.ts";
import { findOperation, getSpec } from "./support/openapi.ts";

const schema = createSchema({
  typeDefs: /* GraphQL */ `
    enum Order { ASC DESC }
    input Filter { kind: String = "document", title: String }
    type Query { echo(order: Order = DESC, nested: Boolean = true, filter: Filter, tags: [String]): String! }
  `,
  resolvers: { Query: { echo: (_root: unknown, args: unknown) => JSON.stringify(args) } },
});

const echo: RestRoute = {
  method: "GET",
  path: "/v1/echo",
  action: "viewer",
  query: { order: "string", nested: "boolean", title: "string" },
  document: `query Echo($order: Order, $nested: Boolean, $filter: Filter) { echo(order: $order, nested: $nested, filter: $filter) }`,
  // As rows write it: an absent parameter is an undefined value, at the top and inside an input.
  variables: ({ query }) => ({ order: query.order, nested: query.nested, filter: { kind: undefined, title: query.title } }),
  status: 200,
  body: (data) => JSON.parse((data as { echo: string }).echo),
};

let server: Server;
let url: string;

beforeAll(async () => {
  const yoga = createYoga({ schema, plugins: [useRestAdapter([echo])], logging: false });
  server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string) {
  const response = await fetch(url + path);
  return { status: response.status, body: await response.json() };
}

describe("REST variables and the schema's defaults", () => {
  it("applies the argument and input-field defaults when the parameters are absent, as GraphQL does", async () => {
    const rest = await get("/v1/echo");
    expect(rest).toEqual({ status: 200, body: { order: "DESC", nested: true, filter: { kind: "document" } } });
    const graphql = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: echo.document, variables: { filter: {} } }),
    });
    expect(JSON.parse((await graphql.json()).data.echo)).toEqual(rest.body);
  });

  it("passes the values given", async () => {
    const rest = await get("/v1/echo?order=ASC&nested=false&title=Intro");
    expect(rest).toEqual({ status: 200, body: { order: "ASC", nested: false, filter: { kind: "document", title: "Intro" } } });
  });

  it("keeps null (an explicit value) and turns undefined list items into null, as JSON does", () => {
    expect(definedValues({ a: undefined, b: null, c: [undefined, { d: undefined, e: 1 }], f: { g: undefined } })).toEqual({
      b: null,
      c: [null, { e: 1 }],
      f: {},
    });
    const date = new Date(0);
    expect(definedValues({ date }).date).toBe(date);
  });
});

describe("rows of the real table whose variables feed an argument with a default", () => {
  // Every such row: its parameter, when absent, must leave the variable out (the engine does it).
  it("are the ones listed here, so a new one is looked at", async () => {
    const { parse, TypeInfo, visit, visitWithTypeInfo, Kind } = await import("graphql");
    const fed: string[] = [];
    for (const route of routes) {
      const info = new TypeInfo(realSchema);
      visit(
        parse(route.document),
        visitWithTypeInfo(info, {
          Argument(node) {
            const argument = info.getArgument();
            if (node.value.kind === Kind.VARIABLE && argument?.defaultValue !== undefined) {
              fed.push(`${route.method} ${route.path} ${info.getParentType()?.name}.${info.getFieldDef()?.name}(${argument.name})`);
            }
          },
        }),
      );
    }
    expect(fed.sort()).toEqual(
      [
        "GET /v1/orgs/:organizationId/change-requests Organization.changeRequests(finding)",
        "GET /v1/orgs/:organizationId/change-requests Organization.changeRequests(orderBy)",
        "GET /v1/orgs/:organizationId/change-requests Organization.changeRequests(status)",
        "GET /v1/orgs/:organizationId/collections Organization.collections(nested)",
        "GET /v1/orgs/:organizationId/members Organization.members(order)",
        "GET /v1/orgs/:organizationId/members Organization.members(sort)",
        "GET /v1/orgs/:organizationId/members/:userId/spaces Member.spaceAccess(order)",
        "GET /v1/orgs/:organizationId/sites/:siteId/permissions/aggregate Site.usersWithAccess(order)",
        "GET /v1/orgs/:organizationId/sites/:siteId/permissions/aggregate Site.usersWithAccess(sort)",
        "GET /v1/spaces/:spaceId/change-requests Space.changeRequests(status)",
        "GET /v1/spaces/:spaceId/change-requests Space.changeRequests(orderBy)",
        "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/comments ContentTarget.comments(order)",
        "GET /v1/spaces/:spaceId/change-requests/:changeRequestId/comments ContentTarget.comments(status)",
        "GET /v1/spaces/:spaceId/comments ContentTarget.comments(order)",
        "GET /v1/spaces/:spaceId/comments ContentTarget.comments(status)",
      ].sort(),
    );
  });
});

describe("published query parameters", () => {
  // A parameter the published API documents on an operation we serve must be read by its row
  // (else the engine drops it without a word). Those read but with nothing to do here are listed
  // in the README (metadata, computed, cachedMetadata, evaluated, dereferenced, unmasked).
  it("every one of every served operation is declared by its row", () => {
    const spec = getSpec() as unknown as {
      paths: Record<string, Record<string, { parameters?: { $ref?: string; in?: string; name?: string }[] }>>;
      components: { parameters: Record<string, { in: string; name: string }> };
    };
    const ignored: string[] = [];
    let served = 0;
    for (const route of routes) {
      const sample = route.path.replace(/:[A-Za-z]+/g, "x").replace(/\*$/, "x/y");
      const operation = findOperation(route.method, sample);
      if (!operation) continue;
      served++;
      const item = spec.paths[operation.template];
      const parameters = [...((item as { parameters?: [] }).parameters ?? []), ...(item[operation.method].parameters ?? [])].map(
        (parameter) => (parameter.$ref ? spec.components.parameters[parameter.$ref.split("/").pop()!] : parameter),
      );
      for (const parameter of parameters) {
        if (parameter.in === "query" && !(parameter.name! in (route.query ?? {}))) {
          ignored.push(`${route.method} ${route.path} ${parameter.name}`);
        }
      }
    }
    expect(served).toBeGreaterThan(200);
    expect(ignored).toEqual([]);
  });
});
