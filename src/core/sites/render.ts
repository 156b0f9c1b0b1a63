// Markdown → HTML for published pages, with markdown-it (CommonMark + GFM tables and
// strikethrough, autolinks). Raw HTML in markdown is escaped, not passed through. Links and
// images go through the caller's resolver (pages → their published paths, `files/<id>` → signed
// download URLs); headings get the same anchors as search (slugify). Fenced blocks whose
// language has a registered renderer (`registerBlockRenderer`) are rendered by it: the hook for
// API-reference and integration blocks. `renderPageIn` renders a whole page: the page is cut into
// GitBook's blocks (src/core/content/blocks) and each is rendered as GitBook shows it (hints,
// tabs without JavaScript, code with titles and line numbers highlighted on the server, cards,
// embeds as link cards, math with KaTeX), with the outline of its headings.
import katex from "katex";
import MarkdownIt from "markdown-it";
import type { Services } from "../context.ts";
import { type Block, parseBlocks, walkBlocks } from "../content/blocks/index.ts";
import { slugify } from "../content/tree.ts";
import { CodeHighlighter, type CodeTokens } from "./highlight.ts";
import type { RequestScope } from "../request-scope.ts";

export interface LinkResolver {
  /** The href a link should have (absolute URLs usually unchanged). */
  link(href: string): string;
  /** The src an image should have. */
  image(src: string): string;
  /** The title of the page a link names, when it names one (content references show it). */
  title?(href: string): string | undefined;
}

/**
 * Renders the body of a fenced block `\`\`\`<language>` as HTML (escape what you output);
 * `loaded` is what the block's loader (if any) answered for it.
 */
export type BlockRenderer = (content: string, info: string, loaded?: unknown) => string;

/** Where a page is rendered: what a block's loader may read (its site's organization, site and space). */
export interface BlockContext {
  services: Services;
  organizationId: string;
  siteId?: string;
  spaceId?: string;
  /** Set by a loader whose failure may pass (a script that timed out): the page is then cached briefly. */
  volatile?: boolean;
  /** What the page's block loaders keep while it renders (e.g. the integration blocks' time budget). */
  scope: RequestScope;
}

/** Loads, before the (synchronous) render, what a block needs from the database. */
export type BlockLoader = (content: string, info: string, context: BlockContext) => Promise<unknown>;

/** How fenced blocks of one language (e.g. an OpenAPI operation block) are rendered, and what is loaded for them first. */
export interface FencedBlockKind {
  render: BlockRenderer;
  load?: BlockLoader;
}

/** What other domains add to published pages: renderers of fenced blocks by language, and page scripts. */
export interface SiteExtensions {
  blocks: ReadonlyMap<string, FencedBlockKind>;
  pageScripts: readonly PageScripts[];
}

