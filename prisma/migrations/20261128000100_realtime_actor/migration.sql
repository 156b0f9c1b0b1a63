-- Realtime notifications (20261128000000_realtime_notify), two corrections:
-- - the actor is the first of the row's actor columns that holds a user: a column present but
--   null (a comment not resolved) no longer hides the next one (its poster);
-- - a new revision notifies too, with its author, so that the events of an edit say who made
--   it. A revision row holds the whole page tree: its notification is built from its id columns
--   alone, never from the whole row.
CREATE OR REPLACE FUNCTION "notify_realtime"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  new_row jsonb;
  old_row jsonb;
  a_row jsonb;
  changed text[];
  ids jsonb;
BEGIN
  IF TG_TABLE_NAME = 'Revision' THEN
    IF TG_OP <> 'INSERT' THEN
      RETURN NULL;
    END IF;
    new_row := jsonb_build_object('id', NEW.id, 'spaceId', NEW."spaceId", 'changeRequestId', NEW."changeRequestId", 'createdById', NEW."createdById");
  ELSE
    new_row := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END;
    old_row := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END;
  END IF;
  a_row := COALESCE(new_row, old_row);
  IF TG_OP = 'UPDATE' THEN
    SELECT array_agg(n.key ORDER BY n.key) INTO changed FROM jsonb_each(new_row) n
      WHERE n.value IS DISTINCT FROM old_row -> n.key AND n.key NOT IN ('updatedAt', 'lastSeenAt', 'lastUsedAt');
    IF changed IS NULL THEN
      RETURN NULL;
    END IF;
  END IF;
  ids := jsonb_build_object(
    'id', a_row -> 'id',
    'organizationId', a_row -> 'organizationId',
    'spaceId', a_row -> 'spaceId',
    'changeRequestId', a_row -> 'changeRequestId',
    'parentId', a_row -> 'parentId',
    'siteId', a_row -> 'siteId',
    'teamId', a_row -> 'teamId',
    'userId', a_row -> 'userId',
    'integrationId', a_row -> 'integrationId',
    'installationId', a_row -> 'installationId',
    'specId', a_row -> 'specId',
    'translationId', a_row -> 'translationId',
    'commentId', a_row -> 'commentId',
    'revisionId', a_row -> 'revisionId',
    'hostname', a_row -> 'hostname',
    'status', a_row -> 'status',
    'processingState', a_row -> 'processingState',
    'syncedRevisionId', a_row -> 'syncedRevisionId',
    'actorId', COALESCE(
      NULLIF(a_row -> 'mergedById', 'null'),
      NULLIF(a_row -> 'resolvedById', 'null'),
      NULLIF(a_row -> 'reviewerId', 'null'),
      NULLIF(a_row -> 'postedById', 'null'),
      NULLIF(a_row -> 'createdById', 'null'),
      NULLIF(a_row -> 'requestedById', 'null')
    )
  );
  -- The organization (and space) of rows that do not hold it, for the channels keyed by them.
  IF TG_TABLE_NAME IN ('ChangeRequestReview', 'ChangeRequestReviewer') THEN
    ids := ids || jsonb_build_object('spaceId', (SELECT "spaceId" FROM "ChangeRequest" WHERE id = ids ->> 'changeRequestId'));
  ELSIF TG_TABLE_NAME = 'CommentReaction' THEN
    ids := ids || (SELECT jsonb_build_object('spaceId', "spaceId", 'changeRequestId', "changeRequestId", 'parentId', "parentId") FROM "Comment" WHERE id = ids ->> 'commentId');
  ELSIF TG_TABLE_NAME = 'TeamMember' THEN
    ids := ids || jsonb_build_object('organizationId', (SELECT "organizationId" FROM "Team" WHERE id = ids ->> 'teamId'));
  ELSIF TG_TABLE_NAME = 'OpenAPISpecVersion' THEN
    ids := ids || jsonb_build_object('organizationId', (SELECT "organizationId" FROM "OpenAPISpec" WHERE id = ids ->> 'specId'));
  ELSIF TG_TABLE_NAME = 'TranslationTarget' THEN
    ids := ids || jsonb_build_object('organizationId', (SELECT "organizationId" FROM "TranslationSettings" WHERE id = ids ->> 'translationId'));
  ELSIF TG_TABLE_NAME IN ('SiteSpace', 'SiteSection', 'SiteSectionGroup', 'SiteShareLink') THEN
    ids := ids || jsonb_build_object('organizationId', (SELECT "organizationId" FROM "Site" WHERE id = ids ->> 'siteId'));
  ELSIF TG_TABLE_NAME IN ('IntegrationSpaceInstallation', 'IntegrationSiteInstallation') THEN
    ids := ids || (SELECT jsonb_build_object('organizationId', "organizationId", 'integrationId', "integrationId") FROM "IntegrationInstallation" WHERE id = ids ->> 'installationId');
  END IF;
  IF ids ->> 'organizationId' IS NULL AND ids ->> 'spaceId' IS NOT NULL THEN
    ids := ids || jsonb_build_object('organizationId', (SELECT "organizationId" FROM "Space" WHERE id = ids ->> 'spaceId'));
  END IF;
  PERFORM pg_notify('realtime', jsonb_build_object(
    'x', txid_current()::text,
    't', TG_TABLE_NAME,
    'o', lower(TG_OP),
    'r', jsonb_strip_nulls(ids),
    'f', to_jsonb(changed)
  )::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Revision_notify_realtime" AFTER INSERT ON "Revision" FOR EACH ROW EXECUTE FUNCTION "notify_realtime"();
