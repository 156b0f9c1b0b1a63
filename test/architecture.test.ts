// The layering rules that the code review relies on, checked over the source tree with TypeScript's
// own parser: settings only from the composition root, imports that run one way
// (http -> graphql -> core -> db; infra behind interfaces that core declares), no import circles,
// and no state at module level.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

interface Source {
  path: string;
  text: string;
  ast: ts.SourceFile;
}

function sources(dir: string): Source[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith("src/generated/"))
    .sort()
    .map((path) => {
      const text = readFileSync(join(ROOT, path), "utf8");
      return { path, text, ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) };
    });
}

const src = sources("src");
const all = [...src, ...sources("rest-adapter")];

interface Import {
  /** The specifier as written. */
  specifier: string;
  /** The file it names, relative to the repository, for a relative specifier. */
  target: string | undefined;
  /** Erased by TypeScript (`import type`, or every name marked `type`): no edge at run time. */
  typeOnly: boolean;
}

/** Static imports, re-exports and dynamic `import("…")` of one file. */
function importsOf({ path, ast }: Source): Import[] {
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) =>
    found.push({
      specifier,
      target: specifier.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(path), specifier)) : undefined,
      typeOnly,
    });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = Boolean(
        clause && (clause.isTypeOnly || (!clause.name && named && named.length > 0 && named.every((element) => element.isTypeOnly))),
      );
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return found;
}

const imports = new Map(src.map((source) => [source.path, importsOf(source)] as const));

/** Each file of `from` and what it imports from under `to` (a folder, or a package name with `pkg:`). */
function importsInto(from: (path: string) => boolean, to: (entry: Import) => boolean, { runtimeOnly = false } = {}): string[] {
  const offenders: string[] = [];
  for (const [path, list] of imports) {
    if (!from(path)) continue;
    for (const entry of list)
      if (to(entry) && !(runtimeOnly && entry.typeOnly)) offenders.push(`${path} -> ${entry.target ?? entry.specifier}`);
  }
  return offenders;
}

const under =
  (...folders: string[]) =>
  (path: string) =>
    folders.some((folder) => path.startsWith(`${folder}/`));
const into =
  (...folders: string[]) =>
  (entry: Import) =>
    entry.target !== undefined && folders.some((folder) => entry.target!.startsWith(`${folder}/`));

describe("configuration", () => {
  it("is read from the environment only in src/config.ts", () => {
    expect(all.filter(({ text }) => text.includes("process.env")).map(({ path }) => path)).toEqual(["src/config.ts"]);
  });

  it("keeps no mutable variable at module level", () => {
    expect(all.filter(({ text }) => /^(export )?let /m.test(text)).map(({ path }) => path)).toEqual([]);
  });
});

describe("layers", () => {
  it("core (auth included) and db import nothing from graphql, http, infra or the REST adapter", () => {
    // Infrastructure (the workerd sandbox, the HTML worker) is reached through interfaces that core
    // declares (src/core/integrations/sandbox.ts, src/core/import/html.ts) and src/app.ts fills.
    expect(
      importsInto(under("src/core", "src/db"), into("src/graphql", "src/http", "src/infra", "rest-adapter"), { runtimeOnly: false }),
    ).toEqual([]);
  });

  it("db imports nothing from core", () => {
    expect(importsInto(under("src/db"), into("src/core"))).toEqual([]);
  });

  it("infra imports nothing from graphql, http or the REST adapter", () => {
    expect(importsInto(under("src/infra"), into("src/graphql", "src/http", "rest-adapter"))).toEqual([]);
  });

  it("GraphQL reaches the database only through core: no Prisma client at run time", () => {
    // Row types of the generated client (`import type`) are the shapes core hands out, and allowed;
    // a value (the client, `Prisma.sql`, an enum object) is not.
    const prisma = (entry: Import) => entry.specifier.startsWith("@prisma/") || (entry.target?.startsWith("src/generated/prisma") ?? false);
    expect(importsInto(under("src/graphql"), prisma, { runtimeOnly: true })).toEqual([]);
  });

  it("GraphQL imports from db, http and the REST adapter only what is listed", () => {
    // Each with why; the list may only shrink.
    expect(importsInto(under("src/graphql"), into("src/db", "src/http", "rest-adapter"))).toEqual([
      // The execution deadline cancels the statements an operation started, and error masking
      // tells a cancelled statement from a failure: both need the database's statement scope.
      "src/graphql/plugins/use-compiled-execution.ts -> src/http/request-url.ts", // the request's path, parsed as the HTTP surfaces parse it
      "src/graphql/plugins/use-error-masking.ts -> src/db/statement-scope.ts",
      "src/graphql/plugins/use-execution-deadline.ts -> src/db/statement-scope.ts",
      "src/graphql/plugins/use-graphql-limits.ts -> src/http/body.ts", // the request body, read within the same size bound as the HTTP surfaces
      "src/graphql/plugins/use-graphql-limits.ts -> src/http/request-url.ts",
    ]);
  });

  it("http imports no module of src/graphql", () => {
    // It serves pages, files and endpoints beside the GraphQL pipeline, not inside it. (The
    // `graphql` package itself, for error types, is fine.)
    expect(importsInto(under("src/http"), into("src/graphql"))).toEqual([]);
  });

  it("core and GraphQL never import the REST adapter", () => {
    expect(importsInto((path) => path !== "src/app.ts" && path.startsWith("src/"), into("rest-adapter"))).toEqual([]);
  });
});