// createApp builds the extensions from the domains that define them (OpenAPI, integrations); they
// read contexts and most of core, so Services names them here rather than in context.ts.
declare module "../context.ts" {
  interface Services {
    /** Fenced-block renderers and page scripts of published pages (src/core/sites/render.ts). */
    siteExtensions: SiteExtensions;
  }
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
type Token = ReturnType<typeof md.parse>[number];

/** A page's outline: its level-2 and level-3 headings. */
export interface Heading {
  id: string;
  text: string;
  level: number;
}

/** What one render shares across the blocks of a page (heading ids stay unique over all of them). */
interface RenderEnv extends Record<string | symbol, unknown> {
  resolver?: LinkResolver;
  seen?: Map<string, number>;
  headings?: Heading[];
  page?: PageRender;
  /** The fenced-block renderers of the page's services (none for ContentKit's markdown). */
  blocks?: ReadonlyMap<string, FencedBlockKind>;
}

md.core.ruler.push("resolve_links", (state) => {
  const env = (state.env ?? {}) as RenderEnv;
  const resolver = env.resolver;
  const seen = (env.seen ??= new Map<string, number>());
  for (const [index, token] of state.tokens.entries()) {
    if (token.type === "heading_open") {
      const inline = state.tokens[index + 1];
      const base = slugify(inline?.content ?? "") || "section";
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      const id = count ? `${base}-${count}` : base;
      token.attrSet("id", id);
      const level = Number(token.tag.slice(1));
      if (env.headings && (level === 2 || level === 3))
        env.headings.push({
          id,
          level,
          text: (inline?.children ?? [])
            .map((child) => (child.type === "text" || child.type === "code_inline" ? child.content : ""))
            .join(""),
        });
    }
    if (token.type === "table_open") {
      token.attrSet("class", "table");
    }
    if (!resolver || token.type !== "inline" || !token.children) continue;
    for (const child of token.children) {
      if (child.type === "link_open") child.attrSet("href", resolver.link(String(child.attrGet("href") ?? "")));
      if (child.type === "image") child.attrSet("src", resolver.image(String(child.attrGet("src") ?? "")));
    }
  }
});

// Task lists (`- [ ] item`, `- [x] item`): a disabled checkbox at the start of the item.
md.core.ruler.push("task_lists", (state) => {
  const tokens = state.tokens;
  for (let index = 2; index < tokens.length; index++) {
    const inline = tokens[index];
    if (inline.type !== "inline" || tokens[index - 1].type !== "paragraph_open" || tokens[index - 2].type !== "list_item_open") continue;
    const match = /^\[([ xX])\][ \t]/.exec(inline.content);
    const first = inline.children?.[0];
    if (!match || first?.type !== "text" || !first.content.startsWith(match[0])) continue;
    first.content = first.content.slice(match[0].length);
    const box = new state.Token("html_inline", "", 0);
    box.content = `<input type="checkbox" disabled${match[1] === " " ? "" : " checked"} aria-label="${match[1] === " " ? "To do" : "Done"}"> `;
    inline.children!.unshift(box);
    tokens[index - 2].attrJoin("class", "task");
  }
});

// Inline math, GitBook's way: `$$x^2$$` inside a paragraph (rendered by KaTeX on the server).
md.inline.ruler.before("escape", "math_inline", (state, silent) => {
  if (!state.src.startsWith("$$", state.pos)) return false;
  const end = state.src.indexOf("$$", state.pos + 2);
  if (end < 0 || end === state.pos + 2) return false;
  if (!silent) {
    const token = state.push("math_inline", "", 0);
    token.content = state.src.slice(state.pos + 2, end);
  }
  state.pos = end + 2;
  return true;
});
md.renderer.rules.math_inline = (tokens, index) => renderMath(tokens[index].content, false);

const defaultTableOpen = md.renderer.rules.table_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.table_open = (tokens, index, options, env, self) => {
  tokens[index].attrs = null;
  return `<div class="table-scroll" tabindex="0">${defaultTableOpen(tokens, index, options, env, self)}`;
};
md.renderer.rules.table_close = () => "</table></div>\n";

const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const language = token.info.trim().split(/\s+/)[0];
  const custom = language ? (env as RenderEnv).blocks?.get(language) : undefined;
  if (custom) return custom.render(token.content, token.info, token.meta?.loaded);
  const page = (env as RenderEnv).page;
  if (!page) return defaultFence(tokens, index, options, env, self);
  return page.code(token.content.replace(/\n$/, ""), language ?? "", {});
};

/** KaTeX's HTML for `tex` (never throws: an error shows the source in red); bounded in size and macros. */
export function renderMath(tex: string, display: boolean): string {
  try {
    return katex.renderToString(tex.slice(0, 10_000), {
      displayMode: display,
      throwOnError: false,
      output: "html",
      trust: false,
      maxSize: 50,
      maxExpand: 200,
      strict: "ignore",
    });
  } catch {
    return `<code class="math-error">${escapeHtml(tex)}</code>`;
  }
}

const HINT_LABELS: Record<string, string> = { info: "Info", success: "Tip", warning: "Warning", danger: "Danger" };
const ALERT_LABELS: Record<string, string> = { NOTE: "Note", TIP: "Tip", IMPORTANT: "Important", WARNING: "Warning", CAUTION: "Caution" };
const MAX_TOKEN_CLASSES = 400;

/** One page being rendered: ids, the code colors it used (as classes), whether it has math. */
class PageRender {
  private tabsCount = 0;
  private readonly colors = new Map<string, string>();
  math = false;
  constructor(
    private readonly highlighter: CodeHighlighter | undefined,
    readonly env: RenderEnv,
  ) {}

  /** The CSS of the code colors this page used: `.kN{--l:…;--d:…}` (the stylesheet picks one by theme). */
  style(): string {
    return [...this.colors].map(([key, name]) => `.${name}{${key}}`).join("");
  }

  private colorClass(token: CodeTokens[number][number]): string {
    const light = token.variants.light;
    const dark = token.variants.dark;
    const bold = !!(light?.fontStyle && light.fontStyle & 2);
    const italic = !!(light?.fontStyle && light.fontStyle & 1);
    const defaults = (this.defaults ??= this.highlighter?.defaults() ?? { light: "", dark: "" });
    // Text in the themes' own colors needs no class (the code block's color is theirs).
    if (!bold && !italic && light?.color?.toLowerCase() === defaults.light && dark?.color?.toLowerCase() === defaults.dark) return "";
    let key = `--l:${light?.color ?? "inherit"};--d:${dark?.color ?? "inherit"}`;
    if (italic) key += ";font-style:italic";
    if (bold) key += ";font-weight:600";
    let name = this.colors.get(key);
    if (!name) {
      if (this.colors.size >= MAX_TOKEN_CLASSES) return "";
      name = `k${this.colors.size.toString(36)}`;
      this.colors.set(key, name);
    }
    return name;
  }
  private defaults: { light: string; dark: string } | undefined;

