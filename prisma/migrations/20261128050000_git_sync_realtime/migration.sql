-- Realtime notifications of Git Sync (issue 32): the space-git-info and space-gitsync-operation
-- channels follow a space's Git Sync state, git-sync-installation an installation.
CREATE TRIGGER "GitSync_notify_realtime" AFTER INSERT OR UPDATE OR DELETE ON "GitSync" FOR EACH ROW EXECUTE FUNCTION "notify_realtime"();
CREATE TRIGGER "GitSyncInstallation_notify_realtime" AFTER INSERT OR UPDATE OR DELETE ON "GitSyncInstallation" FOR EACH ROW EXECUTE FUNCTION "notify_realtime"();
