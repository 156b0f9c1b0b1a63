// GitBook-format Markdown → a tree of blocks, and back. One model shared by the published sites
// (src/core/sites/render.ts) and Git export/import: the stored Markdown of a page is cut into
// top-level blocks that GitBook's Markdown carries — `{% hint %}`, GitHub `> [!NOTE]` alerts,
// `{% tabs %}`/`{% tab %}`, `{% code %}`, `<details>`, `{% embed %}`, `{% content-ref %}`,
// `{% file %}`, `{% swagger %}`/`{% openapi %}`, cards tables (`data-view="cards"`), front
// matter, `$$` math — and plain Markdown between them (headings, lists with task items, tables,
// fenced code, ...), which stays as its source text for a CommonMark renderer.
//
// Every block keeps `raw`, the exact source it was cut from: `toMarkdown(parseBlocks(md)) === md`
// for any input (byte-identical, line endings included). What the parser does not understand (an
// unknown `{% tag %}`, an unclosed container) is kept verbatim: an `unknown` block, or Markdown.
import { parse as parseHtml } from "node-html-parser";
import { parse as parseYaml } from "yaml";

export type HintStyle = "info" | "success" | "warning" | "danger";
export type AlertKind = "NOTE" | "TIP" | "IMPORTANT" | "WARNING" | "CAUTION";

interface Base {
  /** The exact source of the block (with its line endings); absent on blocks built in code. */
  raw?: string;
}
/** CommonMark + GFM source (paragraphs, headings, lists and task lists, tables, fenced code, quotes). */
export interface MarkdownBlock extends Base {
  type: "markdown";
  markdown: string;
}
export interface FrontMatterBlock extends Base {
  type: "front-matter";
  /** The YAML as written, without the `---` lines. */
  yaml: string;
  /** The parsed mapping ({} when it is not a mapping or does not parse). */
  data: Record<string, unknown>;
  description?: string;
  icon?: string;
  layout?: unknown;
}
export interface HintBlock extends Base {
  type: "hint";
  style: HintStyle;
  /** `liquid` for `{% hint %}`, `alert` for a GitHub alert (`> [!NOTE]`, whose kind is `alert`). */
  syntax: "liquid" | "alert";
  alert?: AlertKind;
  children: Block[];
}
export interface TabsBlock extends Base {
  type: "tabs";
  tabs: { title: string; children: Block[] }[];
}
export interface CodeBlock extends Base {
  type: "code";
  title?: string;
  lineNumbers?: boolean;
  /** `wrap` when long lines wrap (GitBook's `overflow="wrap"`). */
  overflow?: string;
  /** The fence's language (first word of its info string), "" when none. */
  language: string;
  code: string;
}
export interface DetailsBlock extends Base {
  type: "details";
  /** The summary's inner HTML/Markdown as written. */
  summary: string;
  open: boolean;
  children: Block[];
}
export interface EmbedBlock extends Base {
  type: "embed";
  url: string;
  caption: string;
}
export interface ContentRefBlock extends Base {
  type: "content-ref";
  url: string;
  children: Block[];
}
export interface FileBlock extends Base {
  type: "file";
  src: string;
  caption: string;
}
export interface OpenAPIBlock extends Base {
  type: "openapi";
  /** `swagger`, `openapi` or `openapi-operation` (GitBook's tag names). */
  tag: string;
  attributes: Record<string, string>;
  src?: string;
  path?: string;
  method?: string;
  /** What stands between the tags (a link to the spec, older swagger sub-blocks), as written. */
  body: string;
}
export interface CardColumn {
  /** The header cell's text. */
  title: string;
  /** `target` (the card's link), `cover` (its image) or `text`. */
  kind: "text" | "target" | "cover";
  hidden: boolean;
}
export interface Card {
  /** One per column: the cell's text, and its first link's href (if any). */
  cells: { text: string; href?: string }[];
}
export interface CardsBlock extends Base {
  type: "cards";
  columns: CardColumn[];
  cards: Card[];
}
export interface MathBlock extends Base {
  type: "math";
  tex: string;
}
/** A `{% tag %}` (or `{% tag %}…{% endtag %}`) the model does not know: kept verbatim, its inside parsed. */
export interface UnknownBlock extends Base {
  type: "unknown";
  name: string;
  attributes: Record<string, string>;
  children: Block[];
}

