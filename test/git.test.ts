// A space as a Git repository, with the real `git` client against the service on loopback: clone
// with history in GitBook's layout, push to a branch (a change request), push to main (merged with
// the API's merge; a conflicting concurrent edit refuses the push naming the page), refusals of
// force pushes, pushes without the role and trees that do not fit the layout (naming the file,
// nothing merged), a byte-identical round trip of every GitBook block, and a clone that leaves
// other requests answered.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBlocks, toMarkdown } from "../src/core/content/blocks/index.ts";
import { contentOf } from "../src/core/content/index.ts";
import { flatten } from "../src/core/content/tree.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { withCanary } from "./support/canary.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let reader: { userId: string; token: string };
let space: string;
let work: string;
const pages: Record<string, string> = {};

const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

function git(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "git",
      [
        "-c",
        "user.name=Git Tester",
        "-c",
        "user.email=tester@example.com",
        "-c",
        "init.defaultBranch=main",
        "-c",
        "protocol.version=0",
        ...args,
      ],
      { cwd, env: { PATH: process.env.PATH, HOME: work, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function ok(cwd: string, args: string[]) {
  const result = await git(cwd, args);
  if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

const remote = (token: string, id = space, base = server.url) => `${base.replace("http://", `http://git:${token}@`)}/git/${id}.git`;

async function clone(token = A.token, id = space, base = server.url): Promise<string> {
  const dir = await mkdtemp(join(work, "clone-"));
  await ok(work, ["clone", "-q", remote(token, id, base), dir]);
  return dir;
}

async function createPage(input: Record<string, unknown>): Promise<string> {
  return (await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, { input: { space, ...input } }))
    .createPage.page.id;
}

async function updatePage(input: Record<string, unknown>) {
  await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, { input: { space, ...input } });
}

/** The space's head content, read from the database. */
async function head(id = space) {
  const row = await server.database.prisma.space.findUniqueOrThrow({ where: { id } });
  const revision = await server.database.prisma.revision.findUniqueOrThrow({ where: { id: row.revisionId } });
  const content = contentOf(revision);
  const markdown = async (pageId: string) => {
    const page = flatten(content.pages).find((located) => located.page.id === pageId)!.page;
    const blob = await server.database.prisma.blob.findUniqueOrThrow({ where: { hash: page.body! } });
    return Buffer.from(blob.data).toString("utf8");
  };
  return { revisionId: row.revisionId, content, markdown };
}

async function commitAll(dir: string, message: string) {
  await ok(dir, ["add", "-A"]);
  await ok(dir, ["commit", "-q", "-m", message]);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "git-test-"));
  server = await startTestServer();
  A = await server.bootstrap("Git A");
  reader = await server.addMember(A.organizationId, "read");
  space = (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: A.organizationId, title: "Handbook" },
    })
  ).createSpace.space.id;
  pages.start = await createPage({ title: "Getting started", markdown: "Welcome.\n", description: "Read me first" });
  pages.install = await createPage({ title: "Installation", markdown: "Run the installer.\n", parent: pages.start });
  pages.guides = await createPage({ title: "Guides", kind: "GROUP" });
  pages.deploy = await createPage({ title: "Deploy", markdown: "Ship it.\n", parent: pages.guides });
  await updatePage({ page: pages.deploy, markdown: "Ship it, then check it.\n" });
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("git clone", { timeout: 180_000 }, () => {
  it("gives one commit per revision, with the revision's author and date, in GitBook's layout", async () => {
    const dir = await clone();
    const revisions = await server.database.prisma.revision.count({ where: { spaceId: space } });
    const log = (await ok(dir, ["log", "--format=%an <%ae> %at|%s"])).trim().split("\n");
    expect(log).toHaveLength(revisions);
    const user = await server.database.prisma.user.findUniqueOrThrow({ where: { id: A.userId } });
    expect(log[0]).toBe(
      `${user.displayName} <${user.email}> ${Math.floor(server.clock.now().getTime() / 1000)}|Revision ${(await head()).revisionId}`,
    );
    expect(await readFile(join(dir, "SUMMARY.md"), "utf8")).toBe(
      [
        "# Table of contents",
        "",
        "* [Getting started](getting-started/README.md)",
        "  * [Installation](getting-started/installation.md)",
        "",
        "## Guides",
        "",
        "* [Deploy](deploy.md)",
        "",
      ].join("\n"),
    );
    expect(await readFile(join(dir, ".gitbook.yaml"), "utf8")).toBe(
      "root: ./\n\nstructure:\n  readme: getting-started/README.md\n  summary: SUMMARY.md\n\nredirects: {}\n",
    );
    expect(await readFile(join(dir, "getting-started/README.md"), "utf8")).toBe("---\ndescription: Read me first\n---\n\nWelcome.\n");
    expect(await readFile(join(dir, "deploy.md"), "utf8")).toBe("Ship it, then check it.\n");
    // Unchanged content, same commits: a second clone has the same history.
    const again = await clone();
    expect(await ok(again, ["rev-parse", "HEAD"])).toBe(await ok(dir, ["rev-parse", "HEAD"]));
  });

  it("asks for credentials, refuses a bad token and hides other organizations' spaces", async () => {
    const anonymous = await git(work, ["ls-remote", `${server.url}/git/${space}.git`]);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/Authentication failed|could not read Username/);
    const bad = await git(work, ["ls-remote", remote("dps_wrong")]);
    expect(bad.stderr).toMatch(/Authentication failed/);
    const other = await server.bootstrap("Git B");
    const hidden = await git(work, ["ls-remote", remote(other.token)]);
    expect(hidden.stderr).toMatch(/not found|404/);
  });
});

