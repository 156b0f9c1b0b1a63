// Media types of files: guessed from a name, or read from a Content-Type header.

/** Media types by file extension, for files uploaded or imported without one. */
const EXTENSION_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
};

export const OCTET_STREAM = "application/octet-stream";
/** A well-formed `type/subtype`, without parameters. */
export const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** The media type a file's name suggests, `application/octet-stream` when none does. */
export function guessContentType(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot >= 0 && EXTENSION_TYPES[name.slice(dot + 1).toLowerCase()]) || OCTET_STREAM;
}

/** The media type without parameters, lowercased ("text/plain;charset=utf-8" → "text/plain"). */
export const essenceOf = (contentType: string) => contentType.split(";")[0].trim().toLowerCase();