export type Block =
  | MarkdownBlock
  | FrontMatterBlock
  | HintBlock
  | TabsBlock
  | CodeBlock
  | DetailsBlock
  | EmbedBlock
  | ContentRefBlock
  | FileBlock
  | OpenAPIBlock
  | CardsBlock
  | MathBlock
  | UnknownBlock;

/** Containers nest; beyond this depth their inside stays Markdown (a bound on hostile input). */
const MAX_DEPTH = 16;

const TAG = /^[ \t]*\{%-?[ \t]*([a-zA-Z][\w-]*)((?:[^%]|%(?!\}))*?)-?%\}[ \t]*$/;
const ATTRIBUTE = /([a-zA-Z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))/g;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ALERT = /^ {0,3}>[ \t]?\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*$/i;
const ALERT_STYLE: Record<AlertKind, HintStyle> = {
  NOTE: "info",
  TIP: "success",
  IMPORTANT: "info",
  WARNING: "warning",
  CAUTION: "danger",
};
const HINT_STYLES: ReadonlySet<string> = new Set(["info", "success", "warning", "danger"]);
/** Tags whose end tag is optional (`{% embed url="…" %}` alone, or with a caption and `{% endembed %}`). */
const OPTIONAL_END: ReadonlySet<string> = new Set(["embed", "file"]);
const OPENAPI_TAGS: ReadonlySet<string> = new Set(["swagger", "openapi", "openapi-operation", "openapi-schemas", "openapi-webhook"]);

/** `name="value"` pairs of a tag (double, single or no quotes). */
export function parseAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(ATTRIBUTE)) attributes[match[1]] = match[2] ?? match[3] ?? match[4] ?? "";
  return attributes;
}

/** Lines with their line endings (the last may have none). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

const strip = (line: string) => line.replace(/\r?\n$/, "");

interface Tag {
  name: string;
  attributes: Record<string, string>;
}
function tagOf(line: string): Tag | null {
  const match = TAG.exec(strip(line));
  return match ? { name: match[1].toLowerCase(), attributes: parseAttributes(match[2]) } : null;
}

/**
 * The index of the line closing what opens at `start` (exclusive of `start`), skipping fenced
 * code; `opens`/`closes` tell whether a line opens or closes one more level. -1 when unclosed.
 */
function findClose(lines: string[], start: number, opens: (line: string) => boolean, closes: (line: string) => boolean): number {
  let depth = 1;
  let fence: string | null = null;
  for (let index = start + 1; index < lines.length; index++) {
    const line = strip(lines[index]);
    if (fence) {
      if (new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(line)) fence = null;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
      fence = open[1];
      continue;
    }
    if (closes(line)) {
      depth--;
      if (depth === 0) return index;
    } else if (opens(line)) depth++;
  }
  return -1;
}

const isTag = (line: string, name: string) => tagOf(line)?.name === name;

/** Cuts `markdown` into blocks (see the top of this file). Never throws; `toMarkdown` of the answer is the input. */
export function parseBlocks(markdown: string): Block[] {
  return parseLines(splitLines(markdown), 0, true);
}

