-- Head and revision pointers get foreign keys. A space and its first revision, and a change request
-- and its revisions, point at each other and are inserted in one transaction, so the keys are
-- checked at commit (DEFERRABLE INITIALLY DEFERRED). Deleting a space or a change request deletes
-- its revisions by cascade in the same statement, so the keys never block a delete.
--
-- Author pointers (createdById, mergedById, postedById, resolvedById, reviewerId, requestedById)
-- stay without a key on purpose: users are never deleted (leaving an organization removes the
-- membership only), and authorship must outlive a membership.
ALTER TABLE "Space" ADD CONSTRAINT "Space_revisionId_fkey"
  FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_revisionId_fkey"
  FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_revisionInitialId_fkey"
  FOREIGN KEY ("revisionInitialId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_revisionMergedAncestorId_fkey"
  FOREIGN KEY ("revisionMergedAncestorId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_revisionMergedId_fkey"
  FOREIGN KEY ("revisionMergedId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "Comment" ADD CONSTRAINT "Comment_targetRevisionId_fkey"
  FOREIGN KEY ("targetRevisionId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_revisionId_fkey"
  FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "ChangeRequestReviewer" ADD CONSTRAINT "ChangeRequestReviewer_revisionId_fkey"
  FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") DEFERRABLE INITIALLY DEFERRED;

-- The member list sorts by joinedAt or lastSeenAt (then userId) within an organization, and the
-- collection list by createdAt (then id): keyset pages read these indexes in order.
CREATE INDEX "Member_organizationId_joinedAt_userId_idx" ON "Member"("organizationId", "joinedAt", "userId");
CREATE INDEX "Member_organizationId_lastSeenAt_userId_idx" ON "Member"("organizationId", "lastSeenAt", "userId");
CREATE INDEX "Collection_organizationId_createdAt_id_idx" ON "Collection"("organizationId", "createdAt", "id");
