// Reading request bodies within a bound, for the REST adapter and GraphQL alike.

/**
 * The body as text, or null once it exceeds `limit` bytes. Counts bytes as they arrive, so a body
 * sent without Content-Length (chunked) is refused without being held in memory whole, and
 * multi-byte characters count for their UTF-8 size, not as one.
 */
export async function readTextUpTo(request: Request, limit: number): Promise<string | null> {
  if (!request.body) return "";
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
  const bytes = Buffer.concat(chunks);
  if (size > 1024 * 1024) await new Promise((resolve) => setImmediate(resolve)); // let other requests in between
  return new TextDecoder().decode(bytes); // like request.text(): UTF-8, BOM dropped
}
