// Git Sync of a space (issue 32) against a local bare repository as the remote, with the real
// `git`: import makes a change request (the space is not touched), export pushes one commit on
// top of the remote branch, operations run as durable jobs and report through GET …/git/info;
// bad input is refused naming the field or the file; credentials are stored sealed; the
// private-host policy refuses loopback remotes; a stalled remote is stopped at the deadline while
// other requests are answered.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unseal } from "../src/core/git/sync.ts";
import { withCanary } from "./support/canary.ts";
import { graphqlData } from "./support/expect.ts";
import { CHANNEL_QUERY, subscribeSse } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let work: string;

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      "git",
      ["-c", "user.name=Remote Author", "-c", "user.email=remote@example.com", "-c", "init.defaultBranch=main", ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: work, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout)),
    ),
  );
}

/** A bare repository with `files` committed on `main`, and a working clone of it. */
async function remoteWith(files: Record<string, string>): Promise<{ bare: string; url: string; checkout: string }> {
  const root = await mkdtemp(join(work, "remote-"));
  const bare = join(root, "docs.git");
  const checkout = join(root, "checkout");
  await git(root, ["init", "-q", "--bare", bare]);
  await git(root, ["init", "-q", checkout]);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(checkout, path, ".."), { recursive: true });
    await writeFile(join(checkout, path), text);
  }
  await git(checkout, ["add", "-A"]);
  await git(checkout, ["commit", "-q", "-m", "Docs from the remote"]);
  await git(checkout, ["push", "-q", bare, "HEAD:refs/heads/main"]);
  return { bare, url: `file://${bare}`, checkout };
}

const REMOTE_FILES = {
  ".gitbook.yaml": "root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\nredirects: {}\n",
  "SUMMARY.md": "# Table of contents\n\n* [Welcome](README.md)\n* [Setup](setup/README.md)\n  * [Linux](setup/linux.md)\n",
  "README.md": "Welcome from Git.\n",
  "setup/README.md": '{% hint style="info" %}\nRead this first.\n{% endhint %}\n',
  "setup/linux.md": "apt install thing\n",
};

async function newSpace(title: string): Promise<string> {
  return (
    await graphqlData(server, A.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: A.organizationId, title },
    })
  ).createSpace.space.id;
}