function parseLines(lines: string[], depth: number, top = false): Block[] {
  const blocks: Block[] = [];
  let pending: string[] = [];
  const flush = () => {
    if (!pending.length) return;
    const text = pending.join("");
    blocks.push({ type: "markdown", markdown: text, raw: text });
    pending = [];
  };
  const push = (block: Block) => {
    flush();
    blocks.push(block);
  };
  const inner = (from: number, to: number) =>
    depth + 1 >= MAX_DEPTH ? markdownOf(lines.slice(from, to)) : parseLines(lines.slice(from, to), depth + 1);

  let index = 0;
  // Front matter: only as the very first line of a page.
  if (top && lines.length && strip(lines[0]) === "---") {
    const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)$/.test(strip(line)));
    if (end > 0) {
      const yaml = lines.slice(1, end).join("");
      push(frontMatter(yaml, lines.slice(0, end + 1).join("")));
      index = end + 1;
    }
  }

  let fence: string | null = null;
  for (; index < lines.length; index++) {
    const line = lines[index];
    const text = strip(line);
    if (fence) {
      pending.push(line);
      if (new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(text)) fence = null;
      continue;
    }
    const open = FENCE_OPEN.exec(text);
    if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
      fence = open[1];
      pending.push(line);
      continue;
    }

    const tag = tagOf(text);
    if (tag && !tag.name.startsWith("end")) {
      const end = findClose(
        lines,
        index,
        (l) => isTag(l, tag.name),
        (l) => isTag(l, `end${tag.name}`),
      );
      if (end < 0 && !OPTIONAL_END.has(tag.name) && !OPENAPI_TAGS.has(tag.name) && KNOWN_PAIRED.has(tag.name)) {
        pending.push(line); // an unclosed container stays text
        continue;
      }
      // An optional end tag belongs to this tag only if no other tag of the name opens before it.
      const close = end >= 0 && OPTIONAL_END.has(tag.name) && lines.slice(index + 1, end).some((l) => isTag(l, tag.name)) ? -1 : end;
      const raw = lines.slice(index, close < 0 ? index + 1 : close + 1).join("");
      push(tagBlock(tag, lines, index, close, raw, inner));
      index = close < 0 ? index : close;
      continue;
    }

    if (/^ {0,3}<details(\s[^>]*)?>\s*$/i.test(text)) {
      const end = findClose(
        lines,
        index,
        (l) => /^ {0,3}<details(\s[^>]*)?>\s*$/i.test(l),
        (l) => /^ {0,3}<\/details>\s*$/i.test(l),
      );
      if (end > 0) {
        push(details(lines, index, end, inner));
        index = end;
        continue;
      }
    }

    if (/^ {0,3}<table\b[^>]*\bdata-view=["']cards["'][^>]*>/i.test(text)) {
      const end = lines.findIndex((l, i) => i >= index && /<\/table>\s*$/i.test(strip(l)));
      if (end >= 0) {
        const raw = lines.slice(index, end + 1).join("");
        push(cards(raw));
        index = end;
        continue;
      }
    }

    if (/^ {0,3}\$\$[ \t]*$/.test(text) && isBlockStart(pending)) {
      const end = lines.findIndex((l, i) => i > index && /^ {0,3}\$\$[ \t]*$/.test(strip(l)));
      if (end > 0) {
        const raw = lines.slice(index, end + 1).join("");
        push({
          type: "math",
          tex: lines
            .slice(index + 1, end)
            .join("")
            .replace(/\r?\n$/, ""),
          raw,
        });
        index = end;
        continue;
      }
    }
    const oneLineMath = /^ {0,3}\$\$(?!\$)(.+?)\$\$[ \t]*$/.exec(text);
    if (oneLineMath && isBlockStart(pending) && isBlankOrEnd(lines, index + 1)) {
      push({ type: "math", tex: oneLineMath[1].trim(), raw: line });
      continue;
    }

    const alert = ALERT.exec(text);
    if (alert && isBlockStart(pending)) {
      let end = index + 1;
      while (end < lines.length && /^ {0,3}>/.test(lines[end])) end++;
      const kind = alert[1].toUpperCase() as AlertKind;
      const body = lines.slice(index + 1, end).map((l) => l.replace(/^ {0,3}>[ \t]?/, ""));
      push({
        type: "hint",
        style: ALERT_STYLE[kind],
        syntax: "alert",
        alert: kind,
        children: depth + 1 >= MAX_DEPTH ? markdownOf(body) : parseLines(body, depth + 1),
        raw: lines.slice(index, end).join(""),
      });
      index = end - 1;
      continue;
    }

    pending.push(line);
  }
  flush();
  return blocks;
}

