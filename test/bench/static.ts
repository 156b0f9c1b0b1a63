// Test-only: the peer of a published page's repeated view in `npm run bench -- --site`, a static
// file server (`serve-static` on `node:http`, as a team would put the site's exported HTML behind
// one) answering the very bytes the service answered for that page, from a file on disk.
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import serveStatic from "serve-static";

process.on("message", (message: { type: string; html?: string }) => {
  if (message.type === "exit") process.exit(0);
  if (message.type === "usage") return void process.send!({ type: "usage", rss: process.memoryUsage().rss, cpu: process.cpuUsage() });
  if (message.type !== "page") return;
  const root = mkdtempSync(join(tmpdir(), "bench-static-"));
  writeFileSync(join(root, "index.html"), message.html!);
  const serve = serveStatic(root, { index: ["index.html"], maxAge: 0 });
  const server = createServer((req, res) => {
    req.url = "/"; // every path is the one page
    serve(req, res, () => void res.writeHead(404).end());
  });
  server.listen(0, "127.0.0.1", () => process.send!({ type: "ready", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
