// What published pages load besides their HTML, served by the service itself (nothing from a
// CDN): the site stylesheet, the small script that enhances a page (theme toggle, copy buttons,
// the outline's current heading), KaTeX's stylesheet and fonts, and the fonts a site may choose
// (fonts.ts: the defaults' faces are in the site stylesheet, another choice adds its own). Every name carries a hash of its
// bytes, so a response may be cached for a year (`immutable`); pages name them relative to their
// site's base (`<base>/~assets/<name>`), which works under /sites/{id} and at custom hostnames.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CodeHighlighter } from "./highlight.ts";
import { DEFAULT_MONOSPACE_FONT, DEFAULT_TEXT_FONT, type FontFiles, fontFaceFiles, MONOSPACE_FONTS, TEXT_FONTS } from "./fonts.ts";
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
/**
 * Names of the stylesheets of fonts a site may choose instead of the defaults, by `text:<font>`
 * and `mono:<font>` (the customization's values).
 */
export type FontSheets = Readonly<Record<string, string>>;

export class SiteAssets {
  private built: { css: Asset; js: Asset; katex: Asset; fonts: FontSheets; byName: Map<string, Asset> } | undefined;
  /** The CSP source of the inline script that applies the stored theme before the page paints. */
  readonly themeScriptHash = `'sha256-${createHash("sha256").update(THEME_JS).digest("base64")}'`;

  private build() {
    if (this.built) return this.built;
    const byName = new Map<string, Asset>();
    const add = (asset: Asset) => {
      byName.set(asset.name, asset);
      return asset;
    };
    const require = createRequire(import.meta.url);
    // A font's @font-face rules (its files renamed with their hashes).
    const faces = (font: FontFiles) => {
      const files = join(dirname(require.resolve(`${font.packageName}/package.json`)), "files");
      return fontFaceFiles(font)
        .map(({ weight, file }) => {
          const asset = add(hashed(file.replace(/\.woff2$/, ""), "woff2", readFileSync(join(files, file)), "font/woff2"));
          return `@font-face{font-family:"${font.family}";font-style:normal;font-display:swap;font-weight:${weight};src:url(${asset.name}) format("woff2")}`;
        })
        .join("");
    };
    // The text or code font: its faces, and the variable the site stylesheet reads.
    const fontCss = (font: FontFiles | null, variable: "--font" | "--mono") =>
      font ? `${faces(font)}:root{${variable}:"${font.family}"}` : `:root{${variable}:system-ui}`;
    // A heading font: before the text's, which shows while it loads (or if it fails).
    const headingCss = (font: FontFiles | null) =>
      `${font ? faces(font) : ""}h1,h2,h3,h4,h5,h6{font-family:${font ? `"${font.family}",var(--font),` : ""}system-ui,sans-serif}`;
    const fonts: Record<string, string> = {};
    const choices = [
      ...Object.entries(TEXT_FONTS).map(([name, font]) => ["text", name, font, "--font"] as const),
      ...Object.entries(MONOSPACE_FONTS).map(([name, font]) => ["mono", name, font, "--mono"] as const),
    ];
    let defaults = "";
    for (const [kind, name, font, variable] of choices) {
      const text = fontCss(font, variable);
      if (name === (kind === "text" ? DEFAULT_TEXT_FONT : DEFAULT_MONOSPACE_FONT)) defaults += text;
      else
        fonts[`${kind}:${name}`] = add(
          hashed(`${kind}-${font?.stem ?? "system"}`, "css", Buffer.from(text), "text/css; charset=utf-8"),
        ).name;
    }
    for (const [name, font] of Object.entries(TEXT_FONTS))
      fonts[`heading:${name}`] = add(
        hashed(`heading-${font?.stem ?? "system"}`, "css", Buffer.from(headingCss(font)), "text/css; charset=utf-8"),
      ).name;
    const css = add(hashed("site", "css", Buffer.from(`${defaults}\n${SITE_CSS}`), "text/css; charset=utf-8"));
    const js = add(hashed("site", "js", Buffer.from(SITE_JS), "text/javascript; charset=utf-8"));
    // KaTeX's stylesheet with only its woff2 fonts (every browser that runs this page reads them),
    // each renamed with its hash.
    const katexCss = require.resolve("katex/dist/katex.min.css");
    const katexFonts = join(dirname(katexCss), "fonts");
    const text = readFileSync(katexCss, "utf8").replace(
      /url\(fonts\/([A-Za-z0-9_-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts\/[^)]+\) format\("[a-z]+"\))*/g,
      (_match, font: string) => {
        const asset = add(hashed(`katex-${font}`, "woff2", readFileSync(join(katexFonts, `${font}.woff2`)), "font/woff2"));
        return `url(${asset.name}) format("woff2")`;
      },
    );
    const katex = add(hashed("katex", "css", Buffer.from(text), "text/css; charset=utf-8"));
    this.built = { css, js, katex, fonts, byName };
    return this.built;
  }

  /** Names of the site stylesheet, the page script, KaTeX's stylesheet and the chosen fonts' stylesheets (with their hashes). */
  names(): { css: string; js: string; katex: string; fonts: FontSheets } {
    const { css, js, katex, fonts } = this.build();
    return { css: css.name, js: js.name, katex: katex.name, fonts };
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
