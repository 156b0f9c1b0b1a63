// The key that signs capability URLs (file downloads, change request PDFs), with the clock their
// expiry is checked against. One per app, built in `createApp` from FILES_SECRET.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "./clock.ts";

export class Signer {
  private readonly key: Buffer;

  /** Without a secret, a random key: URLs signed by another process (or before a restart) fail. */
  constructor(
    secret: string | undefined,
    readonly clock: Clock,
  ) {
    this.key = secret ? Buffer.from(secret, "utf8") : randomBytes(32);
  }

  /** HMAC-SHA256 (base64url) of the fields, one per line. The first field should name the kind
   * of URL, so that a signature made for one kind never verifies as another. */
  sign(fields: string[]): string {
    return createHmac("sha256", this.key).update(fields.join("\n")).digest("base64url");
  }

  /** Whether `given` is the signature of `fields` (constant-time comparison). */
  verify(fields: string[], given: string): boolean {
    const [a, b] = [Buffer.from(this.sign(fields)), Buffer.from(given)];
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Seconds since the epoch, by the signing clock. */
  nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}
