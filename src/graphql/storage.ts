// Storage uploads: a signed URL that accepts one file's bytes by PUT (the published
// generateStorageUploadURL). Rules in src/core/storage.
import { MAX_STORAGE_UPLOAD_BYTES, STORAGE_UPLOAD_KINDS, UPLOAD_URL_TTL_SECONDS, createStorageUpload } from "../core/storage/index.ts";
import { builder } from "./builder.ts";

const StorageUploadURLRef = builder.simpleObject("StorageUploadURL", {
  description: "A signed URL that accepts one upload of the announced file, by PUT with the bytes as the body",
  fields: (t) => ({
    url: t.string({ description: "The signed upload URL; it needs no token" }),
    key: t.string({ description: "The key the uploaded file is kept under in the organization's storage" }),
    expiresAt: t.field({ type: "DateTime", description: "When the URL stops accepting the upload" }),
    maxBytes: t.int({ description: "Most bytes the URL accepts: the announced size" }),
  }),
});

const StorageFileInput = builder.inputType("StorageFileInput", {
  description: "The file to upload, as announced (the published StorageFileMetadata)",
  fields: (f) => ({
    name: f.string({ required: true, description: "Its file name, at most 255 characters" }),
    type: f.string({ required: true, description: "Its MIME type" }),
    size: f.float({ required: true, description: `Its size in bytes, 1 to ${MAX_STORAGE_UPLOAD_BYTES}: the URL accepts no more` }),
  }),
});

builder.mutationFields((t) => ({
  generateStorageUploadURL: t.field({
    type: StorageUploadURLRef,
    description: `A signed URL, valid ${UPLOAD_URL_TTL_SECONDS / 60} minutes, that accepts one PUT of the announced file (at most its size) into the organization's storage (needs the edit role in the organization)`,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("GenerateStorageUploadURLInput", {
          description: "Input of the generateStorageUploadURL mutation",
          fields: (f) => ({
            organization: f.id({ required: true, description: "The organization whose storage keeps the file" }),
            file: f.field({ type: StorageFileInput, required: true, description: "The file to upload" }),
            kind: f.string({ required: true, description: `What the file is for: one of ${STORAGE_UPLOAD_KINDS.join(", ")}` }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => createStorageUpload(core, String(input.organization), { ...input.file, kind: input.kind }),
  }),
}));
