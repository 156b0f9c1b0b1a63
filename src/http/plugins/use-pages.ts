// Pages for people, outside GraphQL and without a token:
//   GET /                 a small landing page linking GraphiQL, the REST reference and health;
//   GET /openapi.json     the OpenAPI 3.1 document of the served REST routes (rest-adapter/openapi.ts);
//   GET /reference        Swagger UI on that document, its assets served from the installed
//                         swagger-ui-dist package (nothing from a CDN), "Authorize" prefilled
//                         with the starter token when there is one.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Plugin } from "graphql-yoga";

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));

const ASSETS: Record<string, { file: string; type: string }> = {
  "/reference/swagger-ui.css": { file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  "/reference/swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "/reference/swagger-ui-standalone-preset.js": { file: "swagger-ui-standalone-preset.js", type: "text/javascript; charset=utf-8" },
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });

function landingPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>One service, two doors onto the same core.</p>
<ul>
<li><a href="/graphql">GraphiQL</a>: explore and run GraphQL (<code>POST /graphql</code>)</li>
<li><a href="/reference">REST reference</a>: every <code>/v1</code> route, with try-it (<a href="/openapi.json">OpenAPI 3.1</a>)</li>
<li><a href="/health">Health</a> (the process) and <a href="/ready">readiness</a> (the database)</li>
<li><a href="/metrics">Metrics</a> (Prometheus)</li>
</ul>
<p>Calls need a token: <code>Authorization: Bearer dps_…</code>. The first start prints one; later, create one with the
<code>createApiToken</code> mutation or <code>npm run -s cli -- token --email &lt;email&gt;</code>.</p>
</body>
</html>`;
}

function referencePage(token: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>REST reference</title>
<link rel="stylesheet" href="/reference/swagger-ui.css">
${token ? `<meta name="starter-token" content="${escapeHtml(token)}">` : ""}
</head>
<body>
<div id="swagger-ui"></div>
<script src="/reference/swagger-ui-bundle.js"></script>
<script src="/reference/init.js"></script>
</body>
</html>`;
}

// A file of its own rather than an inline script, so a Content-Security-Policy without
// 'unsafe-inline' still lets it run.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  onComplete: function () {
    var meta = document.querySelector('meta[name="starter-token"]');
    if (meta) window.ui.preauthorizeApiKey("bearer", meta.content);
  },
});
`;

export function usePages(options: { title: string; openApi: () => unknown; starterToken: () => string | undefined }): Plugin {
  let openApiText: string | undefined;
  const assetCache = new Map<string, string>();
  return {
    onRequest({ request, url, endResponse }) {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      const path = url.pathname;
      if (path === "/") return endResponse(html(landingPage(options.title)));
      if (path === "/openapi.json") {
        openApiText ??= JSON.stringify(options.openApi());
        return endResponse(new Response(openApiText, { headers: { "content-type": "application/json" } }));
      }
      if (path === "/reference" || path === "/reference/") return endResponse(html(referencePage(options.starterToken())));
      if (path === "/reference/init.js") {
        return endResponse(new Response(INIT_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8" } }));
      }
      const asset = ASSETS[path];
      if (asset) {
        let text = assetCache.get(path);
        if (text === undefined) {
          text = readFileSync(join(SWAGGER_DIR, asset.file), "utf8");
          assetCache.set(path, text);
        }
        endResponse(new Response(text, { headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" } }));
      }
    },
  };
}
