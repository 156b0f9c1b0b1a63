-- Organizations created through the API remember their creator (a user may create a bounded
-- number of them); invite links may expire; invitations by e-mail are stored until the invitee
-- accepts them (src/core/members/invites.ts).
ALTER TABLE "Organization" ADD COLUMN "createdById" TEXT;
CREATE INDEX "Organization_createdById_idx" ON "Organization"("createdById");

ALTER TABLE "LinkInvite" ADD COLUMN "expiresAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "EmailInvite" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT,
    "sso" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EmailInvite_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "EmailInvite_organizationId_email_key" ON "EmailInvite"("organizationId", "email");
CREATE INDEX "EmailInvite_email_idx" ON "EmailInvite"("email");

ALTER TABLE "EmailInvite" ADD CONSTRAINT "EmailInvite_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
