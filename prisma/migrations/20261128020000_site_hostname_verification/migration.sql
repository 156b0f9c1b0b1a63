-- A custom hostname routes readers only once proven by DNS (issue 28). Hostnames set before this
-- migration keep routing (their sites were already serving them); new and changed ones start pending.
ALTER TABLE "Site" ADD COLUMN "hostnameVerifiedAt" TIMESTAMP(3);
UPDATE "Site" SET "hostnameVerifiedAt" = CURRENT_TIMESTAMP WHERE "hostname" IS NOT NULL;
