// Operator actions that run without a caller: a first user, organization and token (the
// `bootstrap` command and the demo data of a first start).
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { issueToken } from "../auth/tokens.ts";
import { createCoreContext, type Services } from "../context.ts";
import { generateKeyBetween } from "fractional-indexing";
import { badInput, quote } from "../errors.ts";
import { isEmail } from "../email.ts";
import { newId } from "../ids.ts";
import { checkLength } from "../validate.ts";
import { createSite, setSitePublished } from "../sites/index.ts";
import { siteCustomization, updateSiteCustomization } from "../sites/customization.ts";
import { type SampleContent, seedSampleContent } from "./sample-content.ts";
import { issueTokenForEmail } from "../tokens/index.ts";

export interface BootstrapResult {
  organizationId: string;
  userId: string;
  token: string;
}

/** Creates (or reuses, by e-mail) a user, a new organization with that user as admin, and a token. */
export async function bootstrapOrganization(
  prisma: PrismaClient,
  input: { organizationTitle: string; email: string; displayName?: string },
): Promise<BootstrapResult> {
  const title = checkLength("org", input.organizationTitle, { min: 2, max: 255 });
  if (!isEmail(input.email)) throw badInput(`email ${quote(input.email)} is not an e-mail address`);
  const email = input.email.toLowerCase();
  const displayName = input.displayName ?? email.split("@")[0];
  const { organizationId, userId } = await prisma.$transaction(async (tx) => {
    const user = await tx.user.upsert({
      where: { email },
      update: {},
      create: { id: newId("User"), email, displayName },
    });
    const organization = await tx.organization.create({ data: { id: newId("Organization"), title } });
    await tx.member.create({ data: { organizationId: organization.id, userId: user.id, role: "admin" } });
    return { organizationId: organization.id, userId: user.id };
  });
  const token = await issueToken(prisma, userId, "bootstrap");
  return { organizationId, userId, token };
}

export interface DemoResult extends BootstrapResult {
  spaceId: string;
  content: SampleContent;
  /** The published site that shows the sample space. */
  siteId: string;
}

/**
 * On an empty database: a demo organization with one sample space and its sample content
 * (`sample-content.ts`), written as the demo user, and a public site that publishes it (with
 * "Was this page helpful?" on, so a newcomer sees every part of a page).
 * Returns null otherwise.
 */
/** The demo user's e-mail: the start banner names it, so `cli token --email` works at once. */
export const DEMO_EMAIL = "demo@example.com";

/**
 * A one-day token of the demo user, for GraphiQL and the banner on a later development start (the
 * first start's token is printed once and then lost); null once the demo user is gone.
 */
export async function issueDevelopmentToken(services: Services): Promise<{ email: string; token: string } | null> {
  const user = await services.prisma.user.findUnique({ where: { email: DEMO_EMAIL }, select: { id: true } });
  if (!user) return null;
  const { token } = await issueTokenForEmail(services.prisma, services.clock, {
    email: DEMO_EMAIL,
    label: "GraphiQL (development start)",
    expiresInDays: 1,
  });
  return { email: DEMO_EMAIL, token };
}

export async function seedDemo(services: Services): Promise<DemoResult | null> {
  const { prisma } = services;
  if ((await prisma.organization.count()) > 0) return null;
  const result = await bootstrapOrganization(prisma, {
    organizationTitle: "Demo organization",
    email: DEMO_EMAIL,
    displayName: "Demo user",
  });
  const collectionId = newId("Collection");
  const spaceId = newId("Space");
  const revisionId = newId("Revision");
  const first = generateKeyBetween(null, null);
  await prisma.$transaction([
    prisma.collection.create({
      data: { id: collectionId, organizationId: result.organizationId, title: "Guides", sortKey: first },
    }),
    prisma.space.create({
      data: {
        id: spaceId,
        organizationId: result.organizationId,
        parentId: collectionId,
        title: "Getting started",
        emoji: "1f680",
        sortKey: first,
        revisionId,
      },
    }),
    prisma.revision.create({ data: { id: revisionId, spaceId } }),
  ]);
  const viewer = await services.tokens.authenticate(`Bearer ${result.token}`);
  const ctx = createCoreContext(services, viewer);
  const content = await seedSampleContent(ctx, spaceId);
  const site = await createSite(ctx, { organizationId: result.organizationId, title: "Getting started", spaces: [spaceId] });
  await updateSiteCustomization(ctx, result.organizationId, site.id, { ...siteCustomization(site), feedback: { enabled: true } });
  await setSitePublished(ctx, result.organizationId, site.id, true);
  return { ...result, spaceId, content, siteId: site.id };
}
