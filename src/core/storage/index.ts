// Storage uploads (the published generateStorageUploadURL): a member announces a file (name,
// type, size, kind) and gets a signed URL that accepts its bytes once, by PUT, within
// UPLOAD_URL_TTL_SECONDS and at most the announced size. The bytes become a content-addressed
// blob (src/core/blobs.ts) kept for the organization under the answer's `key`.
//
// The URL is a capability, as file downloads are: `/storage/uploads/{key}?expires=…&sig=…`, sig an
// HMAC (FILES_SECRET) of the kind of URL, the key, the organization, the size bound and the expiry,
// so that neither the bound nor the expiry can be changed, nor the URL used for another key.
import { randomBytes } from "node:crypto";
import type { StorageUpload } from "../../generated/prisma/client.ts";
import { storeBlobs } from "../blobs.ts";
import { sha256 } from "../content/index.ts";
import { FILE_NAME_MAX, MAX_FILE_BYTES } from "../content/files.ts";
import type { CoreContext, Services } from "../context.ts";
import { DomainError, badInput, characterCount, conflict, quote, tooMany } from "../errors.ts";
import { unsafeTextReason } from "../input.ts";
import { requireOrganization } from "../organizations/read.ts";

/** The published StorageUploadKind. */
export const STORAGE_UPLOAD_KINDS = ["customization_font", "import_file", "organization_file"] as const;
/** How long an upload URL accepts its bytes. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
/** Largest file an upload URL is made for (the same bound as a space's files). */
export const MAX_STORAGE_UPLOAD_BYTES = MAX_FILE_BYTES;
/** Upload URLs of one organization handed out and neither used nor expired: more answer 429. */
export const OPEN_UPLOADS_MAX = 100;
const CONTENT_TYPE_MAX = 255;
/** A MIME type as RFC 6838 writes one (parameters allowed), on one line. */
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/i;

export const STORAGE_UPLOADS_PATH = "/storage/uploads";

export interface StorageUploadInput {
  name: unknown;
  type: unknown;
  size: unknown;
  kind: unknown;
}

export interface StorageUploadUrl {
  url: string;
  key: string;
  expiresAt: Date;
  maxBytes: number;
}

const uploadFields = (key: string, organizationId: string, maxBytes: number, expires: number) => [
  "storage-upload",
  key,
  organizationId,
  String(maxBytes),
  String(expires),
];

function checkUploadInput(input: StorageUploadInput) {
  const { name, type, size, kind } = input;
  if (typeof kind !== "string" || !(STORAGE_UPLOAD_KINDS as readonly string[]).includes(kind))
    throw badInput(`kind must be one of ${STORAGE_UPLOAD_KINDS.join(", ")} (got ${quote(kind ?? null)})`);
  if (typeof name !== "string" || name.trim() === "") throw badInput("file.name is required");
  if (characterCount(name) > FILE_NAME_MAX) throw badInput(`file.name must be at most ${FILE_NAME_MAX} characters`);
  if (/[/\\]/.test(name)) throw badInput("file.name must be a file name, without / or \\");
  const unsafe = unsafeTextReason(name);
  if (unsafe) throw badInput(`file.name ${unsafe}`);
  if (typeof type !== "string" || type.length > CONTENT_TYPE_MAX || !CONTENT_TYPE.test(type) || /[\r\n]/.test(type))
    throw badInput(`file.type must be a MIME type such as image/png (got ${quote(type ?? null)})`);
  if (typeof size !== "number" || !Number.isInteger(size) || size < 1 || size > MAX_STORAGE_UPLOAD_BYTES)
    throw new DomainError(
      typeof size === "number" && size > MAX_STORAGE_UPLOAD_BYTES ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST",
      `file.size must be a whole number of bytes from 1 to ${MAX_STORAGE_UPLOAD_BYTES} (got ${quote(size ?? null)})`,
    );
  return { name, type, size, kind };
}

/**
 * A signed URL that accepts the announced file once (needs `organization.uploadFile`). At most
 * OPEN_UPLOADS_MAX URLs of an organization are open at a time; expired unused ones are dropped here.
 */