/** Whether a block may start here: not in the middle of a paragraph (the previous line is blank or there is none). */
function isBlockStart(pending: string[]): boolean {
  return !pending.length || strip(pending[pending.length - 1]).trim() === "";
}
function isBlankOrEnd(lines: string[], index: number): boolean {
  return index >= lines.length || strip(lines[index]).trim() === "";
}

function markdownOf(lines: string[]): Block[] {
  const text = lines.join("");
  return text ? [{ type: "markdown", markdown: text, raw: text }] : [];
}

const KNOWN_PAIRED: ReadonlySet<string> = new Set(["hint", "tabs", "tab", "code", "content-ref"]);

function tagBlock(tag: Tag, lines: string[], start: number, end: number, raw: string, inner: (from: number, to: number) => Block[]): Block {
  const { name, attributes } = tag;
  const body = end < 0 ? "" : lines.slice(start + 1, end).join("");
  switch (name) {
    case "hint": {
      const style = HINT_STYLES.has(attributes.style) ? (attributes.style as HintStyle) : "info";
      return { type: "hint", style, syntax: "liquid", children: inner(start + 1, end), raw };
    }
    case "tabs": {
      const tabs: TabsBlock["tabs"] = [];
      let index = start + 1;
      while (index < end) {
        const tab = tagOf(lines[index]);
        if (tab?.name === "tab") {
          const close = findClose(
            lines.slice(0, end),
            index,
            (l) => isTag(l, "tab"),
            (l) => isTag(l, "endtab"),
          );
          if (close > 0) {
            tabs.push({ title: tab.attributes.title ?? "", children: inner(index + 1, close) });
            index = close + 1;
            continue;
          }
        }
        if (strip(lines[index]).trim() !== "") break; // something else between tabs: not the tabs GitBook writes
        index++;
      }
      if (index < end) return { type: "unknown", name, attributes, children: inner(start + 1, end), raw };
      return { type: "tabs", tabs, raw };
    }
    case "code": {
      const inside = lines.slice(start + 1, end);
      const first = inside.findIndex((l) => strip(l).trim() !== "");
      const open = first >= 0 ? FENCE_OPEN.exec(strip(inside[first])) : null;
      let last = inside.length - 1;
      while (last > first && strip(inside[last]).trim() === "") last--;
      const closeOk = open && last > first && new RegExp(`^ {0,3}${open[1][0]}{${open[1].length},}[ \\t]*$`).test(strip(inside[last]));
      if (!open || !closeOk) return { type: "unknown", name, attributes, children: inner(start + 1, end), raw };
      const lineNumbers = attributes.lineNumbers ?? attributes.linenumbers;
      return {
        type: "code",
        ...(attributes.title !== undefined ? { title: attributes.title } : {}),
        ...(lineNumbers !== undefined ? { lineNumbers: lineNumbers === "true" } : {}),
        ...(attributes.overflow !== undefined ? { overflow: attributes.overflow } : {}),
        language: open[2].trim().split(/\s+/)[0] ?? "",
        code: inside
          .slice(first + 1, last)
          .join("")
          .replace(/\r?\n$/, ""),
        raw,
      };
    }
    case "embed":
      return { type: "embed", url: attributes.url ?? "", caption: body.trim(), raw };
    case "file":
      return { type: "file", src: attributes.src ?? "", caption: body.trim(), raw };
    case "content-ref":
      return { type: "content-ref", url: attributes.url ?? "", children: inner(start + 1, end), raw };
    default:
      if (OPENAPI_TAGS.has(name)) {
        return {
          type: "openapi",
          tag: name,
          attributes,
          ...(attributes.src !== undefined ? { src: attributes.src } : attributes.spec !== undefined ? { src: attributes.spec } : {}),
          ...(attributes.path !== undefined ? { path: attributes.path } : {}),
          ...(attributes.method !== undefined ? { method: attributes.method.toLowerCase() } : {}),
          body,
          raw,
        };
      }
      return { type: "unknown", name, attributes, children: end < 0 ? [] : inner(start + 1, end), raw };
  }
}

