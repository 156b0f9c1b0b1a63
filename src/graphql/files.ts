// Files: upload (GraphQL multipart request: https://github.com/jaydenseric/graphql-multipart-request-spec,
// which Yoga parses natively) and delete. Each mutation makes exactly one new revision; reading
// files (`Revision.files`, `File.downloadURL`) is in content.ts.
import { GraphQLScalarType, Kind } from "graphql";
import type { InputRef } from "@pothos/core";
import { MAX_FILES_PER_UPLOAD, MAX_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, deleteFile, uploadFiles } from "../core/content/files.ts";
import { REVISION_MESSAGE_MAX } from "../core/content/target.ts";
import { builder } from "./builder.ts";
import { targetFields, targetOf } from "./content-editing.ts";
import { FileRef, RevisionRef } from "./content.ts";
import { SpaceRef } from "./spaces.ts";

/** What Yoga puts in the variables for a file part of a multipart request (a WHATWG File). */
interface UploadedPart {
  name: string;
  type: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const isUploadedPart = (value: unknown): value is UploadedPart =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as UploadedPart).arrayBuffer === "function" &&
  typeof (value as UploadedPart).name === "string";

// Named `Upload`, not Yoga's usual `File`: `File` is the content type of a space's files.
const UploadScalar = new GraphQLScalarType<UploadedPart, never>({
  name: "Upload",
  description: "A file part of a GraphQL multipart request (input only)",
  parseValue(value) {
    if (!isUploadedPart(value))
      throw new TypeError("Upload must be a file part of a multipart request (see the GraphQL multipart request spec)");
    return value;
  },
  parseLiteral(ast) {
    throw new TypeError(
      `Upload cannot be written in the query (got ${ast.kind === Kind.STRING ? "a string" : ast.kind}): send the file as a multipart part`,
    );
  },
  serialize() {
    throw new TypeError("Upload is an input-only scalar");
  },
});

// Not among the builder's declared scalars (builder.ts is shared): typed here as an input of files.
const Upload = builder.addScalarType("Upload" as never, UploadScalar) as unknown as InputRef<UploadedPart>;

builder.mutationFields((t) => ({
  uploadFiles: t.field({
    type: builder.simpleObject("UploadFilesPayload", {
      description: "Result of the uploadFiles mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: "The new revision (the new head of the space, or of the change request)" }),
        files: p.field({ type: [FileRef], description: "The uploaded files, in the order they were given" }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description:
      "Adds files to the space's content as one new revision (multipart request: each file a part). " +
      `At most ${MAX_FILES_PER_UPLOAD} files, each at most ${MAX_FILE_BYTES} bytes (413 above, naming the file), ` +
      `in a request body of at most ${MAX_UPLOAD_REQUEST_BYTES} bytes; the same bytes are stored once.`,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UploadFilesInput", {
          description: "Input of the uploadFiles mutation",
          fields: (f) => ({
            ...targetFields(f),
            files: f.field({
              description: "The files, as multipart uploads (the GraphQL multipart request spec)",
              type: [Upload],
              required: true,
            }),
            message: f.string({ description: `Describes the revision, at most ${REVISION_MESSAGE_MAX} characters` }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const uploads = await Promise.all(
        input.files.map(async (part) => ({ name: part.name, contentType: part.type, bytes: new Uint8Array(await part.arrayBuffer()) })),
      );
      const { revision, files } = await uploadFiles(core, { target: targetOf(input), uploads, message: input.message });
      return { revision, files: files.map((file) => ({ file, revision })), space: input.space };
    },
  }),
  deleteFile: t.field({
    type: builder.simpleObject("DeleteFilePayload", {
      description: "Result of the deleteFile mutation",
      fields: (p) => ({
        revision: p.field({
          type: RevisionRef,
          description: "The new revision (the new head of the space, or of the change request), without the file",
        }),
        deletedFileId: p.id({ description: "Id of the file removed from the content" }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description: "Removes a file from the space's content as one new revision; earlier revisions still have it",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteFileInput", {
          description: "Input of the deleteFile mutation",
          fields: (f) => ({
            ...targetFields(f),
            file: f.id({ description: "Id of the file", required: true }),
            message: f.string({ description: `Describes the revision, at most ${REVISION_MESSAGE_MAX} characters` }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const revision = await deleteFile(core, { target: targetOf(input), fileId: input.file, message: input.message });
      return { revision, deletedFileId: input.file, space: input.space };
    },
  }),
}));
