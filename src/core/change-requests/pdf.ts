// A change request's content, or a space's (issue 30), as a PDF. `pdfUrlOf` hands out a signed URL
// (HMAC with the key of file downloads, src/core/content/files.ts) that names the change request's
// or the space's head revision at that moment, the page and `only`, for PDF_URL_TTL_SECONDS: whoever holds it gets the PDF
// without a token (src/http/plugins/use-pdf-downloads.ts), as a browser following a link must.
// A revision never changes and the document's date is the revision's, so one URL always yields
// the same bytes.
import PDFDocument from "pdfkit";
import type { Clock } from "../clock.ts";
import type { CoreContext, Services } from "../context.ts";
import { markdownToDocument, type DocumentBlock, type DocumentInline, type DocumentText } from "../content/document.ts";
import { contentOf, pageOf } from "../content/index.ts";
import { findPage, flatten, type LocatedPage, type PageNode } from "../content/tree.ts";
import { badInput } from "../errors.ts";
import { ID_PREFIXES } from "../ids.ts";
import { readSpace } from "../spaces/read.ts";
import type { Signer } from "../signer.ts";
import { readChangeRequest } from "./access.ts";

export const PDF_URL_TTL_SECONDS = 60 * 60;
export const PDF_PATH = "/pdf";

/** What a PDF URL names. */
export interface PdfTarget {
  /** The change request, or the space (`spc_…`), whose content it is. */
  ownerId: string;
  revisionId: string;
  /** A page with its subpages (or alone, `only`); null: the whole content. */
  page: string | null;
  only: boolean;
}

/** The signed fields; "pdf" first, so that no file download signature can pass for one. */
const fieldsOf = (target: PdfTarget, expires: number) => [
  "pdf",
  target.ownerId,
  target.revisionId,
  target.page ?? "",
  target.only ? "only" : "",
  String(expires),
];

/**
 * A URL serving the content of the change request `changeRequestId`, or of the space itself when
 * it is null (or only the page `page`, with its subpages unless `only`), as a PDF for one hour. 404
 * unless the caller can read the change request (the space), or when the page is not in its
 * content; 400 for `only` without `page`.
 */
export async function pdfUrlOf(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string | null,
  options: { page?: string | null; only?: boolean | null },
): Promise<string> {
  const owner =
    changeRequestId === null
      ? (await readSpace(ctx, spaceId)).space
      : (await readChangeRequest(ctx, spaceId, changeRequestId)).changeRequest;
  const page = options.page || null;
  const only = options.only ?? false;
  if (only && !page) throw badInput("page: only=true exports a single page: give its id in page");
  if (page) {
    const revision = await ctx.loaders.revision.load(owner.revisionId);
    if (!revision) throw new Error(`${owner.id} has no head revision ${owner.revisionId}`);
    pageOf(revision, page);
  }
  const target: PdfTarget = { ownerId: owner.id, revisionId: owner.revisionId, page, only };
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + PDF_URL_TTL_SECONDS;
  const query = new URLSearchParams({
    ...(page ? { page } : {}),
    ...(only ? { only: "true" } : {}),
    expires: String(expires),
    sig: ctx.signer.sign(fieldsOf(target, expires)),
  });
  return ctx.urls.absolute(`${PDF_PATH}/${target.ownerId}/${target.revisionId}?${query}`);
}

export type PdfCheck = { ok: true; target: PdfTarget; expires: number } | { ok: false; status: 403 | 404 | 410; message: string };

/** Checks a PDF URL's path, signature (403) and expiry (410, against `clock`). */
export function checkPdfUrl(signer: Signer, clock: Clock, url: URL): PdfCheck {
  const match = /^\/pdf\/([\w-]{1,100})\/([\w-]{1,100})$/.exec(url.pathname);
  if (!match) return { ok: false, status: 404, message: "No such PDF" };
  const expires = Number(url.searchParams.get("expires"));
  const sig = url.searchParams.get("sig");
  const only = url.searchParams.get("only");
  const target: PdfTarget = {
    ownerId: match[1],
    revisionId: match[2],
    page: url.searchParams.get("page") || null,
    only: only === "true",
  };
  if (!sig || !Number.isSafeInteger(expires) || !signer.verify(fieldsOf(target, expires), sig) || (only !== null && only !== "true")) {
    return { ok: false, status: 403, message: "The signature of this PDF URL does not match: get a new URL from the change request's pdf" };
  }
  if (expires * 1000 <= clock.now().getTime()) {
    return {
      ok: false,
      status: 410,
      message: "This PDF URL has expired (it works for one hour): get a new one from the change request's pdf",
    };
  }
  return { ok: true, target, expires };
}

