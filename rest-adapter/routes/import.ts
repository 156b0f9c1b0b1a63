// POST …/content/import: a website into a content target (the space's content, or a change
// request's through change-requests.ts), as one revision; under a page, the site's top pages
// become its children. `url` and `source` go to the operation as they came (strings checked by
// the core), so both surfaces give the same 400 for a bad value.
import { graphql, type ResultOf } from "../graphql.ts";
import { type RestRequest, type RestRoute, stringOf, typedRoute } from "../route.ts";

const IMPORT_DOCUMENT = graphql(`
  mutation ImportContent($input: ImportContentInput!) {
    importContent(input: $input) { revision { id } importedResources totalResources }
  }`);

const importInput = ({ params, body }: RestRequest) => ({
  input: {
    space: params.spaceId,
    changeRequest: params.changeRequestId,
    // Non-strings are left for the core to refuse with its message (not a GraphQL type error).
    url: stringOf(body.url) ?? "",
    source: stringOf(body.source) ?? "",
    parent: params.pageId,
  },
});

const importBody = (data: ResultOf<typeof IMPORT_DOCUMENT>) => ({
  revision: data.importContent.revision.id,
  importedResources: data.importContent.importedResources,
  totalResources: data.importContent.totalResources,
});

export const importRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/import",
    action: "space.editContent",
    document: IMPORT_DOCUMENT,
    variables: importInput,
    status: 201,
    body: importBody,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/page/:pageId/import",
    action: "space.editContent",
    document: IMPORT_DOCUMENT,
    variables: importInput,
    status: 201,
    body: importBody,
  }),
];