  code(code: string, language: string, options: { title?: string; lineNumbers?: boolean; wrap?: boolean }): string {
    const tokens = language === "mermaid" ? null : (this.highlighter?.tokens(code, language) ?? null);
    const lines = tokens
      ? tokens.map((line) => {
          // Neighbouring tokens of one color are one span.
          const runs: { name: string; text: string }[] = [];
          for (const token of line) {
            const name = this.colorClass(token);
            const last = runs.at(-1);
            if (last && last.name === name) last.text += token.content;
            else runs.push({ name, text: token.content });
          }
          return runs.map(({ name, text }) => (name ? `<span class="${name}">${escapeHtml(text)}</span>` : escapeHtml(text))).join("");
        })
      : code.split("\n").map(escapeHtml);
    // Lines are spans only when numbered (a counter per line): bytes a plain block does not need.
    const body = options.lineNumbers ? lines.map((line) => `<span class="line">${line}</span>`).join("\n") : lines.join("\n");
    const title = options.title ?? (language === "mermaid" ? "Mermaid diagram (source)" : undefined);
    const classes = ["code", options.lineNumbers ? "numbered" : "", options.wrap ? "wrap" : ""].filter(Boolean).join(" ");
    const lang = escapeHtml(language);
    return `<figure class="${classes}">${title ? `<figcaption>${escapeHtml(title)}</figcaption>` : ""}<pre tabindex="0"><code${lang ? ` class="language-${lang}"` : ""}>${body}</code></pre><button class="copy" type="button" hidden>Copy</button></figure>\n`;
  }

  blocks(blocks: Block[]): string {
    return blocks.map((block) => this.block(block)).join("");
  }

  private link(href: string): string {
    return this.env.resolver ? this.env.resolver.link(href) : href;
  }

  private block(block: Block): string {
    switch (block.type) {
      case "markdown":
        return md.renderer.render((block as ParsedMarkdown).tokens ?? md.parse(block.markdown, this.env), md.options, this.env);
      case "front-matter":
        return "";
      case "hint": {
        const label = block.alert ? ALERT_LABELS[block.alert] : HINT_LABELS[block.style];
        return `<div class="hint hint-${block.style}" role="note" aria-label="${label}"><p class="hint-label">${label}</p>${this.blocks(block.children)}</div>\n`;
      }
      case "tabs": {
        const group = `tabs-${this.tabsCount++}`;
        const heads = block.tabs
          .map(
            (tab, index) =>
              `<input type="radio" name="${group}" id="${group}-${index}"${index === 0 ? " checked" : ""}><label for="${group}-${index}">${escapeHtml(tab.title || `Tab ${index + 1}`)}</label>`,
          )
          .join("");
        const panels = block.tabs.map((tab) => `<div class="tab-panel">${this.blocks(tab.children)}</div>`).join("");
        return `<div class="tabset">${heads}${panels}</div>\n`;
      }
      case "code":
        return this.code(block.code, block.language, {
          title: block.title,
          lineNumbers: block.lineNumbers,
          wrap: block.overflow === "wrap",
        });
      case "details":
        return `<details class="expandable"${block.open ? " open" : ""}><summary>${md.renderInline(block.summary.replace(/<[^>]*>/g, ""), this.env)}</summary><div class="expandable-body">${this.blocks(block.children)}</div></details>\n`;
      case "embed": {
        let host = "";
        try {
          const url = new URL(block.url);
          if (url.protocol === "https:" || url.protocol === "http:") host = url.host;
        } catch {
          // not a URL: shown as text
        }
        if (!host) return `<p class="embed">${escapeHtml(block.url)}</p>\n`;
        return `<a class="embed" href="${escapeHtml(block.url)}" rel="noopener"><span class="embed-host">${escapeHtml(host)}</span><span class="embed-title">${escapeHtml(block.caption || block.url)}</span></a>\n`;
      }
      case "content-ref": {
        const title = this.env.resolver?.title?.(block.url) ?? block.url.replace(/\.md$/, "").split("/").pop() ?? block.url;
        return `<a class="content-ref" href="${escapeHtml(this.link(block.url))}"><span class="content-ref-title">${escapeHtml(title)}</span></a>\n`;
      }
      case "file": {
        const name = block.src.split("/").pop() ?? block.src;
        return `<a class="file" href="${escapeHtml(this.link(block.src))}" download><span class="file-name">${escapeHtml(block.caption || name)}</span><span class="file-meta">${escapeHtml(name)}</span></a>\n`;
      }
      case "openapi": {
        const method = (block.method ?? "").toUpperCase();
        const spec =
          block.src && /^https?:/.test(block.src) ? ` <a href="${escapeHtml(block.src)}" rel="noopener">OpenAPI document</a>` : "";
        return `<div class="openapi-ref">${method ? `<span class="method method-${escapeHtml(block.method ?? "")}">${escapeHtml(method)}</span> ` : ""}<code>${escapeHtml(block.path ?? "")}</code>${spec}</div>\n`;
      }
      case "cards": {
        const cards = block.cards.map((card) => {
          let target: string | undefined;
          let cover: string | undefined;
          const texts: string[] = [];
          card.cells.forEach((cell, index) => {
            const column = block.columns[index];
            if (column?.kind === "target") target = cell.href ?? cell.text;
            else if (column?.kind === "cover") cover = cell.href ?? cell.text;
            else if (!column?.hidden && cell.text) texts.push(cell.text);
          });
          const [title, ...rest] = texts;
          const inner = `${cover ? `<img src="${escapeHtml(this.env.resolver?.image(cover) ?? cover)}" alt="" loading="lazy">` : ""}<span class="card-title">${escapeHtml(title ?? "")}</span>${rest.map((text) => `<span class="card-text">${escapeHtml(text)}</span>`).join("")}`;
          return target ? `<a class="card" href="${escapeHtml(this.link(target))}">${inner}</a>` : `<div class="card">${inner}</div>`;
        });
        return `<div class="cards">${cards.join("")}</div>\n`;
      }
      case "math":
        this.math = true;
        return `<div class="math" tabindex="0">${renderMath(block.tex, true)}</div>\n`;
      case "unknown":
        return block.children.length ? `<div class="block block-${escapeHtml(block.name)}">${this.blocks(block.children)}</div>\n` : "";
    }
  }
}

