// The demo space's sample content, written through the same core operations as the API (one
// revision per step, as a user would make them): pages with headings, a GFM table, links between
// pages and an image, a reusable content, a change request with its own edit, and a comment with
// a reply; and a page with every block of GitBook's Markdown (blocks-sample.ts), which the
// demo's published site shows. So that on a first start every read route, search and a
// published site have something to show.
import { deflateSync } from "node:zlib";
import { createChangeRequest, updateChangeRequest } from "../change-requests/index.ts";
import { postComment, postReply } from "../comments/index.ts";
import type { CoreContext } from "../context.ts";
import { uploadFiles } from "../content/files.ts";
import { editContent } from "../content/index.ts";
import type { ContentEdit } from "../content/tree.ts";
import { newId } from "../ids.ts";
import { blocksMarkdown } from "./blocks-sample.ts";

export interface SampleContent {
  pageIds: { welcome: string; quickstart: string; reference: string; api: string; blocks: string };
  fileId: string;
  reusableContentId: string;
  changeRequestId: string;
  commentId: string;
}

const page = (id: string, title: string, slug: string, body: string, parent: string | null = null): ContentEdit => ({
  op: "createPage",
  id,
  kind: "document",
  fields: { title, slug },
  body,
  position: { parent },
});

export async function seedSampleContent(ctx: CoreContext, spaceId: string): Promise<SampleContent> {
  const target = { spaceId };
  const { files } = await uploadFiles(ctx, {
    target,
    uploads: [{ name: "architecture.png", contentType: "image/png", bytes: architecturePng() }],
    message: "Add the architecture diagram",
  });
  const fileId = files[0].id;

  const ids = { welcome: newId("Page"), quickstart: newId("Page"), reference: newId("Page"), api: newId("Page"), blocks: newId("Page") };
  const reusableContentId = newId("ReusableContent");
  await editContent(ctx, {
    target,
    message: "Write the getting-started guide",
    edits: [
      page(ids.welcome, "Welcome", "welcome", welcomeMarkdown(fileId)),
      page(ids.quickstart, "Quickstart", "quickstart", QUICKSTART),
      page(ids.reference, "Reference", "reference", REFERENCE),
      page(ids.api, "API", "api", API, ids.reference),
      page(ids.blocks, "Blocks", "blocks", blocksMarkdown(fileId)),
      {
        op: "createReusableContent",
        id: reusableContentId,
        title: "Support notice",
        body: "> **Need help?** Ask in a comment on any page, or open a change request with your fix.\n",
      },
    ],
  });

  const changeRequest = await createChangeRequest(ctx, spaceId, { subject: "Add a troubleshooting page" });
  await editContent(ctx, {
    target: { spaceId, changeRequest: changeRequest.id },
    message: "Troubleshooting: the first problems people meet",
    edits: [page(newId("Page"), "Troubleshooting", "troubleshooting", TROUBLESHOOTING)],
  });
  // Opened for review (a new change request is a draft), so the default list shows it.
  await updateChangeRequest(ctx, spaceId, changeRequest.id, { status: "open" });

  const base = { spaceId };
  const comment = await postComment(ctx, base, {
    page: ids.quickstart,
    body: "Should the quickstart also show how to import an existing website?",
  });
  await postReply(ctx, base, comment.id, { body: "Yes: the README shows the importContent mutation; a page here would help too." });

  return { pageIds: ids, fileId, reusableContentId, changeRequestId: changeRequest.id, commentId: comment.id };
}

const welcomeMarkdown = (fileId: string) => `# Welcome

This sample space shows what the service stores and serves: pages in a tree, written in
Markdown, with links between them, images, tables and reusable content.

## What is here

- [Quickstart](quickstart): create your first page with GraphQL or REST.
- [API reference](reference/api): the endpoints, in a table.
- A change request, *Add a troubleshooting page*, waiting for review.
- A comment on the quickstart, with a reply.

## How it fits together

![How the service fits together](files/${fileId})

Every edit makes a new **revision** of the space; change requests have their own head revision
and are merged back with a three-way merge.
`;

const QUICKSTART = `# Quickstart

## 1. Get a token

The first start prints one. Later, run \`npm run -s cli -- token --email you@example.com\`.

## 2. Create a page

\`\`\`graphql
mutation {
  createPage(input: { space: "<space id>", title: "Hello", markdown: "# Hello" }) {
    page { id path }
  }
}
\`\`\`

## 3. Read it back

| Surface | Request | Returns |
| --- | --- | --- |
| REST | \`GET /v1/spaces/{spaceId}/content/pages\` | The page tree |
| REST | \`GET /v1/spaces/{spaceId}/search?query=hello\` | Matching pages |
| GraphQL | \`space(id:) { content { pages { title } } }\` | The page tree |

Next: the [API reference](reference/api), or back to the [welcome page](welcome).
`;

const REFERENCE = `# Reference

The reference pages of this space. Start with the [API](reference/api).
`;

const API = `# API

## Endpoints

| Method | Path | What it does |
| --- | --- | --- |
| \`POST\` | \`/graphql\` | GraphQL, with GraphiQL in a browser |
| \`GET\` | \`/v1/orgs\` | Your organizations |
| \`GET\` | \`/v1/spaces/{spaceId}/content\` | A space's content |
| \`GET\` | \`/openapi.json\` | The OpenAPI document of the REST routes |

## Authentication

Send \`Authorization: Bearer <token>\`. See the [quickstart](../quickstart) for how to get one.
`;

const TROUBLESHOOTING = `# Troubleshooting

## The port is in use

Set \`PORT\` to a free port, or stop the other server.

## No token was printed

Only the first start creates the demo organization; see the [quickstart](quickstart).
`;

/** A 96×48 PNG: three blocks (GraphQL, core, database) joined by a bar, drawn pixel by pixel. */
function architecturePng(): Uint8Array {
  const width = 96;
  const height = 48;
  const colors: [number, number, number][] = [
    [225, 0, 152],
    [60, 90, 200],
    [40, 160, 90],
  ];
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3, 255); // filter byte 0, then white pixels
    row[0] = 0;
    for (let x = 0; x < width; x++) {
      const block = Math.floor(x / 32);
      const inBlock = x % 32 >= 4 && x % 32 < 28 && y >= 10 && y < 38;
      const inBar = y >= 22 && y < 26 && x >= 4 && x < 92;
      const color = inBlock ? colors[block] : inBar ? ([120, 120, 120] as const) : null;
      if (color) row.set(color, 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, default compression/filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
