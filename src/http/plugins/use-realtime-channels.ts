// The REST twin of the realtime channels, for scripts: `GET /v1/channels?channel=space-content&space=…`
// answers `text/event-stream` with the same events as the GraphQL `channel` subscription (`curl -N`
// works). The same checks before anything is streamed (the REST error envelope: 400 naming the
// field, 401, 403, 404, 429), the same bounds, and a comment line every 12 seconds for proxies.
// The stream is pulled: a client that reads slower than events come is cut off by the bus.
import type { Plugin } from "graphql-yoga";
import { createCoreContext, type Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import type { ChannelEvent, Subscription } from "../../core/realtime/bus.ts";
import { isNotificationsChannel, verifyNotificationsToken } from "../../core/users/notifications-token.ts";
import { errorResponse } from "../errors.ts";

export const CHANNELS_PATH = "/v1/channels";

const OPERATIONS = { insert: "created", update: "updated", delete: "deleted" } as const;

/** An event as JSON, in the shape of the GraphQL `ChannelEvent`. */
function eventJson(event: ChannelEvent): string {
  return JSON.stringify({
    channel: event.channel,
    ids: event.ids,
    at: event.at.toISOString(),
    actor: event.actorId,
    revision: event.revisionId,
    changes: event.changes.map((change) => ({
      object: change.table,
      id: change.row.id ?? null,
      change: OPERATIONS[change.op],
      fields: change.fields,
    })),
  });
}

function stream(subscription: Subscription, heartbeatMs: number): Response {
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // A first comment, so that clients see the headers at once.
        controller.enqueue(encoder.encode(":\n\n"));
        heartbeat = setInterval(() => {
          if (controller.desiredSize === null) clearInterval(heartbeat);
          else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(":\n\n"));
        }, heartbeatMs);
      },
      async pull(controller) {
        const { done, value } = await subscription.next();
        if (done) {
          clearInterval(heartbeat);
          controller.close();
        } else if (value.error) {
          const error = JSON.stringify({ error: { code: value.error.status, message: value.error.message } });
          controller.enqueue(encoder.encode(`event: error\ndata: ${error}\n\n`));
          clearInterval(heartbeat);
          controller.close();
        } else {
          controller.enqueue(encoder.encode(`event: ${value.event.channel}\ndata: ${eventJson(value.event)}\n\n`));
        }
      },
      cancel() {
        clearInterval(heartbeat);
        subscription.end();
      },
    },
    // One event waits at most: the bus queues (and bounds) the rest.
    { highWaterMark: 1 },
  );
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" },
  });
}

export function useRealtimeChannels(services: Services, { heartbeatMs }: { heartbeatMs: number }): Plugin {
  /**
   * The API token of the Authorization header, or a notifications token (`token` parameter, from
   * createUserNotificationsToken), which opens the user's own user channels only.
   */
  async function viewerOf(request: Request, input: Record<string, string>) {
    if (input.token === undefined) return services.tokens.authenticate(request.headers.get("authorization"));
    const token = input.token;
    delete input.token;
    if (request.headers.get("authorization"))
      throw new DomainError("BAD_REQUEST", "token: send either a token parameter or an Authorization header");
    const viewer = verifyNotificationsToken(services.signer, token);
    if (!isNotificationsChannel(input.channel)) {
      throw new DomainError(
        "FORBIDDEN",
        "token: a notifications token opens only the user-profile, user-organizations and user-api-tokens channels",
      );
    }
    return viewer;
  }

  async function serve(request: Request, url: URL): Promise<Response> {
    if (request.method !== "GET")
      return errorResponse(405, `Method ${request.method} is not allowed on ${CHANNELS_PATH}; use GET`, { Allow: "GET" });
    const input: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (name in input) return errorResponse(400, `${name}: given more than once`);
      input[name] = value;
    }
    try {
      const viewer = await viewerOf(request, input);
      const subscription = await services.realtime.subscribe(createCoreContext(services, viewer), input);
      request.signal?.addEventListener("abort", () => subscription.end(), { once: true });
      return stream(subscription, heartbeatMs);
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.status, error.message);
      throw error;
    }
  }

  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== CHANNELS_PATH && url.pathname !== `${CHANNELS_PATH}/`) return;
      return serve(request, url).then(endResponse);
    },
  };
}
