// Assertions about a space's revisions, shared by the content test files.
import { expect } from "vitest";
import type { TestServer } from "./server.ts";

/** The head revision id of a space, from the database. */
export const headOf = async (server: TestServer, space: string) =>
  (await server.database.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId;

export const revisionCount = (server: TestServer, space: string) => server.database.prisma.revision.count({ where: { spaceId: space } });

/** What an editing mutation answers: the revision it made and the space's head. */
export interface RevisionPayload {
  revision: { id: string; parents: string[] };
  space: { revision: string };
}

/** Asserts that `run` made exactly one revision, child of the previous head, now the head; returns its payload. */
export async function expectOneRevision<T extends RevisionPayload>(server: TestServer, space: string, run: () => Promise<T>): Promise<T> {
  const before = await headOf(server, space);
  const count = await revisionCount(server, space);
  const payload = await run();
  expect(payload.revision.parents).toEqual([before]);
  expect(payload.revision.id).not.toBe(before);
  expect(payload.space.revision).toBe(payload.revision.id);
  expect(await headOf(server, space)).toBe(payload.revision.id);
  expect(await revisionCount(server, space)).toBe(count + 1);
  return payload;
}
