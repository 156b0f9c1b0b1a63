// Imports under way in this process, with their progress, so that a long import can be watched
// (GraphQL `Space.importsInProgress`) besides its log lines. Per process: with several instances,
// each knows only the imports it runs.
import { randomUUID } from "node:crypto";

/** A page of an import as the published ContentImportRun lists it (a folder: a level the site had no page for). */
export interface ImportedPageEntry {
  id: string;
  sourceURL?: string;
  type: "page" | "folder";
  status: "pending" | "complete";
}

export interface ImportProgress {
  id: string;
  spaceId: string;
  changeRequest: string | null;
  url: string;
  startedAt: Date;
  /** crawling pages, fetching images, or saving the revision */
  phase: "pages" | "images" | "saving";
  pagesFetched: number;
  /** Pages found and not read yet, the one being fetched included (the page limit still applies). */
  queued: number;
  /** Same-origin pages and images found so far. */
  found: number;
  /** The pages read so far (pending until the revision is written), at most the page limit. */
  pages: ImportedPageEntry[];
}

export class ImportTracker {
  private readonly running = new Map<string, ImportProgress>();

  start(fields: Pick<ImportProgress, "spaceId" | "changeRequest" | "url" | "startedAt">): ImportProgress {
    const progress: ImportProgress = { id: randomUUID(), phase: "pages", pagesFetched: 0, queued: 0, found: 1, pages: [], ...fields };
    this.running.set(progress.id, progress);
    return progress;
  }

  finish(progress: ImportProgress): void {
    this.running.delete(progress.id);
  }

  ofSpace(spaceId: string): ImportProgress[] {
    return [...this.running.values()].filter((progress) => progress.spaceId === spaceId);
  }
}
