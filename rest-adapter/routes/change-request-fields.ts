// The published ChangeRequest shape, shared by the change request routes and by revisions
// (a merge revision names the change request it merged: `mergedFrom`).
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, restEnum } from "../route.ts";
import { UserFields, restUser } from "./members.ts";

export const ChangeRequestFields = graphql(
  `
  fragment ChangeRequestFields on ChangeRequest {
    id number status subject createdAt updatedAt mergedAt
    createdBy { ...UserFields }
    mergedBy { ...UserFields }
    space { id }
    revision revisionInitial revisionMergedAncestor revisionMerged
    comments: openCommentCount outdated
    urls { app location }
  }`,
  [UserFields],
);

export function restChangeRequest(c: FragmentOf<typeof ChangeRequestFields>) {
  return {
    object: "change-request",
    id: c.id,
    number: c.number,
    status: restEnum(c.status),
    subject: c.subject,
    createdBy: restUser(c.createdBy),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    ...compact({ mergedBy: c.mergedBy ? restUser(c.mergedBy) : null, mergedAt: c.mergedAt }),
    space: c.space.id,
    revision: c.revision,
    revisionInitial: c.revisionInitial,
    ...compact({ revisionMergedAncestor: c.revisionMergedAncestor, revisionMerged: c.revisionMerged }),
    comments: c.comments,
    outdated: c.outdated,
    urls: c.urls,
  };
}
