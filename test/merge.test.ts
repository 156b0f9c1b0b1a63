// Unit tests of the three-way content merge (src/core/change-requests/merge.ts): pages, tree,
// sibling order, bodies line by line, files, reusable contents, variables. No database.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bodiesNeeded, mergeContent, type MergeResult } from "../src/core/change-requests/merge.ts";
import { flatten, type Content, type FileEntry, type PageNode, type ReusableContentEntry } from "../src/core/content/tree.ts";

const T0 = "2026-01-01T00:00:00.000Z";
const T_OURS = "2026-01-02T00:00:00.000Z";
const T_THEIRS = "2026-01-03T00:00:00.000Z";
const NOW = "2026-01-10T00:00:00.000Z";

/** Markdown by hash: every body hashed in these tests, merged ones included. */
const blobs = new Map<string, string>();
const hash = (markdown: string) => {
  const sha = createHash("sha256").update(markdown).digest("hex");
  blobs.set(sha, markdown);
  return sha;
};

/** mergeContent as a caller runs it: markdown is only available for the hashes bodiesNeeded lists. */
function merge(base: Content, ours: Content, theirs: Content): MergeResult {
  const needed = bodiesNeeded(base, ours, theirs);
  const markdownOf = (sha: string) => {
    if (!needed.includes(sha)) throw new Error(`markdown of ${sha} was asked for but not listed by bodiesNeeded`);
    return blobs.get(sha)!;
  };
  return mergeContent(base, ours, theirs, markdownOf, hash, NOW);
}

function merged(base: Content, ours: Content, theirs: Content): Content {
  const result = merge(base, ours, theirs);
  if (!result.ok) throw new Error(`expected a merge, got conflicts: ${JSON.stringify(result.conflicts)}`);
  return result.content;
}

function conflicts(base: Content, ours: Content, theirs: Content) {
  const result = merge(base, ours, theirs);
  if (result.ok) throw new Error("expected conflicts, the merge went through");
  expect(result).not.toHaveProperty("content");
  return result.conflicts;
}

/** A page with defaults: a document titled after its id, slug = id, markdown "# id". */
function page(id: string, fields: Partial<PageNode> & { markdown?: string } = {}): PageNode {
  const { markdown, ...rest } = fields;
  const kind = rest.kind ?? "document";
  return {
    id,
    kind,
    title: id.toUpperCase(),
    slug: id,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    ...(kind === "document" ? { body: hash(markdown ?? `# ${id}\n`) } : {}),
    createdAt: T0,
    updatedAt: T0,
    pages: [],
    ...rest,
  };
}

const file = (id: string, fields: Partial<FileEntry> = {}): FileEntry => ({
  id,
  name: `${id}.png`,
  contentType: "image/png",
  size: 10,
  blob: hash(`bytes of ${id}`),
  ...fields,
});

const reusable = (id: string, markdown: string, fields: Partial<ReusableContentEntry> = {}): ReusableContentEntry => ({
  id,
  title: `Snippet ${id}`,
  body: hash(markdown),
  createdAt: T0,
  updatedAt: T0,
  ...fields,
});

const LINES = ["# A", "", "one", "two", "three", "four", "five", "six", ""];
const lines = (changes: Record<number, string> = {}) => LINES.map((line, index) => changes[index + 1] ?? line).join("\n");

/**
 *   a  (markdown LINES)
 *   ├ b
 *   └ c
 *   d
 *   e
 */
function sample(): Content {
  return {
    pages: [page("a", { markdown: lines(), pages: [page("b"), page("c")] }), page("d"), page("e")],
    files: [file("f1"), file("f2")],
    reusableContents: [reusable("r1", lines())],
    variables: { x: "1", y: "2" },
  };
}

// Editing a copy by hand.

/** A copy of `content` after `change`, which may mutate the copy. */
function edit(content: Content, change: (copy: Content) => void): Content {
  const copy = structuredClone(content);
  change(copy);
  return copy;
}

