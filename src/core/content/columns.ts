// A revision's content as stored: its JSON columns and the hashes of what it holds. Apart from the
// content rules (index.ts) so that the Git layer can read revisions without them.
import { createHash } from "node:crypto";
import type { Prisma, Revision } from "../../generated/prisma/client.ts";
import type { Content, FileEntry, PageNode, ReusableContentEntry } from "./tree.ts";

export const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

/** A revision's content columns, as written: the one place `Content` becomes JSON columns. */
export function contentColumns(content: Content) {
  return {
    pages: content.pages as unknown as Prisma.InputJsonArray,
    files: content.files as unknown as Prisma.InputJsonArray,
    reusableContents: (content.reusableContents ?? []) as unknown as Prisma.InputJsonArray,
    variables: content.variables ?? {},
  };
}

/** A revision's content, as read: the one place its JSON columns become `Content`. */
export function contentOf(revision: Revision): Content {
  return {
    pages: revision.pages as unknown as PageNode[],
    files: revision.files as unknown as FileEntry[],
    reusableContents: (revision.reusableContents ?? []) as unknown as ReusableContentEntry[],
    variables: (revision.variables ?? {}) as unknown as Record<string, string>,
  };
}