function frontMatter(yaml: string, raw: string): FrontMatterBlock {
  let data: Record<string, unknown> = {};
  try {
    const parsed = parseYaml(yaml, { maxAliasCount: 10 });
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
  } catch {
    // Kept verbatim in `raw`/`yaml`; no fields.
  }
  return {
    type: "front-matter",
    yaml,
    data,
    ...(typeof data.description === "string" ? { description: data.description } : {}),
    ...(typeof data.icon === "string" ? { icon: data.icon } : {}),
    ...(data.layout !== undefined ? { layout: data.layout } : {}),
    raw,
  };
}

function details(lines: string[], start: number, end: number, inner: (from: number, to: number) => Block[]): DetailsBlock {
  const raw = lines.slice(start, end + 1).join("");
  const open = /\bopen\b/i.test(strip(lines[start]));
  let index = start + 1;
  while (index < end && strip(lines[index]).trim() === "") index++;
  let summary = "";
  const inline = index < end ? /^\s*<summary>(.*?)<\/summary>\s*$/is.exec(strip(lines[index])) : null;
  if (inline) {
    summary = inline[1].trim();
    index++;
  } else if (index < end && /^\s*<summary>/i.test(lines[index])) {
    // A summary over several lines.
    const close = lines.findIndex((l, i) => i >= index && i < end && /<\/summary>/i.test(l));
    if (close >= 0) {
      summary = lines
        .slice(index, close + 1)
        .join("")
        .replace(/^\s*<summary>|<\/summary>\s*$/gi, "")
        .trim();
      index = close + 1;
    }
  }
  return { type: "details", summary, open, children: inner(index, end), raw };
}

function cards(raw: string): CardsBlock {
  const table = parseHtml(raw).querySelector("table");
  const columns: CardColumn[] = (table?.querySelectorAll("thead th") ?? []).map((th) => ({
    title: th.text.trim(),
    kind: th.hasAttribute("data-card-target") ? "target" : th.hasAttribute("data-card-cover") ? "cover" : "text",
    hidden: th.hasAttribute("data-hidden"),
  }));
  const rows = table?.querySelectorAll("tbody tr") ?? table?.querySelectorAll("tr") ?? [];
  const cardList: Card[] = rows.map((row) => ({
    cells: row.querySelectorAll("td").map((td) => {
      const href = td.querySelector("a")?.getAttribute("href");
      return { text: td.text.trim(), ...(href ? { href } : {}) };
    }),
  }));
  return { type: "cards", columns, cards: cardList, raw };
}

// ---------------------------------------------------------------------------------------------
// Back to Markdown

const attr = (name: string, value: string | undefined) => (value === undefined ? "" : ` ${name}="${value.replace(/"/g, "&quot;")}"`);

/** The Markdown of `blocks`: each block's `raw` when it has one, GitBook's syntax otherwise. */
export function toMarkdown(blocks: Block[]): string {
  return blocks.map(blockToMarkdown).join("");
}

const ensureNewline = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);

