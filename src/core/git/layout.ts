// A revision as the files of a GitBook repository, and such files back as a revision's content.
// Pure: the caller gives page bodies (markdown) by hash and stores what comes back.
//
// Layout (GitBook's): `.gitbook.yaml` (root, structure, redirects); `SUMMARY.md` (order, titles,
// nesting; `## Title` for each top-level group); one Markdown file per document, named after its
// path: `<path>.md`, or `<path>/README.md` when it has pages under it; files under
// `.gitbook/assets/`. A page's file is its markdown verbatim, after a front matter block
// (`description`, `icon`, `hidden`, `layout`) when the page has one of those fields. A body that
// begins with a front matter of its own is written as it is, and read back as it is: bytes are
// never rewritten, so an export then an import is byte-identical.
import { posix } from "node:path";
import YAML from "yaml";
import { parseBlocks, type FrontMatterBlock } from "../content/blocks/index.ts";
import { guessContentType } from "../content/media-types.ts";
import { slugify, SLUG, type Content, type FileEntry, type PageLayout, type PageNode } from "../content/tree.ts";
import { quote } from "../errors.ts";

export const CONFIG_FILE = ".gitbook.yaml";
export const SUMMARY_FILE = "SUMMARY.md";
export const ASSETS_DIR = ".gitbook/assets";

export const GITBOOK_YAML = `root: ./

structure:
  readme: README.md
  summary: SUMMARY.md

redirects: {}
`;

/** A file the layout names a page by, relative to the repository root. */
export function pageFile(page: PageNode, path: string): string {
  return page.pages.length > 0 ? `${path}/README.md` : `${path}.md`;
}

/** The name of a file of the revision under `.gitbook/assets/` (made unique by its id when two share a name). */
function assetNames(files: FileEntry[]): Map<string, string> {
  const seen = new Map<string, number>();
  for (const file of files) seen.set(safeName(file.name), (seen.get(safeName(file.name)) ?? 0) + 1);
  return new Map(
    files.map((file) => [file.id, (seen.get(safeName(file.name)) ?? 0) > 1 ? `${file.id}-${safeName(file.name)}` : safeName(file.name)]),
  );
}

function safeName(name: string): string {
  const cleaned = name.replace(/[/\\\0]/g, "-").replace(/^\.+/, "");
  return cleaned || "file";
}

const escapeTitle = (title: string) => title.replace(/([\\[\]])/g, "\\$1");
const unescapeTitle = (title: string) => title.replace(/\\([\\[\]])/g, "$1");

/** GitBook's front matter `layout` block from the page's layout fields. */
function layoutMatter(layout: PageLayout): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (layout.cover !== undefined || layout.coverSize !== undefined) {
    out.cover = { visible: layout.cover ?? false, ...(layout.coverSize ? { size: layout.coverSize } : {}) };
  }
  for (const key of ["title", "description", "tableOfContents", "outline", "pagination"] as const) {
    if (layout[key] !== undefined) out[key] = { visible: layout[key] };
  }
  return out;
}

function layoutFromMatter(value: unknown, file: string): PageLayout {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new LayoutError(file, "front matter `layout` must be a mapping");
  const layout: PageLayout = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const visible = (entry as { visible?: unknown } | null)?.visible;
    if (typeof visible !== "boolean") throw new LayoutError(file, `front matter \`layout.${key}.visible\` must be true or false`);
    if (key === "cover") {
      layout.cover = visible;
      const size = (entry as { size?: unknown }).size;
      if (size !== undefined) {
        if (size !== "hero" && size !== "full") throw new LayoutError(file, "front matter `layout.cover.size` must be hero or full");
        layout.coverSize = size;
      }
    } else if (["title", "description", "tableOfContents", "outline", "pagination"].includes(key)) {
      layout[key as "title"] = visible;
    } else {
      throw new LayoutError(file, `front matter \`layout.${key}\` is not a layout option`);
    }
  }
  return layout;
}

interface MatterFields {
  description?: string;
  icon?: string;
  hidden?: boolean;
  layout?: PageLayout;
}

