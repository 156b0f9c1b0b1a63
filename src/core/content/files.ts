// Files of a space's content: uploads (one revision per batch, bytes stored once by SHA-256),
// deletes, and the signed download URLs that serve the bytes to a browser without a token.
//
// A download URL is a capability: `/files/{blobHash}/{name}?type=…&expires=…&sig=…`, where `sig`
// is an HMAC-SHA256 (key: FILES_SECRET) of the hash, name, content type and expiry. Whoever holds
// the URL reads those bytes until it expires, as an <img src> in a published page must; a URL
// can neither be forged for other bytes nor re-labelled with another name or type.
import { imageSize } from "image-size";
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext, Services } from "../context.ts";
import { DomainError, badInput, quote, characterCount } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Signer } from "../signer.ts";
import { editContent, sha256 } from "./index.ts";
import { checkRevisionMessage, requireEditableTarget, type ContentTarget } from "./target.ts";
import { essenceOf, guessContentType, MEDIA_TYPE, OCTET_STREAM } from "./media-types.ts";
import type { ContentEdit, FileEntry } from "./tree.ts";

/** Largest file accepted (413 above, naming the file). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Most files in one upload (one revision). */
export const MAX_FILES_PER_UPLOAD = 20;
/**
 * Largest multipart request body accepted at /graphql (413 before it is read): a few files at
 * the per-file limit plus the form's own bytes. Bounds the memory one upload request can take.
 */
export const MAX_UPLOAD_REQUEST_BYTES = 5 * MAX_FILE_BYTES + 64 * 1024;
export const FILE_NAME_MAX = 255;
/** A download URL stays valid at least this long… */
export const DOWNLOAD_URL_TTL_SECONDS = 7 * 24 * 60 * 60;
/** …and its expiry is rounded up to a whole day, so the URL of a file is the same all day long
 * and browsers and CDNs keep hitting their caches. */
const EXPIRY_ROUNDING_SECONDS = 24 * 60 * 60;

export interface Upload {
  name: string;
  /** As the client sent it; empty or absent: guessed from the name. */
  contentType?: string | null;
  bytes: Uint8Array;
}

const PAYLOAD_TOO_LARGE = (message: string) => new DomainError("PAYLOAD_TOO_LARGE", message);

/**
 * The upload's content type when it is a well-formed media type, else guessed from the name.
 * A generic `application/octet-stream` (what browsers send for anything they do not know) also
 * yields to the name.
 */
function contentTypeOf(upload: Upload): string {
  const given = (upload.contentType ?? "").trim();
  // eslint-disable-next-line no-control-regex
  const wellFormed = given.length <= 255 && !/[\u0000-\u001f\u007f]/.test(given) && MEDIA_TYPE.test(essenceOf(given));
  if (wellFormed && essenceOf(given) !== OCTET_STREAM) {
    const [, ...parameters] = given.split(";");
    return [essenceOf(given), ...parameters.map((p) => p.trim()).filter(Boolean)].join("; ");
  }
  return guessContentType(upload.name);
}

function dimensionsOf(contentType: string, bytes: Uint8Array): { width: number; height: number } | undefined {
  if (!essenceOf(contentType).startsWith("image/")) return undefined;
  try {
    const { width, height } = imageSize(bytes);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined; // not an image the package knows, or not an image at all: no dimensions
  }
}

