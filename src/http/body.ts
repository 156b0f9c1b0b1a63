// Reading request bodies within a bound, for the REST adapter and GraphQL alike.

/** The body's chunks joined, or null once they exceed `limit` bytes (counted as they arrive). */
async function collectUpTo(request: Request, limit: number): Promise<Buffer | null> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.releaseLock();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The body as text, or null once it exceeds `limit` bytes. Counts bytes as they arrive, so a body
 * sent without Content-Length (chunked) is refused without being held in memory whole, and
 * multi-byte characters count for their UTF-8 size, not as one.
 */
export async function readTextUpTo(request: Request, limit: number): Promise<string | null> {
  const bytes = await collectUpTo(request, limit);
  if (bytes === null) return null;
  if (bytes.byteLength > 1024 * 1024) await new Promise((resolve) => setImmediate(resolve)); // let other requests in between
  return new TextDecoder().decode(bytes); // like request.text(): UTF-8, BOM dropped
}

/** The body's bytes, or null once it exceeds `limit` bytes (counted as they arrive, like readTextUpTo). */
export async function readBytesUpTo(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const bytes = await collectUpTo(request, limit);
  return bytes === null ? null : new Uint8Array(bytes);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const QUERY_KEY = Buffer.from("query");

/**
 * Follows a JSON body as its bytes arrive and keeps a lower bound of the UTF-8 size of its
 * top-level `"query"` string, so a GraphQL body whose document is over the limit can be refused
 * after its first kilobytes, instead of being held, decoded and parsed whole. Strings are skipped
 * with `indexOf` (native); only the structure between them is walked byte by byte. A lower bound:
 * an escape (`\n`, `\u00e9`) counts for 1 byte at most, a key written with escapes is not
 * recognized, and anything that is not a JSON object is left alone: the exact checks after
 * parsing still apply, this only refuses early what they would refuse.
 */
export class QueryLengthScanner {
  /** The largest lower bound seen of a top-level "query" string's size, in bytes. */
  queryBytes = 0;
  private depth = 0;
  private inString = false;
  /** Backslashes at the end of what was read of the current string (an odd count escapes the next byte). */
  private backslashes = 0;
  private kind: "key" | "query" | "other" = "other";
  private expectingKey = false;
  private afterColon = false;
  private key: number[] = [];
  private isQueryKey = false;
  /** Bytes read of the current "query" string, and the backslashes among them (over all chunks). */
  private raw = 0;
  private escapes = 0;
  private off = false;

  push(chunk: Uint8Array): void {
    if (this.off) return;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.inString) {
        let end = chunk.indexOf(QUOTE, i);
        // Each string segment: find the next quote not escaped by an odd run of backslashes.
        for (;;) {
          const stop = end < 0 ? n : end;
          let run = 0;
          for (let j = stop - 1; j >= i && chunk[j] === BACKSLASH; j--) run++;
          const carried = run === stop - i ? this.backslashes + run : run;
          this.account(chunk, i, stop);
          if (end < 0) {
            this.backslashes = carried;
            return;
          }
          if (carried % 2 === 1) {
            // An escaped quote: part of the string.
            this.backslashes = 0;
            if (this.kind === "query") this.raw += 1;
            else if (this.kind === "key") this.key.push(QUOTE);
            i = end + 1;
            end = chunk.indexOf(QUOTE, i);
            continue;
          }
          break;
        }
        this.endString();
        i = end + 1;
        continue;
      }
      const c = chunk[i++];
      if (c === QUOTE) {
        this.inString = true;
        this.backslashes = 0;
        this.kind =
          this.depth === 1 && this.expectingKey ? "key" : this.depth === 1 && this.afterColon && this.isQueryKey ? "query" : "other";
        this.key = [];
        this.raw = 0;
        this.escapes = 0;
      } else if (c === 0x7b || c === 0x5b) {
        if (this.depth === 0 && c !== 0x7b) {
          this.off = true; // a batch (array): nothing to say early
          return;
        }
        this.depth++;
        if (this.depth === 1) this.expectingKey = true;
      } else if (c === 0x7d || c === 0x5d) {
        this.depth--;
      } else if (this.depth === 1 && c === 0x2c) {
        this.expectingKey = true;
        this.afterColon = false;
        this.isQueryKey = false;
      } else if (this.depth === 1 && c === 0x3a) {
        this.afterColon = true;
      } else if (this.depth === 0 && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xef && c !== 0xbb && c !== 0xbf) {
        this.off = true; // not a JSON object: nothing to say early
        return;
      }
    }
  }

  /** Bytes [from, to) of the current string. */
  private account(chunk: Uint8Array, from: number, to: number) {
    if (this.kind === "query") {
      for (let j = chunk.indexOf(BACKSLASH, from); j >= 0 && j < to; j = chunk.indexOf(BACKSLASH, j + 1)) this.escapes++;
      this.raw += to - from;
      // An escape sequence is at most 6 bytes (\uXXXX) for at least 1 byte of text. Counted over
      // the whole string, not per chunk: an escape cut by a chunk boundary is still one escape.
      const atLeast = this.raw - 5 * this.escapes;
      if (atLeast > this.queryBytes) this.queryBytes = atLeast;
    } else if (this.kind === "key" && this.key.length <= QUERY_KEY.length) {
      for (let j = from; j < to && this.key.length <= QUERY_KEY.length; j++) this.key.push(chunk[j]);
    }
  }

  private endString() {
    this.inString = false;
    if (this.kind === "key") {
      this.expectingKey = false;
      this.isQueryKey = Buffer.from(this.key).equals(QUERY_KEY);
    }
    this.kind = "other";
  }
}

export type GraphQLBodyRead = { kind: "text"; text: string } | { kind: "too-large" } | { kind: "document-too-large"; atLeastBytes: number };

/**
 * The JSON body of a GraphQL request, read within `maxBodyBytes`: refused once it is over that,
 * or once its `query` string is known to be over `maxDocumentBytes`. A refused document's body is
 * read to its end and dropped as it arrives (never held, decoded or parsed), so the client gets
 * its 413 on a connection still in order.
 */
export async function readGraphQLBody(request: Request, maxBodyBytes: number, maxDocumentBytes: number): Promise<GraphQLBodyRead> {
  if (!request.body) return { kind: "text", text: "" };
  // A body declaring a length within both bounds cannot outgrow it (Node's parser holds a body to
  // its Content-Length): nothing to follow as it arrives, it is read whole (issue 35: most
  // requests, at less CPU than a stream reader's).
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= Math.min(maxBodyBytes, maxDocumentBytes)) {
    return { kind: "text", text: new TextDecoder().decode(await request.arrayBuffer()) };
  }
  const reader = request.body.getReader();
  const scanner = new QueryLengthScanner();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let refused = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBodyBytes) {
      reader.releaseLock();
      return { kind: "too-large" };
    }
    if (refused) continue;
    scanner.push(value);
    if (scanner.queryBytes > maxDocumentBytes) {
      refused = true;
      chunks.length = 0;
    } else chunks.push(value);
  }
  if (refused) return { kind: "document-too-large", atLeastBytes: scanner.queryBytes };
  const bytes = Buffer.concat(chunks);
  if (size > 1024 * 1024) await new Promise((resolve) => setImmediate(resolve)); // let other requests in between
  return { kind: "text", text: new TextDecoder().decode(bytes) };
}
