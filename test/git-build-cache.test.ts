// Building a space's repository reads each content once per build (issue 32, clone speed): a page
// unchanged from one revision to the next is not read again from the database, and the history
// built with the cache is the same commits, byte for byte, as without it (and with a cache too
// small to hold the space, which must evict and read again).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_GIT_LIMITS, GitRepositories } from "../src/core/git/repository.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let work: string;
let space: string;
const PAGES = 30;
const EDITS = 10;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "git-build-cache-"));
  server = await startTestServer();
  const org = await server.bootstrap("Build cache");
  const gql = (query: string, variables: Record<string, unknown>) => graphqlData(server, org.token, query, variables);
  space = (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: org.organizationId, title: "Cached" },
    })
  ).createSpace.space.id;
  const EDIT = `mutation($input: EditContentInput!) { editContent(input: $input) { createdPages { id } } }`;
  const created = await gql(EDIT, {
    input: {
      space,
      edits: Array.from({ length: PAGES }, (_, n) => ({
        createPage: { title: `Page ${n}`, markdown: `# Page ${n}\n\n${"Text. ".repeat(50)}\n` },
      })),
    },
  });
  const ids = created.editContent.createdPages.map((page: { id: string }) => page.id);
  // Ten more revisions, each changing one page.
  for (let edit = 0; edit < EDITS; edit++) {
    await gql(EDIT, { input: { space, edits: [{ updatePage: { page: ids[edit], markdown: `Revised ${edit}.\n` } }] } });
  }
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const repositories = (name: string, buildCacheBytes: number) =>
  new GitRepositories(server.database.prisma, { ...DEFAULT_GIT_LIMITS, dataDir: join(work, name), buildCacheBytes });

describe("building a repository", { timeout: 120_000 }, () => {
  it("reads each page's content once across the revisions, and builds the same commits as without the cache", async () => {
    const revisions = await server.database.prisma.revision.count({ where: { spaceId: space } });
    expect(revisions).toBeGreaterThanOrEqual(EDITS + 2);

    const uncached = repositories("uncached", 0);
    const plain = await uncached.sync(space);
    const cachedRepositories = repositories("cached", DEFAULT_GIT_LIMITS.buildCacheBytes!);
    const cached = await cachedRepositories.sync(space);

    // Same history, commit for commit (commit ids hash the trees, blobs, authors, dates and messages).
    expect(cached.commits.size).toBe(revisions);
    expect(new Map(cached.commits)).toEqual(new Map(plain.commits));
    expect(cached.branches.get("main")).toBe(plain.branches.get("main"));

    // Without the cache every revision reads every page again: at least 30 pages × 11 revisions.
    expect(uncached.reads.blobs).toBeGreaterThanOrEqual(PAGES * (EDITS + 1));
    // With it, each content once: the 30 pages, the 10 revised bodies, and what the new space held.
    expect(cachedRepositories.reads.blobs).toBeLessThanOrEqual(PAGES + EDITS + 2);
    expect(cachedRepositories.reads.revisions).toBe(revisions);
  });

  it("a cache too small for the space evicts and reads again, and still builds the same commits", async () => {
    const reference = await repositories("reference", 0).sync(space);
    const small = repositories("small", 2048);
    const state = await small.sync(space);
    expect(new Map(state.commits)).toEqual(new Map(reference.commits));
    expect(small.reads.blobs).toBeGreaterThan(PAGES + EDITS + 2);
  });

  it("a second build adds nothing and reads nothing: the repository is kept", async () => {
    const kept = repositories("kept", DEFAULT_GIT_LIMITS.buildCacheBytes!);
    const first = await kept.sync(space);
    const reads = { ...kept.reads };
    const second = await kept.sync(space);
    expect(new Map(second.commits)).toEqual(new Map(first.commits));
    expect(kept.reads).toEqual(reads);
  });
});
