// Realtime clients for tests: a subscription over Server-Sent Events (the raw protocol, as curl or
// a browser's EventSource reads it) whose events are read one at a time with a timeout.
export interface SseMessage {
  event: string;
  data: string;
}

export interface EventStream {
  status: number;
  headers: Headers;
  /** The next message (`event: next` / `complete`), or null when none came within `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseMessage | null>;
  /** Comments (heartbeats, `:`) seen so far. */
  readonly comments: number;
  close(): void;
}

/** Opens `url` as an event stream (GET, or POST with `body`) and reads it message by message. */
export async function openEventStream(
  url: string,
  { token, body, method = body === undefined ? "GET" : "POST" }: { token?: string; body?: unknown; method?: string },
): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method,
    signal: controller.signal,
    headers: {
      accept: "text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let comments = 0;
  const queue: SseMessage[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: SseMessage = { event: "message", data: "" };
          let isComment = true;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            isComment = false;
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") message.event = value;
            else if (field === "data") message.data += (message.data ? "\n" : "") + value;
          }
          if (isComment) comments++;
          else queue.push(message);
        }
        wake?.();
      }
    } catch {
      // aborted
    } finally {
      ended = true;
      wake?.();
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    get comments() {
      return comments;
    },
    async next(timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0 && !ended && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.max(0, deadline - Date.now()));
        });
      }
      return queue.shift() ?? null;
    },
    close() {
      controller.abort();
    },
  };
}

/** A GraphQL subscription over SSE on /graphql. */
export function subscribeSse(baseUrl: string, token: string, query: string, variables?: Record<string, unknown>) {
  return openEventStream(`${baseUrl}/graphql`, { token, body: { query, variables } });
}

export const CHANNEL_QUERY = `subscription($channel: ChannelInput!) {
  channel(channel: $channel) { channel ids at actor revision changes { object id change fields } }
}`;
