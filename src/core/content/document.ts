// Markdown → document tree (`format=document`): the page's stored markdown parsed as CommonMark
// (mdast-util-from-markdown) and turned into the block/inline/text tree of the published API's
// `JSONDocument` (paragraphs, headings, lists, quotes, code, dividers, links, images, marks).
// Markdown is the source; the document is derived on read and never stored.
import { fromMarkdown } from "mdast-util-from-markdown";
import type { Definition, Nodes, PhrasingContent, Root, RootContent } from "mdast";
import { INTEGRATION_EMBED_LANGUAGE, integrationDocumentBlock, parseIntegrationEmbed } from "../integrations/embed.ts";
import { OPERATION_EMBED_LANGUAGE, parseOperationEmbed } from "../openapi/embed.ts";

type Mark = { object: "mark"; type: "bold" | "italic" | "code" };
interface Leaf {
  object: "leaf";
  text: string;
  marks: Mark[];
}
export interface DocumentText {
  object: "text";
  leaves: Leaf[];
}
export interface DocumentInline {
  object: "inline";
  type: "link" | "inline-image";
  isVoid: boolean;
  data: Record<string, unknown>;
  nodes?: (DocumentText | DocumentInline)[];
}
export interface DocumentBlock {
  object: "block";
  type: string;
  isVoid?: boolean;
  data: Record<string, unknown>;
  nodes?: (DocumentBlock | DocumentInline | DocumentText)[];
}
export interface JsonDocument {
  object: "document";
  data: Record<string, never>;
  nodes: DocumentBlock[];
}

/** Where a block stands decides which blocks it may hold (the published schema's nesting rules). */
type Place = "top" | "quote" | "list-item";

const mark = (type: Mark["type"]): Mark => ({ object: "mark", type });

class Converter {
  private readonly definitions = new Map<string, Definition>();

  constructor(root: Root) {
    const collect = (node: Nodes) => {
      if (node.type === "definition") this.definitions.set(node.identifier.toLowerCase(), node);
      if ("children" in node) for (const child of node.children) collect(child as Nodes);
    };
    collect(root);
  }

  blocks(children: RootContent[], place: Place): DocumentBlock[] {
    return children.flatMap((child) => this.block(child, place));
  }

  private block(node: RootContent, place: Place): DocumentBlock[] {
    switch (node.type) {
      case "paragraph":
        return [this.textBlock("paragraph", node.children)];
      case "heading": {
        const type = node.depth === 1 ? "heading-1" : node.depth === 2 ? "heading-2" : "heading-3";
        return [{ object: "block", type, data: {}, nodes: this.inlines(node.children, []) }];
      }
      case "thematicBreak":
        return [{ object: "block", type: "divider", isVoid: true, data: {} }];
      case "blockquote": {
        // A quote holds paragraphs, headings, lists, dividers and quotes: other blocks become text.
        const nodes = this.blocks(node.children, "quote");
        return [{ object: "block", type: "blockquote", data: {}, nodes: nodes.length ? nodes : [this.emptyParagraph()] }];
      }
      case "list": {
        const items: DocumentBlock[] = node.children.map((item) => {
          const nodes = this.blocks(item.children, "list-item");
          return { object: "block", type: "list-item", data: {}, nodes: nodes.length ? nodes : [this.emptyParagraph()] };
        });
        return [
          node.ordered
            ? {
                object: "block",
                type: "list-ordered",
                data: node.start != null && node.start !== 1 ? { start: node.start } : {},
                nodes: items,
              }
            : { object: "block", type: "list-unordered", data: {}, nodes: items },
        ];
      }
      case "code": {
        // An OpenAPI operation embed (src/core/openapi/embed.ts) is the published `openapi-operation` block.
        const embed = node.lang === OPERATION_EMBED_LANGUAGE && place === "top" ? parseOperationEmbed(node.value) : null;
        if (embed) {
          return [
            {
              object: "block",
              type: "openapi-operation",
              isVoid: true,
              data: { ref: { kind: "openapi", spec: embed.spec }, method: embed.method, path: embed.path },
            },
          ];
        }
        // An integration block embed (src/core/integrations/embed.ts) is the published `integration` block.
        const block = node.lang === INTEGRATION_EMBED_LANGUAGE && place === "top" ? parseIntegrationEmbed(node.value) : null;
        if (block) return [integrationDocumentBlock(block)];
        if (place === "quote") return [this.plainParagraph(node.value, [mark("code")])];
        const lines = node.value
          .split("\n")
          .map((line): DocumentBlock => ({ object: "block", type: "code-line", data: {}, nodes: [this.text(line, [])] }));
        return [{ object: "block", type: "code", data: node.lang ? { syntax: node.lang } : {}, nodes: lines }];
      }
      case "html":
        return [this.plainParagraph(node.value, [])];
      case "definition":
        return [];
      default:
        // Nothing else comes out of CommonMark at block level; keep any text rather than lose it.
        return "value" in node && typeof node.value === "string" ? [this.plainParagraph(node.value, [])] : [];
    }
  }