/** Waits for the space's latest operation to end, and answers the published GitSyncState. */
async function settled(space: string, target = server, token = A.token) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const info = await target.rest(token, "GET", `/v1/spaces/${space}/git/info`);
    expect(info.status).toBe(200);
    if (info.body.operation.state !== "running") return info.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the operation did not end");
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "git-sync-test-"));
  server = await startTestServer({ gitSyncKey: "a test key of at least thirty-two characters" });
  A = await server.bootstrap("Git Sync");
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("Git Sync import", { timeout: 180_000 }, () => {
  it("makes a change request holding the remote's tree; the space's content is not touched", async () => {
    const space = await newSpace("Imported");
    const before = (await server.database.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId;
    const missing = await server.rest(A.token, "GET", `/v1/spaces/${space}/git/info`);
    expect(missing.status).toBe(404);
    const remote = await remoteWith(REMOTE_FILES);
    const asked = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, {
      url: remote.url,
      ref: "refs/heads/main",
      repoTreeURL: "https://git.example.com/docs/tree/main",
    });
    expect(asked.status).toBe(204);
    const info = await settled(space);
    expect(info).toMatchObject({
      installationProvider: "github",
      installationStatus: "active",
      url: "https://git.example.com/docs/tree/main",
      operation: { state: "success", direction: "import" },
    });
    expect(info.operation.error).toBeUndefined();
    expect(Date.parse(info.operation.endedAt)).toBeGreaterThanOrEqual(Date.parse(info.operation.startedAt));
    // Never an overwrite: the space's head is where it was; the import is a change request.
    expect((await server.database.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId).toBe(before);
    const changeRequests = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests`);
    expect(changeRequests.body.items).toHaveLength(1);
    expect(changeRequests.body.items[0]).toMatchObject({ status: "open", subject: "Git Sync import of main" });
    const content = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests/${changeRequests.body.items[0].id}/content`);
    const titles = (pages: { title: string; pages?: unknown[] }[]): unknown[] =>
      pages.map((page) => (page.pages?.length ? [page.title, titles(page.pages as never)] : page.title));
    expect(titles(content.body.pages)).toEqual(["Welcome", ["Setup", ["Linux"]]]);
    const setup = await server.rest(
      A.token,
      "GET",
      `/v1/spaces/${space}/change-requests/${changeRequests.body.items[0].id}/content/path/setup?format=markdown`,
    );
    expect(setup.body.markdown).toBe(REMOTE_FILES["setup/README.md"]);
  });

  it("tells subscribers of space-gitsync-operation when an operation starts and when it ends", async () => {
    const space = await newSpace("Followed");
    const remote = await remoteWith(REMOTE_FILES);
    const before = server.app.services.realtime.openSubscriptions;
    const stream = await subscribeSse(server.url, A.token, CHANNEL_QUERY, { channel: { channel: "space-gitsync-operation", space } });
    try {
      expect(stream.status).toBe(200);
      for (let i = 0; i < 100 && server.app.services.realtime.openSubscriptions === before; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(
        (await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, { url: remote.url, ref: "refs/heads/main" })).status,
      ).toBe(204);
      const events: { changes: { object: string; change: string; fields: string[] | null }[] }[] = [];
      while (events.length < 2) {
        const message = await stream.next(30_000);
        expect(message, "an event").not.toBeNull();
        events.push(JSON.parse(message!.data).data.channel);
      }
      // The request records the state (inserted), the job's end updates its operation.
      expect(events[0]).toMatchObject({ ids: { space }, changes: [{ object: "GitSync", change: "created" }] });
      expect(events[1].changes).toEqual([
        expect.objectContaining({ object: "GitSync", change: "updated", fields: expect.arrayContaining(["operation"]) }),
      ]);
      expect((await settled(space)).operation.state).toBe("success");
    } finally {
      stream.close();
    }
  });

  it("tells subscribers of site-gitsync-operation about the operations of the spaces the site's installation manages", async () => {
    const managed = await newSpace("Managed by the site");
    const alone = await newSpace("Not in the site's installation");
    const remote = await remoteWith(REMOTE_FILES);
    const site = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites`, {
      title: "Synced site",
      spaces: [managed, alone],
    });
    expect(site.status).toBe(201);
    const siteId = site.body.id as string;
    const install = (target: Record<string, string>) =>
      server.rest(A.token, "POST", "/v1/git/installations", { provider: "github", target });
    expect((await install({ type: "site", siteId })).status).toBe(201);
    expect((await install({ type: "space", spaceId: managed, siteId })).status).toBe(201);
    const before = server.app.services.realtime.openSubscriptions;
    const stream = await subscribeSse(server.url, A.token, CHANNEL_QUERY, { channel: { channel: "site-gitsync-operation", site: siteId } });
    try {
      expect(stream.status).toBe(200);
      for (let i = 0; i < 100 && server.app.services.realtime.openSubscriptions === before; i++)
        await new Promise((r) => setTimeout(r, 10));
      // A space of the site that its installation does not manage raises nothing here.
      await server.rest(A.token, "POST", `/v1/spaces/${alone}/git/import`, { url: remote.url, ref: "refs/heads/main" });
      expect((await settled(alone)).operation.state).toBe("success");
      await server.rest(A.token, "POST", `/v1/spaces/${managed}/git/import`, { url: remote.url, ref: "refs/heads/main" });
      const events: { ids: Record<string, string>; changes: { object: string; change: string; fields: string[] | null }[] }[] = [];
      while (events.length < 2) {
        const message = await stream.next(30_000);
        expect(message, "an event").not.toBeNull();
        events.push(JSON.parse(message!.data).data.channel);
      }
      expect(events[0]).toMatchObject({ ids: { site: siteId }, changes: [{ object: "GitSync", change: "created" }] });
      expect(events[1].changes).toEqual([
        expect.objectContaining({ object: "GitSync", change: "updated", fields: expect.arrayContaining(["operation"]) }),
      ]);
      expect((await settled(managed)).operation.state).toBe("success");
    } finally {
      stream.close();
    }
    // Who cannot read the site cannot open it.
    const outsider = await server.bootstrap("Elsewhere");
    const refused = await subscribeSse(server.url, outsider.token, CHANNEL_QUERY, {
      channel: { channel: "site-gitsync-operation", site: siteId },
    });
    const first = await refused.next(10_000);
    refused.close();
    expect(first?.data ?? "").toContain("errors");
  });

  it("refuses a tree that does not fit the layout, naming the file, and makes no change request", async () => {
    const space = await newSpace("Bad remote");
    const remote = await remoteWith({ ...REMOTE_FILES, "notes.txt": "stray\n" });
    expect((await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, { url: remote.url, ref: "refs/heads/main" })).status).toBe(
      204,
    );
    const info = await settled(space);
    expect(info.operation).toMatchObject({ state: "failure", direction: "import" });
    expect(info.operation.error).toContain("notes.txt: is outside the layout");
    expect(await server.database.prisma.changeRequest.count({ where: { spaceId: space } })).toBe(0);
  });

  it("refuses bad input naming the field, and keeps nothing", async () => {
    const space = await newSpace("Bad input");
    const cases: [Record<string, unknown>, string][] = [
      [{ url: "ftp://example.com/docs.git", ref: "refs/heads/main" }, "url must use https:// or http://"],
      [{ url: "not a url", ref: "refs/heads/main" }, "url must be a Git URL"],
      [{ url: "https://example.com/docs.git", ref: "refs/heads/a..b" }, "ref must be a branch"],
      [{ url: "https://example.com/docs.git", ref: "refs/tags/v1" }, "ref must be a branch"],
      ...["../docs", "docs/../../etc", "/srv/docs", "docs//v2", "docs/.git", "C:/docs", "a\\b", "x".repeat(513)].map(
        (repoProjectDirectory): [Record<string, unknown>, string] => [
          { url: "https://example.com/docs.git", ref: "refs/heads/main", repoProjectDirectory },
          "repoProjectDirectory",
        ],
      ),
      [{ url: "https://example.com/docs.git", ref: "refs/heads/main", timestamp: "yesterday" }, "timestamp"],
    ];
    for (const [body, message] of cases) {
      const answer = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(answer.body)).toContain(message);
    }
    const noMessage = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: "https://example.com/docs.git",
      ref: "refs/heads/main",
      commitMessage: " ",
    });
    expect(noMessage.status).toBe(400);
    expect(JSON.stringify(noMessage.body)).toContain("commitMessage");
    expect(await server.database.prisma.gitSync.count({ where: { spaceId: space } })).toBe(0);
    expect(await server.database.prisma.job.count({ where: { payload: { path: ["spaceId"], equals: space } } })).toBe(0);
    // Readers may see the state, not start operations.
    const reader = await server.addMember(A.organizationId, "read");
    expect(
      (await server.rest(reader.token, "POST", `/v1/spaces/${space}/git/import`, { url: "https://example.com/d.git", ref: "main" })).status,
    ).toBe(403);
  });

  it("stores the credentials of the URL sealed, never in clear, and sends them to the remote", async () => {
    const space = await newSpace("Credentials");
    // A remote that records what git sends it, and has no repository.
    const seen: (string | undefined)[] = [];
    const remote = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/docs.git`;
    try {
      const url = base.replace("http://", "http://bot:s3cret-token@");
      expect((await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, { url, ref: "refs/heads/main" })).status).toBe(204);
      expect((await settled(space)).operation.state).toBe("failure");
    } finally {
      await new Promise((resolve) => remote.close(resolve));
    }
    expect(seen[0]).toBe(`Basic ${Buffer.from("bot:s3cret-token").toString("base64")}`);
    const row = await server.database.prisma.gitSync.findUniqueOrThrow({ where: { spaceId: space } });
    expect(row.url).toBe(base);
    expect(JSON.stringify(row)).not.toContain("s3cret-token");
    expect(unseal(server.app.services.gitSync.key, row.credentials!)).toBe("bot:s3cret-token");
    const info = await server.rest(A.token, "GET", `/v1/spaces/${space}/git/info`);
    expect(JSON.stringify(info.body)).not.toContain("s3cret");
  });

  it("reads the space from repoProjectDirectory, the rest of the repository ignored", async () => {
    const space = await newSpace("From a directory");
    const files: Record<string, string> = { "README.md": "The code's readme.\n", "src/app.ts": "export {};\n" };
    for (const [path, text] of Object.entries(REMOTE_FILES)) files[`docs/${path}`] = text;
    const remote = await remoteWith(files);
    const asked = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, {
      url: remote.url,
      ref: "refs/heads/main",
      repoProjectDirectory: "./docs/",
    });
    expect(asked.status).toBe(204);
    expect((await settled(space)).operation).toMatchObject({ state: "success", direction: "import" });
    const [changeRequest] = (await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests`)).body.items;
    const content = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests/${changeRequest.id}/content`);
    expect(content.body.pages.map((page: { title: string }) => page.title)).toEqual(["Welcome", "Setup"]);
    const setup = await server.rest(
      A.token,
      "GET",
      `/v1/spaces/${space}/change-requests/${changeRequest.id}/content/path/setup?format=markdown`,
    );
    expect(setup.body.markdown).toBe(REMOTE_FILES["setup/README.md"]);
    // A directory the branch does not have fails the operation naming it, and makes nothing.
    const other = await newSpace("Missing directory");
    await server.rest(A.token, "POST", `/v1/spaces/${other}/git/import`, {
      url: remote.url,
      ref: "refs/heads/main",
      repoProjectDirectory: "guide",
    });
    const info = await settled(other);
    expect(info.operation.state).toBe("failure");
    expect(info.operation.error).toBe('repoProjectDirectory "guide" is not a directory of the remote branch');
    expect(await server.database.prisma.changeRequest.count({ where: { spaceId: other } })).toBe(0);
  });

  it("runs operations in the order of their events: an older timestamp is refused", async () => {
    const space = await newSpace("Ordered");
    const remote = await remoteWith(REMOTE_FILES);
    const ask = (timestamp: string) =>
      server.rest(A.token, "POST", `/v1/spaces/${space}/git/import`, { url: remote.url, ref: "refs/heads/main", timestamp });
    expect((await ask("2026-11-28T10:00:00.000Z")).status).toBe(204);
    await settled(space);
    const older = await ask("2026-11-28T09:00:00.000Z");
    expect(older.status).toBe(409);
    expect(JSON.stringify(older.body)).toContain("older than the last synchronized event");
  });
});

