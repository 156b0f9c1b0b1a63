// What published pages load besides their HTML, served by the service itself (nothing from a
// CDN): the site stylesheet, the small script that enhances a page (theme toggle, copy buttons,
// the outline's current heading), KaTeX's stylesheet and fonts. Every name carries a hash of its
// bytes, so a response may be cached for a year (`immutable`); pages name them relative to their
// site's base (`<base>/~assets/<name>`), which works under /sites/{id} and at custom hostnames.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CodeHighlighter } from "./highlight.ts";
import { SITE_CSS, SITE_JS, THEME_JS } from "./style.ts";

export const ASSETS_PREFIX = "~assets/";
export const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";

export interface Asset {
  name: string;
  contentType: string;
  body: Buffer<ArrayBuffer>;
}

const digest = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("base64url").slice(0, 12);
const hashed = (stem: string, ext: string, body: Buffer<ArrayBuffer>, contentType: string): Asset => ({
  name: `${stem}.${digest(body).replace(/[^A-Za-z0-9]/g, "0")}.${ext}`,
  contentType,
  body,
});

/** The assets of published pages, built once per app on first use (files are read then, not at start-up). */
export class SiteAssets {
  private built: { css: Asset; js: Asset; katex: Asset; byName: Map<string, Asset> } | undefined;
  /** The CSP source of the inline script that applies the stored theme before the page paints. */
  readonly themeScriptHash = `'sha256-${createHash("sha256").update(THEME_JS).digest("base64")}'`;

  private build() {
    if (this.built) return this.built;
    const byName = new Map<string, Asset>();
    const add = (asset: Asset) => {
      byName.set(asset.name, asset);
      return asset;
    };
    const css = add(hashed("site", "css", Buffer.from(SITE_CSS), "text/css; charset=utf-8"));
    const js = add(hashed("site", "js", Buffer.from(SITE_JS), "text/javascript; charset=utf-8"));
    // KaTeX's stylesheet with only its woff2 fonts (every browser that runs this page reads them),
    // each renamed with its hash.
    const require = createRequire(import.meta.url);
    const katexCss = require.resolve("katex/dist/katex.min.css");
    const fonts = join(dirname(katexCss), "fonts");
    const text = readFileSync(katexCss, "utf8").replace(
      /url\(fonts\/([A-Za-z0-9_-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts\/[^)]+\) format\("[a-z]+"\))*/g,
      (_match, font: string) => {
        const asset = add(hashed(`katex-${font}`, "woff2", readFileSync(join(fonts, `${font}.woff2`)), "font/woff2"));
        return `url(${asset.name}) format("woff2")`;
      },
    );
    const katex = add(hashed("katex", "css", Buffer.from(text), "text/css; charset=utf-8"));
    this.built = { css, js, katex, byName };
    return this.built;
  }

  /** Names of the site stylesheet, the page script and KaTeX's stylesheet (with their hashes). */
  names(): { css: string; js: string; katex: string } {
    const { css, js, katex } = this.build();
    return { css: css.name, js: js.name, katex: katex.name };
  }

  /** The asset of that exact name (an old hash is unknown: 404). */
  get(name: string): Asset | undefined {
    return this.build().byName.get(name);
  }
}

/** What rendering published pages keeps per app (in Services): the code highlighter and the assets. */
export class SiteRendering {
  readonly highlighter = new CodeHighlighter();
  readonly assets = new SiteAssets();
}
