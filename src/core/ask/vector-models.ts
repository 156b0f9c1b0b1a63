// Ask's vector models of sites as this instance holds them (per instance, in Services): their
// bounds, the models read from AskVectorModel, kept in memory while current, bounded in bytes, and
// the trainings this instance asked for, so that a burst of questions asks once.
import type { PrismaClient } from "../../generated/prisma/client.ts";

/** The head revision of each of a site's spaces a model was trained on. */
export type Revisions = Record<string, string>;

export interface AskVectorLimits {
  /** Dimensions of a site's vectors. */
  dimensions: number;
  /** Sections a model is trained on at most (the first by id); the others are found lexically only. */
  sectionsMax: number;
  /** Terms (stemmed words) a model keeps at most: those in the most sections. */
  termsMax: number;
  /** Time bound of one training; past it the site keeps no model until its content changes. */
  timeoutMs: number;
  /** A change is trained on this long after it, so that a burst of changes trains once. */
  delayMs: number;
  /** Bytes of models kept in memory per instance (the least recently used go first). */
  cacheBytes: number;
  /** Least cosine similarity of a section the vector ranking returns. */
  similarityMin: number;
}

export const DEFAULT_ASK_VECTOR_LIMITS: AskVectorLimits = {
  dimensions: 64,
  sectionsMax: 50_000,
  termsMax: 10_000,
  timeoutMs: 60_000,
  delayMs: 10_000,
  cacheBytes: 256 * 1024 * 1024,
  similarityMin: 0.35,
};

/** A site's model as kept in memory, ready to score. */
export interface LoadedModel {
  trainedAt: number;
  revisions: Revisions;
  dimensions: number;
  idf: Float32Array;
  projection: Float32Array;
  column: Map<string, number>;
  sectionIds: string[];
  /** The space each section is of, as an index into `spaces`. */
  sectionSpace: Int32Array;
  spaces: string[];
  vectors: Float32Array;
  bytes: number;
}

/**
 * How long this instance remembers it asked for a training of some heads: past it, a question on
 * them asks again (a training whose job failed for good is asked for again).
 */
const ASKED_FOR_MS = 10 * 60_000;
/** Sites whose asked trainings are remembered at most (the oldest go first), and heads per site. */
const ASKED_SITES_MAX = 10_000;
const ASKED_HEADS_MAX = 64;

/** Models of this instance's sites, bounded in bytes (per instance, in Services). */
export class AskVectorModels {
  readonly limits: AskVectorLimits;
  private readonly kept = new Map<string, LoadedModel>();
  private bytes = 0;
  /** Per site, the heads ("space:revision") a training was asked for, and when (ms). */
  private readonly asked = new Map<string, Map<string, number>>();

  constructor(limits: Partial<AskVectorLimits> = {}) {
    this.limits = { ...DEFAULT_ASK_VECTOR_LIMITS, ...limits };
  }

  /**
   * The site's current model: one statement reads when it was trained, the model itself is read
   * only when this instance does not hold that one. Null: none trained (or none possible).
   */
  async modelOf(prisma: PrismaClient, siteId: string): Promise<{ revisions: Revisions | null; model: LoadedModel | null }> {
    const [row] = await prisma.$queryRaw<{ trainedAt: Date; revisions: Revisions; dimensions: number }[]>`
      SELECT "trainedAt", revisions, dimensions FROM "AskVectorModel" WHERE "siteId" = ${siteId}`;
    if (!row) return { revisions: null, model: null };
    if (row.dimensions === 0) return { revisions: row.revisions, model: null };
    const held = this.kept.get(siteId);
    // A training writes only when the heads changed: its time and heads name the model.
    if (held?.trainedAt === row.trainedAt.getTime() && sameRevisions(held.revisions, row.revisions)) {
      this.kept.delete(siteId);
      this.kept.set(siteId, held);
      return { revisions: held.revisions, model: held };
    }
    // As text (see trainSite): reading the bytes through the driver took seconds.
    const [stored] = await prisma.$queryRaw<StoredModel[]>`
      SELECT "trainedAt", revisions, dimensions, terms, encode(idf, 'base64') AS idf, encode(projection, 'base64') AS projection,
             "sectionIds", encode(vectors, 'base64') AS vectors
      FROM "AskVectorModel" WHERE "siteId" = ${siteId}`;
    if (!stored || stored.dimensions === 0) return { revisions: row.revisions, model: null };
    const model = loaded(stored);
    this.forget(siteId);
    if (model.bytes <= this.limits.cacheBytes) {
      this.kept.set(siteId, model);
      this.bytes += model.bytes;
      for (const [oldest, entry] of this.kept) {
        if (this.bytes <= this.limits.cacheBytes) break;
        this.kept.delete(oldest);
        this.bytes -= entry.bytes;
      }
    }
    return { revisions: model.revisions, model };
  }