function checkUploads(uploads: Upload[]) {
  if (uploads.length === 0) throw badInput("files: give at least one file");
  if (uploads.length > MAX_FILES_PER_UPLOAD)
    throw badInput(`files: at most ${MAX_FILES_PER_UPLOAD} files in one upload (got ${uploads.length})`);
  uploads.forEach((upload, index) => {
    const name = upload.name.trim();
    if (!name) throw badInput(`files[${index}]: a file needs a name`);
    if (characterCount(name) > FILE_NAME_MAX) throw badInput(`files[${index}]: the name is longer than ${FILE_NAME_MAX} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(name)) throw badInput(`files[${index}]: the name ${quote(name)} has control characters`);
    if (upload.bytes.byteLength > MAX_FILE_BYTES) {
      throw PAYLOAD_TOO_LARGE(
        `File ${quote(name)} is ${upload.bytes.byteLength} bytes: a file can be at most ${MAX_FILE_BYTES} bytes (${MAX_FILE_BYTES / 1024 / 1024} MiB)`,
      );
    }
  });
}

/** The revision's entries of `uploads` (new ids, content types, dimensions), checked (400 without a name, 413 above MAX_FILE_BYTES). */
export function fileEntries(uploads: Upload[]): FileEntry[] {
  checkUploads(uploads);
  return uploads.map((upload): FileEntry => {
    const contentType = contentTypeOf(upload);
    return {
      id: newId("File"),
      name: upload.name.trim(),
      contentType,
      size: upload.bytes.byteLength,
      blob: sha256(upload.bytes),
      ...dimensionsOf(contentType, upload.bytes),
    };
  });
}

/**
 * Adds `uploads` to the content of the space as one new revision. Needs `edit` on the space
 * (404 unless readable, 403 otherwise); a name is required (400), a file is at most
 * MAX_FILE_BYTES (413). Bytes already stored (same SHA-256) are not stored again.
 */
export async function uploadFiles(
  ctx: CoreContext,
  { target, uploads, message }: { target: ContentTarget; uploads: Upload[]; message?: string | null },
): Promise<{ revision: Revision; files: FileEntry[] }> {
  checkRevisionMessage(message);
  await requireEditableTarget(ctx, target);
  const files = fileEntries(uploads);
  const edits: ContentEdit[] = files.map((file) => ({ op: "addFile", file }));
  const revision = await editContent(ctx, {
    target,
    edits,
    blobs: { markdown: [], files: uploads.map((upload) => upload.bytes) },
    message,
  });
  return { revision, files };
}

/** Removes a file from the content as one new revision; older revisions keep it (and its bytes). */
export async function deleteFile(
  ctx: CoreContext,
  { target, fileId, message }: { target: ContentTarget; fileId: string; message?: string | null },
): Promise<Revision> {
  return editContent(ctx, { target, edits: [{ op: "deleteFile", id: fileId }], message });
}

// ---------------------------------------------------------------------------------------------
// Signed download URLs
// ---------------------------------------------------------------------------------------------

/** The fields a file download URL signs (no kind prefix: the first URLs were signed so). */
const downloadFields = (blob: string, name: string, contentType: string, expires: number) => [blob, name, contentType, String(expires)];

/**
 * An absolute URL that serves the bytes of `file` to anyone holding it, a browser without a
 * token included, for at least DOWNLOAD_URL_TTL_SECONDS. The space and revision are not part of
 * it: bytes are content-addressed, and a URL handed out stays good when the file is deleted
 * from later revisions, as the earlier revisions still show it.
 */
export function downloadUrlOf({ urls, signer }: Pick<Services, "urls" | "signer">, file: FileEntry): string {
  const now = signer.nowSeconds();
  const expires = Math.ceil((now + DOWNLOAD_URL_TTL_SECONDS) / EXPIRY_ROUNDING_SECONDS) * EXPIRY_ROUNDING_SECONDS;
  const query = new URLSearchParams({
    type: file.contentType,
    expires: String(expires),
    sig: signer.sign(downloadFields(file.blob, file.name, file.contentType, expires)),
  });
  return urls.absolute(`${FILES_PATH}/${file.blob}/${encodeURIComponent(file.name)}?${query}`);
}

export const FILES_PATH = "/files";

export type DownloadCheck =
  | { ok: true; blob: string; name: string; contentType: string; expires: number }
  | { ok: false; status: 403 | 404; message: string };

/** Checks a download URL's path and signature (the plugin then serves the blob). */
export function checkDownload(signer: Signer, url: URL): DownloadCheck {
  const match = /^\/files\/([0-9a-f]{64})\/([^/]+)$/.exec(url.pathname);
  if (!match) return { ok: false, status: 404, message: "No such file" };
  let name: string;
  try {
    name = decodeURIComponent(match[2]);
  } catch {
    return { ok: false, status: 404, message: "No such file" };
  }
  const contentType = url.searchParams.get("type");
  const expires = Number(url.searchParams.get("expires"));
  const sig = url.searchParams.get("sig");
  if (!contentType || !sig || !Number.isSafeInteger(expires)) {
    return { ok: false, status: 403, message: "This download URL is not signed: get a fresh one from the file's downloadURL" };
  }
  if (!signer.verify(downloadFields(match[1], name, contentType, expires), sig)) {
    return { ok: false, status: 403, message: "The signature of this download URL does not match" };
  }
  if (expires <= signer.nowSeconds()) {
    return { ok: false, status: 403, message: "This download URL has expired: get a fresh one from the file's downloadURL" };
  }
  return { ok: true, blob: match[1], name, contentType, expires };
}
