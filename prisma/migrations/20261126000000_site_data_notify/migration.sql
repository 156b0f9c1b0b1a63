-- Published sites are served from what each instance keeps in memory of these tables (issue 10,
-- src/db/change-feed.ts, whose SITE_TABLES lists the same): every statement writing one of them
-- notifies channel site_data when its transaction commits (one notification per transaction:
-- PostgreSQL folds identical ones), and the instances LISTENing on it drop what they kept.
-- Statement-level: one call per statement, whatever the number of rows; cascaded deletes fire
-- them too.
CREATE FUNCTION "notify_site_data"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('site_data', '');
  RETURN NULL;
END;
$$;

DO $$
DECLARE
  watched text;
BEGIN
  FOREACH watched IN ARRAY ARRAY['Organization', 'Site', 'SiteSpace', 'SiteSection', 'SiteSectionGroup', 'SiteShareLink', 'Space', 'Integration', 'IntegrationInstallation', 'IntegrationSpaceInstallation', 'IntegrationSiteInstallation'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION "notify_site_data"()',
      watched || '_notify_site_data',
      watched
    );
  END LOOP;
END;
$$;