/** A page rendered: its HTML, its outline, the CSS of its code colors, whether it shows math (KaTeX's stylesheet). */
export interface RenderedPage {
  html: string;
  headings: Heading[];
  style: string;
  math: boolean;
}

/**
 * A whole page (GitBook's blocks) as HTML, after the loaders of its fenced blocks have run and
 * the grammars of its code languages are loaded (only those, once per highlighter).
 */
export async function renderPageIn(
  context: BlockContext,
  markdown: string,
  resolver: LinkResolver | undefined,
  highlighter: CodeHighlighter | undefined,
): Promise<RenderedPage> {
  const env: RenderEnv = { resolver, seen: new Map(), headings: [], blocks: context.services.siteExtensions.blocks };
  const page = new PageRender(highlighter, env);
  env.page = page;
  const blocks = parseBlocks(markdown);
  const languages = new Set<string>();
  const fences: Token[] = [];
  walkBlocks(blocks, (block) => {
    if (block.type === "code") languages.add(block.language);
    if (block.type !== "markdown") return;
    const tokens = md.parse(block.markdown, env);
    (block as ParsedMarkdown).tokens = tokens;
    for (const token of tokens) {
      if (token.type !== "fence") continue;
      languages.add(token.info.trim().split(/\s+/)[0] ?? "");
      fences.push(token);
    }
  });
  // Parsing (in document order) gave headings their ids and collected the outline.
  const loads = new Map<string, Promise<unknown>>();
  await Promise.all([
    highlighter?.prepare(languages),
    ...fences.map(async (token) => {
      const entry = env.blocks?.get(token.info.trim().split(/\s+/)[0] ?? "");
      if (!entry?.load) return;
      const key = `${token.info}\n${token.content}`;
      if (!loads.has(key)) loads.set(key, entry.load(token.content, token.info, context));
      token.meta = { ...(token.meta ?? {}), loaded: await loads.get(key) };
    }),
  ]);
  const html = page.blocks(blocks);
  return { html, headings: env.headings ?? [], style: page.style(), math: page.math || html.includes('class="katex"') };
}

type ParsedMarkdown = Block & { tokens?: Token[] };

/** The page body as HTML; `resolver` rewrites links and images. */
export function renderMarkdown(markdown: string, resolver?: LinkResolver): string {
  return md.render(markdown, { resolver });
}

/** A script a site's published pages load, and the Content-Security-Policy (a header value) the page merges for it. */
export interface PageScript {
  src: string;
  contentSecurityPolicy?: string | null;
}

/**
 * The scripts a site's published pages load (absolute URLs, each in a `<script src async>` and
 * allowed by the page's Content-Security-Policy): integrations provide them (site-scripts.ts).
 */
export type PageScripts = (services: Services, site: { id: string; organizationId: string }) => Promise<PageScript[]>;

/** The scripts of a site's published pages, from every provider in `services.siteExtensions`. */
export async function pageScriptsOf(services: Services, site: { id: string; organizationId: string }): Promise<PageScript[]> {
  return (await Promise.all(services.siteExtensions.pageScripts.map((provider) => provider(services, site)))).flat();
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