/**
 * The PDF a checked URL names: each page of the selection, in tree order, starts a new PDF page
 * with its title as a heading, then its markdown. Null when the change request or its revision
 * or space is gone.
 */
export async function renderPdf(
  services: Pick<Services, "prisma">,
  target: PdfTarget,
): Promise<{ filename: string; bytes: Buffer } | null> {
  const isSpace = target.ownerId.startsWith(`${ID_PREFIXES.Space}_`);
  const [owner, revision] = await Promise.all([
    isSpace
      ? services.prisma.space
          .findUnique({ where: { id: target.ownerId } })
          .then((space) => (space && !space.deletedAt ? { spaceId: space.id, title: space.title, name: "space" } : null))
      : services.prisma.changeRequest
          .findUnique({ where: { id: target.ownerId } })
          .then((cr) => (cr ? { spaceId: cr.spaceId, title: `Change request #${cr.number}`, name: `change-request-${cr.number}` } : null)),
    services.prisma.revision.findUnique({ where: { id: target.revisionId } }),
  ]);
  if (!owner || !revision || revision.spaceId !== owner.spaceId) return null;
  const { pages } = contentOf(revision);
  const root = target.page ? findPage(pages, target.page)?.page : undefined;
  if (target.page && !root) return null;
  const selected = root ? (target.only ? [{ page: root, path: "", parentId: null }] : flatten([root])) : flatten(pages);

  // All the bodies in one statement.
  const hashes = [...new Set(selected.flatMap(({ page }) => (page.body ? [page.body] : [])))];
  const blobs = hashes.length
    ? await services.prisma.blob.findMany({ where: { hash: { in: hashes } }, select: { hash: true, data: true } })
    : [];
  const markdown = new Map(blobs.map((blob) => [blob.hash, Buffer.from(blob.data).toString("utf8")]));

  const title = root ? root.title : owner.title;
  const doc = new PDFDocument({ size: "A4", margin: MARGIN, info: { Title: title, CreationDate: revision.createdAt } });
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => doc.on("end", resolve).on("error", reject));
  new Writer(doc).pages(selected, (page) => (page.body ? (markdown.get(page.body) ?? "") : ""));
  doc.end();
  await ended;
  return { filename: `${owner.name}${root ? `-${root.slug}` : ""}.pdf`, bytes: Buffer.concat(chunks) };
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

const MARGIN = 56;
const SIZE = { title: 22, description: 12, body: 10.5, code: 9, headings: [17, 14, 12] };
const COLOR = { text: "#1f2328", muted: "#59636e", link: "#0969da", codeBackground: "#f3f4f6", rule: "#d1d9e0" };
/** Nested lists and quotes stop indenting below this width, so deep nesting cannot squeeze text to nothing. */
const MIN_WIDTH = 160;

/** Characters of WinAnsiEncoding (the standard fonts' encoding) outside Latin-1. */
const WIN_ANSI_EXTRAS: ReadonlySet<string> = new Set("ƒ–—‘’‚“”„†‡•…€‰‹›ˆ™ŒœŠšŸŽž˜");
const encodable = (c: string) => {
  const code = c.codePointAt(0)!;
  return c === "\n" || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(c);
};

/**
 * Text the standard fonts can show: a character they cannot encode becomes its unaccented form
 * when it has one (ā → a, ﬁ → fi), else "?"; invisible controls and marks are dropped.
 */
function toWinAnsi(text: string): string {
  return Array.from(text.normalize("NFC").replace(/\t/g, "    "), (c) => {
    if (encodable(c)) return c;
    const plain = c.normalize("NFKD").replace(/\p{M}/gu, "");
    if (plain && Array.from(plain).every(encodable)) return plain;
    return /[\p{Cc}\p{Cf}\p{M}]/u.test(c) ? "" : "?";
  }).join("");
}

interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  muted?: boolean;
  link?: string;
}

interface Frame {
  x: number;
  width: number;
  color: string;
  /** Space after a block. */
  gap: number;
}

const fontOf = (run: Run) =>
  run.code
    ? run.bold
      ? "Courier-Bold"
      : "Courier"
    : run.bold && run.italic
      ? "Helvetica-BoldOblique"
      : run.bold
        ? "Helvetica-Bold"
        : run.italic
          ? "Helvetica-Oblique"
          : "Helvetica";

/** Only absolute web and mail links become clickable: relative ones mean nothing in a file. */
const clickable = (url: string | undefined) => (url && /^(https?:|mailto:)/i.test(url) ? url : null);

function runsOf(nodes: (DocumentBlock | DocumentInline | DocumentText)[] = [], link?: string): Run[] {
  return nodes.flatMap((node): Run[] => {
    if (node.object === "text") {
      return node.leaves.map((leaf) => ({
        text: leaf.text,
        link,
        ...Object.fromEntries(leaf.marks.map((mark) => [mark.type, true])),
      }));
    }
    const ref = node.data.ref as { url?: string } | undefined;
    if (node.object === "inline" && node.type === "link") return runsOf(node.nodes, ref?.url);
    if (node.object === "inline") {
      // Images are named, not drawn.
      return [{ text: `[Image${node.data.alt ? `: ${node.data.alt}` : ""}]`, italic: true, muted: true }];
    }
    return runsOf(node.nodes, link);
  });
}

const textOf = (block: DocumentBlock) =>
  runsOf(block.nodes)
    .map((run) => run.text)
    .join("");

class Writer {
  constructor(private readonly doc: PDFKit.PDFDocument) {}

