// Space templates (the published applyTemplateToSpace): 201 with no body, as published.
import { graphql } from "../graphql.ts";
import { RestInputError, type RestRoute, typedRoute } from "../route.ts";

export const spaceTemplateRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/template",
    action: "space.editContent",
    document: graphql(`
      mutation ApplySpaceTemplate($input: ApplySpaceTemplateInput!) {
        applySpaceTemplate(input: $input) {
          revision {
            id
          }
        }
      }
    `),
    variables: ({ params, body }) => {
      if (typeof body.id !== "string") throw new RestInputError("id is required: the id of the template (a string)");
      if (body.changeRequestId != null && typeof body.changeRequestId !== "string")
        throw new RestInputError("changeRequestId must be a string");
      return { input: { space: params.spaceId, changeRequest: body.changeRequestId ?? null, id: body.id, params: body.params ?? null } };
    },
    status: 201,
  }),
];