const at = (content: Content, id: string): PageNode => flatten(content.pages).find((located) => located.page.id === id)!.page;

function siblings(content: Content, parent: string | null): PageNode[] {
  return parent === null ? content.pages : at(content, parent).pages;
}

function remove(content: Content, id: string): PageNode {
  const { parentId } = flatten(content.pages).find((located) => located.page.id === id)!;
  const list = siblings(content, parentId);
  return list.splice(
    list.findIndex((sibling) => sibling.id === id),
    1,
  )[0];
}

function insert(content: Content, parent: string | null, node: PageNode, index?: number) {
  const list = siblings(content, parent);
  list.splice(index ?? list.length, 0, node);
}

function move(content: Content, id: string, parent: string | null, index?: number) {
  insert(content, parent, { ...remove(content, id), updatedAt: T_OURS }, index);
}

/** The tree as nested ids. */
const shape = (pages: PageNode[]): unknown[] => pages.map((node) => (node.pages.length ? { [node.id]: shape(node.pages) } : node.id));
const markdownOfPage = (content: Content, id: string) => blobs.get(at(content, id).body!);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe("pages", () => {
  it("combines edits to different pages, each with the updatedAt of its side", () => {
    const base = sample();
    const ours = edit(base, (c) => Object.assign(at(c, "b"), { title: "Bee", updatedAt: T_OURS }));
    const theirs = edit(base, (c) => Object.assign(at(c, "d"), { body: hash("# new d\n"), emoji: "🚀", updatedAt: T_THEIRS }));
    const result = merged(base, ours, theirs);
    expect(at(result, "b")).toMatchObject({ title: "Bee", updatedAt: T_OURS });
    expect(at(result, "d")).toMatchObject({ body: hash("# new d\n"), emoji: "🚀", updatedAt: T_THEIRS });
    expect(shape(result.pages)).toEqual([{ a: ["b", "c"] }, "d", "e"]);
  });

  it("stamps a page both sides changed with the time of the side it equals, else now", () => {
    const base = sample();
    const ours = edit(base, (c) => Object.assign(at(c, "c"), { title: "Cee", updatedAt: T_OURS }));
    // A reorder only bumps updatedAt: the merged page is ours' change.
    const theirs = edit(base, (c) => Object.assign(at(c, "c"), { updatedAt: T_THEIRS }));
    expect(at(merged(base, ours, theirs), "c")).toMatchObject({ title: "Cee", updatedAt: T_OURS });
    expect(at(merged(base, theirs, ours), "c")).toMatchObject({ title: "Cee", updatedAt: T_OURS });

    const theirsHidden = edit(base, (c) => Object.assign(at(c, "c"), { hidden: true, updatedAt: T_THEIRS }));
    expect(at(merged(base, ours, theirsHidden), "c")).toMatchObject({ title: "Cee", hidden: true, updatedAt: NOW });
  });

  it("merges changes to different lines of one page into a new body", () => {
    const base = sample();
    const ours = edit(base, (c) => Object.assign(at(c, "a"), { body: hash(lines({ 3: "ONE" })), updatedAt: T_OURS }));
    const theirs = edit(base, (c) => Object.assign(at(c, "a"), { body: hash(lines({ 7: "FIVE" })), updatedAt: T_THEIRS }));
    const result = merge(base, ours, theirs);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const expected = ["# A", "", "ONE", "two", "three", "four", "FIVE", "six", ""].join("\n");
    expect(markdownOfPage(result.content, "a")).toBe(expected);
    expect(at(result.content, "a")).toMatchObject({ body: hash(expected), createdAt: T0, updatedAt: NOW });
    expect(result.newBodies).toEqual([expected]);

    // A merged body some page already has is no new body; two pages merging the same, one.
    const oursHasIt = edit(ours, (c) => (at(c, "e").body = hash(expected)));
    expect(merge(base, oursHasIt, theirs)).toMatchObject({ ok: true, newBodies: [] });
    const both = (content: Content, changes: Record<number, string>) =>
      edit(content, (c) => ["a", "d"].forEach((id) => (at(c, id).body = hash(lines(changes)))));
    const baseBoth = both(base, {});
    expect(merge(baseBoth, both(baseBoth, { 3: "ONE" }), both(baseBoth, { 7: "FIVE" }))).toMatchObject({ ok: true, newBodies: [expected] });
  });

  it("refuses changes to the same lines, naming the page and ours' lines", () => {
    const base = sample();
    const ours = edit(base, (c) => Object.assign(at(c, "b"), { body: hash("# b\nours\n") }));
    const theirs = edit(base, (c) => Object.assign(at(c, "b"), { body: hash("# b\ntheirs\n") }));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "b", title: "B", path: "a/b", reason: "changed on both sides: markdown line 2" },
    ]);

    const oursLines = edit(base, (c) => (at(c, "a").body = hash(lines({ 4: "2", 5: "3" }))));
    const theirsLines = edit(base, (c) => (at(c, "a").body = hash(lines({ 5: "tres" }))));
    expect(conflicts(base, oursLines, theirsLines)).toEqual([
      { kind: "page", id: "a", title: "A", path: "a", reason: "changed on both sides: markdown lines 4-5" },
    ]);
  });

  it("refuses a field changed differently on both sides, and takes one changed the same way", () => {
    const base = sample();
    const ours = edit(base, (c) => Object.assign(at(c, "c"), { title: "Ours", layout: { cover: true, outline: false } }));
    const theirs = edit(base, (c) => Object.assign(at(c, "c"), { title: "Theirs", layout: { outline: false, cover: true } }));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "c", title: "Ours", path: "a/c", reason: "changed on both sides: title" },
    ]);

    // Same title on both sides; layouts equal but for key order.
    const theirsSame = edit(theirs, (c) => (at(c, "c").title = "Ours"));
    expect(at(merged(base, ours, theirsSame), "c")).toMatchObject({ title: "Ours", layout: { cover: true, outline: false } });
  });

  it("deletes a page deleted on one side and left unchanged on the other", () => {
    const base = sample();
    const ours = edit(base, (c) => remove(c, "c"));
    const theirs = edit(base, (c) => {
      remove(c, "a"); // with b and c
      at(c, "e").title = "Eee";
    });
    expect(shape(merged(base, ours, theirs).pages)).toEqual(["d", "e"]);
  });

  it("refuses a page deleted on one side and changed on the other, and a subtree deleted around a changed page", () => {
    const base = sample();
    const ours = edit(base, (c) => remove(c, "e"));
    const theirs = edit(base, (c) => (at(c, "e").title = "Eee"));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "e", title: "Eee", path: "e", reason: "deleted on one side and changed on the other" },
    ]);

    const oursDeletesA = edit(base, (c) => remove(c, "a"));
    const theirsEditsC = edit(base, (c) => (at(c, "c").hidden = true));
    expect(conflicts(base, oursDeletesA, theirsEditsC)).toEqual([
      { kind: "page", id: "c", title: "C", path: "a/c", reason: "deleted on one side and changed on the other" },
    ]);
  });

  it("keeps pages added on each side; at the same spot ours' come first", () => {
    const base = sample();
    const ours = edit(base, (c) => {
      insert(c, null, page("x"));
      insert(c, "a", page("x1"), 0);
    });
    const theirs = edit(base, (c) => {
      insert(c, null, page("y"));
      insert(c, "a", page("y1"));
    });
    expect(shape(merged(base, ours, theirs).pages)).toEqual([{ a: ["x1", "b", "c", "y1"] }, "d", "e", "x", "y"]);
  });

  it("takes a page both sides added the same, and refuses one they added differently", () => {
    const base = sample();
    const ours = edit(base, (c) => insert(c, null, page("n")));
    const theirs = edit(base, (c) => insert(c, null, page("n")));
    expect(shape(merged(base, ours, theirs).pages)).toEqual([{ a: ["b", "c"] }, "d", "e", "n"]);

    const theirsOther = edit(base, (c) => insert(c, "a", page("n", { title: "Other" })));
    expect(conflicts(base, ours, theirsOther)).toEqual([
      {
        kind: "page",
        id: "n",
        title: "N",
        path: "n",
        reason: "added on both sides with different title; added under different parents on both sides",
      },
    ]);
  });

  it("refuses a page added or moved under a page deleted on the other side", () => {
    const base = sample();
    const ours = edit(base, (c) => remove(c, "a"));
    const theirs = edit(base, (c) => {
      insert(c, "b", page("new"));
      move(c, "e", "c");
    });
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "e", title: "E", path: "e", reason: "moved under a page deleted on the other side" },
      { kind: "page", id: "new", title: "NEW", path: "a/b/new", reason: "added under a page deleted on the other side" },
    ]);
  });

  it("moves a page moved on one side, and refuses moves to different parents on both sides", () => {
    const base = sample();
    const ours = edit(base, (c) => move(c, "b", "d"));
    expect(shape(merged(base, ours, base).pages)).toEqual([{ a: ["c"] }, { d: ["b"] }, "e"]);
    expect(shape(merged(base, base, ours).pages)).toEqual([{ a: ["c"] }, { d: ["b"] }, "e"]);

    const theirs = edit(base, (c) => move(c, "b", "e"));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "b", title: "B", path: "d/b", reason: "moved to different parents on both sides" },
    ]);
  });

  it("refuses crossing moves that would make a cycle", () => {
    const base = sample();
    const ours = edit(base, (c) => move(c, "d", "e"));
    const theirs = edit(base, (c) => move(c, "e", "d"));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "e", title: "E", path: "e", reason: "the merged tree would have a cycle" },
      { kind: "page", id: "d", title: "D", path: "e/d", reason: "the merged tree would have a cycle" },
    ]);
  });

  it("merges a reorder on one side with an insert on the other", () => {
    const base = sample();
    const ours = edit(base, (c) => move(c, "e", null, 0));
    const theirs = edit(base, (c) => insert(c, null, page("n"), 1));
    expect(shape(merged(base, ours, theirs).pages)).toEqual(["e", { a: ["b", "c"] }, "n", "d"]);
    expect(shape(merged(base, theirs, ours).pages)).toEqual(["e", { a: ["b", "c"] }, "n", "d"]);
  });

  it("refuses the theirs page when two pages would have the same path, groups adding no segment", () => {
    const base = sample();
    const ours = edit(base, (c) => insert(c, null, page("x", { slug: "guide" })));
    const theirs = edit(base, (c) => insert(c, null, page("y", { slug: "guide" })));
    expect(conflicts(base, ours, theirs)).toEqual([
      { kind: "page", id: "y", title: "Y", path: "guide", reason: 'two pages would have the same path "guide"' },
    ]);

    const theirsInGroup = edit(base, (c) =>
      insert(c, null, page("g", { kind: "group", slug: "guide", pages: [page("z", { slug: "guide" })] })),
    );
    expect(conflicts(base, ours, theirsInGroup)).toEqual([
      { kind: "page", id: "z", title: "Z", path: "guide", reason: 'two pages would have the same path "guide"' },
    ]);

    // Groups share their parent's path: no clash with it nor with each other.
    const oursGroup = edit(base, (c) => insert(c, "a", page("g1", { kind: "group", slug: "one" })));
    const theirsGroup = edit(base, (c) => insert(c, "a", page("g2", { kind: "group", slug: "two" })));
    expect(shape(merged(base, oursGroup, theirsGroup).pages)).toEqual([{ a: ["b", "c", "g1", "g2"] }, "d", "e"]);

    // The same slug under different parents is no clash.
    const theirsNested = edit(base, (c) => insert(c, "d", page("y", { slug: "guide" })));
    expect(flatten(merged(base, ours, theirsNested).pages).map((located) => located.path)).toContain("d/guide");
  });

  it("reports every conflict, pages in ours' tree order then theirs', then files, reusable contents, variables", () => {
    const base = sample();
    const ours = edit(base, (c) => {
      at(c, "e").title = "E1";
      at(c, "b").title = "B1";
      c.files[1].name = "ours.png";
      c.reusableContents![0].title = "Ours";
      c.variables!.x = "ours";
    });
    const theirs = edit(base, (c) => {
      at(c, "e").title = "E2";
      at(c, "b").title = "B2";
      insert(c, null, page("t", { slug: "e" }));
      c.files[1].name = "theirs.png";
      c.reusableContents![0].title = "Theirs";
      c.variables!.x = "theirs";
    });
    expect(conflicts(base, ours, theirs).map(({ kind, id }) => `${kind}:${id}`)).toEqual([
      "page:b",
      "page:e",
      "page:t",
      "file:f2",
      "reusableContent:r1",
      "variable:x",
    ]);
  });
});