describe("Git Sync export", { timeout: 180_000 }, () => {
  it("pushes the space's head as one commit on top of the remote branch, with the message asked for", async () => {
    const space = await newSpace("Exported");
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "Overview", markdown: '{% hint style="success" %}\nExported.\n{% endhint %}\n' },
    });
    const remote = await remoteWith({ "old.md": "Before the export.\n" });
    const tip = (await git(remote.bare, ["rev-parse", "main"])).trim();
    const asked = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: remote.url,
      ref: "refs/heads/main",
      commitMessage: "Docs exported from the service",
    });
    expect(asked.status).toBe(204);
    expect((await settled(space)).operation).toMatchObject({ state: "success", direction: "export" });
    expect((await git(remote.bare, ["log", "-1", "--format=%P|%s|%an", "main"])).trim()).toBe(
      `${tip}|Docs exported from the service|${(await server.database.prisma.user.findUniqueOrThrow({ where: { id: A.userId } })).displayName}`,
    );
    expect((await git(remote.bare, ["ls-tree", "-r", "--name-only", "main"])).trim().split("\n")).toEqual([
      ".gitbook.yaml",
      "SUMMARY.md",
      "overview.md",
    ]);
    expect(await git(remote.bare, ["show", "main:overview.md"])).toBe('{% hint style="success" %}\nExported.\n{% endhint %}\n');
    // Nothing changed since: exporting again adds no commit.
    const exported = (await git(remote.bare, ["rev-parse", "main"])).trim();
    await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: remote.url,
      ref: "refs/heads/main",
      commitMessage: "Again",
    });
    expect((await settled(space)).operation.state).toBe("success");
    expect((await git(remote.bare, ["rev-parse", "main"])).trim()).toBe(exported);
    // A branch the remote does not have yet starts with the exported commit.
    await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: remote.url,
      ref: "refs/heads/docs",
      commitMessage: "First",
    });
    expect((await settled(space)).operation.state).toBe("success");
    expect((await git(remote.bare, ["log", "--format=%s", "docs"])).trim()).toBe("First");
    // The round trip: importing what was exported gives the same page Markdown.
    const back = await newSpace("Back");
    await server.rest(A.token, "POST", `/v1/spaces/${back}/git/import`, { url: remote.url, ref: "refs/heads/docs" });
    expect((await settled(back)).operation.state).toBe("success");
    const [changeRequest] = (await server.rest(A.token, "GET", `/v1/spaces/${back}/change-requests`)).body.items;
    const page = await server.rest(
      A.token,
      "GET",
      `/v1/spaces/${back}/change-requests/${changeRequest.id}/content/path/overview?format=markdown`,
    );
    expect(page.body.markdown).toBe('{% hint style="success" %}\nExported.\n{% endhint %}\n');
  });
});