  private get bottom() {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  private get frame(): Frame {
    return { x: MARGIN, width: this.doc.page.width - 2 * MARGIN, color: COLOR.text, gap: SIZE.body * 0.7 };
  }

  /** A new page unless `height` still fits on this one. */
  private room(height: number) {
    if (this.doc.y + height > this.bottom) this.doc.addPage();
  }

  private indented(frame: Frame, by: number, changes: Partial<Frame> = {}): Frame {
    const indent = frame.width - by >= MIN_WIDTH ? by : 0;
    return { ...frame, x: frame.x + indent, width: frame.width - indent, ...changes };
  }

  pages(pages: LocatedPage[], markdownOf: (page: PageNode) => string) {
    if (pages.length === 0) this.paragraph([{ text: "This content has no pages.", italic: true, muted: true }], this.frame, SIZE.body);
    // Bookmarks mirror the page tree.
    const bookmarks = new Map<string, PDFKit.PDFOutline>();
    pages.forEach(({ page, parentId }, index) => {
      if (index > 0) this.doc.addPage();
      const parent = (parentId && bookmarks.get(parentId)) || this.doc.outline;
      bookmarks.set(page.id, parent.addItem(page.title));
      this.page(page, markdownOf(page));
    });
  }

  private page(page: PageNode, markdown: string) {
    const frame = this.frame;
    this.paragraph([{ text: page.title, bold: true }], { ...frame, gap: 8 }, SIZE.title);
    if (page.description) this.paragraph([{ text: page.description, muted: true }], { ...frame, gap: 10 }, SIZE.description);
    if (page.kind === "link" && page.href) this.paragraph([{ text: "Link: " }, { text: page.href, link: page.href }], frame, SIZE.body);
    if (page.kind === "document") this.blocks(markdownToDocument(markdown).nodes, frame);
  }

  private blocks(blocks: DocumentBlock[], frame: Frame) {
    for (const block of blocks) this.block(block, frame);
  }

  private block(block: DocumentBlock, frame: Frame) {
    const children = (block.nodes ?? []) as DocumentBlock[];
    switch (block.type) {
      case "heading-1":
      case "heading-2":
      case "heading-3": {
        const size = SIZE.headings[Number(block.type.slice(-1)) - 1];
        if (this.doc.y > this.doc.page.margins.top) this.doc.y += size * 0.5;
        // Not alone at the bottom of a page, away from its text.
        this.room(size * 3);
        this.paragraph(
          runsOf(block.nodes).map((run) => ({ ...run, bold: true })),
          { ...frame, gap: size * 0.4 },
          size,
        );
        return;
      }
      case "paragraph":
        this.paragraph(runsOf(block.nodes), frame, SIZE.body);
        return;
      case "list-unordered":
      case "list-ordered":
        this.list(block, frame);
        return;
      case "code":
        this.code(children.map(textOf), frame);
        return;
      case "blockquote":
        this.quote(children, frame);
        return;
      case "divider": {
        this.room(12);
        const y = this.doc.y + 4;
        this.doc
          .moveTo(frame.x, y)
          .lineTo(frame.x + frame.width, y)
          .lineWidth(0.5)
          .strokeColor(COLOR.rule)
          .stroke();
        this.doc.y = y + 10;
        return;
      }
      default:
        // The document tree has no other blocks; keep any text rather than lose it.
        this.paragraph(runsOf(block.nodes), frame, SIZE.body);
    }
  }

  /** Runs of text in one flow, wrapped to the frame; pdfkit adds pages as the text needs them. */
  private paragraph(runs: Run[], frame: Frame, size: number) {
    const visible = runs.map((run) => ({ ...run, text: toWinAnsi(run.text) })).filter((run) => run.text);
    visible.forEach((run, index) => {
      this.doc
        .font(fontOf(run))
        .fontSize(size)
        .fillColor(run.link ? COLOR.link : run.muted ? COLOR.muted : frame.color);
      // Options carry over between continued runs unless given: each run says its own link.
      const options = {
        width: frame.width,
        lineGap: 2,
        continued: index < visible.length - 1,
        link: clickable(run.link),
        underline: false,
      };
      if (index === 0) this.doc.text(run.text, frame.x, this.doc.y, options);
      else this.doc.text(run.text, options);
    });
    this.doc.y += frame.gap;
  }

  private list(block: DocumentBlock, frame: Frame) {
    const ordered = block.type === "list-ordered";
    const start = Number(block.data.start ?? 1);
    const items = (block.nodes ?? []) as DocumentBlock[];
    const indent = ordered ? 22 : 14;
    items.forEach((item, index) => {
      this.room(SIZE.body * 1.5);
      const y = this.doc.y;
      const inner = this.indented(frame, indent, { gap: SIZE.body * 0.35 });
      this.doc.font("Helvetica").fontSize(SIZE.body).fillColor(frame.color);
      this.doc.text(ordered ? `${start + index}.` : "•", inner.x - (ordered ? 20 : 10), y, { lineBreak: false });
      this.doc.y = y;
      this.blocks((item.nodes ?? []) as DocumentBlock[], inner);
    });
    this.doc.y += frame.gap - SIZE.body * 0.35;
  }

  /** Code on a shaded band, line by line, so the band follows the lines across pages. */
  private code(lines: string[], frame: Frame) {
    const pad = 6;
    const width = frame.width - 2 * pad;
    this.doc.font("Courier").fontSize(SIZE.code);
    lines.forEach((line, index) => {
      const text = toWinAnsi(line) || " ";
      const [top, bottom] = [index === 0 ? pad : 0, index === lines.length - 1 ? pad : 0];
      const height = this.doc.heightOfString(text, { width, lineGap: 1 }) + top + bottom;
      this.room(height);
      const y = this.doc.y;
      this.doc.rect(frame.x, y, frame.width, height).fill(COLOR.codeBackground);
      this.doc.fillColor(frame.color).text(text, frame.x + pad, y + top, { width, lineGap: 1 });
      this.doc.y = y + height;
    });
    this.doc.y += frame.gap;
  }

  /** A quote: indented, muted, with a bar down its left side (on the page where it ends). */
  private quote(blocks: DocumentBlock[], frame: Frame) {
    const [page, top] = [this.doc.page, this.doc.y];
    this.blocks(blocks, this.indented(frame, 14, { color: COLOR.muted }));
    const from = this.doc.page === page ? top : this.doc.page.margins.top;
    this.doc
      .moveTo(frame.x + 3, from)
      .lineTo(frame.x + 3, this.doc.y - frame.gap)
      .lineWidth(2.5)
      .strokeColor(COLOR.rule)
      .stroke();
  }
}