describe("files, reusable contents and variables", () => {
  it("merges files by id: additions kept, deletions applied, conflicting changes refused", () => {
    const base = sample();
    const ours = edit(base, (c) => {
      c.files = c.files.filter((entry) => entry.id !== "f1");
      c.files.push(file("o1"));
    });
    const theirs = edit(base, (c) => {
      c.files.push(file("t1"), file("t2"));
      c.files[1].name = "renamed.png";
    });
    expect(merged(base, ours, theirs).files.map((entry) => [entry.id, entry.name])).toEqual([
      ["f2", "renamed.png"],
      ["o1", "o1.png"],
      ["t1", "t1.png"],
      ["t2", "t2.png"],
    ]);

    const theirsChangesF1 = edit(base, (c) => (c.files[0].size = 99));
    expect(conflicts(base, ours, theirsChangesF1)).toEqual([
      { kind: "file", id: "f1", reason: "deleted on one side and changed on the other" },
    ]);

    const oursChangesF2 = edit(base, (c) => (c.files[1].name = "mine.png"));
    expect(conflicts(base, oursChangesF2, theirs)).toEqual([{ kind: "file", id: "f2", reason: "changed on both sides" }]);
  });

  it("merges variables name by name", () => {
    const base = sample();
    const ours = edit(base, (c) => (c.variables = { x: "ours", y: "2" }));
    const theirs = edit(base, (c) => (c.variables = { x: "1", z: "3" }));
    expect(merged(base, ours, theirs).variables).toEqual({ x: "ours", z: "3" });

    const theirsChangesX = edit(base, (c) => (c.variables = { x: "theirs", y: "2" }));
    expect(conflicts(base, ours, theirsChangesX)).toEqual([{ kind: "variable", id: "x", reason: "changed on both sides" }]);
    const oursDeletesY = edit(base, (c) => (c.variables = { x: "1" }));
    const theirsChangesY = edit(base, (c) => (c.variables = { x: "1", y: "two" }));
    expect(conflicts(base, oursDeletesY, theirsChangesY)).toEqual([
      { kind: "variable", id: "y", reason: "deleted on one side and changed on the other" },
    ]);
  });

  it("merges reusable contents like pages: fields, then bodies line by line", () => {
    const base = sample();
    const ours = edit(base, (c) =>
      Object.assign(c.reusableContents![0], { title: "Renamed", body: hash(lines({ 3: "ONE" })), updatedAt: T_OURS }),
    );
    const theirs = edit(base, (c) => {
      Object.assign(c.reusableContents![0], { body: hash(lines({ 8: "SIX" })), updatedAt: T_THEIRS });
      c.reusableContents!.push(reusable("r2", "shared"));
    });
    const result = merge(base, ours, theirs);
    const expected = ["# A", "", "ONE", "two", "three", "four", "five", "SIX", ""].join("\n");
    expect(result).toEqual({
      ok: true,
      content: expect.objectContaining({
        reusableContents: [{ id: "r1", title: "Renamed", body: hash(expected), createdAt: T0, updatedAt: NOW }, reusable("r2", "shared")],
      }),
      newBodies: [expected],
    });

    const theirsSameLine = edit(base, (c) => (c.reusableContents![0].body = hash(lines({ 3: "uno" }))));
    expect(conflicts(base, ours, theirsSameLine)).toEqual([
      { kind: "reusableContent", id: "r1", title: "Renamed", reason: "changed on both sides: markdown line 3" },
    ]);
    const theirsDeletes = edit(base, (c) => (c.reusableContents = []));
    expect(conflicts(base, ours, theirsDeletes)).toEqual([
      { kind: "reusableContent", id: "r1", title: "Renamed", reason: "deleted on one side and changed on the other" },
    ]);
  });
});