/** The front matter block written for these fields ("" when there is none). */
export function frontMatter(fields: MatterFields): string {
  const data: Record<string, unknown> = {};
  if (fields.description) data.description = fields.description;
  if (fields.icon) data.icon = fields.icon;
  if (fields.hidden) data.hidden = true;
  if (fields.layout && Object.keys(fields.layout).length > 0) data.layout = layoutMatter(fields.layout);
  if (Object.keys(data).length === 0) return "";
  return `---\n${YAML.stringify(data, { lineWidth: 0 })}---\n\n`;
}

/**
 * The front matter a page's text opens with, as the block model reads it (src/core/content/blocks),
 * with the blank line that follows it; undefined when there is none.
 */
function leadingMatter(text: string): { block: FrontMatterBlock; raw: string } | undefined {
  const [first] = parseBlocks(text);
  if (first?.type !== "front-matter" || first.raw === undefined) return undefined;
  const after = text.slice(first.raw.length).match(/^\r?\n/);
  return { block: first, raw: first.raw + (after ? after[0] : "") };
}

/** A page's file: its front matter (unless the body carries its own) and its markdown. */
export function pageText(page: PageNode, markdown: string): string {
  if (leadingMatter(markdown)) return markdown;
  return frontMatter(page) + markdown;
}

/** Every file of the revision, path → bytes; `markdownOf` gives a body by hash. */
export function exportFiles(
  content: Content,
  markdownOf: (hash: string) => string,
  fileBytes: (file: FileEntry) => Uint8Array,
): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const summary: string[] = ["# Table of contents", ""];
  let readme: string | undefined;
  const list = (pages: PageNode[], parentPath: string, depth: number) => {
    for (const page of pages) {
      const indent = "  ".repeat(depth);
      if (page.kind === "group") {
        // Groups nested below the top level have no heading of their own in GitBook's
        // SUMMARY.md: their pages are listed where the group stands.
        if (depth === 0) {
          if (summary.at(-1) !== "") summary.push("");
          summary.push(`## ${page.title}`, "");
        }
        list(page.pages, parentPath, depth);
        continue;
      }
      const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
      if (page.kind === "link") {
        summary.push(`${indent}* [${escapeTitle(page.title)}](${page.href ?? ""})`);
      } else {
        const file = pageFile(page, path);
        readme ??= file;
        summary.push(`${indent}* [${escapeTitle(page.title)}](${encodeURI(file)})`);
        out.set(file, Buffer.from(pageText(page, page.body ? markdownOf(page.body) : ""), "utf8"));
      }
      list(page.pages, path, depth + 1);
    }
  };
  list(content.pages, "", 0);
  const names = assetNames(content.files);
  for (const file of content.files) out.set(`${ASSETS_DIR}/${names.get(file.id)}`, fileBytes(file));
  out.set(SUMMARY_FILE, Buffer.from(`${summary.join("\n").replace(/\n+$/, "")}\n`, "utf8"));
  out.set(CONFIG_FILE, Buffer.from(readme ? GITBOOK_YAML.replace("readme: README.md", `readme: ${readme}`) : GITBOOK_YAML, "utf8"));
  return out;
}

/** A pushed tree that does not fit the layout: names the file. */
export class LayoutError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

export interface SummaryItem {
  title: string;
  /** A repository path (normalized) or an external URL. */
  target: string;
  external: boolean;
  children: SummaryItem[];
}

export interface SummaryGroup {
  /** null: the pages before the first `## ` heading. */
  title: string | null;
  items: SummaryItem[];
}

const ITEM = /^(\s*)[*+-]\s+\[((?:\\.|[^\]\\])*)\]\(([^)]*)\)\s*$/;

