// ContentKit → HTML, for integration blocks on published pages: the element a script answered
// to `ui_render` (already checked against the published ContentKit schemas) as static HTML.
//
// Rendered: block, box, hstack, vstack, divider, text (bold, italic, code, strikethrough),
// markdown (through the page's markdown renderer: raw HTML escaped), codeblock, button, image,
// card, hint, link, webframe (as a link: published pages allow no frames). `{ $state: key }` bindings read the render's
// state. Everything from the script is escaped; URLs are kept only when they are http(s). A
// published page has no client runtime, so actions cannot run: a button whose action opens a
// URL (`@ui.url.open`) is a link, any other is shown disabled. Other elements (inputs, selects,
// switches, modals …) render as nothing, each reported once through `log`.
import { escapeHtml as e, renderMarkdown } from "./render.ts";

/** Nesting deeper than this renders as nothing (a script cannot make the page recurse without end). */
const MAX_DEPTH = 32;

type Element = Record<string, unknown> & { type?: unknown };

export interface ContentKitHtmlOptions {
  /** The render's state, for `{ $state: key }` bindings. */
  state?: Record<string, unknown>;
  /** Told once per element type that is not rendered. */
  log?: (message: string) => void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `url` when it is an absolute http(s) URL, else null. */
function safeUrl(url: unknown): string | null {
  if (typeof url !== "string") return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A ContentKit URL: a string, or `{ host, pathname, query }`. */
function urlOf(value: unknown): string | null {
  if (isObject(value) && typeof value.host === "string" && typeof value.pathname === "string") {
    const query = isObject(value.query)
      ? Object.entries(value.query)
          .filter((entry): entry is [string, string] => typeof entry[1] === "string")
          .map(([key, v]) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`)
          .join("&")
      : "";
    return safeUrl(`https://${value.host}${value.pathname}${query ? `?${query}` : ""}`);
  }
  return safeUrl(value);
}

const ALIGN: Record<string, string> = { start: "flex-start", center: "center", end: "flex-end" };
const TEXT_STYLE: Record<string, string> = { bold: "strong", italic: "em", code: "code", strikethrough: "s" };

class Renderer {
  private readonly reported = new Set<string>();

  constructor(private readonly options: ContentKitHtmlOptions) {}

  /** A string, or a `{ $state }` binding read from the state. */
  private value(value: unknown): string | null {
    if (typeof value === "string") return value;
    if (isObject(value) && typeof value.$state === "string") {
      const bound = this.options.state?.[value.$state];
      return typeof bound === "string" || typeof bound === "number" || typeof bound === "boolean" ? String(bound) : null;
    }
    return null;
  }

  children(children: unknown, depth: number): string {
    return Array.isArray(children) ? children.map((child) => this.element(child, depth)).join("") : "";
  }

  /** Text children: a string, or a list of strings, text and link elements. */
  private inline(children: unknown, depth: number): string {
    if (typeof children === "string") return e(children);
    if (!Array.isArray(children)) return "";
    return children.map((child) => (typeof child === "string" ? e(child) : this.element(child, depth))).join("");
  }

  element(node: unknown, depth: number): string {
    if (!isObject(node) || depth > MAX_DEPTH) return "";
    const el = node as Element;
    const next = depth + 1;
    switch (el.type) {
      case "block":
        return `<div class="ck-block">${this.children(el.children, next)}</div>`;
      case "box": {
        const grow = typeof el.grow === "number" && Number.isFinite(el.grow) ? ` style="flex-grow:${el.grow}"` : "";
        return `<div class="ck-box"${grow}>${this.children(el.children, next)}</div>`;
      }
      case "hstack":
      case "vstack": {
        const direction = el.type === "hstack" ? "row" : "column";
        const align = ALIGN[typeof el.align === "string" ? el.align : "start"] ?? "flex-start";
        return `<div class="ck-${el.type}" style="display:flex;flex-direction:${direction};gap:0.5rem;align-items:${align}">${this.children(el.children, next)}</div>`;
      }
      case "divider":
        return '<hr class="ck-divider">';
      case "text": {
        const inner = this.inline(el.children, next);
        const tag = typeof el.style === "string" ? TEXT_STYLE[el.style] : undefined;
        return tag ? `<${tag}>${inner}</${tag}>` : `<span class="ck-text">${inner}</span>`;
      }
      case "markdown": {
        const content = this.value(el.content);
        return content === null ? "" : `<div class="ck-markdown">${renderMarkdown(content)}</div>`;
      }
      case "codeblock": {
        const content = this.value(el.content) ?? "";
        const syntax = typeof el.syntax === "string" ? ` class="language-${e(el.syntax)}"` : "";
        return (
          `<div class="ck-codeblock">${this.children(el.header, next)}<pre><code${syntax}>${e(content)}</code></pre>` +
          `${this.children(el.footer, next)}${this.children(el.buttons, next)}</div>`
        );
      }
      case "button":
        return this.button(el);
      case "image": {
        const src = isObject(el.source) ? safeUrl(el.source.url) : null;
        if (!src) return "";
        const ratio = typeof el.aspectRatio === "number" && el.aspectRatio > 0 ? ` style="aspect-ratio:${el.aspectRatio}"` : "";
        return `<img class="ck-image" src="${e(src)}" alt=""${ratio} loading="lazy">`;
      }
      case "card": {
        const icon = isObject(el.icon) ? this.element(el.icon, next) : "";
        const title = typeof el.title === "string" ? e(el.title) : "";
        const target = isObject(el.onPress) && el.onPress.action === "@ui.url.open" ? safeUrl(el.onPress.url) : null;
        const heading = title
          ? `<p class="ck-card-title"><strong>${target ? `<a href="${e(target)}" rel="noopener noreferrer nofollow">${title}</a>` : title}</strong></p>`
          : "";
        const hint = el.hint !== undefined ? `<p class="ck-card-hint">${this.inline(el.hint, next)}</p>` : "";
        return `<div class="ck-card">${icon}${heading}${hint}${this.children(el.buttons, next)}${this.children(el.children, next)}</div>`;
      }
      case "hint":
        return `<p class="ck-hint">${this.inline(el.children, next)}</p>`;
      case "link": {
        const href = isObject(el.target) ? urlOf(el.target.url) : null;
        const text = this.inline(el.children, next);
        return href ? `<a class="ck-link" href="${e(href)}" rel="noopener noreferrer nofollow">${text}</a>` : text;
      }
      case "webframe": {
        // Published pages allow no frames (their Content-Security-Policy): a link to the frame's page instead.
        const src = isObject(el.source) ? safeUrl(el.source.url) : null;
        return src ? `<p class="ck-webframe"><a href="${e(src)}" rel="noopener noreferrer nofollow">${e(src)}</a></p>` : "";
      }
      default: {
        const type = typeof el.type === "string" ? el.type : JSON.stringify(el.type ?? null);
        if (!this.reported.has(type)) {
          this.reported.add(type);
          this.options.log?.(`ContentKit element "${type}" is not rendered on published pages`);
        }
        return "";
      }
    }
  }

  private button(el: Element): string {
    const label = e(typeof el.label === "string" ? el.label : "");
    const style = typeof el.style === "string" && /^[a-z]+$/.test(el.style) ? el.style : "primary";
    const title = typeof el.tooltip === "string" ? ` title="${e(el.tooltip)}"` : "";
    const open = isObject(el.onPress) && el.onPress.action === "@ui.url.open" ? safeUrl(el.onPress.url) : null;
    if (open && el.disabled !== true)
      return `<a class="ck-button ck-button-${style}" href="${e(open)}" rel="noopener noreferrer nofollow"${title}>${label}</a>`;
    return `<button type="button" class="ck-button ck-button-${style}" disabled${title}>${label}</button>`;
  }
}

/** The HTML of a ContentKit element (a block and what it holds). */
export function contentKitHtml(element: unknown, options: ContentKitHtmlOptions = {}): string {
  return new Renderer(options).element(element, 0);
}
