// The last guard where headers are written: Node refuses a header value holding a character
// outside tab, visible ASCII and Latin-1 (CR and LF above all) with a throw from `writeHead`,
// which the server adapter only prints, leaving the connection open with no answer: a stored value
// with a line break (a site's fallback URL) hung every visitor of that site (issue 28). The input
// boundary refuses such values (src/core/validate.ts); this guard covers a value already stored,
// or one that reached a header another way: the bad header is dropped, the answer goes out, and
// the event is an error line of the log with the request's id.
import type { Plugin } from "graphql-yoga";
import type { Logger } from "../logger.ts";
import { errorResponse } from "./errors.ts";

/** What Node's HTTP writer accepts in a header value (its `checkInvalidHeaderChar`). */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** A header name: an HTTP token. */
const VALID_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const isHeaderValueSafe = (value: string) => !INVALID_VALUE.test(value);

/** The names of the headers Node would refuse to write. */
export function unsafeHeaders(headers: Headers): string[] {
  const bad: string[] = [];
  headers.forEach((value, name) => {
    if (!VALID_NAME.test(name) || INVALID_VALUE.test(value)) bad.push(name);
  });
  return bad;
}

/** The guard as a response hook: placed before the request log, so the line logged is the answer sent. */
export function useHeaderGuard(options: { logger: Logger; requestIdOf(request: Request): string | undefined }): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      const bad = unsafeHeaders(response.headers);
      if (bad.length === 0) return;
      options.logger.error(
        { reqId: options.requestIdOf(request), headers: bad, status: response.status },
        "a response header held characters HTTP does not allow: dropped",
      );
      for (const name of bad) response.headers.delete(name);
      // A redirect that lost its Location has nowhere to send the client: a 404 envelope instead.
      if (response.status >= 300 && response.status < 400 && !response.headers.has("location")) {
        setResponse(errorResponse(404, "Nothing to redirect to: the stored target of this redirect is not a valid URL"));
      }
    },
  };
}
