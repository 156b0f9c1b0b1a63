// POST /v1/orgs/{organizationId}/storage/upload: a signed URL that accepts one file by PUT (the
// published generateStorageUploadURL, answering StorageUploadURL). Rules in src/core/storage.
import { graphql } from "../graphql.ts";
import { RestInputError, type RestRequest, type RestRoute, stringOf, typedRoute } from "../route.ts";

/** The body as the operation's input: its shape checked here (so the message names the field), values in the core. */
function uploadInput({ params, body }: RestRequest) {
  if (body.file == null) throw new RestInputError("file is required");
  if (typeof body.file !== "object" || Array.isArray(body.file)) throw new RestInputError("file must be an object { name, type, size }");
  const { name, type, size } = body.file as Record<string, unknown>;
  if (typeof size !== "number") throw new RestInputError("file.size must be a number of bytes");
  return {
    input: {
      organization: params.organizationId,
      // Non-strings are left for the core to refuse with its message (not a GraphQL type error).
      file: { name: stringOf(name) ?? "", type: stringOf(type) ?? "", size },
      kind: stringOf(body.kind) ?? "",
    },
  };
}

export const storageRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/storage/upload",
    action: "organization.uploadFile",
    document: graphql(`
      mutation GenerateStorageUploadURL($input: GenerateStorageUploadURLInput!) {
        generateStorageUploadURL(input: $input) { url key }
      }
    `),
    variables: uploadInput,
    status: 201,
    body: (data) => ({
      object: "storage-signed-url" as const,
      url: data.generateStorageUploadURL.url,
      key: data.generateStorageUploadURL.key,
    }),
  }),
];
