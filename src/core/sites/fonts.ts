// The fonts a site's customization may choose (`styling.font`, `styling.monospaceFont`: the
// published CustomizationDefaultFont and CustomizationDefaultMonospaceFont), served by the
// service from the Fontsource packages (OFL), never from a CDN. Only the Latin subset is served
// (one variable file, or the regular and bold files): other scripts fall back to the system font
// after it. ABCFavorit is a commercial font no package ships: it shows the system font.

/** Where a font's files are: its package, its files' stem, and the weights it has (variable: one file for all). */
export interface FontFiles {
  /** The CSS family name the @font-face rules declare. */
  family: string;
  packageName: string;
  stem: string;
  weights: "variable" | readonly number[];
}

const variable = (family: string, stem: string): FontFiles => ({
  family: `${family} Variable`,
  packageName: `@fontsource-variable/${stem}`,
  stem,
  weights: "variable",
});
const staticFont = (family: string, stem: string, weights: readonly number[] = [400, 700]): FontFiles => ({
  family,
  packageName: `@fontsource/${stem}`,
  stem,
  weights,
});

/** `styling.font` values, with their files (null: no package ships it). */
export const TEXT_FONTS: Readonly<Record<string, FontFiles | null>> = {
  ABCFavorit: null,
  Inter: variable("Inter", "inter"),
  Roboto: variable("Roboto", "roboto"),
  RobotoSlab: variable("Roboto Slab", "roboto-slab"),
  OpenSans: variable("Open Sans", "open-sans"),
  SourceSansPro: variable("Source Sans 3", "source-sans-3"),
  Lato: staticFont("Lato", "lato"),
  Ubuntu: staticFont("Ubuntu", "ubuntu"),
  Raleway: variable("Raleway", "raleway"),
  Merriweather: variable("Merriweather", "merriweather"),
  Overpass: variable("Overpass", "overpass"),
  NotoSans: variable("Noto Sans", "noto-sans"),
  IBMPlexSerif: staticFont("IBM Plex Serif", "ibm-plex-serif"),
  Poppins: staticFont("Poppins", "poppins"),
  FiraSans: staticFont("Fira Sans", "fira-sans"),
};

/** `styling.monospaceFont` values, with their files. */
export const MONOSPACE_FONTS: Readonly<Record<string, FontFiles>> = {
  FiraCode: variable("Fira Code", "fira-code"),
  IBMPlexMono: staticFont("IBM Plex Mono", "ibm-plex-mono"),
  JetBrainsMono: variable("JetBrains Mono", "jetbrains-mono"),
  SourceCodePro: variable("Source Code Pro", "source-code-pro"),
  RobotoMono: variable("Roboto Mono", "roboto-mono"),
  SpaceMono: staticFont("Space Mono", "space-mono"),
  DMMono: staticFont("DM Mono", "dm-mono", [400, 500]),
  Inconsolata: variable("Inconsolata", "inconsolata"),
};

/** The fonts of a site that did not choose (the published defaults): their faces are in the site stylesheet. */
export const DEFAULT_TEXT_FONT = "Inter";
export const DEFAULT_MONOSPACE_FONT = "IBMPlexMono";

/** The file name (in its package's `files/`) of each face of a font. */
export function fontFaceFiles(font: FontFiles): { weight: string; file: string }[] {
  if (font.weights === "variable") return [{ weight: "100 900", file: `${font.stem}-latin-wght-normal.woff2` }];
  return font.weights.map((weight) => ({ weight: String(weight), file: `${font.stem}-latin-${weight}-normal.woff2` }));
}