describe("Git Sync export after the remote moved", { timeout: 180_000 }, () => {
  it("refuses to replace commits made on the remote since the last sync, naming their files; force replaces them", async () => {
    const space = await newSpace("Remote moved");
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "Overview", markdown: "From the space.\n" },
    });
    const remote = await remoteWith({ "old.md": "Before.\n" });
    const exportNow = (force = false) =>
      server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
        url: remote.url,
        ref: "refs/heads/main",
        commitMessage: "Sync",
        force,
      });
    await exportNow();
    expect((await settled(space)).operation.state).toBe("success");
    // Someone edits the exported page on the remote.
    await git(remote.checkout, ["pull", "-q", remote.bare, "main"]);
    await writeFile(join(remote.checkout, "overview.md"), "Edited in Git.\n");
    await git(remote.checkout, ["commit", "-q", "-am", "Edit in Git"]);
    await git(remote.checkout, ["push", "-q", remote.bare, "HEAD:refs/heads/main"]);
    const edited = (await git(remote.bare, ["rev-parse", "main"])).trim();
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "Second", markdown: "Another page.\n" },
    });
    await exportNow();
    const info = await settled(space);
    expect(info.operation.state).toBe("failure");
    expect(info.operation.error).toBe(
      "The remote branch refs/heads/main changed since the last sync (overview.md): import first, or export with force",
    );
    expect((await git(remote.bare, ["rev-parse", "main"])).trim()).toBe(edited);
    await exportNow(true);
    expect((await settled(space)).operation.state).toBe("success");
    expect(await git(remote.bare, ["show", "main:overview.md"])).toBe("From the space.\n");
  });
});