/** The strongly connected components (Tarjan) with more than one file, or a file importing itself. */
function circles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || edges.get(file)?.includes(file)) found.push(component.sort());
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) connect(file);
  return found;
}

describe("import circles", () => {
  it("finds a circle where there is one (the check itself)", () => {
    const edges = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(circles(edges)).toEqual([["a", "b", "c"], ["e"]]);
  });

  // Type-only imports count too: TypeScript erases them, but a reader still has to hold the whole
  // circle in mind (context.ts once named 40 files' types through the services they define).
  it("are none in src, type-only imports included", () => {
    const edges = new Map(
      [...imports].map(([path, list]) => [
        path,
        list.filter((entry) => entry.target && imports.has(entry.target)).map((entry) => entry.target!),
      ]),
    );
    expect(circles(edges)).toEqual([]);
  });
});

/**
 * Collections created at module level. Per-request state belongs on the request's context, caches
 * in Services (issue 27): a module-level Map/Set/WeakMap is shared by every app in the process.
 * A lookup table filled once and typed `ReadonlySet`/`ReadonlyMap` is a constant and allowed;
 * every other one is listed here with why it is still there. The list may only shrink.
 */
const MODULE_COLLECTIONS: Record<string, string> = {
  // Memo tables of values derived from immutable inputs: to move into Services.
  "src/core/content/index.ts pageIndexes": "memo: page index of an immutable revision (weak)",
  "src/core/links/refs.ts resolvers": "memo: link resolver of an immutable revision (weak)",
  "src/db/pglite-prepared.ts planOnceTexts": "memo: statements planned once, the same for every PGlite",
  "src/core/sites/adaptive.ts unsignedValidators": "memo: compiled JSON Schema validators (weak)",
  // Caches keyed by the Prisma client: to move into Services.
  "src/db/raw-query.ts adapters": "cache per Prisma client: its driver adapter's prepared reads",
  // Process-wide by nature.
  "src/db/data-dir-lock.ts heldLocks": "process-wide: data directories this process holds locked (one process per directory)",
};

const COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);

/** `<path> <name>` of each module-level `new Map/Set/WeakMap/WeakSet` not typed as read-only. */
function moduleCollections({ path, ast }: Source): string[] {
  const found: string[] = [];
  for (const statement of ast.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isNewExpression(init) || !ts.isIdentifier(init.expression) || !COLLECTIONS.has(init.expression.text)) continue;
      const type = declaration.type?.getText(ast) ?? "";
      if (/^Readonly(Set|Map)</.test(type)) continue;
      found.push(`${path} ${declaration.name.getText(ast)}`);
    }
  }
  return found;
}

describe("module state", () => {
  it("finds a module-level collection (the check itself)", () => {
    const text =
      "const a = new Map();\nconst b: ReadonlySet<string> = new Set(['x']);\nexport const c = new WeakMap<object, number>();\nfunction f() { const d = new Set(); return d; }\n";
    const source = { path: "x.ts", text, ast: ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true) };
    expect(moduleCollections(source)).toEqual(["x.ts a", "x.ts c"]);
  });

  it("has no module-level Map/Set/WeakMap beyond the listed ones, and every listed one still exists", () => {
    expect(all.flatMap(moduleCollections).sort()).toEqual(Object.keys(MODULE_COLLECTIONS).sort());
  });
});