describe("the merge as a whole", () => {
  /** Changes of every kind, on one side. */
  const busy = (base: Content) =>
    edit(base, (c) => {
      at(c, "a").body = hash(lines({ 3: "ONE" }));
      move(c, "c", "d");
      remove(c, "e");
      insert(c, "a", page("n"), 0);
      c.files.push(file("f3"));
      c.reusableContents![0].title = "Renamed";
      c.variables = { x: "9" };
    });

  it("returns ours, deep-equal, when theirs changed nothing", () => {
    const base = sample();
    const ours = busy(base);
    expect(merge(base, ours, structuredClone(base))).toStrictEqual({ ok: true, content: ours, newBodies: [] });

    // Ours dropped every variable and has no map left: none comes back.
    const { variables: _dropped, ...oursWithout } = ours;
    expect(merge(base, oursWithout, structuredClone(base))).toStrictEqual({ ok: true, content: oursWithout, newBodies: [] });
  });

  it("returns theirs, deep-equal, when ours changed nothing", () => {
    const base: Content = { pages: sample().pages, files: sample().files, reusableContents: sample().reusableContents };
    const theirs = busy(base);
    expect(merge(base, structuredClone(base), theirs)).toStrictEqual({ ok: true, content: theirs, newBodies: [] });

    // An empty map where base has none, and an updatedAt bumped by a reorder, come along too.
    const theirsTouched = edit(base, (c) => {
      c.variables = {};
      at(c, "d").updatedAt = T_THEIRS;
    });
    expect(merge(base, structuredClone(base), theirsTouched)).toStrictEqual({ ok: true, content: theirsTouched, newBodies: [] });
  });

  it("does not mutate its inputs", () => {
    const base = sample();
    const ours = edit(base, (c) => {
      at(c, "a").body = hash(lines({ 7: "FIVE" }));
      move(c, "e", null, 0);
      c.variables!.z = "ours";
    });
    const theirs = busy(base);
    const copies = structuredClone([base, ours, theirs]);
    [base, ours, theirs].forEach(deepFreeze);
    const result = merge(base, ours, theirs);
    expect(result).toMatchObject({ ok: true, content: { variables: { x: "9", z: "ours" } } });
    expect([base, ours, theirs]).toEqual(copies);
    // Deterministic: the same inputs give the same result.
    expect(merge(base, ours, theirs)).toEqual(result);
  });

  it("lists as needed bodies only those changed on both sides, differently", () => {
    const base = sample();
    const ours = edit(base, (c) => {
      at(c, "a").body = hash(lines({ 3: "ONE" }));
      at(c, "b").body = hash("# b ours\n");
      at(c, "c").body = hash("# c same\n");
      c.reusableContents![0].body = hash("r ours");
    });
    const theirs = edit(base, (c) => {
      at(c, "a").body = hash(lines({ 7: "FIVE" }));
      at(c, "c").body = hash("# c same\n");
      c.reusableContents![0].body = hash("r theirs");
    });
    expect(bodiesNeeded(base, ours, theirs)).toEqual([
      hash(lines()),
      hash(lines({ 3: "ONE" })),
      hash(lines({ 7: "FIVE" })),
      hash("r ours"),
      hash("r theirs"),
    ]);
  });
});