describe("Git Sync export into repoProjectDirectory", { timeout: 180_000 }, () => {
  it("writes the space under the directory and leaves the rest of the remote's tree as it was", async () => {
    const space = await newSpace("Into a directory");
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "Overview", markdown: "Version two.\n" },
    });
    const remote = await remoteWith({
      "README.md": "The code's readme.\n",
      "src/app.ts": "export {};\n",
      "docs/v1/intro.md": "Version one.\n",
      "docs/v2/stale.md": "Replaced by the export.\n",
    });
    const tip = (await git(remote.bare, ["rev-parse", "main"])).trim();
    const asked = await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: remote.url,
      ref: "refs/heads/main",
      commitMessage: "Docs v2",
      repoProjectDirectory: "docs/v2",
    });
    expect(asked.status).toBe(204);
    expect((await settled(space)).operation).toMatchObject({ state: "success", direction: "export" });
    expect((await git(remote.bare, ["log", "-1", "--format=%P|%s", "main"])).trim()).toBe(`${tip}|Docs v2`);
    expect((await git(remote.bare, ["ls-tree", "-r", "--name-only", "main"])).trim().split("\n")).toEqual([
      "README.md",
      "docs/v1/intro.md",
      "docs/v2/.gitbook.yaml",
      "docs/v2/SUMMARY.md",
      "docs/v2/overview.md",
      "src/app.ts",
    ]);
    expect(await git(remote.bare, ["show", "main:docs/v2/overview.md"])).toBe("Version two.\n");
    // Unchanged since: no new commit; and importing the directory back gives the page.
    await server.rest(A.token, "POST", `/v1/spaces/${space}/git/export`, {
      url: remote.url,
      ref: "refs/heads/main",
      commitMessage: "Again",
      repoProjectDirectory: "docs/v2",
    });
    expect((await settled(space)).operation.state).toBe("success");
    expect((await git(remote.bare, ["rev-list", "--count", "main"])).trim()).toBe("2");
  });
});

