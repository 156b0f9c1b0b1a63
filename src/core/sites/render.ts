// Markdown → HTML for published pages, with markdown-it (CommonMark + GFM tables and
// strikethrough, autolinks). Raw HTML in markdown is escaped, not passed through. Links and
// images go through the caller's resolver (pages → their published paths, `files/<id>` → signed
// download URLs); headings get the same anchors as search (slugify). Fenced blocks whose
// language has a registered renderer (`registerBlockRenderer`) are rendered by it: the hook for
// API-reference and integration blocks.
import MarkdownIt from "markdown-it";
import type { Services } from "../context.ts";
import { slugify } from "../content/tree.ts";

export interface LinkResolver {
  /** The href a link should have (absolute URLs usually unchanged). */
  link(href: string): string;
  /** The src an image should have. */
  image(src: string): string;
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
}

/** Loads, before the (synchronous) render, what a block needs from the database. */
export type BlockLoader = (content: string, info: string, context: BlockContext) => Promise<unknown>;

const blockRenderers = new Map<string, { render: BlockRenderer; load?: BlockLoader }>();

/** Registers the renderer of fenced blocks of `language` (e.g. an OpenAPI operation block), and its loader. */
export function registerBlockRenderer(language: string, render: BlockRenderer, load?: BlockLoader): void {
  blockRenderers.set(language, { render, load });
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

md.core.ruler.push("resolve_links", (state) => {
  const resolver = state.env?.resolver as LinkResolver | undefined;
  const seen = new Map<string, number>();
  for (const [index, token] of state.tokens.entries()) {
    if (token.type === "heading_open") {
      const inline = state.tokens[index + 1];
      const base = slugify(inline?.content ?? "") || "section";
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      token.attrSet("id", count ? `${base}-${count}` : base);
    }
    if (!resolver || token.type !== "inline" || !token.children) continue;
    for (const child of token.children) {
      if (child.type === "link_open") child.attrSet("href", resolver.link(String(child.attrGet("href") ?? "")));
      if (child.type === "image") child.attrSet("src", resolver.image(String(child.attrGet("src") ?? "")));
    }
  }
});

const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const language = token.info.trim().split(/\s+/)[0];
  const custom = language ? blockRenderers.get(language) : undefined;
  return custom ? custom.render(token.content, token.info, token.meta?.loaded) : defaultFence(tokens, index, options, env, self);
};

/** The page body as HTML; `resolver` rewrites links and images. */
export function renderMarkdown(markdown: string, resolver?: LinkResolver): string {
  return md.render(markdown, { resolver });
}

/**
 * The page body as HTML, after the loaders of its fenced blocks have run (each distinct block
 * once): what a published page uses, so that blocks can show data of the site's organization.
 */
export async function renderMarkdownIn(context: BlockContext, markdown: string, resolver?: LinkResolver): Promise<string> {
  const env = { resolver };
  const tokens = md.parse(markdown, env);
  const loads = new Map<string, Promise<unknown>>();
  await Promise.all(
    tokens.map(async (token) => {
      if (token.type !== "fence") return;
      const entry = blockRenderers.get(token.info.trim().split(/\s+/)[0] ?? "");
      if (!entry?.load) return;
      const key = `${token.info}\n${token.content}`;
      if (!loads.has(key)) loads.set(key, entry.load(token.content, token.info, context));
      token.meta = { ...(token.meta ?? {}), loaded: await loads.get(key) };
    }),
  );
  return md.renderer.render(tokens, md.options, env);
}

/** A script a site's published pages load, and the Content-Security-Policy (a header value) the page merges for it. */
export interface PageScript {
  src: string;
  contentSecurityPolicy?: string | null;
}

/**
 * The scripts a site's published pages load (absolute URLs, each in a `<script src async>` and
 * allowed by the page's Content-Security-Policy): integrations register them (site-scripts.ts).
 */
export type PageScripts = (services: Services, site: { id: string; organizationId: string }) => Promise<PageScript[]>;
const pageScriptProviders = new Set<PageScripts>();

export function registerPageScripts(provider: PageScripts): void {
  pageScriptProviders.add(provider);
}

/** The scripts of a site's published pages, from every registered provider (none until one is). */
export async function pageScriptsOf(services: Services, site: { id: string; organizationId: string }): Promise<PageScript[]> {
  return (await Promise.all([...pageScriptProviders].map((provider) => provider(services, site)))).flat();
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
