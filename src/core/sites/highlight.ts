// Code highlighting on the server (shiki, with its JavaScript regex engine: no WebAssembly, no
// client-side highlighter). One highlighter per app, kept by the site cache; it starts with no
// language and loads only those a rendered page uses (each at most once), with a light and a dark
// theme. Pages get tokens whose colors become a handful of CSS classes (see blocks-html.ts).
import { createHighlighterCore, type HighlighterCore, type ThemedTokenWithVariants } from "shiki/core";
import { createJavaScriptRegexEngine } from "shiki/engine/javascript";
import { bundledLanguages } from "shiki/langs";

// GitHub's current (Primer) themes: every token color reads at 4.5:1 or more on the page backgrounds.
const LIGHT = "github-light-default";
const DARK = "github-dark-default";
/** Code longer than this (per block) is shown without colors: highlighting is linear but not free. */
export const HIGHLIGHT_MAX_CHARS = 64 * 1024;
/** Lines longer than this are left uncolored by the tokenizer. */
const MAX_LINE = 2000;
/**
 * A line that takes longer than this is left uncolored from there on: the guard against a runaway
 * grammar. Not lower: a language's first line compiles its patterns, and on a loaded machine that
 * took over 500 ms, which left lines half-colored (light and dark tokens cut at different places),
 * and such a page stays cached for a day.
 */
const LINE_TIME_LIMIT_MS = 5000;

export type CodeTokens = ThemedTokenWithVariants[][];

export class CodeHighlighter {
  private core: Promise<HighlighterCore> | null = null;
  private readonly loading = new Map<string, Promise<void>>();
  /** The highlighter once `prepare` created it (`tokens` is synchronous). */
  private ready: HighlighterCore | undefined;

  private highlighter(): Promise<HighlighterCore> {
    this.core ??= createHighlighterCore({
      themes: [import("shiki/themes/github-light-default.mjs"), import("shiki/themes/github-dark-default.mjs")],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    });
    return this.core;
  }

  /** The bundled name of a fence's language (aliases such as `ts`, `sh`, `yml` included), or null. */
  static known(language: string): string | null {
    const name = language.toLowerCase();
    return Object.hasOwn(bundledLanguages, name) ? name : null;
  }

  /** Loads the grammars of `languages` that are not loaded yet (unknown names are ignored). */
  async prepare(languages: Iterable<string>): Promise<void> {
    const wanted = [...new Set([...languages].map((language) => CodeHighlighter.known(language)).filter((l): l is string => !!l))];
    if (!wanted.length) return;
    const highlighter = await this.highlighter();
    await Promise.all(
      wanted.map((name) => {
        let pending = this.loading.get(name);
        if (!pending) {
          const load = bundledLanguages[name as keyof typeof bundledLanguages];
          pending = highlighter.loadLanguage(load()).catch(() => undefined);
          this.loading.set(name, pending);
        }
        return pending;
      }),
    );
    this.ready = highlighter;
  }

  /** The default text colors of the light and dark themes (tokens of those colors need no class). */
  defaults(): { light: string; dark: string } | undefined {
    const highlighter = this.ready;
    if (!highlighter) return undefined;
    return { light: highlighter.getTheme(LIGHT).fg.toLowerCase(), dark: highlighter.getTheme(DARK).fg.toLowerCase() };
  }

  /** The tokens of `code` with light and dark colors, or null (language not loaded, or code too long). */
  tokens(code: string, language: string): CodeTokens | null {
    const name = CodeHighlighter.known(language);
    const highlighter = this.ready;
    if (!name || !highlighter || code.length > HIGHLIGHT_MAX_CHARS) return null;
    const resolved = highlighter.resolveLangAlias(name);
    if (!highlighter.getLoadedLanguages().includes(resolved) && !highlighter.getLoadedLanguages().includes(name)) return null;
    return highlighter.codeToTokensWithThemes(code, {
      lang: name,
      themes: { light: LIGHT, dark: DARK },
      tokenizeMaxLineLength: MAX_LINE,
      tokenizeTimeLimit: LINE_TIME_LIMIT_MS,
    });
  }
}