describe("Git Sync bounds and policy", { timeout: 180_000 }, () => {
  let stalled: Server;
  let strict: TestServer | undefined;
  afterAll(async () => {
    stalled?.closeAllConnections();
    await new Promise((resolve) => stalled?.close(resolve));
    await strict?.close();
  });

  it("refuses loopback and file remotes when private hosts are not allowed", async () => {
    strict = await startTestServer({ importAllowPrivateHosts: false });
    const org = await strict.bootstrap("Strict");
    const space = (
      await graphqlData(strict, org.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: org.organizationId, title: "Strict" },
      })
    ).createSpace.space.id;
    const file = await strict.rest(org.token, "POST", `/v1/spaces/${space}/git/import`, { url: `file://${work}/x.git`, ref: "main" });
    expect(file.status).toBe(400);
    expect(JSON.stringify(file.body)).toContain("url must use https:// or http://");
    for (const host of ["127.0.0.1:9", "[::1]:9", "localhost:9", "169.254.169.254"]) {
      expect(
        (await strict.rest(org.token, "POST", `/v1/spaces/${space}/git/import`, { url: `http://${host}/docs.git`, ref: "main" })).status,
      ).toBe(204);
      const info = await settled(space, strict, org.token);
      expect(info.operation.state, host).toBe("failure");
      expect(info.operation.error, host).toContain("non-public address");
    }
  });

  it("stops a remote that does not answer at the deadline, while other requests are answered", async () => {
    // A remote that accepts the connection and never answers.
    stalled = createServer(() => {});
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    const port = (stalled.address() as AddressInfo).port;
    const bounded = await startTestServer({ git: { timeoutMs: 1500 }, gitSyncKey: "another test key, thirty-two characters long" });
    try {
      const org = await bounded.bootstrap("Bounded");
      const space = (
        await graphqlData(bounded, org.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
          input: { organization: org.organizationId, title: "Bounded" },
        })
      ).createSpace.space.id;
      const result = await withCanary(
        `${bounded.url}/v1/user`,
        { authorization: `Bearer ${org.token}` },
        async () => {
          const asked = await bounded.rest(org.token, "POST", `/v1/spaces/${space}/git/import`, {
            url: `http://127.0.0.1:${port}/docs.git`,
            ref: "refs/heads/main",
          });
          expect(asked.status).toBe(204);
          return settled(space, bounded, org.token);
        },
        20,
      );
      expect(result.result.operation.state).toBe("timeout");
      expect(result.result.operation.error).toContain("took longer than 1500 ms");
      expect(result.latencies.length).toBeGreaterThan(3);
      expect(result.max).toBeLessThan(1000);
    } finally {
      await bounded.close();
    }
  });
});