describe("git push", { timeout: 180_000 }, () => {
  it("to a branch opens a change request with the pushed tree; pushing again updates it", async () => {
    const dir = await clone();
    const before = await head();
    await writeFile(join(dir, "deploy.md"), "Ship it carefully.\n");
    await commitAll(dir, "Careful deploys");
    await ok(dir, ["push", "-q", "origin", "HEAD:careful"]);
    const changeRequest = await server.database.prisma.changeRequest.findFirstOrThrow({
      where: { spaceId: space, subject: "Careful deploys" },
    });
    expect(changeRequest.status).toBe("open");
    const revision = await server.database.prisma.revision.findUniqueOrThrow({ where: { id: changeRequest.revisionId } });
    const deploy = flatten(contentOf(revision).pages).find((located) => located.page.id === pages.deploy)!.page;
    const blob = await server.database.prisma.blob.findUniqueOrThrow({ where: { hash: deploy.body! } });
    expect(Buffer.from(blob.data).toString("utf8")).toBe("Ship it carefully.\n");
    // The space did not move.
    expect((await head()).revisionId).toBe(before.revisionId);
    // The branch is there for others, at the pushed commit.
    const heads = await ok(dir, ["ls-remote", "origin"]);
    expect(heads).toContain(`${(await ok(dir, ["rev-parse", "HEAD"])).trim()}\trefs/heads/careful`);
    await writeFile(join(dir, "deploy.md"), "Ship it very carefully.\n");
    await commitAll(dir, "More care");
    await ok(dir, ["push", "-q", "origin", "HEAD:careful"]);
    const updated = await server.database.prisma.changeRequest.findUniqueOrThrow({ where: { id: changeRequest.id } });
    expect(updated.revisionId).not.toBe(changeRequest.revisionId);
    // Force-pushing a rewritten branch is refused.
    await ok(dir, ["commit", "-q", "--amend", "-m", "Rewritten"]);
    const forced = await git(dir, ["push", "--force", "origin", "HEAD:careful"]);
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain("non-fast-forward: force pushes are refused");
  });

  it("to main merges through the change request merge; the clone stays in step", async () => {
    const dir = await clone();
    await writeFile(join(dir, "getting-started/installation.md"), "Run the installer, then restart.\n");
    await commitAll(dir, "Restart after installing");
    await ok(dir, ["push", "-q", "origin", "main"]);
    const after = await head();
    expect(await after.markdown(pages.install)).toBe("Run the installer, then restart.\n");
    const merged = await server.database.prisma.changeRequest.findFirstOrThrow({
      where: { spaceId: space, subject: "Push to main: Restart after installing" },
    });
    expect(merged.status).toBe("merged");
    // The pushed commit is main's commit: a fetch brings nothing new.
    expect((await ok(dir, ["ls-remote", "origin", "refs/heads/main"])).split("\t")[0]).toBe((await ok(dir, ["rev-parse", "HEAD"])).trim());
  });

  it("to main with a conflicting concurrent API edit is refused naming the page, and overwrites nothing", async () => {
    const dir = await clone();
    // A proxy that lets the API edit land between the ref advertisement and the push itself.
    let editBeforePush: (() => Promise<void>) | undefined;
    const target = new URL(server.url);
    const proxy: Server = createServer(async (req, res) => {
      if (req.url?.endsWith("/git-receive-pack") && editBeforePush) {
        const edit = editBeforePush;
        editBeforePush = undefined;
        await edit();
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (response) => {
          res.writeHead(response.statusCode!, response.headers);
          response.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      await ok(dir, ["remote", "set-url", "origin", remote(A.token, space, proxyUrl)]);
      await writeFile(join(dir, "deploy.md"), "Ship it from git.\n");
      await commitAll(dir, "Deploy from git");
      editBeforePush = () => updatePage({ page: pages.deploy, markdown: "Ship it from the editor.\n" });
      const pushed = await git(dir, ["push", "origin", "main"]);
      expect(pushed.code).not.toBe(0);
      expect(pushed.stderr).toContain("[remote rejected] main -> main");
      expect(pushed.stderr).toContain('page "Deploy" (deploy)');
      expect(await (await head()).markdown(pages.deploy)).toBe("Ship it from the editor.\n");
      // A concurrent edit of another page is merged with the push.
      await ok(dir, ["fetch", "-q", "origin"]);
      await ok(dir, ["reset", "-q", "--hard", "origin/main"]);
      await writeFile(join(dir, "deploy.md"), "Ship it, both ways.\n");
      await commitAll(dir, "Both ways");
      editBeforePush = () => updatePage({ page: pages.start, markdown: "Welcome, reader.\n" });
      await ok(dir, ["push", "-q", "origin", "main"]);
      const after = await head();
      expect(await after.markdown(pages.deploy)).toBe("Ship it, both ways.\n");
      expect(await after.markdown(pages.start)).toBe("Welcome, reader.\n");
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("refuses pushes without the role, and non-fast-forward pushes to main", async () => {
    const readerClone = await clone(reader.token);
    await writeFile(join(readerClone, "deploy.md"), "Reader was here.\n");
    await commitAll(readerClone, "Reader edit");
    const denied = await git(readerClone, ["push", "origin", "HEAD:reader"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain("Pushing to this space needs the edit role on it");

    const dir = await clone();
    await ok(dir, ["reset", "-q", "--hard", "HEAD~1"]);
    await writeFile(join(dir, "deploy.md"), "Rewritten history.\n");
    await commitAll(dir, "Rewrite");
    const before = (await head()).revisionId;
    const forced = await git(dir, ["push", "--force", "origin", "main"]);
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toMatch(/non-fast-forward|fetch first/);
    expect((await head()).revisionId).toBe(before);
  });

  const badTrees: [string, (dir: string) => Promise<void>, string][] = [
    ["a file outside the layout", (dir) => writeFile(join(dir, "notes.txt"), "stray\n"), "notes.txt: is outside the layout"],
    [
      "SUMMARY.md naming a missing file",
      async (dir) => writeFile(join(dir, "SUMMARY.md"), `${await readFile(join(dir, "SUMMARY.md"), "utf8")}* [Ghost](ghost.md)\n`),
      'SUMMARY.md: names "ghost.md", which is not in the pushed tree',
    ],
    ["a binary page", (dir) => writeFile(join(dir, "deploy.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])), "deploy.md: is binary"],
    ["a malformed .gitbook.yaml", (dir) => writeFile(join(dir, ".gitbook.yaml"), "root: [unclosed\n"), ".gitbook.yaml: not valid YAML"],
    [
      "a path escaping the repository",
      async (dir) => writeFile(join(dir, "SUMMARY.md"), `${await readFile(join(dir, "SUMMARY.md"), "utf8")}* [Out](../../etc/passwd.md)\n`),
      'SUMMARY.md: "../../etc/passwd.md" escapes the repository',
    ],
    ["a page not in SUMMARY.md", (dir) => writeFile(join(dir, "orphan.md"), "Alone.\n"), "orphan.md: is not listed in SUMMARY.md"],
  ];
  for (const [what, spoil, message] of badTrees) {
    it(`refuses ${what}, naming the file, and merges nothing`, async () => {
      const dir = await clone();
      await spoil(dir);
      await commitAll(dir, `Bad: ${what}`);
      const before = (await head()).revisionId;
      const count = await server.database.prisma.changeRequest.count({ where: { spaceId: space } });
      for (const ref of ["main", `bad-${what.replace(/[^a-z]+/g, "-")}`]) {
        const pushed = await git(dir, ["push", "origin", `HEAD:${ref}`]);
        expect(pushed.code).not.toBe(0);
        expect(pushed.stderr).toContain(message);
      }
      expect((await head()).revisionId).toBe(before);
      expect(await server.database.prisma.changeRequest.count({ where: { spaceId: space } })).toBe(count);
    });
  }
});

/** One page per GitBook block, as GitBook writes them. */
const BLOCKS: Record<string, string> = {
  "hints.md": `---
description: Hints of every style
icon: lightbulb
---

{% hint style="info" %}
An **info** hint.
{% endhint %}

{% hint style="warning" %}
Careful.
{% endhint %}
`,
  "tabs.md": `{% tabs %}
{% tab title="npm" %}
\`\`\`bash
npm install thing
\`\`\`
{% endtab %}

{% tab title="yarn" %}
\`\`\`bash
yarn add thing
\`\`\`
{% endtab %}
{% endtabs %}
`,
  "code.md": `{% code title="index.js" lineNumbers="true" %}
\`\`\`javascript
console.log("hi");
\`\`\`
{% endcode %}
`,
  "expandable.md": `<details>

<summary>More details</summary>

Hidden text.

</details>
`,
  "embeds.md": `{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}
A caption
{% endembed %}

{% content-ref url="hints.md" %}
[hints.md](hints.md)
{% endcontent-ref %}

{% file src=".gitbook/assets/guide.pdf" %}
The guide
{% endfile %}
`,
  "api.md": `{% swagger method="get" path="/pets" baseUrl="https://api.example.com" summary="List pets" %}
{% swagger-description %}
All the pets.
{% endswagger-description %}
{% endswagger %}

{% openapi src="https://petstore3.swagger.io/api/v3/openapi.json" path="/pet" method="post" %}
[openapi.json](https://petstore3.swagger.io/api/v3/openapi.json)
{% endopenapi %}
`,
  "cards.md": `---
layout:
  title:
    visible: true
  description:
    visible: false
---

<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Hints</strong></td><td><a href="hints.md">hints.md</a></td></tr></tbody></table>
`,
  "math.md": `$$
f(x) = x * e^{2 pi i \\xi x}
$$

Inline $$a^2 + b^2 = c^2$$ too.
`,
  "own-matter.md": `---
description: A front matter with a key this service does not hold
custom: kept
---

# Kept as it is
`,
};

/** The blocks the model reads in each stored page (its body, without a front matter that became page fields). */
const BLOCK_TYPES: Record<string, string[]> = {
  "hints.md": ["hint", "hint"],
  "tabs.md": ["tabs"],
  "code.md": ["code"],
  "expandable.md": ["details"],
  "embeds.md": ["embed", "content-ref", "file"],
  "api.md": ["openapi", "openapi"],
  "cards.md": ["cards"],
  "math.md": ["math"],
  "own-matter.md": ["front-matter"],
};

describe("GitBook Markdown round trip", { timeout: 180_000 }, () => {
  it("a repository holding every block comes back byte-identical after a push and a clone", async () => {
    const id = (
      await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: A.organizationId, title: "Blocks" },
      })
    ).createSpace.space.id;
    const saved = space;
    space = id;
    try {
      await createPage({ title: "Start", markdown: "Start here.\n" });
      const dir = await clone(A.token, id);
      const summary = [
        "# Table of contents",
        "",
        "* [Start](start.md)",
        ...Object.keys(BLOCKS).map((file) => `* [${file.replace(".md", "")}](${file})`),
        "",
      ];
      await writeFile(join(dir, "SUMMARY.md"), summary.join("\n"));
      for (const [file, text] of Object.entries(BLOCKS)) await writeFile(join(dir, file), text);
      await mkdir(join(dir, ".gitbook/assets"), { recursive: true });
      await writeFile(join(dir, ".gitbook/assets/guide.pdf"), Buffer.from("%PDF-1.4 not really\n"));
      await commitAll(dir, "Every block");
      await ok(dir, ["push", "-q", "origin", "main"]);
      const again = await clone(A.token, id);
      for (const [file, text] of Object.entries(BLOCKS)) expect(await readFile(join(again, file), "utf8")).toBe(text);
      expect(await readFile(join(again, "SUMMARY.md"), "utf8")).toBe(summary.join("\n"));
      expect(await readFile(join(again, ".gitbook/assets/guide.pdf"))).toEqual(Buffer.from("%PDF-1.4 not really\n"));
      // The front matter GitBook writes became page fields; the body is the markdown as stored.
      const content = (await head(id)).content;
      const hints = flatten(content.pages).find((located) => located.page.slug === "hints")!.page;
      expect(hints).toMatchObject({ description: "Hints of every style", icon: "lightbulb" });
      const blob = await server.database.prisma.blob.findUniqueOrThrow({ where: { hash: hints.body! } });
      expect(Buffer.from(blob.data).toString("utf8")).toBe(BLOCKS["hints.md"].slice(BLOCKS["hints.md"].indexOf("{% hint")));
      // The block model reads every GitBook block of the stored pages (nothing left as plain
      // Markdown but the text between blocks), and `format=markdown` answers them in this syntax.
      for (const [file, types] of Object.entries(BLOCK_TYPES)) {
        const page = flatten(content.pages).find((located) => located.page.slug === file.replace(".md", ""))!.page;
        const stored = Buffer.from((await server.database.prisma.blob.findUniqueOrThrow({ where: { hash: page.body! } })).data).toString(
          "utf8",
        );
        const blocks = parseBlocks(stored);
        expect(
          blocks.filter((block) => block.type !== "markdown").map((block) => block.type),
          file,
        ).toEqual(types);
        expect(toMarkdown(blocks)).toBe(stored);
        const response = await fetch(`${server.url}/v1/spaces/${id}/content/page/${page.id}?format=markdown`, {
          headers: { authorization: `Bearer ${A.token}` },
        });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { markdown: string }).markdown, file).toBe(stored);
      }
      // A fresh repository build (cache lost) gives the same files.
      await rm(server.app.services.git.gitDir(id), { recursive: true, force: true });
      const rebuilt = await clone(A.token, id);
      for (const [file, text] of Object.entries(BLOCKS)) expect(await readFile(join(rebuilt, file), "utf8")).toBe(text);
    } finally {
      space = saved;
    }
  });
});

describe("bounded", { timeout: 180_000 }, () => {
  it("a clone of a larger space leaves other requests answered", async () => {
    const id = (
      await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: A.organizationId, title: "Large" },
      })
    ).createSpace.space.id;
    const edits = Array.from({ length: 300 }, (_, n) => ({
      createPage: { title: `Page ${n}`, markdown: `# Page ${n}\n\n${"Text. ".repeat(200)}\n` },
    }));
    for (let start = 0; start < edits.length; start += 100) {
      await gql(`mutation($input: EditContentInput!) { editContent(input: $input) { revision { id } } }`, {
        input: { space: id, edits: edits.slice(start, start + 100) },
      });
    }
    const {
      result: dir,
      latencies,
      max,
    } = await withCanary(`${server.url}/v1/user`, { authorization: `Bearer ${A.token}` }, () => clone(A.token, id), 20);
    expect((await readFile(join(dir, "SUMMARY.md"), "utf8")).split("\n").filter((line) => line.startsWith("* ["))).toHaveLength(300);
    expect(latencies.length).toBeGreaterThan(0);
    expect(max).toBeLessThan(2000);
  });

  it("a push over the size limit is refused", async () => {
    const small = await startTestServer({ git: { maxFileBytes: 1024 } });
    try {
      const org = await small.bootstrap("Small");
      const id = (
        await graphqlData(small, org.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
          input: { organization: org.organizationId, title: "Small" },
        })
      ).createSpace.space.id;
      await graphqlData(small, org.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
        input: { space: id, title: "One", markdown: "One.\n" },
      });
      const dir = await clone(org.token, id, small.url);
      await writeFile(join(dir, "one.md"), "x".repeat(4096));
      await commitAll(dir, "Too big");
      const pushed = await git(dir, ["push", "origin", "HEAD:big"]);
      expect(pushed.stderr).toContain("one.md: is 4096 bytes; at most 1024 are allowed");
    } finally {
      await small.close();
    }
  });
});