/** A repository path from a link in a file at the root: refuses absolute paths and paths that leave the repository. */
export function repoPath(target: string, file: string): string {
  let decoded: string;
  try {
    decoded = decodeURI(target.split("#")[0]);
  } catch {
    throw new LayoutError(file, `${quote(target)} is not a valid path`);
  }
  if (decoded.startsWith("/") || decoded.includes("\\") || decoded.includes("\0")) {
    throw new LayoutError(file, `${quote(target)} escapes the repository (paths are relative to its root)`);
  }
  const normal = posix.normalize(decoded);
  if (normal === ".." || normal.startsWith("../")) throw new LayoutError(file, `${quote(target)} escapes the repository`);
  return normal.replace(/^\.\//, "");
}

export function parseSummary(text: string): SummaryGroup[] {
  const groups: SummaryGroup[] = [{ title: null, items: [] }];
  const stack: { indent: number; item: SummaryItem }[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "" || /^#\s/.test(line) || /^<!--.*-->$/.test(line.trim())) return;
    const heading = line.match(/^##\s+(.+?)\s*#*\s*$/);
    if (heading) {
      groups.push({ title: heading[1], items: [] });
      stack.length = 0;
      return;
    }
    const item = line.match(ITEM);
    if (!item) throw new LayoutError(SUMMARY_FILE, `line ${index + 1} is neither a heading nor a list item "* [Title](path.md)"`);
    const indent = item[1].replace(/\t/g, "    ").length;
    const title = unescapeTitle(item[2]).trim();
    if (!title) throw new LayoutError(SUMMARY_FILE, `line ${index + 1}: the page has no title`);
    const raw = item[3].trim();
    const external = /^[a-z][a-z0-9+.-]*:/i.test(raw);
    if (!external && !raw) throw new LayoutError(SUMMARY_FILE, `line ${index + 1}: the page ${quote(title)} names no file`);
    const node: SummaryItem = { title, target: external ? raw : repoPath(raw, SUMMARY_FILE), external, children: [] };
    while (stack.length && stack.at(-1)!.indent >= indent) stack.pop();
    if (stack.length) stack.at(-1)!.item.children.push(node);
    else groups.at(-1)!.items.push(node);
    stack.push({ indent, item: node });
  });
  return groups;
}

export interface GitbookConfig {
  root: string;
  summary: string;
  readme: string;
  redirects: Record<string, string>;
}

export function parseGitbookYaml(text: string | undefined): GitbookConfig {
  const config: GitbookConfig = { root: "", summary: SUMMARY_FILE, readme: "README.md", redirects: {} };
  if (text === undefined) return config;
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (error) {
    throw new LayoutError(CONFIG_FILE, `not valid YAML (${(error as Error).message.split("\n")[0]})`);
  }
  if (data === null || data === undefined) return config;
  if (typeof data !== "object" || Array.isArray(data))
    throw new LayoutError(CONFIG_FILE, "must be a mapping with root, structure and redirects");
  const { root, structure, redirects, ...rest } = data as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new LayoutError(CONFIG_FILE, `unknown key ${quote(unknown[0])} (allowed: root, structure, redirects)`);
  if (root !== undefined) {
    if (typeof root !== "string") throw new LayoutError(CONFIG_FILE, "root must be a path");
    const path = repoPath(root, CONFIG_FILE);
    if (path !== "." && path !== "") throw new LayoutError(CONFIG_FILE, `root ${quote(root)}: only the repository root (./) is supported`);
  }
  if (structure !== undefined && structure !== null) {
    if (typeof structure !== "object" || Array.isArray(structure)) throw new LayoutError(CONFIG_FILE, "structure must be a mapping");
    for (const [key, value] of Object.entries(structure)) {
      if (key !== "readme" && key !== "summary") throw new LayoutError(CONFIG_FILE, `structure.${key} is not supported (readme, summary)`);
      if (typeof value !== "string") throw new LayoutError(CONFIG_FILE, `structure.${key} must be a path`);
      config[key] = repoPath(value, CONFIG_FILE);
    }
    if (config.summary !== SUMMARY_FILE) throw new LayoutError(CONFIG_FILE, `structure.summary must be ${SUMMARY_FILE}`);
  }
  if (redirects !== undefined && redirects !== null) {
    if (typeof redirects !== "object" || Array.isArray(redirects))
      throw new LayoutError(CONFIG_FILE, "redirects must be a mapping of path to path");
    for (const [from, to] of Object.entries(redirects)) {
      if (typeof to !== "string") throw new LayoutError(CONFIG_FILE, `redirects.${quote(from)} must be a path`);
      repoPath(from, CONFIG_FILE);
      config.redirects[from] = repoPath(to, CONFIG_FILE);
    }
  }
  return config;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A page file's text: refuses bytes that are not text (NUL bytes, invalid UTF-8). */
export function pageFileText(path: string, bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new LayoutError(path, "is binary (NUL bytes) where a Markdown page is expected");
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LayoutError(path, "is not UTF-8 text where a Markdown page is expected");
  }
}

/** The fields a page file's front matter sets, and its body: without the block when the block is exactly as `frontMatter` writes it. */
export function readPageFile(path: string, text: string): { fields: MatterFields; body: string } {
  const matter = leadingMatter(text);
  // No front matter, or one that is not a YAML mapping: the text stays the page's markdown, as it is.
  if (!matter || Object.keys(matter.block.data).length === 0) return { fields: {}, body: text };
  const { data } = matter.block;
  const fields: MatterFields = {};
  if (matter.block.description !== undefined) fields.description = matter.block.description;
  if (matter.block.icon !== undefined) fields.icon = matter.block.icon;
  if (data.hidden === true) fields.hidden = true;
  if (matter.block.layout !== undefined) fields.layout = layoutFromMatter(matter.block.layout, path);
  const canonical = frontMatter(fields);
  return canonical === matter.raw ? { fields, body: text.slice(matter.raw.length) } : { fields, body: text };
}

export interface PushedFile {
  path: string;
  /** git mode: 100644, 100755, 120000 (symlink), 160000 (submodule). */
  mode: string;
  bytes: Uint8Array;
}

export interface ImportLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxRepositoryBytes: number;
}