export async function createStorageUpload(ctx: CoreContext, organizationId: string, input: StorageUploadInput): Promise<StorageUploadUrl> {
  await requireOrganization(ctx, organizationId, "organization.uploadFile");
  const file = checkUploadInput(input);
  const now = ctx.clock.now();
  const expires = ctx.signer.nowSeconds() + UPLOAD_URL_TTL_SECONDS;
  const key = `upload_${randomBytes(18).toString("base64url")}`;
  await ctx.prisma.$transaction(async (tx) => {
    // One organization's URLs are counted one writer at a time, so two requests cannot both pass the bound.
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`storage-upload:${organizationId}`}))::text`;
    await tx.storageUpload.deleteMany({ where: { organizationId, uploadedAt: null, expiresAt: { lte: now } } });
    const open = await tx.storageUpload.count({ where: { organizationId, uploadedAt: null } });
    if (open >= OPEN_UPLOADS_MAX)
      throw tooMany(
        `The organization has ${open} upload URLs neither used nor expired: at most ${OPEN_UPLOADS_MAX}; use or let them expire`,
      );
    await tx.storageUpload.create({
      data: {
        key,
        organizationId,
        kind: file.kind,
        name: file.name,
        contentType: file.type,
        declaredSize: file.size,
        createdById: ctx.viewer.userId ?? "",
        createdAt: now,
        expiresAt: new Date(expires * 1000),
      },
    });
  });
  const query = new URLSearchParams({
    expires: String(expires),
    sig: ctx.signer.sign(uploadFields(key, organizationId, file.size, expires)),
  });
  return {
    url: ctx.urls.absolute(`${STORAGE_UPLOADS_PATH}/${key}?${query}`),
    key,
    expiresAt: new Date(expires * 1000),
    maxBytes: file.size,
  };
}

export type UploadCheck = { ok: true; upload: StorageUpload } | { ok: false; status: 403 | 404 | 409; message: string };

/** Checks an upload URL: its signature, expiry, and that its upload is still waiting for bytes. */
export async function checkUploadUrl(services: Pick<Services, "prisma" | "signer">, url: URL): Promise<UploadCheck> {
  const match = /^\/storage\/uploads\/(upload_[A-Za-z0-9_-]{24})$/.exec(url.pathname);
  if (!match) return { ok: false, status: 404, message: "No such upload URL" };
  const expires = Number(url.searchParams.get("expires"));
  const sig = url.searchParams.get("sig");
  if (!sig || !Number.isSafeInteger(expires))
    return { ok: false, status: 403, message: "This upload URL is not signed: get one from POST /v1/orgs/{organizationId}/storage/upload" };
  const upload = await services.prisma.storageUpload.findUnique({ where: { key: match[1] } });
  if (!upload || !services.signer.verify(uploadFields(upload.key, upload.organizationId, upload.declaredSize, expires), sig))
    return { ok: false, status: 403, message: "The signature of this upload URL does not match" };
  if (expires <= services.signer.nowSeconds())
    return {
      ok: false,
      status: 403,
      message: "This upload URL has expired: get a fresh one from POST /v1/orgs/{organizationId}/storage/upload",
    };
  if (upload.uploadedAt) return { ok: false, status: 409, message: "This upload URL was used already: each accepts one upload" };
  return { ok: true, upload };
}

/**
 * Stores the bytes of a checked upload as a blob. The row is claimed in the same transaction, so
 * two concurrent uploads to one URL store one file (the other gets 409).
 */
export async function completeStorageUpload(
  services: Pick<Services, "prisma" | "clock">,
  upload: StorageUpload,
  bytes: Uint8Array,
): Promise<{ hash: string } | { conflict: string }> {
  const hash = sha256(bytes);
  try {
    await services.prisma.$transaction(async (tx) => {
      const claimed = await tx.storageUpload.updateMany({
        where: { key: upload.key, uploadedAt: null },
        data: { blobHash: hash, size: bytes.byteLength, uploadedAt: services.clock.now() },
      });
      if (claimed.count !== 1) throw conflict("This upload URL was used already: each accepts one upload");
      await storeBlobs(tx, "storageUpload", [{ hash, data: Buffer.from(bytes), size: bytes.byteLength }]);
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === "CONFLICT") return { conflict: error.message };
    throw error;
  }
  return { hash };
}
