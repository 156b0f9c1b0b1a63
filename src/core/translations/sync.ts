// Bringing a target's page tree in line with its source: a pure plan of content edits (the same
// edits the API applies), computed by applying each one to a working copy so that every next
// edit sees the tree as it will be.
//
// - A page is the same page in both spaces when it has the same id (a run creates the target's
//   copy under the source page's id).
// - Source pages the target lacks are created: the source's title, slug, settings and body
//   (covers left out: they name files of the source), recorded as untranslated with the body's hash.
// - Pages in both are moved where the source has them (parent, then order among the source's
//   pages); their title, slug and body are the translator's and are not touched.
// - Target pages the source deleted since the last run (they were in the source revision the
//   target was last synced from, or a run added them) are deleted; pages only the target ever
//   had (a translator's own) stay where they are.
// - An untranslated page whose source body changed gets the new body (it is still a copy); once
//   its body differs from the copy it was given, it is translated and never touched again.
import {
  findPage,
  flatten,
  type Content,
  type ContentEdit,
  type PageFields,
  type PageNode,
  type PagePosition,
  applyEdits,
} from "../content/tree.ts";

export interface SyncPlan {
  edits: ContentEdit[];
  added: string[];
  moved: string[];
  deleted: string[];
  refreshed: string[];
  /** Untranslated pages after the run: page id -> the body hash they were copied with. */
  untranslated: Record<string, string>;
  /** For those whose copy differs from the source body: page id -> the source body's hash. */
  untranslatedSource: Record<string, string>;
}

export interface SyncInput {
  source: PageNode[];
  target: PageNode[];
  /** Page ids of the source revision the target was last synced from (empty: never synced). */
  syncedSourceIds: ReadonlySet<string>;
  untranslated: Record<string, string>;
  /** Page id -> the source body hash a copy was made from, where it differs from the copy's. */
  untranslatedSource: Record<string, string>;
  /** Markdown of the source bodies the plan may copy, by hash. */
  bodies: ReadonlyMap<string, string>;
  /** What a copy says for a source body (the glossary applied); the body itself when absent. */
  copy?: (markdown: string) => string;
  bodyHash: (markdown: string) => string;
  now: string;
}

/** The source pages whose bodies a plan may copy (new pages, and untranslated ones whose source changed). */
export function bodiesNeeded(
  source: PageNode[],
  target: PageNode[],
  untranslated: Record<string, string>,
  untranslatedSource: Record<string, string> = {},
): string[] {
  const inTarget = new Map(flatten(target).map((located) => [located.page.id, located.page]));
  return flatten(source)
    .map((located) => located.page)
    .filter((page) => {
      if (!page.body) return false;
      const copy = inTarget.get(page.id);
      if (!copy) return true;
      const copied = untranslated[page.id];
      return copied !== undefined && copy.body === copied && page.body !== (untranslatedSource[page.id] ?? copied);
    })
    .map((page) => page.body!);
}

const fieldsOf = (page: PageNode): PageFields => ({
  title: page.title,
  slug: page.slug,
  hidden: page.hidden,
  noIndex: page.noIndex,
  noRobotsIndex: page.noRobotsIndex,
  variables: page.variables,
  ...(page.emoji ? { emoji: page.emoji } : {}),
  ...(page.icon ? { icon: page.icon } : {}),
  ...(page.description ? { description: page.description } : {}),
  ...(page.layout ? { layout: page.layout } : {}),
  ...(page.href ? { href: page.href } : {}),
});

export function planSync(input: SyncInput): SyncPlan {
  let working: Content = { pages: input.target, files: [] };
  const plan: SyncPlan = { edits: [], added: [], moved: [], deleted: [], refreshed: [], untranslated: {}, untranslatedSource: {} };
  /** The copy of a source body and what to record of it. */
  const copyOf = (sourceHash: string | undefined) => {
    const source = sourceHash ? (input.bodies.get(sourceHash) ?? "") : "";
    return input.copy ? input.copy(source) : source;
  };
  const record = (id: string, body: string, sourceHash: string | undefined) => {
    const hash = input.bodyHash(body);
    plan.untranslated[id] = hash;
    if (sourceHash && hash !== sourceHash) plan.untranslatedSource[id] = sourceHash;
  };
  const apply = (edit: ContentEdit) => {
    working = applyEdits(working, [edit], input.bodyHash, input.now);
    plan.edits.push(edit);
  };
  const sourceIds = new Set(flatten(input.source).map((located) => located.page.id));

  // Deleted in the source since the last run: delete in the target (with what it holds).
  for (const located of flatten(input.target)) {
    const id = located.page.id;
    if (sourceIds.has(id) || !(input.syncedSourceIds.has(id) || id in input.untranslated)) continue;
    if (findPage(working.pages, id)) {
      apply({ op: "deletePage", id });
      plan.deleted.push(id);
    }
  }

  const childrenOf = (parent: string | null) => (parent === null ? working.pages : (findPage(working.pages, parent)?.page.pages ?? []));
  /** Right after `previous` under `parent`, or first there. */
  const positionAt = (id: string, parent: string | null, previous: string | null): PagePosition => {
    if (previous) return { parent, after: previous };
    const first = childrenOf(parent)[0];
    return first && first.id !== id ? { parent, before: first.id } : { parent };
  };

  const walk = (list: PageNode[], parent: string | null) => {
    let previous: string | null = null;
    for (const page of list) {
      const current = findPage(working.pages, page.id);
      if (!current) {
        const body = page.kind === "document" ? copyOf(page.body ?? undefined) : undefined;
        apply({
          op: "createPage",
          id: page.id,
          kind: page.kind,
          fields: fieldsOf(page),
          body,
          position: positionAt(page.id, parent, previous),
        });
        plan.added.push(page.id);
        if (page.kind === "document") record(page.id, body ?? "", page.body ?? undefined);
      } else {
        const siblings = childrenOf(current.parentId);
        const index = siblings.findIndex((sibling) => sibling.id === page.id);
        const before = index > 0 ? siblings[index - 1]!.id : null;
        if (current.parentId !== parent || before !== previous) {
          apply({ op: "movePage", id: page.id, position: positionAt(page.id, parent, previous) });
          plan.moved.push(page.id);
        }
        const copied = input.untranslated[page.id];
        if (copied !== undefined && current.page.kind === "document") {
          if (current.page.body !== copied) {
            // Edited in the target since it was copied: translated.
          } else if (page.body && page.body !== (input.untranslatedSource[page.id] ?? copied)) {
            const body = copyOf(page.body);
            apply({ op: "updatePage", id: page.id, fields: {}, body });
            plan.refreshed.push(page.id);
            record(page.id, body, page.body);
          } else {
            plan.untranslated[page.id] = copied;
            const source = input.untranslatedSource[page.id];
            if (source !== undefined) plan.untranslatedSource[page.id] = source;
          }
        }
      }
      walk(page.pages, page.id);
      previous = page.id;
    }
  };
  walk(input.source, null);
  return plan;
}
