// Git Sync installations (issue 32): the published `/git/installations…` operations against
// repositories the operator configured (two local bare repositories, one named as GitHub's, one
// as GitLab's), read with the real `git`: install on a space and on a site, choose a repository
// and a branch, list repositories, branches and read a file; bad input refused naming the field,
// nothing changed; another organization sees nothing; every response has the published shape.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unseal } from "../src/core/git/sync.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
let work: string;
const KEY = "a test key of at least thirty-two characters";

function git(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Remote", "-c", "user.email=remote@example.com", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
  }).toString("utf8");
}

/** A bare repository <account>/<name>.git with README.md and docs/guide.md on main, and a branch `next`. */
async function bareRepository(account: string, name: string): Promise<{ url: string; readmeSha: string }> {
  const root = join(work, account);
  const checkout = join(work, `${account}-${name}-checkout`);
  git(work, ["init", "-q", checkout]);
  await writeFile(join(checkout, "README.md"), "# Hello\n");
  await mkdir(join(checkout, "docs"), { recursive: true });
  await writeFile(join(checkout, "docs", "guide.md"), "A guide.\n");
  git(checkout, ["add", "-A"]);
  git(checkout, ["commit", "-q", "-m", "First"]);
  git(work, ["init", "-q", "--bare", join(root, `${name}.git`)]);
  git(checkout, ["push", "-q", join(root, `${name}.git`), "HEAD:refs/heads/main", "HEAD:refs/heads/next"]);
  return { url: `file://${join(root, `${name}.git`)}`, readmeSha: git(checkout, ["rev-parse", "HEAD:README.md"]).trim() };
}

let github: { url: string; readmeSha: string };

async function rest(token: string, method: string, path: string, body?: unknown) {
  const response = await server.rest(token, method, path, body);
  expect(validateResponse(method, path.split("?")[0], response.status, response.body)).toEqual([]);
  return response;
}

