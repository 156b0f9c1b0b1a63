// Shared fixtures (Vitest's `test.extend`): a test names what it needs in its arguments and gets
// it made once for its file, closed after the file's last test, instead of each file writing the
// same beforeAll/afterAll pair.
// - `server`: the app over real HTTP on a fresh database (startTestServer's defaults);
// - `admin`: an organization and its admin's API token on that server.
// A file that needs other options or a second organization keeps its own hooks.
import { test as base } from "vitest";
import type { BootstrapResult } from "../../src/core/bootstrap/index.ts";
import { startTestServer, type TestServer } from "./server.ts";

export const test = base
  // Vitest reads a fixture's dependencies from its destructured first argument: none here.
  // biome-ignore lint/correctness/noEmptyPattern: the empty pattern is Vitest's way to say "no dependency"
  .extend("server", { scope: "file" }, async ({}, { onCleanup }): Promise<TestServer> => {
    const server = await startTestServer();
    onCleanup(() => server.close());
    return server;
  })
  .extend("admin", { scope: "file" }, async ({ server }): Promise<BootstrapResult> => server.bootstrap());

export { describe, expect } from "vitest";