  /**
   * Whether a training of the site on `heads` (the stale ones a question reads) is to be asked
   * for: false when this instance asked for each of them in the last ten minutes. A true answer
   * counts as asked (so that questions at the same moment ask once); `unask` takes it back.
   */
  askTraining(siteId: string, heads: { id: string; revisionId: string }[], now: number): boolean {
    const keys = heads.map((head) => `${head.id}:${head.revisionId}`);
    let site = this.asked.get(siteId);
    if (site && keys.every((key) => now - (site!.get(key) ?? -Infinity) < ASKED_FOR_MS)) return false;
    if (!site || site.size + keys.length > ASKED_HEADS_MAX) site = new Map();
    for (const key of keys) site.set(key, now);
    this.asked.delete(siteId);
    this.asked.set(siteId, site);
    if (this.asked.size > ASKED_SITES_MAX) this.asked.delete(this.asked.keys().next().value!);
    return true;
  }

  /** Forgets that a training of these heads was asked for (asking failed). */
  unask(siteId: string, heads: { id: string; revisionId: string }[]): void {
    const site = this.asked.get(siteId);
    for (const head of heads) site?.delete(`${head.id}:${head.revisionId}`);
  }

  private forget(siteId: string): void {
    const held = this.kept.get(siteId);
    if (!held) return;
    this.kept.delete(siteId);
    this.bytes -= held.bytes;
  }
}

/** A stored model as read: float32 arrays in base64 (PostgreSQL's, with line breaks, which Node skips). */
interface StoredModel {
  trainedAt: Date;
  revisions: Revisions;
  dimensions: number;
  terms: string;
  idf: string;
  projection: string;
  sectionIds: string;
  vectors: string;
}

const floats = (encoded: string) => {
  const bytes = Buffer.from(encoded, "base64");
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

function loaded(stored: StoredModel): LoadedModel {
  const sectionIds = stored.sectionIds.split("\n");
  const terms = stored.terms.split("\n");
  const spaces: string[] = [];
  const spaceIndex = new Map<string, number>();
  const sectionSpace = Int32Array.from(sectionIds, (id) => {
    const space = id.slice(0, id.indexOf(":"));
    let index = spaceIndex.get(space);
    if (index === undefined) spaceIndex.set(space, (index = spaces.push(space) - 1));
    return index;
  });
  const vectors = floats(stored.vectors);
  const projection = floats(stored.projection);
  return {
    trainedAt: stored.trainedAt.getTime(),
    revisions: stored.revisions,
    dimensions: stored.dimensions,
    idf: floats(stored.idf),
    projection,
    column: new Map(terms.map((term, index) => [term, index])),
    sectionIds,
    sectionSpace,
    spaces,
    vectors,
    bytes: vectors.byteLength + projection.byteLength + terms.length * 48 + sectionIds.length * 64,
  };
}

export function sameRevisions(a: Revisions, b: Revisions): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((key) => a[key] === b[key]);
}
