-- Realtime channels (issue 29, src/core/realtime): every row written in one of the tables below
-- notifies channel `realtime` when its transaction commits (PostgreSQL sends a transaction's
-- notifications at its commit, and none for a rolled-back one), with the transaction id, the
-- table, the operation, the row's ids (never its content) and, for an update, the names of the
-- columns it changed. Every instance LISTENs (the embedded database: its own listener) and maps
-- the rows to the published channels they change. Row-level: a statement writing 3 rows sends 3
-- notifications, which the listener folds into one event per channel and transaction.
-- Updates that change only bookkeeping columns (activity times) notify nothing.
CREATE FUNCTION "notify_realtime"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  new_row jsonb := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END;
  old_row jsonb := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END;
  a_row jsonb := COALESCE(new_row, old_row);
  changed text[];
  ids jsonb;
BEGIN
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
    'actorId', COALESCE(a_row -> 'mergedById', a_row -> 'resolvedById', a_row -> 'reviewerId', a_row -> 'postedById', a_row -> 'createdById', a_row -> 'requestedById')
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

DO $$
DECLARE
  watched text;
BEGIN
  FOREACH watched IN ARRAY ARRAY['Organization', 'Member', 'Team', 'TeamMember', 'Collection', 'Space', 'ChangeRequest', 'ChangeRequestReview', 'ChangeRequestReviewer', 'Comment', 'CommentReaction', 'Site', 'SiteSpace', 'SiteSection', 'SiteSectionGroup', 'SiteShareLink', 'OpenAPISpec', 'OpenAPISpecVersion', 'TranslationSettings', 'TranslationTarget', 'Integration', 'IntegrationInstallation', 'IntegrationSpaceInstallation', 'IntegrationSiteInstallation', 'LinkInvite', 'SamlProvider', 'ApiToken', 'User', 'PermissionGrant'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION "notify_realtime"()',
      watched || '_notify_realtime',
      watched
    );
  END LOOP;
END;
$$;
