// What an import needs to read web pages: a reader that summarizes a page (title, links, images)
// and converts it to Markdown, each call bounded in time and size. The implementation runs in a
// worker thread (src/infra/html-worker/session.ts); the composition root (src/app.ts) gives its
// factory to Services, so core never imports infrastructure.

export interface PageSummary {
  title: string;
  links: string[];
  contentLinks: string[];
  images: string[];
}

/** What a link preview shows of a page (its meta tags), URLs as written in the page. */
export interface PageMeta {
  title: string;
  description: string;
  siteName: string;
  icon: string;
  image: string;
}

export type HtmlOutcome<T> = { ok: true; value: T } | { ok: false; reason: "timeout" | "too-large" | "failed"; message: string };

export interface HtmlReaderLimits {
  maxNodesPerPage: number;
  maxLinksPerPage: number;
  htmlTimeoutMs: number;
}

/** One import's reader: its calls stop at their own deadline or when `total` aborts. */
export interface HtmlReader {
  read(html: string): Promise<HtmlOutcome<PageSummary>>;
  convert(html: string, hrefs: Map<string, string>, srcs: Map<string, string>): Promise<HtmlOutcome<{ markdown: string }>>;
  /** The page's preview (meta tags, title, icon), for embeds. */
  meta(html: string): Promise<HtmlOutcome<PageMeta>>;
  close(): void;
}

export type HtmlReaders = (limits: HtmlReaderLimits, total: AbortSignal) => HtmlReader;
