// Streamed results over Server-Sent Events on /graphql (subscriptions, and @defer/@stream asked as
// `text/event-stream`), in the format Yoga writes (graphql-sse's distinct connections: `:` first,
// `event: next` per result, `event: complete` at the end, a `:` line when idle, every 12 seconds
// by default), written
// through a Node stream that the server adapter pipes into the connection. Yoga's own writer goes
// through a web ReadableStream and its pull per chunk, which cost most of the CPU of sending one
// event to many subscribers. A `channel` subscription's events are written by the realtime bus
// itself while the stream waits for one, rendered once per event for every subscriber of the same
// document, variables and ids (bus.ts DirectSink; docs/adr/0002-event-stream-fan-out.md).
// Backpressure stays: the next result is read only when the connection takes more, a backed-up
// connection gets no direct write, and the realtime bus bounds what waits.
import { Readable } from "node:stream";
import type { ExecutionResult } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { DirectEvents, EventRenderer, Subscription } from "../../core/realtime/bus.ts";

/** Bytes of results waiting in the stream before it reads no more from the subscription. */
const HIGH_WATER_MARK = 16 * 1024;

type Result = ExecutionResult & { extensions?: Record<string, unknown> };

/** A result as JSON without what is only for the server (the HTTP status of errors), as Yoga's writer does. */
export function resultJson(result: Result): string {
  if (!result.errors?.length && !result.extensions?.http) return JSON.stringify(result);
  const { http: _status, ...extensions } = result.extensions ?? {};
  return JSON.stringify({
    ...result,
    errors: result.errors?.map((error) => {
      const json = typeof error.toJSON === "function" ? error.toJSON() : { ...error };
      const { http: _http, unexpected: _unexpected, ...rest } = (json.extensions ?? {}) as Record<string, unknown>;
      return { ...json, extensions: Object.keys(rest).length ? rest : undefined };
    }),
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}

/** A `channel` subscription of the request whose events this stream writes at once (GraphQLContext.directEvents). */
interface Direct {
  subscription: Subscription;
  renderer: EventRenderer;
}

function eventStream(
  result: AsyncIterable<Result>,
  fetchAPI: { Response: typeof Response },
  heartbeatMs: number,
  direct: Direct | undefined,
): Response {
  const iterator = result[Symbol.asyncIterator]();
  let reading = false;
  let finished = false;
  const finish = () => {
    if (finished) return false;
    finished = true;
    clearInterval(ping);
    return true;
  };
  const body = new Readable({
    highWaterMark: HIGH_WATER_MARK,
    read() {
      if (!reading && !finished) void pump();
    },
    destroy(error, callback) {
      // The client went away (or the stream failed): the subscription ends.
      if (finish()) void Promise.resolve(iterator.return?.()).catch(() => {});
      callback(error);
    },
  });
  const pump = async () => {
    reading = true;
    try {
      for (;;) {
        const { done, value } = await iterator.next();
        if (finished) return;
        let more = true;
        if (value != null) more = body.push(`event: next\ndata: ${resultJson(value)}\n\n`);
        if (done) {
          finish();
          body.push("event: complete\ndata:\n\n");
          body.push(null);
          return;
        }
        if (!more) return;
      }
    } catch (error) {
      if (finish()) body.destroy(error as Error);
    } finally {
      reading = false;
    }
  };
  // Only when nothing waits: a stream backed up by a slow reader does not grow by its pings.
  const ping = setInterval(() => {
    if (body.readableLength === 0) body.push(":\n\n");
  }, heartbeatMs);
  // At once, so that clients see the headers (some browsers wait for a first byte).
  body.push(":\n\n");
  if (direct) {
    // The subscription's events straight into the stream, while its consumer (the pump) waits for
    // one: the same bytes the pump would write, rendered once per event for all the same subscriptions.
    const { renderer } = direct;
    direct.subscription.writeDirectly({
      key: renderer.key,
      render(event) {
        const json = renderer.render(event);
        return json === null ? null : Buffer.from(`event: next\ndata: ${json}\n\n`);
      },
      write(bytes) {
        if (finished || body.readableLength >= HIGH_WATER_MARK) return false;
        body.push(bytes);
        return true;
      },
    });
  }
  return new fetchAPI.Response(body as unknown as BodyInit, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", Connection: "keep-alive", "Cache-Control": "no-cache", "Content-Encoding": "none" },
  });
}

/** Accept headers that ask for an event stream and not multipart (where Yoga would choose multipart for @defer). */
function wantsEventStream(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("text/event-stream") && !accept.includes("multipart/mixed");
}

/** `heartbeatMs`: how often an idle stream gets a comment line (proxies close silent connections). */
export function useEventStream({ heartbeatMs }: { heartbeatMs: number }): Plugin<{ directEvents?: DirectEvents }> {
  // The `channel` subscription of each request asking for an event stream, until its stream is made.
  const directs = new WeakMap<Request, Direct>();
  return {
    onContextBuilding({ context, extendContext }) {
      const request = (context as { request?: Request }).request;
      if (!request || !wantsEventStream(request)) return;
      extendContext({ directEvents: (subscription, renderer) => directs.set(request, { subscription, renderer }) });
    },
    onResultProcess({ request, result, setResultProcessor }) {
      if (!isAsyncIterable(result) || !wantsEventStream(request)) return;
      const direct = directs.get(request);
      directs.delete(request);
      setResultProcessor(
        (streamed, fetchAPI) => eventStream(streamed as AsyncIterable<Result>, fetchAPI, heartbeatMs, direct),
        "text/event-stream",
      );
    },
  };
}
