-- The site whose Git Sync installation manages the space (issue 32): the realtime notification
-- carries it, so site-gitsync-operation follows the operations of the site's spaces. No foreign
-- key: it names the site as it was when the operation was asked for.
ALTER TABLE "GitSync" ADD COLUMN "siteId" TEXT;
