// GraphQL subscriptions over WebSocket (the `graphql-transport-ws` protocol of graphql-ws) on the
// GraphQL path of the node:http server, beside Server-Sent Events (which Yoga serves itself).
// Operations run through Yoga's own pipeline (`getEnveloped`: the same schema, context building
// with the bearer token, validation and error masking as over HTTP). Only subscriptions: queries
// and mutations go over HTTP, where their limits, deadlines and rate limits apply.
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type DocumentNode, type ExecutionArgs, getOperationAST, GraphQLError } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer } from "ws";
import type { RealtimeBus } from "../core/realtime/bus.ts";
import { boundErrorMessages } from "../core/errors.ts";

/** Largest message a client may send (a subscribe message holds one operation and its variables). */
const MAX_MESSAGE_BYTES = 64 * 1024;

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, Record<string, unknown>>["getEnveloped"]>;
interface RootValue {
  execute: Enveloped["execute"];
  subscribe: Enveloped["subscribe"];
}

/**
 * The bearer token of a connection: `Authorization` in the connection_init payload (browsers
 * cannot set headers on a WebSocket), else the upgrade request's header.
 */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined, request: IncomingMessage): string | null {
  const given = params?.Authorization ?? params?.authorization;
  if (typeof given === "string") return given;
  return request.headers.authorization ?? null;
}

/**
 * Serves graphql-ws on `server`'s upgrades to `yoga`'s endpoint (others are answered 404). The
 * sockets are pinged every 12 s (graphql-ws's keep-alive) and closed (1001) when `bus` closes at
 * shutdown. Returns the function that stops it.
 */
export function attachWebSocket(server: Server, yoga: YogaServerInstance<any, any>, bus: RealtimeBus): () => Promise<void> {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const endpoint = yoga.graphqlEndpoint;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { pathname } = new URL(request.url ?? "/", "http://localhost");
    if (pathname !== endpoint) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
  };
  server.on("upgrade", onUpgrade);

  const served = useServer<Record<string, unknown> | undefined, { request: IncomingMessage }>(
    {
      execute: (args) => (args.rootValue as RootValue).execute(args as ExecutionArgs),
      subscribe: (args) => (args.rootValue as RootValue).subscribe(args as ExecutionArgs),
      // A connection without a token is closed at once (4403); its token is checked at each subscribe.
      onConnect: (ctx) => authorizationOf(ctx.connectionParams, ctx.extra.request) !== null,
      onSubscribe: async (ctx, _id, payload) => {
        const authorization = authorizationOf(ctx.connectionParams, ctx.extra.request);
        const request = new Request(new URL(endpoint, "http://localhost"), {
          method: "POST",
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        });
        const enveloped = yoga.getEnveloped({ request, params: payload });
        let document: DocumentNode;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return boundErrorMessages([error instanceof GraphQLError ? error : new GraphQLError(String(error))]);
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return boundErrorMessages(errors);
        if (getOperationAST(document, payload.operationName)?.operation !== "subscription") {
          return [
            new GraphQLError("Only subscriptions are served over WebSocket: send queries and mutations over HTTP", {
              extensions: { code: "BAD_REQUEST" },
            }),
          ];
        }
        let contextValue: unknown;
        try {
          contextValue = await enveloped.contextFactory();
        } catch (error) {
          // The token refused (401), as over HTTP.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        return {
          schema: enveloped.schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue,
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe } satisfies RootValue,
        };
      },
    },
    sockets,
  );
  const stopOnClose = bus.onClose(() => {
    for (const client of sockets.clients) client.close(1001, "Server shutting down");
  });
  return async () => {
    stopOnClose();
    server.off("upgrade", onUpgrade);
    await served.dispose();
  };
}
