// /v1/spaces/:spaceId/pdf and /v1/spaces/:spaceId/change-requests/:changeRequestId/pdf: a temporary
// URL (one hour) of the space's or the change request's content as a PDF, all of it or one page (with its subpages unless `only`).
import { graphql } from "../graphql.ts";
import { type RestRoute, typedRoute } from "../route.ts";

export const pdfRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/pdf",
    action: "space.read",
    query: { only: "boolean", page: "string" },
    document: graphql(`
      query GetSpacePDF($space: ID!, $page: ID, $only: Boolean) {
        space(id: $space) { pdf(page: $page, only: $only) { url } }
      }`),
    variables: ({ params, query }) => ({ space: params.spaceId, page: query.page, only: query.only }),
    status: 200,
    body: (data) => ({ url: data.space.pdf.url }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf",
    action: "changeRequest.read",
    query: { only: "boolean", page: "string" },
    document: graphql(`
      query GetChangeRequestPDF($space: ID!, $changeRequest: ID!, $page: ID, $only: Boolean) {
        space(id: $space) { changeRequest(id: $changeRequest) { pdf(page: $page, only: $only) { url } } }
      }`),
    variables: ({ params, query }) => ({
      space: params.spaceId,
      changeRequest: params.changeRequestId,
      page: query.page,
      only: query.only,
    }),
    status: 200,
    body: (data) => ({ url: data.space.changeRequest.pdf.url }),
  }),
];
