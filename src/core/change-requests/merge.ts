// Three-way merge of a space's content: the changes from `base` to `theirs` applied onto `ours`.
// "Update a change request from the space" (the space's new revisions onto the change request)
// and "merge a change request into the space" (the change request onto the space head) both run
// it. Pure: the caller loads the revisions and the markdown of the bodies both sides changed
// (bodiesNeeded), and stores the merged content and its new bodies.
//
// Pages, files, reusable contents and variables are matched by id (name) and merged one by one;
// then the page tree is checked (parents deleted on the other side, cycles, paths) and the order
// of each list of siblings is merged with diff3, like the lines of a body.
import { diff3Merge } from "node-diff3";
import { flatten, type Content, type FileEntry, type LocatedPage, type PageNode, type ReusableContentEntry } from "../content/tree.ts";

export interface MergeConflict {
  kind: "page" | "file" | "reusableContent" | "variable";
  /** Page id / file id / reusable content id / variable name. */
  id: string;
  /** Page or reusable content title (from ours, else theirs, else base). */
  title?: string;
  /** Page path (from ours, else theirs, else base). */
  path?: string;
  /** Short human sentence; several joined by "; " when the item conflicts for several reasons. */
  reason: string;
}

export type MergeResult =
  /** newBodies: markdown of merged bodies that exist on no side (the caller stores them as blobs). */
  | { ok: true; content: Content; newBodies: string[] }
  /** Every conflict, in a stable order: pages (tree order of ours, then theirs), files, reusable contents, variables. */
  | { ok: false; conflicts: MergeConflict[] };

const DELETED_AND_CHANGED = "deleted on one side and changed on the other";

/** Structural equality of JSON data: key order ignored, undefined properties count as absent. */
function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** The three-way rule for one value: the side that changed it, or undefined when both changed it differently. */
function threeWay<V>(base: V | undefined, ours: V, theirs: V): { value: V } | undefined {
  if (same(ours, theirs) || same(base, theirs)) return { value: ours };
  if (same(base, ours)) return { value: theirs };
  return undefined;
}

/**
 * Merges the named fields one by one. A field both sides changed differently keeps ours' value
 * (provisionally: the item conflicts) and is listed in `clashing`.
 */
function mergeFields<T extends object, K extends keyof T>(fields: readonly K[], base: T | undefined, ours: T, theirs: T) {
  const merged = {} as Pick<T, K>;
  const clashing: K[] = [];
  for (const field of fields) {
    const taken = threeWay(base?.[field], ours[field], theirs[field]);
    if (!taken) clashing.push(field);
    const value = taken ? taken.value : ours[field];
    if (value !== undefined) merged[field] = value;
  }
  return { merged, clashing };
}

function withoutTimes<T extends { createdAt: string; updatedAt: string }>({ createdAt: _created, updatedAt: _updated, ...rest }: T) {
  return rest;
}

/** One item merged: its version in the result (absent: not in it) and why it conflicts, if it does. */
interface Outcome<T> {
  value?: T;
  reasons: string[];
}

interface ItemRules<T> {
  /** Equal in everything the result carries. */
  same(a: T, b: T): boolean;
  /** Whether `version` changes what `base` holds, timestamps aside: a deletion on the other side would lose it. */
  edited(base: T, version: T): boolean;
  /**
   * Both sides changed the item, differently (base undefined: both added it). Conflicting items may
   * keep a provisional value, so that the tree checks can still run around them.
   */
  mergeBoth(base: T | undefined, ours: T, theirs: T): Outcome<T>;
}

/** The three-way rule for an item that may be missing (undefined) on a side. */
function mergeItem<T>(base: T | undefined, ours: T | undefined, theirs: T | undefined, rules: ItemRules<T>): Outcome<T> {
  if (ours === undefined || theirs === undefined) {
    const kept = ours ?? theirs;
    if (kept === undefined) return { reasons: [] };
    if (base === undefined) return { value: kept, reasons: [] };
    return rules.edited(base, kept) ? { reasons: [DELETED_AND_CHANGED] } : { reasons: [] };
  }
  if (rules.same(ours, theirs)) return { value: ours, reasons: [] };
  if (base !== undefined && rules.same(base, ours)) return { value: theirs, reasons: [] };
  if (base !== undefined && rules.same(base, theirs)) return { value: ours, reasons: [] };
  return rules.mergeBoth(base, ours, theirs);
}

