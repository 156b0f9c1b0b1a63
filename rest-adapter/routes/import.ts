// POST /v1/spaces/:spaceId/content/import: a website into the space's content, as one revision.
// `url` and `source` go to the operation as they came (strings checked by the core), so both
// surfaces give the same 400 for a bad value.
import { stringOf, type RestRoute } from "../route.ts";

export const importRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/content/import",
    action: "space.editContent",
    document: /* GraphQL */ `
      mutation ImportSpaceContent($input: ImportContentInput!) {
        importContent(input: $input) { revision { id } importedResources totalResources }
      }`,
    variables: ({ params, body }) => ({
      input: {
        space: params.spaceId,
        // Non-strings are left for the core to refuse with its message (not a GraphQL type error).
        url: stringOf(body.url) ?? "",
        source: stringOf(body.source) ?? "",
      },
    }),
    status: 201,
    body: (data) => ({
      revision: data.importContent.revision.id,
      importedResources: data.importContent.importedResources,
      totalResources: data.importContent.totalResources,
    }),
  },
];
