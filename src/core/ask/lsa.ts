// Latent semantic analysis: a TF-IDF matrix of sections × terms and its truncated SVD, so that
// sections (and questions) that use related words land near each other even when they share
// none. The SVD is randomized (a range finder with one power iteration, then Rayleigh-Ritz): it
// only multiplies the sparse matrix by thin dense ones and decomposes small l × l matrices
// (ml-matrix), so 50,000 sections train in seconds. It runs in a worker thread (LsaTrainer), not
// on the event loop: ml-matrix's decompositions cannot be interrupted, and yielding between rows
// still let the dense steps hold requests for up to a second at 50,000 sections.
import { EigenvalueDecomposition, Matrix } from "ml-matrix";

/** A section's terms (stemmed words) and how often each occurs in it. */
export interface TermCounts {
  terms: string[];
  counts: number[];
}

export interface LsaOptions {
  /**
   * Most dimensions of the vectors. A model has about √sections of them (at least 2): with as many
   * dimensions as the content has directions, LSA would only reproduce TF-IDF and link no words;
   * fewer than the content's topics, and it merges them.
   */
  dimensions: number;
  /** Terms kept at most: those in the most sections. */
  termsMax: number;
}

export interface LsaModel {
  dimensions: number;
  terms: string[];
  idf: Float32Array;
  /** terms × dimensions, row-major: a term vector times this is its vector in the model. */
  projection: Float32Array;
  /** sections × dimensions, row-major, each row of length 1 (or 0: a section with no kept term). */
  vectors: Float32Array;
}

/** Trains models in worker threads (src/infra/lsa-trainer.ts), per instance, in Services. */
export interface LsaTrainer {
  /** A training on a free thread (waits for one), or null when `signal` fires first. */
  open(options: LsaOptions, signal: AbortSignal): Promise<LsaTraining | null>;
}

/** One training: its sections sent in chunks as they are read, then trained. */
export interface LsaTraining {
  /** Sections, each as the text of its tsvector (src/core/ask/tsvector.ts). */
  add(vectors: string[]): void;
  /**
   * The model (null: too little content), or why the thread was stopped: the signal given to
   * `open` fired (the thread is terminated at once), or the thread passed its memory bound.
   * Rejects when the thread failed otherwise.
   */
  train(): Promise<{ model: LsaModel | null } | { stopped: "signal" | "memory"; message: string }>;
  /** Frees the thread (terminated if its training did not finish). */
  close(): void;
}

/** Extra directions the range finder looks at beyond `dimensions` (the randomized SVD's oversampling). */
const OVERSAMPLING = 16;
/** Eigenvalues below this share of the largest are noise (a direction the content does not have). */
const RELATIVE_EIGENVALUE_MIN = 1e-10;

/** The weight of a term counted `count` times in a section whose term has inverse document frequency `idf`. */
export const termWeight = (count: number, idf: number) => (1 + Math.log(count)) * idf;

/** A compressed sparse row matrix: row i's entries are cols/values[rowStart[i] .. rowStart[i+1]). */
interface SparseRows {
  rows: number;
  columns: number;
  rowStart: Int32Array;
  cols: Int32Array;
  values: Float64Array;
}

/**
 * The model of `sections`, or null when they hold too little to make one (fewer than 2 sections
 * or 2 terms shared by at least two of them).
 */
export function trainLsa(sections: TermCounts[], options: LsaOptions): LsaModel | null {
  const n = sections.length;
  const sectionsOf = new Map<string, number>();
  for (const section of sections) for (const term of section.terms) sectionsOf.set(term, (sectionsOf.get(term) ?? 0) + 1);
  // A term of one section links nothing; one of every section tells nothing apart.
  const terms = [...sectionsOf]
    .filter(([, count]) => count >= 2 && count < n)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, options.termsMax)
    .map(([term]) => term);
  if (n < 2 || terms.length < 2) return null;
  const column = new Map(terms.map((term, index) => [term, index]));
  const idf = Float32Array.from(terms, (term) => Math.log(n / sectionsOf.get(term)!));

  const matrix = sparseRows(sections, column, idf);
  const wanted = Math.min(options.dimensions, Math.max(2, Math.round(Math.sqrt(n))));
  const width = Math.min(wanted + OVERSAMPLING, terms.length, n);
  // A fixed seed: the same content gives the same model.
  const random = mulberry32(0x5eed);
  let basis: Float64Array = new Float64Array(terms.length * width).map(() => random() * 2 - 1);
  // Range finder on AᵀA (two passes: the first spans the top directions, the second sharpens them).
  for (let pass = 0; pass < 2; pass++) basis = orthonormal(transposeTimes(matrix, times(matrix, basis, width), width), terms.length, width);
  // Rayleigh-Ritz: the SVD of A·Q from the eigen decomposition of its small Gram matrix.
  const projected = times(matrix, basis, width);
  const { vectors: rotation, values } = eigenOf(gram(projected, n, width));
  const kept = values[0]! > 0 ? values.filter((value) => value > values[0]! * RELATIVE_EIGENVALUE_MIN).length : 0;
  const dimensions = Math.min(wanted, kept);
  if (dimensions < 1) return null;
  const top = rotation.subMatrix(0, width - 1, 0, dimensions - 1);
  const projection = Float32Array.from(timesSmall(basis, terms.length, width, top));
  const vectors = Float32Array.from(timesSmall(projected, n, width, top));
  for (let row = 0; row < n; row++) normalize(vectors.subarray(row * dimensions, (row + 1) * dimensions));
  return { dimensions, terms, idf, projection, vectors };
}

