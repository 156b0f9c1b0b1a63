// Space templates (the published applyTemplateToSpace): a built-in set of starter page trees
// that initialise an empty space, or an empty change request of it, as one revision. The
// published API names templates by id and has no operation that lists them; the ids here are
// listed in docs/content.md. A target that already has pages is left as it is (400): the
// template would otherwise mix its pages into what its editors wrote. Checked again inside the
// revision's transaction, so two applications at once give one template, not two.
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { contentOf, editContent } from "./index.ts";
import type { ContentTarget } from "./target.ts";
import { type ContentEdit, flatten } from "./tree.ts";

interface TemplatePage {
  title: string;
  markdown: string;
  children?: TemplatePage[];
}

interface SpaceTemplate {
  title: string;
  pages: TemplatePage[];
}

export const SPACE_TEMPLATES: Readonly<Record<string, SpaceTemplate>> = {
  "product-docs": {
    title: "Product documentation",
    pages: [
      {
        title: "Overview",
        markdown: "What the product does, and for whom.\n\n## Where to start\n\n- Read the quickstart.\n- Browse the guides.\n",
      },
      { title: "Quickstart", markdown: "Get from nothing to a first result in a few steps.\n\n1. Install.\n2. Configure.\n3. Run.\n" },
      {
        title: "Guides",
        markdown: "Task-oriented guides, one per goal.\n",
        children: [{ title: "Your first project", markdown: "A walk through a first project, step by step.\n" }],
      },
      { title: "FAQ", markdown: "Answers to the questions readers ask most.\n" },
    ],
  },
  "api-reference": {
    title: "API reference",
    pages: [
      { title: "Introduction", markdown: "What the API offers, its base URL and its versions.\n" },
      { title: "Authentication", markdown: "How a client gets and sends its credentials.\n" },
      { title: "Errors", markdown: "The error format and what each status means.\n" },
      { title: "Rate limits", markdown: "How many requests a client may send, and what happens beyond.\n" },
    ],
  },
  "knowledge-base": {
    title: "Knowledge base",
    pages: [
      { title: "Welcome", markdown: "Find answers by topic, or search.\n" },
      { title: "How-to articles", markdown: "Short articles, each answering one question.\n" },
      { title: "Troubleshooting", markdown: "Known problems and how to solve them.\n" },
    ],
  },
  changelog: {
    title: "Changelog",
    pages: [{ title: "Changelog", markdown: "What changed, newest first.\n\n## Unreleased\n\n- Nothing yet.\n" }],
  },
};

/** The published ApplySpaceTemplate, with the target's change request when given. */
export interface SpaceTemplateInput {
  id: string;
  params?: { contentRefs?: unknown } | null;
}

const countPages = (pages: TemplatePage[]): number => pages.reduce((sum, page) => sum + 1 + countPages(page.children ?? []), 0);

function templateEdits(pages: TemplatePage[], parent: string | null): ContentEdit[] {
  let previous: string | null = null;
  return pages.flatMap((page) => {
    const id = newId("Page");
    const edit: ContentEdit = {
      op: "createPage",
      id,
      kind: "document",
      fields: { title: page.title },
      body: page.markdown,
      position: { parent, before: null, after: previous },
    };
    previous = id;
    return [edit, ...templateEdits(page.children ?? [], id)];
  });
}

export async function applySpaceTemplate(ctx: CoreContext, target: ContentTarget, input: SpaceTemplateInput) {
  const template = Object.hasOwn(SPACE_TEMPLATES, input.id) ? SPACE_TEMPLATES[input.id] : undefined;
  if (!template) throw badInput(`id: no template ${quote(input.id.slice(0, 100))}; one of ${Object.keys(SPACE_TEMPLATES).join(", ")}`);
  const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
  if (input.params != null && !isObject(input.params)) throw badInput("params must be an object (the published SpaceTemplateParams)");
  const refs = input.params?.contentRefs;
  if (refs != null && !isObject(refs)) throw badInput("params.contentRefs must be an object of content references by name");
  // None of these templates reads content of the organization: a reference given would be ignored.
  for (const name of Object.keys(refs ?? {})) {
    throw badInput(`params.contentRefs.${name.slice(0, 100)}: the template ${input.id} takes no content reference`);
  }
  const expected = countPages(template.pages);
  return editContent(ctx, {
    target,
    edits: templateEdits(template.pages, null),
    message: `Applied the template ${template.title}`,
    beforeCommit: async (_tx, revision) => {
      // The template's pages are the revision's only pages when the head had none.
      if (flatten(contentOf(revision).pages).length !== expected) {
        throw badInput("The content already has pages: a template applies to empty content (a new space or change request)");
      }
    },
  });
}