  private textBlock(type: string, children: PhrasingContent[]): DocumentBlock {
    const nodes = this.inlines(children, []);
    return { object: "block", type, data: {}, nodes: nodes.length ? nodes : [this.text("", [])] };
  }

  private plainParagraph(value: string, marks: Mark[]): DocumentBlock {
    return { object: "block", type: "paragraph", data: {}, nodes: [this.text(value, marks)] };
  }

  private emptyParagraph(): DocumentBlock {
    return this.plainParagraph("", []);
  }

  private text(text: string, marks: Mark[]): DocumentText {
    return { object: "text", leaves: [{ object: "leaf", text, marks }] };
  }

  /** Phrasing content as texts and inlines; adjacent texts merge into one text of several leaves. */
  private inlines(children: PhrasingContent[], marks: Mark[], inLink = false): (DocumentText | DocumentInline)[] {
    const out: (DocumentText | DocumentInline)[] = [];
    const push = (node: DocumentText | DocumentInline) => {
      const last = out.at(-1);
      if (node.object === "text" && last?.object === "text") last.leaves.push(...node.leaves);
      else out.push(node);
    };
    for (const child of children) {
      switch (child.type) {
        case "text":
          push(this.text(child.value, marks));
          break;
        case "inlineCode":
          push(this.text(child.value, [...marks, mark("code")]));
          break;
        case "break":
          push(this.text("\n", marks));
          break;
        case "html":
          push(this.text(child.value, marks));
          break;
        case "strong":
          this.inlines(child.children, [...marks, mark("bold")], inLink).forEach(push);
          break;
        case "emphasis":
          this.inlines(child.children, [...marks, mark("italic")], inLink).forEach(push);
          break;
        case "image":
          push(this.image(child.url, child.alt));
          break;
        case "imageReference": {
          const definition = this.definitions.get(child.identifier.toLowerCase());
          if (definition) push(this.image(definition.url, child.alt));
          else push(this.text(child.alt ?? "", marks));
          break;
        }
        case "link":
          this.link(child.url, child.children, marks, inLink).forEach(push);
          break;
        case "linkReference": {
          const definition = this.definitions.get(child.identifier.toLowerCase());
          if (definition) this.link(definition.url, child.children, marks, inLink).forEach(push);
          else this.inlines(child.children, marks, inLink).forEach(push);
          break;
        }
        default:
          if ("value" in child && typeof child.value === "string") push(this.text(child.value, marks));
          else if ("children" in child) this.inlines(child.children as PhrasingContent[], marks, inLink).forEach(push);
      }
    }
    return out;
  }

  private image(url: string, alt?: string | null): DocumentInline {
    return { object: "inline", type: "inline-image", isVoid: true, data: { ref: { kind: "url", url }, ...(alt ? { alt } : {}) } };
  }

  private link(url: string, children: PhrasingContent[], marks: Mark[], inLink: boolean): (DocumentText | DocumentInline)[] {
    const nodes = this.inlines(children, marks, true);
    // Links do not nest: an inner one keeps its text only.
    if (inLink) return nodes;
    return [
      {
        object: "inline",
        type: "link",
        isVoid: false,
        data: { ref: { kind: "url", url } },
        nodes: nodes.length ? nodes : [this.text(url, marks)],
      },
    ];
  }
}

/** The document tree of a page's markdown. */
export function markdownToDocument(markdown: string): JsonDocument {
  const root = fromMarkdown(markdown);
  return { object: "document", data: {}, nodes: new Converter(root).blocks(root.children, "top") };
}