/** The unit vector of a text's term counts in `model` (all zeros when it has none of its terms). */
export function vectorOf(
  model: Pick<LsaModel, "dimensions" | "idf" | "projection">,
  column: Map<string, number>,
  text: TermCounts,
): Float32Array {
  const vector = new Float32Array(model.dimensions);
  text.terms.forEach((term, index) => {
    const j = column.get(term);
    if (j === undefined) return;
    const weight = termWeight(text.counts[index]!, model.idf[j]!);
    for (let d = 0; d < model.dimensions; d++) vector[d]! += weight * model.projection[j * model.dimensions + d]!;
  });
  normalize(vector);
  return vector;
}

function normalize(vector: Float32Array | Float64Array): void {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
}

/** The TF-IDF rows, each of length 1 (long sections do not outweigh short ones). */
function sparseRows(sections: TermCounts[], column: Map<string, number>, idf: Float32Array): SparseRows {
  const rowStart = new Int32Array(sections.length + 1);
  const cols: number[] = [];
  const values: number[] = [];
  for (const [row, section] of sections.entries()) {
    const start = cols.length;
    section.terms.forEach((term, index) => {
      const j = column.get(term);
      if (j === undefined) return;
      cols.push(j);
      values.push(termWeight(section.counts[index]!, idf[j]!));
    });
    let sum = 0;
    for (let k = start; k < values.length; k++) sum += values[k]! * values[k]!;
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let k = start; k < values.length; k++) values[k]! *= scale;
    rowStart[row + 1] = cols.length;
  }
  return { rows: sections.length, columns: idf.length, rowStart, cols: Int32Array.from(cols), values: Float64Array.from(values) };
}

/** A · X (X: columns × width, row-major) → rows × width. */
function times(a: SparseRows, x: Float64Array, width: number): Float64Array {
  const out = new Float64Array(a.rows * width);
  for (let i = 0; i < a.rows; i++) {
    const o = i * width;
    for (let k = a.rowStart[i]!; k < a.rowStart[i + 1]!; k++) {
      const v = a.values[k]!;
      const xo = a.cols[k]! * width;
      for (let d = 0; d < width; d++) out[o + d]! += v * x[xo + d]!;
    }
  }
  return out;
}

/** Aᵀ · Y (Y: rows × width) → columns × width. */
function transposeTimes(a: SparseRows, y: Float64Array, width: number): Float64Array {
  const out = new Float64Array(a.columns * width);
  for (let i = 0; i < a.rows; i++) {
    const yo = i * width;
    for (let k = a.rowStart[i]!; k < a.rowStart[i + 1]!; k++) {
      const v = a.values[k]!;
      const o = a.cols[k]! * width;
      for (let d = 0; d < width; d++) out[o + d]! += v * y[yo + d]!;
    }
  }
  return out;
}

/** Yᵀ · Y of a dense rows × width Y (width × width, symmetric). */
function gram(y: Float64Array, rows: number, width: number): Matrix {
  const sums = new Float64Array(width * width);
  for (let i = 0; i < rows; i++) {
    const o = i * width;
    for (let p = 0; p < width; p++) {
      const v = y[o + p]!;
      if (v === 0) continue;
      for (let q = p; q < width; q++) sums[p * width + q]! += v * y[o + q]!;
    }
  }
  const matrix = new Matrix(width, width);
  for (let p = 0; p < width; p++)
    for (let q = p; q < width; q++) {
      matrix.set(p, q, sums[p * width + q]!);
      matrix.set(q, p, sums[p * width + q]!);
    }
  return matrix;
}

/** Y (rows × width) · M (width × m) → rows × m. */
function timesSmall(y: Float64Array, rows: number, width: number, m: Matrix): Float64Array {
  const columns = m.columns;
  const small = Float64Array.from(m.to1DArray());
  const out = new Float64Array(rows * columns);
  for (let i = 0; i < rows; i++) {
    const o = i * width;
    const oo = i * columns;
    for (let p = 0; p < width; p++) {
      const v = y[o + p]!;
      if (v === 0) continue;
      const so = p * columns;
      for (let q = 0; q < columns; q++) out[oo + q]! += v * small[so + q]!;
    }
  }
  return out;
}

/** Eigenvalues of a symmetric matrix, largest first, with their eigenvectors as columns in the same order. */
function eigenOf(symmetric: Matrix): { values: number[]; vectors: Matrix } {
  const decomposition = new EigenvalueDecomposition(symmetric, { assumeSymmetric: true });
  const order = decomposition.realEigenvalues.map((value, index) => ({ value, index })).sort((a, b) => b.value - a.value);
  const vectors = new Matrix(symmetric.rows, order.length);
  order.forEach(({ index }, column) => vectors.setColumn(column, decomposition.eigenvectorMatrix.getColumn(index)));
  return { values: order.map(({ value }) => value), vectors };
}

/**
 * An orthonormal basis of the columns of Y (rows × width): Y·W·Λ^(-1/2) from the eigen
 * decomposition of YᵀY, without the directions Y does not span (so the width may shrink).
 */
function orthonormal(y: Float64Array, rows: number, width: number): Float64Array {
  const { values, vectors } = eigenOf(gram(y, rows, width));
  const kept = Math.max(1, values.filter((value) => value > values[0]! * RELATIVE_EIGENVALUE_MIN).length);
  const scaled = new Matrix(width, width);
  for (let column = 0; column < width; column++) {
    // Directions Y does not span become zero columns: the width stays, their vectors are 0.
    const scale = column < kept && values[column]! > 0 ? 1 / Math.sqrt(values[column]!) : 0;
    for (let row = 0; row < width; row++) scaled.set(row, column, vectors.get(row, column) * scale);
  }
  return timesSmall(y, rows, width, scaled);
}

/** A small seeded generator of numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
