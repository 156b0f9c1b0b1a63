-- The remote commit the space was last synchronized with (issue 32): an export refuses a remote
-- branch that moved since, naming the files changed there, instead of replacing them.
ALTER TABLE "GitSync" ADD COLUMN "syncedCommit" TEXT;