export interface ImportResult {
  content: Content;
  /** Markdown of every page (to be stored as blobs). */
  markdown: string[];
  /** Bytes of files new to the revision. */
  files: Uint8Array[];
}

/**
 * The content a pushed tree stands for, on top of `base` (the revision the push started from):
 * pages and files are matched to the base's by their path in the layout (same path, same page),
 * so their ids, creation times and the fields the layout does not carry are kept. Reusable
 * contents and variables are not in the layout: the base's stay. Throws LayoutError naming a file.
 */
export function importFiles(
  base: Content,
  pushed: PushedFile[],
  limits: ImportLimits,
  ids: { page: () => string; file: () => string; hash: (data: Uint8Array) => string },
  now: string,
): ImportResult {
  if (pushed.length > limits.maxFiles)
    throw new LayoutError(".", `the push holds ${pushed.length} files; at most ${limits.maxFiles} are allowed`);
  let total = 0;
  const byPath = new Map<string, PushedFile>();
  for (const file of pushed) {
    if (file.mode === "120000") throw new LayoutError(file.path, "is a symbolic link; the layout holds regular files only");
    if (file.mode === "160000") throw new LayoutError(file.path, "is a submodule; the layout holds regular files only");
    if (file.bytes.length > limits.maxFileBytes)
      throw new LayoutError(file.path, `is ${file.bytes.length} bytes; at most ${limits.maxFileBytes} are allowed`);
    total += file.bytes.length;
    byPath.set(file.path, file);
  }
  if (total > limits.maxRepositoryBytes)
    throw new LayoutError(".", `the tree holds ${total} bytes; at most ${limits.maxRepositoryBytes} are allowed`);
  const config = parseGitbookYaml(byPath.has(CONFIG_FILE) ? pageFileText(CONFIG_FILE, byPath.get(CONFIG_FILE)!.bytes) : undefined);
  const summaryFile = byPath.get(SUMMARY_FILE);
  if (!summaryFile) throw new LayoutError(SUMMARY_FILE, "is missing: it gives the pages, their order and their titles");
  const groups = parseSummary(pageFileText(SUMMARY_FILE, summaryFile.bytes));

  // The base's pages by the file (or, for groups and links, the title) that stands for them.
  const basePages = new Map<string, PageNode>();
  const walk = (pages: PageNode[], parentPath: string) => {
    for (const page of pages) {
      if (page.kind === "group") {
        basePages.set(`group:${page.title}`, page);
        walk(page.pages, parentPath);
        continue;
      }
      const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
      basePages.set(page.kind === "link" ? `link:${page.title}:${page.href}` : pageFile(page, path), page);
      walk(page.pages, path);
    }
  };
  walk(base.pages, "");
  const used = new Set<string>();
  const markdown: string[] = [];

  const stamp = (previous: PageNode | undefined, next: PageNode): PageNode => {
    if (!previous) return next;
    const { updatedAt: _a, pages: _p, ...before } = previous;
    const { updatedAt: _b, pages: _q, ...after } = next;
    return JSON.stringify(before) === JSON.stringify(after) ? { ...next, updatedAt: previous.updatedAt } : next;
  };

  const toPage = (item: SummaryItem): PageNode => {
    const children = item.children.map(toPage);
    if (item.external) {
      const previous = basePages.get(`link:${item.title}:${item.target}`);
      const page: PageNode = {
        ...(previous ?? {
          id: ids.page(),
          slug: slugify(item.title),
          hidden: false,
          noIndex: false,
          noRobotsIndex: false,
          variables: {},
          createdAt: now,
        }),
        kind: "link",
        title: item.title,
        href: item.target,
        updatedAt: now,
        pages: children,
      };
      return stamp(previous, page);
    }
    const file = byPath.get(item.target);
    if (!file) throw new LayoutError(SUMMARY_FILE, `names ${quote(item.target)}, which is not in the pushed tree`);
    if (!item.target.endsWith(".md"))
      throw new LayoutError(SUMMARY_FILE, `names ${quote(item.target)}, which is not a Markdown (.md) file`);
    if (used.has(item.target)) throw new LayoutError(SUMMARY_FILE, `names ${quote(item.target)} twice`);
    used.add(item.target);
    const { fields, body } = readPageFile(item.target, pageFileText(item.target, file.bytes));
    const previous = basePages.get(item.target);
    markdown.push(body);
    const segments = item.target.split("/");
    const name = segments.at(-1) === "README.md" && segments.length > 1 ? segments.at(-2)! : segments.at(-1)!.replace(/\.md$/, "");
    const page: PageNode = {
      ...(previous && previous.kind === "document"
        ? previous
        : {
            id: ids.page(),
            slug: SLUG.test(name) ? name : slugify(name),
            hidden: false,
            noIndex: false,
            noRobotsIndex: false,
            variables: {},
            createdAt: now,
          }),
      kind: "document",
      title: item.title,
      body: ids.hash(Buffer.from(body, "utf8")),
      updatedAt: now,
      pages: children,
    };
    delete page.description;
    delete page.icon;
    delete page.layout;
    page.hidden = fields.hidden ?? false;
    if (fields.description) page.description = fields.description;
    if (fields.icon) page.icon = fields.icon;
    if (fields.layout) page.layout = fields.layout;
    return stamp(previous, page);
  };

  const pages: PageNode[] = [];
  for (const group of groups) {
    const items = group.items.map(toPage);
    if (group.title === null) {
      pages.push(...items);
      continue;
    }
    const previous = basePages.get(`group:${group.title}`);
    pages.push(
      stamp(previous, {
        ...(previous ?? {
          id: ids.page(),
          slug: slugify(group.title),
          hidden: false,
          noIndex: false,
          noRobotsIndex: false,
          variables: {},
          createdAt: now,
        }),
        kind: "group",
        title: group.title,
        updatedAt: now,
        pages: items,
      }),
    );
  }

  // Files: under .gitbook/assets/ by name; anything else must be a page SUMMARY.md lists.
  const baseAssets = assetNames(base.files);
  const baseByName = new Map(base.files.map((file) => [baseAssets.get(file.id)!, file]));
  const files: FileEntry[] = [];
  const newBytes: Uint8Array[] = [];
  for (const file of pushed) {
    if (file.path === CONFIG_FILE || file.path === SUMMARY_FILE || used.has(file.path)) continue;
    if (file.path.startsWith(`${ASSETS_DIR}/`)) {
      const name = file.path.slice(ASSETS_DIR.length + 1);
      if (name.includes("/")) throw new LayoutError(file.path, `is in a folder under ${ASSETS_DIR}/; files go directly in it`);
      const blob = ids.hash(file.bytes);
      const previous = baseByName.get(name);
      if (previous && previous.blob === blob) {
        files.push(previous);
        continue;
      }
      newBytes.push(file.bytes);
      const contentType = guessContentType(name);
      const entry: FileEntry = { id: previous?.id ?? ids.file(), name, contentType, size: file.bytes.length, blob };
      files.push(entry);
      continue;
    }
    if (file.path.endsWith(".md")) throw new LayoutError(file.path, `is not listed in ${SUMMARY_FILE}; list it there, or remove it`);
    throw new LayoutError(
      file.path,
      `is outside the layout (pages are Markdown files listed in ${SUMMARY_FILE}, other files go under ${ASSETS_DIR}/)`,
    );
  }
  void config;
  return {
    content: { pages, files, reusableContents: base.reusableContents ?? [], variables: base.variables ?? {} },
    markdown,
    files: newBytes,
  };
}
