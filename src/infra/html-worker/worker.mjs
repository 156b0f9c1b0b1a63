// Reads imported HTML pages off the main thread: parsing (node-html-parser) and conversion to
// markdown (node-html-markdown) take seconds of CPU on hostile pages (20,000 links: ~30 s), and
// recurse per level of nesting. The caller (html.ts) bounds each call with a deadline and
// terminates this worker when it passes. Plain JavaScript so that it runs as is under tsx, vitest
// and node (`npm run build` copies it into dist).
//
// Messages in, one answer each:
//   { type: "read", html, maxNodes, maxLinks } → { title, links, contentLinks, images } or { error }
//   { type: "convert", html, hrefs, srcs } → { markdown } or { error }
//   { type: "meta", html, maxNodes } → { title, description, siteName, icon, image } or { error }
// `links`: every <a href> of the page (for the crawl), `contentLinks`/`images`: the hrefs and
// srcs of the content element, each at most `maxLinks`, in document order, distinct.
// `hrefs`/`srcs`: Maps of href → replacement (links beyond the map are left as written).
import { parentPort } from "node:worker_threads";
import { NodeHtmlMarkdown } from "node-html-markdown";
import { parse } from "node-html-parser";

/** Opening tags, counted without parsing: a page over the cap is refused before any real work. */
function countTags(html) {
  let count = 0;
  for (const _ of html.matchAll(/<[a-zA-Z]/g)) count++;
  return count;
}

function deepestNesting(root, limit) {
  const stack = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    if (depth > limit) return depth;
    for (const child of node.childNodes) stack.push([child, depth + 1]);
  }
  return 0;
}

const clean = (text) => (text ?? "").replace(/\s+/g, " ").trim();

function contentOf(html) {
  const root = parse(html, { comment: false, blockTextElements: { script: false, style: false, noscript: false, pre: true } });
  const h1 = root.querySelector("h1");
  const title = clean(root.querySelector("title")?.textContent) || clean(h1?.textContent);
  const content =
    root.querySelector("main") ?? root.querySelector("article") ?? root.querySelector("[role=main]") ?? root.querySelector("body") ?? root;
  for (const element of content.querySelectorAll("nav, header, footer, script, style, noscript, template, iframe")) element.remove();
  // The title is the page's own: a first <h1> repeating it is not kept in the body.
  const first = content.querySelector("h1");
  if (first && title && clean(first.textContent) === title) first.remove();
  return { root, title, content };
}

function distinct(values, max) {
  const seen = new Set();
  for (const value of values) {
    if (seen.size >= max) break;
    seen.add(value);
  }
  return [...seen];
}

const MAX_NESTING = 500;

function read({ html, maxNodes, maxLinks }) {
  const tags = countTags(html);
  if (tags > maxNodes) return { tooLarge: `it has ${tags} elements: at most ${maxNodes} are imported per page` };
  const { root, title, content } = contentOf(html);
  if (deepestNesting(root, MAX_NESTING)) return { tooLarge: `its elements are nested more than ${MAX_NESTING} levels` };
  const hrefs = (element) => element.querySelectorAll("a[href]").map((a) => a.getAttribute("href"));
  return {
    title,
    links: distinct(hrefs(root), maxLinks),
    contentLinks: distinct(hrefs(content), maxLinks),
    images: distinct(
      content.querySelectorAll("img[src]").map((img) => img.getAttribute("src")),
      maxLinks,
    ),
  };
}

function convert({ html, hrefs, srcs }) {
  const { content } = contentOf(html);
  for (const a of content.querySelectorAll("a[href]")) {
    const replacement = hrefs.get(a.getAttribute("href"));
    if (replacement !== undefined) a.setAttribute("href", replacement);
  }
  for (const img of content.querySelectorAll("img[src]")) {
    const replacement = srcs.get(img.getAttribute("src"));
    if (replacement !== undefined) img.setAttribute("src", replacement);
  }
  return { markdown: NodeHtmlMarkdown.translate(content.innerHTML).trim() };
}

/**
 * What a link preview (an embed) shows of a page: its Open Graph and Twitter meta tags, else its
 * <title>, <meta name=description> and <link rel=icon>; URLs as written (the caller resolves and
 * checks them), text with its whitespace collapsed.
 */
function meta({ html, maxNodes }) {
  const tags = countTags(html);
  if (tags > maxNodes) return { tooLarge: `it has ${tags} elements: at most ${maxNodes} are read per page` };
  const root = parse(html, { comment: false, blockTextElements: { script: false, style: false, noscript: false, pre: false } });
  const metas = new Map();
  for (const element of root.querySelectorAll("meta[content]")) {
    const key = (element.getAttribute("property") ?? element.getAttribute("name") ?? "").toLowerCase();
    const content = clean(element.getAttribute("content"));
    if (key && content && !metas.has(key)) metas.set(key, content);
  }
  const first = (...keys) => keys.map((key) => metas.get(key)).find(Boolean) ?? "";
  const icon = root
    .querySelectorAll("link[rel][href]")
    .find((link) => /(^|\s)(icon|apple-touch-icon)(\s|$)/i.test(link.getAttribute("rel")))
    ?.getAttribute("href");
  return {
    title: first("og:title", "twitter:title") || clean(root.querySelector("title")?.textContent),
    description: first("og:description", "twitter:description", "description"),
    siteName: first("og:site_name", "application-name"),
    icon: clean(icon),
    image: first("og:image", "og:image:url", "twitter:image"),
  };
}

parentPort.on("message", (message) => {
  try {
    parentPort.postMessage(message.type === "read" ? read(message) : message.type === "meta" ? meta(message) : convert(message));
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