interface Merged<T> {
  /** The merged items by key, in `order`; conflicting items may hold a provisional version. */
  values: Map<string, T>;
  /** Why items conflict, by key. */
  reasons: Map<string, string[]>;
  /** Every key: ours' order, then theirs', then base's. */
  order: string[];
}

function mergeKeyed<T>(base: Map<string, T>, ours: Map<string, T>, theirs: Map<string, T>, rules: ItemRules<T>): Merged<T> {
  const order = [...new Set([...ours.keys(), ...theirs.keys(), ...base.keys()])];
  const values = new Map<string, T>();
  const reasons = new Map<string, string[]>();
  for (const key of order) {
    const outcome = mergeItem(base.get(key), ours.get(key), theirs.get(key), rules);
    if (outcome.value !== undefined) values.set(key, outcome.value);
    if (outcome.reasons.length > 0) reasons.set(key, outcome.reasons);
  }
  return { values, reasons, order };
}

function append<K, V>(lists: Map<K, V[]>, key: K, value: V) {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

const byId = <T extends { id: string }>(items: T[] = []) => new Map(items.map((item) => [item.id, item]));

/** Files and variables merge whole: changed differently on both sides is a conflict. */
function wholeItemRules<T>(): ItemRules<T> {
  return {
    same,
    edited: (base, version) => !same(base, version),
    mergeBoth: (base) => ({ reasons: [base === undefined ? "added on both sides, differently" : "changed on both sides"] }),
  };
}

// Bodies

/**
 * Merges a body hash with the three-way rule; when both sides changed it differently, merges the
 * markdown line by line. `clash` says what overlaps (the body is then ours', provisionally).
 */
type MergeBody = (
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
) => { body: string | undefined; clash?: string };

function bodyMerger(markdownOf: (hash: string) => string, bodyHash: (markdown: string) => string, known: Set<string>) {
  const created: string[] = [];
  const merge: MergeBody = (base, ours, theirs) => {
    const taken = threeWay(base, ours, theirs);
    if (taken) return { body: taken.value };
    // Added on both sides (no base), or a page that has a body on one side only: nothing to merge lines against.
    if (base === undefined || ours === undefined || theirs === undefined) return { body: ours, clash: "markdown" };
    const lines = (hash: string) => markdownOf(hash).split("\n");
    const regions = diff3Merge(lines(ours), lines(base), lines(theirs), { excludeFalseConflicts: true });
    const overlaps = regions.flatMap((region) => (region.conflict ? [region.conflict] : []));
    if (overlaps.length > 0) {
      return { body: ours, clash: `markdown ${overlaps.map((overlap) => linesOfOurs(overlap.aIndex, overlap.a.length)).join(", ")}` };
    }
    const markdown = regions.flatMap((region) => region.ok ?? []).join("\n");
    const hash = bodyHash(markdown);
    if (!known.has(hash)) {
      known.add(hash);
      created.push(markdown);
    }
    return { body: hash };
  };
  return { merge, created };
}

/** Where an overlap stands in ours' markdown (1-based lines). */
function linesOfOurs(index: number, count: number): string {
  if (count === 0) return index === 0 ? "at the start" : `after line ${index}`;
  return count === 1 ? `line ${index + 1}` : `lines ${index + 1}-${index + count}`;
}

/** Every body hash of pages and reusable contents on the given sides. */
function bodyHashes(...contents: Content[]): Set<string> {
  return new Set(
    contents.flatMap((content) => [
      ...flatten(content.pages).flatMap(({ page }) => (page.body === undefined ? [] : [page.body])),
      ...(content.reusableContents ?? []).map((entry) => entry.body),
    ]),
  );
}

/** Body hashes whose markdown mergeContent needs (pages/reusable contents whose body changed on BOTH sides, differently). */
export function bodiesNeeded(base: Content, ours: Content, theirs: Content): string[] {
  const bodyMaps: ((content: Content) => Map<string, string | undefined>)[] = [
    (content) => new Map(flatten(content.pages).map(({ page }) => [page.id, page.body])),
    (content) => new Map((content.reusableContents ?? []).map((entry) => [entry.id, entry.body])),
  ];
  const needed = new Set<string>();
  for (const bodiesOf of bodyMaps) {
    const [baseBodies, oursBodies, theirsBodies] = [base, ours, theirs].map(bodiesOf);
    for (const [id, oursBody] of oursBodies) {
      const [baseBody, theirsBody] = [baseBodies.get(id), theirsBodies.get(id)];
      if (baseBody === undefined || oursBody === undefined || theirsBody === undefined) continue;
      if (oursBody !== baseBody && theirsBody !== baseBody && oursBody !== theirsBody) {
        for (const hash of [baseBody, oursBody, theirsBody]) needed.add(hash);
      }
    }
  }
  return [...needed];
}

// Pages

type PageData = Omit<PageNode, "pages">;

/** What merges per page: the page without its children, and its parent (null: the top level). */
interface PageVersion {
  page: PageData;
  parent: string | null;
}

const PAGE_FIELDS = [
  "title",
  "kind",
  "emoji",
  "icon",
  "description",
  "slug",
  "hidden",
  "noIndex",
  "noRobotsIndex",
  "layout",
  "cover",
  "variables",
  "href",
  "metaLinks",
] as const satisfies readonly (keyof PageData)[];

/** The pages of one side, by id: their versions, where they stand, and each parent's children in order. */
interface PageIndex {
  versions: Map<string, PageVersion>;
  located: Map<string, LocatedPage>;
  children: Map<string | null, string[]>;
}

function indexPages(pages: PageNode[]): PageIndex {
  const index: PageIndex = { versions: new Map(), located: new Map(), children: new Map() };
  for (const located of flatten(pages)) {
    const { pages: _children, ...page } = located.page;
    index.versions.set(page.id, { page, parent: located.parentId });
    index.located.set(page.id, located);
    append(index.children, located.parentId, page.id);
  }
  return index;
}

function pageRules(mergeBody: MergeBody, now: string): ItemRules<PageVersion> {
  const edited = (base: PageVersion, version: PageVersion) =>
    !same({ ...base, page: withoutTimes(base.page) }, { ...version, page: withoutTimes(version.page) });
  return {
    same,
    edited,
    mergeBoth(base, ours, theirs) {
      const { merged: fields, clashing } = mergeFields(PAGE_FIELDS, base?.page, ours.page, theirs.page);
      const body = mergeBody(base?.page.body, ours.page.body, theirs.page.body);
      const parent = threeWay(base?.parent, ours.parent, theirs.parent);
      const draft: PageVersion = {
        page: {
          id: ours.page.id,
          ...fields,
          ...(body.body === undefined ? {} : { body: body.body }),
          createdAt: base?.page.createdAt ?? ours.page.createdAt,
          updatedAt: now,
        },
        parent: parent ? parent.value : ours.parent,
      };
      const updatedAt = !edited(ours, draft) ? ours.page.updatedAt : !edited(theirs, draft) ? theirs.page.updatedAt : now;
      const clashes = [...clashing, ...(body.clash ? [body.clash] : [])];
      const reasons: string[] = [];
      if (clashes.length > 0)
        reasons.push(`${base ? "changed on both sides:" : "added on both sides with different"} ${clashes.join(", ")}`);
      if (!parent) reasons.push(base ? "moved to different parents on both sides" : "added under different parents on both sides");
      return { value: { ...draft, page: { ...draft.page, updatedAt } }, reasons };
    },
  };
}

/** Pages whose merged parent is not in the result: it was deleted on the side that did not put them there. */
function flagDeletedParents(values: Map<string, PageVersion>, base: PageIndex, reasons: Map<string, string[]>) {
  for (const [id, { parent }] of values) {
    if (parent === null || values.has(parent)) continue;
    append(reasons, id, `${base.versions.has(id) ? "moved" : "added"} under a page deleted on the other side`);
  }
}

function flagCycles(values: Map<string, PageVersion>, reasons: Map<string, string[]>) {
  const settled = new Set<string>();
  for (const start of values.keys()) {
    const chain: string[] = [];
    let id: string | null = start;
    while (id !== null && values.has(id) && !settled.has(id) && !chain.includes(id)) {
      chain.push(id);
      id = values.get(id)!.parent;
    }
    if (id !== null && chain.includes(id)) {
      for (const member of chain.slice(chain.indexOf(id))) append(reasons, member, "the merged tree would have a cycle");
    }
    chain.forEach((member) => settled.add(member));
  }
}

/**
 * The children of `parent` in the result: the three sides' lists merged with diff3, where the two
 * sides reordered or inserted at the same spot ours' order comes first, then theirs'. Pages now
 * under `parent` that the merged list lacks follow, in the order of their side.
 */
function siblingOrder(parent: string | null, childIds: string[], sides: PageIndex[]): string[] {
  const [base, ours, theirs] = sides.map((side) => side.children.get(parent) ?? []);
  const merged = diff3Merge(ours, base, theirs, { excludeFalseConflicts: true }).flatMap(
    (region) => region.ok ?? (region.conflict ? [...region.conflict.a, ...region.conflict.b] : []),
  );
  const wanted = new Set(childIds);
  return [...new Set([...merged, ...ours, ...theirs])].filter((id) => wanted.has(id));
}

/** The tree from the top level down; pages in a cycle or under a missing parent are not reached. */
function buildTree(values: Map<string, PageVersion>, sides: PageIndex[]): PageNode[] {
  const childIds = new Map<string | null, string[]>();
  for (const [id, { parent }] of values) append(childIds, parent, id);
  const build = (parent: string | null): PageNode[] =>
    siblingOrder(parent, childIds.get(parent) ?? [], sides).map((id) => ({ ...values.get(id)!.page, pages: build(id) }));
  return build(null);
}

/** Pages (groups aside: they have no path) sharing a path; the one that has that path in ours keeps it. */
function flagPathClashes(pages: PageNode[], ours: PageIndex, reasons: Map<string, string[]>) {
  const idsByPath = new Map<string, string[]>();
  for (const { page, path } of flatten(pages)) {
    if (page.kind !== "group") append(idsByPath, path, page.id);
  }
  for (const [path, ids] of idsByPath) {
    if (ids.length < 2) continue;
    for (const id of ids) {
      if (ours.located.get(id)?.path !== path) append(reasons, id, `two pages would have the same path "${path}"`);
    }
  }
}

function mergePages(base: PageNode[], ours: PageNode[], theirs: PageNode[], rules: ItemRules<PageVersion>) {
  const sides = [indexPages(base), indexPages(ours), indexPages(theirs)];
  const [baseIndex, oursIndex, theirsIndex] = sides;
  const { values, reasons, order } = mergeKeyed(baseIndex.versions, oursIndex.versions, theirsIndex.versions, rules);
  flagDeletedParents(values, baseIndex, reasons);
  flagCycles(values, reasons);
  const pages = buildTree(values, sides);
  flagPathClashes(pages, oursIndex, reasons);
  const conflicts = order
    .filter((id) => reasons.has(id))
    .map((id): MergeConflict => {
      const located = (oursIndex.located.get(id) ?? theirsIndex.located.get(id) ?? baseIndex.located.get(id))!;
      return { kind: "page", id, title: located.page.title, path: located.path, reason: reasons.get(id)!.join("; ") };
    });
  return { pages, conflicts };
}

// Reusable contents

function reusableContentRules(mergeBody: MergeBody, now: string): ItemRules<ReusableContentEntry> {
  const edited = (base: ReusableContentEntry, version: ReusableContentEntry) => !same(withoutTimes(base), withoutTimes(version));
  return {
    same,
    edited,
    mergeBoth(base, ours, theirs) {
      const { merged, clashing } = mergeFields(["title"] as const, base, ours, theirs);
      const body = mergeBody(base?.body, ours.body, theirs.body);
      // Both sides have a body, so the merged one is defined.
      const draft = { id: ours.id, ...merged, body: body.body!, createdAt: base?.createdAt ?? ours.createdAt, updatedAt: now };
      const updatedAt = !edited(ours, draft) ? ours.updatedAt : !edited(theirs, draft) ? theirs.updatedAt : now;
      const clashes = [...clashing, ...(body.clash ? [body.clash] : [])];
      const reasons =
        clashes.length > 0 ? [`${base ? "changed on both sides:" : "added on both sides with different"} ${clashes.join(", ")}`] : [];
      return { value: { ...draft, updatedAt }, reasons };
    },
  };
}

// The whole content

function conflictsOf<T>(merged: Merged<T>, kind: MergeConflict["kind"], titleOf: (key: string) => string | undefined = () => undefined) {
  return merged.order
    .filter((key) => merged.reasons.has(key))
    .map((key): MergeConflict => {
      const title = titleOf(key);
      return { kind, id: key, ...(title === undefined ? {} : { title }), reason: merged.reasons.get(key)!.join("; ") };
    });
}

/**
 * A side's own copy when it equals the merged value (first the side that changed it), else the
 * merged value: an absent list or map stays absent and [] stays [], so that when one side changed
 * nothing the result is deep-equal to the other.
 */
function asGiven<T>(merged: T, empty: T, base: T | undefined, ours: T | undefined, theirs: T | undefined): T | undefined {
  for (const side of same(ours, base) ? [theirs, ours] : [ours, theirs]) if (same(side ?? empty, merged)) return side;
  return merged;
}

/**
 * Three-way merge: the changes from base→theirs applied onto ours (ours = the side being moved, e.g. the space head when merging a change request).
 * markdownOf(hash) returns the markdown of any hash listed by bodiesNeeded; bodyHash(markdown) names a new body; now = ISO time for updatedAt of pages/reusable contents merged from both sides.
 */
export function mergeContent(
  base: Content,
  ours: Content,
  theirs: Content,
  markdownOf: (hash: string) => string,
  bodyHash: (markdown: string) => string,
  now: string,
): MergeResult {
  const bodies = bodyMerger(markdownOf, bodyHash, bodyHashes(base, ours, theirs));
  const pages = mergePages(base.pages, ours.pages, theirs.pages, pageRules(bodies.merge, now));
  const files = mergeKeyed(byId(base.files), byId(ours.files), byId(theirs.files), wholeItemRules<FileEntry>());
  const reusableContents = mergeKeyed(
    byId(base.reusableContents),
    byId(ours.reusableContents),
    byId(theirs.reusableContents),
    reusableContentRules(bodies.merge, now),
  );
  const variableMaps = [base, ours, theirs].map((content) => new Map(Object.entries(content.variables ?? {})));
  const variables = mergeKeyed(variableMaps[0], variableMaps[1], variableMaps[2], wholeItemRules<string>());

  const reusableTitle = (id: string) =>
    [ours, theirs, base].map((content) => content.reusableContents?.find((entry) => entry.id === id)).find(Boolean)?.title;
  const conflicts = [
    ...pages.conflicts,
    ...conflictsOf(files, "file"),
    ...conflictsOf(reusableContents, "reusableContent", reusableTitle),
    ...conflictsOf(variables, "variable"),
  ];
  if (conflicts.length > 0) return { ok: false, conflicts };

  const content: Content = { pages: pages.pages, files: [...files.values.values()] };
  const mergedReusable = asGiven(
    [...reusableContents.values.values()],
    [],
    base.reusableContents,
    ours.reusableContents,
    theirs.reusableContents,
  );
  if (mergedReusable !== undefined) content.reusableContents = mergedReusable;
  const mergedVariables = asGiven(Object.fromEntries(variables.values), {}, base.variables, ours.variables, theirs.variables);
  if (mergedVariables !== undefined) content.variables = mergedVariables;
  return { ok: true, content, newBodies: bodies.created };
}