function blockToMarkdown(block: Block): string {
  if (block.raw !== undefined) return block.raw;
  switch (block.type) {
    case "markdown":
      return block.markdown;
    case "front-matter":
      return `---\n${ensureNewline(block.yaml)}---\n`;
    case "hint":
      if (block.syntax === "alert") {
        const body = ensureNewline(toMarkdown(block.children))
          .split("\n")
          .slice(0, -1)
          .map((line) => (line ? `> ${line}` : ">"));
        return `> [!${block.alert ?? "NOTE"}]\n${body.map((line) => `${line}\n`).join("")}`;
      }
      return `{% hint style="${block.style}" %}\n${ensureNewline(toMarkdown(block.children))}{% endhint %}\n`;
    case "tabs":
      return `{% tabs %}\n${block.tabs.map((tab) => `{% tab title="${tab.title}" %}\n${ensureNewline(toMarkdown(tab.children))}{% endtab %}\n`).join("\n")}{% endtabs %}\n`;
    case "code": {
      const fence = "`".repeat(Math.max(3, ...[...block.code.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)));
      const lineNumbers = block.lineNumbers === undefined ? undefined : String(block.lineNumbers);
      return `{% code${attr("title", block.title)}${attr("overflow", block.overflow)}${attr("lineNumbers", lineNumbers)} %}\n${fence}${block.language}\n${ensureNewline(block.code)}${fence}\n{% endcode %}\n`;
    }
    case "details":
      return `<details${block.open ? " open" : ""}>\n\n<summary>${block.summary}</summary>\n\n${ensureNewline(toMarkdown(block.children))}\n</details>\n`;
    case "embed":
      return block.caption ? `{% embed url="${block.url}" %}\n${block.caption}\n{% endembed %}\n` : `{% embed url="${block.url}" %}\n`;
    case "file":
      return block.caption ? `{% file src="${block.src}" %}\n${block.caption}\n{% endfile %}\n` : `{% file src="${block.src}" %}\n`;
    case "content-ref":
      return `{% content-ref url="${block.url}" %}\n${ensureNewline(toMarkdown(block.children))}{% endcontent-ref %}\n`;
    case "openapi": {
      const attributes = Object.entries(block.attributes)
        .map(([name, value]) => attr(name, value))
        .join("");
      return `{% ${block.tag}${attributes} %}\n${ensureNewline(block.body)}{% end${block.tag} %}\n`;
    }
    case "cards": {
      const head = block.columns
        .map(
          (c) =>
            `<th${c.kind === "target" ? " data-card-target" : c.kind === "cover" ? " data-card-cover" : ""}${c.hidden ? " data-hidden" : ""}>${c.title}</th>`,
        )
        .join("");
      const rows = block.cards
        .map(
          (card) =>
            `<tr>${card.cells.map((cell) => `<td>${cell.href ? `<a href="${cell.href}">${cell.text}</a>` : cell.text}</td>`).join("")}</tr>`,
        )
        .join("");
      return `<table data-view="cards"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>\n`;
    }
    case "math":
      return `$$\n${ensureNewline(block.tex)}$$\n`;
    case "unknown": {
      const attributes = Object.entries(block.attributes)
        .map(([name, value]) => attr(name, value))
        .join("");
      return `{% ${block.name}${attributes} %}\n${ensureNewline(toMarkdown(block.children))}{% end${block.name} %}\n`;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers for renderers

/** Visits every block, containers' children included (depth first, in order). */
export function walkBlocks(blocks: Block[], visit: (block: Block) => void): void {
  for (const block of blocks) {
    visit(block);
    if (block.type === "tabs") for (const tab of block.tabs) walkBlocks(tab.children, visit);
    else if ("children" in block) walkBlocks(block.children, visit);
  }
}

const normalizeTitle = (text: string) => text.replace(/[*_`]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

/**
 * `markdown` without its leading level-1 heading when that heading is the page's `title` (so a
 * page shows its title once). Front matter and blank lines before the heading are kept; the
 * blank lines right after it are dropped. Anything else is returned unchanged.
 */
export function withoutTitleHeading(markdown: string, title: string): string {
  const lines = splitLines(markdown);
  let index = 0;
  if (lines.length && strip(lines[0]) === "---") {
    const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)$/.test(strip(line)));
    if (end > 0) index = end + 1;
  }
  while (index < lines.length && strip(lines[index]).trim() === "") index++;
  const heading = index < lines.length ? /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(strip(lines[index])) : null;
  let skip = 1;
  let text = heading?.[1];
  if (!heading && index + 1 < lines.length && /^ {0,3}=+[ \t]*$/.test(strip(lines[index + 1])) && strip(lines[index]).trim()) {
    text = strip(lines[index]); // a setext heading
    skip = 2;
  }
  if (text === undefined || normalizeTitle(text) !== normalizeTitle(title)) return markdown;
  let after = index + skip;
  while (after < lines.length && strip(lines[after]).trim() === "") after++;
  return lines.slice(0, index).join("") + lines.slice(after).join("");
}
