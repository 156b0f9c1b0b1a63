// The layering rules that the code review relies on, checked over the source tree: settings only
// from the composition root, GraphQL and core independent of the REST adapter, no module state.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith("src/generated/"))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
}

const all = [...sources("src"), ...sources("rest-adapter")];

describe("configuration", () => {
  it("is read from the environment only in src/config.ts", () => {
    expect(all.filter(({ text }) => text.includes("process.env")).map(({ path }) => path)).toEqual(["src/config.ts"]);
  });

  it("keeps no mutable state at module level", () => {
    expect(all.filter(({ text }) => /^(export )?let /m.test(text)).map(({ path }) => path)).toEqual([]);
  });
});

describe("layers", () => {
  it("core and GraphQL never import the REST adapter", () => {
    const offenders = sources("src").filter(({ path, text }) => path !== "src/app.ts" && /from "[./]*\/rest-adapter\//.test(text));
    expect(offenders.map(({ path }) => path)).toEqual([]);
  });
});
