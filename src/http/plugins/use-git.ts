// Git's smart HTTP protocol at /git/<spaceId>.git: clone and fetch are `git upload-pack` on the
// space's repository (src/core/git/repository.ts), streamed from the child process; push is read
// here (commands, then the pack indexed by `git index-pack`) and applied as change requests
// (src/core/git/push.ts), answered with git's report-status, one line per ref with the reason.
// The password of HTTP Basic auth is an API token (any user name); a Bearer header works too.
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import type { Plugin } from "graphql-yoga";
import { createCoreContext, type Services } from "../../core/context.ts";
import { DomainError, quote } from "../../core/errors.ts";
import { applyRefUpdate, FLUSH, parseReceivePack, pkt, type RefResult } from "../../core/git/push.ts";
import { GitError, streamGit, type GitRepositories } from "../../core/git/repository.ts";
import { may } from "../../core/auth/policy.ts";
import { readSpace } from "../../core/spaces/index.ts";

const ROUTE = /^\/git\/([A-Za-z0-9_-]{1,100})\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

const text = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(`${message}\n`, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });

/** The request body, gunzipped when git compressed it, at most `max` bytes. */
async function readBody(request: Request, max: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > max) throw new GitError(`The push is ${declared} bytes; at most ${max} are allowed`, 413);
  const chunks: Buffer[] = [];
  let size = 0;
  if (request.body) {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > max) throw new GitError(`The request is over ${max} bytes, the most allowed`, 413);
      chunks.push(Buffer.from(chunk));
    }
  }
  const body = Buffer.concat(chunks);
  if ((request.headers.get("content-encoding") ?? "").toLowerCase() === "gzip") {
    return gunzipSync(body, { maxOutputLength: max });
  }
  return body;
}

export function useGit(services: Services, repos: GitRepositories): Plugin {
  async function serve(request: Request, url: URL, spaceId: string, endpoint: string): Promise<Response> {
    const authorization = request.headers.get("authorization") ?? "";
    const basic = authorization.match(/^Basic\s+(\S+)\s*$/i);
    const bearer = basic ? `Bearer ${Buffer.from(basic[1], "base64").toString("utf8").split(":").slice(1).join(":")}` : authorization;
    if (!authorization)
      return text(401, "Authentication required: use an API token as the password", { "WWW-Authenticate": 'Basic realm="git"' });
    const viewer = await services.tokens.authenticate(bearer).catch(() => undefined);
    if (!viewer) return text(401, "Invalid API token", { "WWW-Authenticate": 'Basic realm="git"' });
    const ctx = createCoreContext(services, viewer);
    const found = await readSpace(ctx, spaceId).catch(() => undefined);
    if (!found || found.space.deletedAt) return text(404, `No space found with id ${quote(spaceId)}`);
    const service = endpoint === "info/refs" ? url.searchParams.get("service") : endpoint;
    if (service !== "git-upload-pack" && service !== "git-receive-pack") {
      return text(403, "Only the smart HTTP protocol is served: use git 1.7 or newer");
    }
    if (service === "git-receive-pack" && !(await may(ctx, "changeRequest.create", { space: found.space }))) {
      return text(403, `Pushing to this space needs the edit role on it (you can read it: clone and fetch work)`);
    }
    if (endpoint === "info/refs") {
      if (request.method !== "GET") return text(405, "Use GET", { Allow: "GET" });
      const state = await repos.sync(spaceId);
      let refs: Buffer;
      if (service === "git-upload-pack") {
        refs = await repos.git(spaceId, [
          "-c",
          "uploadpack.hideRefs=refs/revisions",
          "-c",
          "uploadpack.hideRefs=refs/sync",
          "upload-pack",
          "--stateless-rpc",
          "--advertise-refs",
          state.gitDir,
        ]);
      } else {
        const capabilities = "report-status delete-refs ofs-delta quiet agent=docs-service";
        const lines = [...state.branches].map(([name, commit], index) =>
          pkt(`${commit} refs/heads/${name}${index === 0 ? `\0${capabilities}` : ""}\n`),
        );
        refs = Buffer.concat([...lines, FLUSH]);
      }
      return new Response(Buffer.concat([pkt(`# service=${service}\n`), FLUSH, refs]), {
        headers: { "Content-Type": `application/x-${service}-advertisement`, "Cache-Control": "no-cache" },
      });
    }
    if (request.method !== "POST") return text(405, "Use POST", { Allow: "POST" });
    const body = await readBody(request, repos.limits.maxPushBytes);
    if (service === "git-upload-pack") {
      const state = await repos.sync(spaceId);
      const out = streamGit(
        state.gitDir,
        ["-c", "uploadpack.hideRefs=refs/revisions", "-c", "uploadpack.hideRefs=refs/sync", "upload-pack", "--stateless-rpc", state.gitDir],
        body,
        repos.limits.timeoutMs,
      );
      return new Response(Readable.toWeb(out) as ReadableStream, {
        headers: { "Content-Type": "application/x-git-upload-pack-result", "Cache-Control": "no-cache" },
      });
    }
    const { updates, pack } = parseReceivePack(body);
    let unpack = "ok";
    if (pack.length > 0) {
      await repos.sync(spaceId);
      await repos.git(spaceId, ["index-pack", "--stdin", "--fix-thin", "--strict"], { input: pack }).catch((error: Error) => {
        unpack = `index-pack failed: ${error.message.replace(/\s+/g, " ").slice(0, 200)}`;
      });
    }
    const results: RefResult[] = [];
    for (const update of updates) {
      results.push(
        unpack === "ok" ? await applyRefUpdate(ctx, repos, spaceId, update) : { ref: update.ref, ok: false, reason: "unpacker error" },
      );
    }
    if (results.some((result) => result.ok)) await repos.sync(spaceId);
    const report = Buffer.concat([
      pkt(`unpack ${unpack}\n`),
      ...results.map((result) => pkt(result.ok ? `ok ${result.ref}\n` : `ng ${result.ref} ${result.reason}\n`)),
      FLUSH,
    ]);
    return new Response(report, { headers: { "Content-Type": "application/x-git-receive-pack-result", "Cache-Control": "no-cache" } });
  }

  return {
    onRequest({ request, url, endResponse }) {
      const match = url.pathname.match(ROUTE);
      if (!match) return;
      return serve(request, url, match[1], match[2]).then(endResponse, (error: unknown) => {
        if (error instanceof GitError) return endResponse(text(error.status, error.message));
        if (error instanceof DomainError) return endResponse(text(error.code === "PAYLOAD_TOO_LARGE" ? 413 : 400, error.message));
        services.logger.error({ err: error }, "git request failed");
        return endResponse(text(500, "The Git request failed"));
      });
    },
  };
}