async function newSpace(token = A.token, organizationId = A.organizationId): Promise<string> {
  return (await server.rest(token, "POST", `/v1/orgs/${organizationId}/spaces`, { title: "Synced" })).body.id;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "git-sync-installations-"));
  github = await bareRepository("acme", "docs");
  const gitlab = await bareRepository("group", "handbook");
  server = await startTestServer({
    gitSyncKey: KEY,
    gitSyncRepositories: [
      // The path names the repository as the provider would (account/name).
      { id: 101, provider: "github", url: github.url },
      { id: 202, provider: "gitlab", url: gitlab.url },
      { id: 303, provider: "github", url: "https://deploy:secret@git.example.com/acme/private-notes.git" },
    ],
  });
  A = await server.bootstrap("Git Sync installations");
  B = await server.bootstrap("Other organization");
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("Git Sync installations", { timeout: 120_000 }, () => {
  it("installs on a space (pending), chooses a repository and a branch (active), reads it back, and uninstalls", async () => {
    const spaceId = await newSpace();
    const created = await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "git-sync-installation",
      provider: "github",
      providerConfiguration: {},
      target: { type: "space", spaceId },
      status: "pending",
      createdBy: A.userId,
    });
    const id = created.body.id as string;
    expect(created.body.urls.location).toMatch(new RegExp(`/v1/git/installations/${id}$`));
    // One installation per space.
    const again = await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } });
    expect(again.status).toBe(409);

    const repos = await rest(A.token, "GET", `/v1/git/installations/${id}/github/repos`);
    expect(repos.status).toBe(200);
    const names = repos.body.items.map((item: { fullName: string }) => item.fullName);
    expect(repos.body.items.map((item: { id: number }) => item.id)).toEqual([101, 303]);
    expect(names).toEqual(["acme/docs", "acme/private-notes"]);
    // Credentials of the configured URL never show.
    expect(JSON.stringify(repos.body)).not.toContain("secret");

    const patched = await rest(A.token, "PATCH", `/v1/git/installations/${id}`, {
      provider: "github",
      providerConfiguration: { repositoryId: 101, branch: "refs/heads/main" },
      commitMessageTemplate: "Docs: {{ message }}",
      priority: "gitbook",
      agentInstructions: ["agents"],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      status: "active",
      providerConfiguration: { repositoryId: 101, branch: "refs/heads/main" },
      commitMessageTemplate: "Docs: {{ message }}",
      priority: "gitbook",
      agentInstructions: ["agents"],
      repositoryConnection: { object: "git-repository-connection", provider: "github", repositoryId: "101", authState: "active" },
      repositoryRef: { object: "git-repository-ref", name: "refs/heads/main", type: "branch" },
    });
    const read = await rest(A.token, "GET", `/v1/git/installations/${id}`);
    expect(read.body).toEqual(patched.body);

    const deleted = await server.rest(A.token, "DELETE", `/v1/git/installations/${id}`);
    expect(deleted.status).toBe(205);
    expect((await rest(A.token, "GET", `/v1/git/installations/${id}`)).status).toBe(404);
  });

  it("lists the branches of a repository and reads a file, with the real git", async () => {
    const spaceId = await newSpace();
    const id = (await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } })).body.id;
    const base = `/v1/git/installations/${id}/github/repos/acme/docs`;
    const branches = await rest(A.token, "GET", `${base}/branches`);
    expect(branches.status, JSON.stringify(branches.body)).toBe(200);
    expect(branches.body.items).toEqual([
      { name: "main", ref: "refs/heads/main" },
      { name: "next", ref: "refs/heads/next" },
    ]);
    const fileBase = `${base}/file`;
    const file = await rest(A.token, "GET", `${fileBase}?path=README.md&ref=refs/heads/next`);
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    expect(file.body).toEqual({ name: "README.md", path: "README.md", sha: github.readmeSha, size: 8 });
    const nested = await rest(A.token, "GET", `${fileBase}?path=docs/guide.md&ref=main`);
    expect(nested.body).toMatchObject({ name: "guide.md", path: "docs/guide.md", size: 9 });
    // A directory, a missing file, a missing branch: 404 naming it.
    expect((await rest(A.token, "GET", `${fileBase}?path=docs&ref=main`)).status).toBe(404);
    const missing = await rest(A.token, "GET", `${fileBase}?path=nope.md&ref=main`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain("nope.md");
    expect((await rest(A.token, "GET", `${fileBase}?path=README.md&ref=refs/heads/gone`)).status).toBe(404);
    // A path that escapes the repository, a ref that is not a branch: 400 naming the field.
    const escape = await rest(A.token, "GET", `${fileBase}?path=../../etc/passwd&ref=main`);
    expect(escape.status).toBe(400);
    expect(escape.body.error.message).toContain("path");
    const badRef = await rest(A.token, "GET", `${fileBase}?path=README.md&ref=HEAD~1`);
    expect(badRef.status).toBe(400);
    expect(badRef.body.error.message).toContain("ref");
    // A repository that is not configured: 404.
    expect((await rest(A.token, "GET", `/v1/git/installations/${id}/github/repos/someone/else/branches`)).status).toBe(404);
  });

  it("GitLab: projects by id, the access token stored sealed and never shown", async () => {
    const spaceId = await newSpace();
    const id = (await rest(A.token, "POST", "/v1/git/installations", { provider: "gitlab", target: { type: "space", spaceId } })).body.id;
    const projects = await rest(A.token, "GET", `/v1/git/installations/${id}/gitlab/projects`);
    expect(projects.body.items.map((item: { id: number }) => item.id)).toEqual([202]);
    // A GitHub route on a GitLab installation: 404.
    expect((await rest(A.token, "GET", `/v1/git/installations/${id}/github/repos`)).status).toBe(404);
    const patched = await rest(A.token, "PATCH", `/v1/git/installations/${id}`, {
      provider: "gitlab",
      providerConfiguration: { projectId: 202, branch: "refs/heads/main", accessToken: "glpat-secret-token" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.providerConfiguration).toEqual({ projectId: 202, branch: "refs/heads/main" });
    expect(JSON.stringify(patched.body)).not.toContain("glpat");
    const row = await server.database.prisma.gitSyncInstallation.findUniqueOrThrow({ where: { id } });
    expect(row.accessToken).not.toContain("glpat");
    expect(unseal(createHash("sha256").update(KEY, "utf8").digest(), row.accessToken!)).toBe("glpat-secret-token");
    const branches = await rest(A.token, "GET", `/v1/git/installations/${id}/gitlab/projects/202/branches`);
    expect(branches.body.items.map((b: { name: string }) => b.name)).toEqual(["main", "next"]);
    const file = await rest(A.token, "GET", `/v1/git/installations/${id}/gitlab/projects/202/file?path=README.md&ref=main`);
    expect(file.body).toMatchObject({ name: "README.md", size: 8 });
    expect((await rest(A.token, "GET", `/v1/git/installations/${id}/gitlab/projects/abc/branches`)).status).toBe(400);
    expect((await rest(A.token, "GET", `/v1/git/installations/${id}/gitlab/projects/999/branches`)).status).toBe(404);
  });

  it("a site's installation manages the installations of its spaces; the site lists both", async () => {
    const spaceId = await newSpace();
    const site = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites`, { title: "Synced site", spaces: [spaceId] });
    expect(site.status).toBe(201);
    const siteId = site.body.id as string;
    // Before the site has one, a space cannot be installed under it.
    const early = await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId, siteId } });
    expect(early.status).toBe(409);
    const parent = await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "site", siteId } });
    expect(parent.status).toBe(201);
    await rest(A.token, "PATCH", `/v1/git/installations/${parent.body.id}`, {
      provider: "github",
      providerConfiguration: { repositoryId: 101, branch: "refs/heads/main" },
    });
    const child = await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId, siteId } });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({
      parentInstallationId: parent.body.id,
      status: "active",
      target: { type: "space", spaceId, siteId },
      providerConfiguration: { repositoryId: 101, branch: "refs/heads/main" },
    });
    // Inherited: the child cannot set them.
    const inherited = await rest(A.token, "PATCH", `/v1/git/installations/${child.body.id}`, {
      provider: "github",
      previewExternalBranches: true,
    });
    expect(inherited.status).toBe(400);
    expect(inherited.body.error.message).toContain("previewExternalBranches");
    const listed = await rest(A.token, "GET", `/v1/orgs/${A.organizationId}/sites/${siteId}/spaces/git/installations`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([parent.body.id, child.body.id]);
    // Removing the site's removes the spaces' it managed.
    expect((await server.rest(A.token, "DELETE", `/v1/git/installations/${parent.body.id}`)).status).toBe(205);
    expect((await rest(A.token, "GET", `/v1/git/installations/${child.body.id}`)).status).toBe(404);
  });

  it("refuses bad input naming the field, and changes nothing", async () => {
    const spaceId = await newSpace();
    const bad = async (body: unknown, field: string) => {
      const response = await rest(A.token, "POST", "/v1/git/installations", body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    };
    await bad({ provider: "bitbucket", target: { type: "space", spaceId } }, "provider");
    await bad({ provider: "github", target: { type: "team", spaceId } }, "target.type");
    await bad({ provider: "github", target: { type: "space" } }, "target.spaceId");
    await bad({ provider: "github", target: "space" }, "target");
    expect(await server.database.prisma.gitSyncInstallation.count({ where: { spaceId } })).toBe(0);

    const id = (await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } })).body.id;
    const before = await server.database.prisma.gitSyncInstallation.findUniqueOrThrow({ where: { id } });
    const badPatch = async (body: Record<string, unknown>, field: string) => {
      const response = await rest(A.token, "PATCH", `/v1/git/installations/${id}`, { provider: "github", ...body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    };
    await badPatch({ providerConfiguration: { repositoryId: 999 } }, "providerConfiguration.repositoryId");
    await badPatch({ providerConfiguration: { repositoryId: "101" } }, "providerConfiguration.repositoryId");
    await badPatch({ providerConfiguration: { repositoryId: 101, branch: "main" } }, "providerConfiguration.branch");
    await badPatch({ projectDirectory: "docs" }, "projectDirectory");
    await badPatch({ priority: "both" }, "priority");
    await badPatch({ agentInstructions: ["cursor"] }, "agentInstructions");
    await badPatch({ provider: "gitlab" }, "provider");
    await badPatch({ providerConfiguration: { accessToken: "x" } }, "accessToken");
    await badPatch({ childInstallationProjectDirectories: { x: "" } }, "childInstallationProjectDirectories");
    expect(await server.database.prisma.gitSyncInstallation.findUniqueOrThrow({ where: { id } })).toEqual(before);
  });

  it("another organization's admin sees nothing (404), and cannot install on a space it cannot see", async () => {
    const spaceId = await newSpace();
    const id = (await rest(A.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } })).body.id;
    for (const [method, path] of [
      ["GET", `/v1/git/installations/${id}`],
      ["GET", `/v1/git/installations/${id}/github/repos`],
      ["DELETE", `/v1/git/installations/${id}`],
    ] as const) {
      expect((await server.rest(B.token, method, path)).status, path).toBe(404);
    }
    const foreign = await rest(B.token, "POST", "/v1/git/installations", { provider: "github", target: { type: "space", spaceId } });
    expect(foreign.status).toBe(404);
  });
});
