// Every /v1 route the service serves.
import type { RestRoute } from "../route.ts";
import { collectionRoutes } from "./collections.ts";
import { contentRoutes } from "./content.ts";
import { importRoutes, importRunRoutes } from "./import.ts";
import { gitSyncRoutes } from "./git-sync.ts";
import { memberRoutes } from "./members.ts";
import { organizationRoutes } from "./organizations.ts";
import { samlRoutes } from "./saml.ts";
import { searchRoutes } from "./search.ts";
import { spaceRoutes } from "./spaces.ts";
import { teamRoutes } from "./teams.ts";
import { linkRoutes } from "./links.ts";
import { changeRequestsRoutes } from "./change-requests.ts";
import { conversationRoutes } from "./conversations.ts";
import { commentsRoutes } from "./comments.ts";
import { pdfRoutes } from "./pdf.ts";
import { contentReusableContentRoutes, revisionRoutes } from "./revisions.ts";
import { siteRoutes } from "./sites.ts";
import { customHostnameRoutes } from "./custom-hostnames.ts";
import { grantRoutes } from "./grants.ts";
import { openapiRoutes } from "./openapi.ts";
import { reviewRoutes } from "./reviews.ts";
import { translationRoutes } from "./translations.ts";
import { fontRoutes } from "./fonts.ts";
import { glossaryRoutes } from "./glossary.ts";
import { storageRoutes } from "./storage.ts";
import { siteRedirectRoutes } from "./site-redirects.ts";
import { siteInsightsRoutes } from "./site-insights.ts";
import { siteFindingRoutes } from "./site-findings.ts";
import { siteExtraRoutes } from "./site-extras.ts";
import { integrationRoutes } from "./integrations.ts";
import { systemRoutes } from "./system.ts";
import { integrationBlockRoutes } from "./integration-blocks.ts";
import { inviteRoutes } from "./invites.ts";
import { urlLookupRoutes } from "./url-lookup.ts";
import { spaceTemplateRoutes } from "./space-templates.ts";
import { computedRoutes } from "./computed.ts";
import { auditRoutes } from "./audit.ts";
import { askRoutes } from "./ask.ts";

export const routes: RestRoute[] = [
  ...organizationRoutes,
  ...memberRoutes,
  ...teamRoutes,
  ...samlRoutes,
  ...collectionRoutes,
  ...spaceRoutes,
  ...contentRoutes,
  ...spaceTemplateRoutes,
  ...revisionRoutes,
  ...contentReusableContentRoutes,
  ...importRoutes,
  ...gitSyncRoutes,
  ...searchRoutes,
  ...askRoutes,
  ...linkRoutes,
  ...changeRequestsRoutes,
  ...conversationRoutes,
  ...commentsRoutes,
  ...pdfRoutes,
  ...grantRoutes,
  ...siteRoutes,
  ...customHostnameRoutes,
  ...openapiRoutes,
  ...reviewRoutes,
  ...translationRoutes,
  ...fontRoutes,
  ...glossaryRoutes,
  ...storageRoutes,
  ...importRunRoutes,
  ...siteRedirectRoutes,
  ...siteInsightsRoutes,
  ...siteFindingRoutes,
  ...siteExtraRoutes,
  ...integrationRoutes,
  ...systemRoutes,
  ...integrationBlockRoutes,
  // Issue 30, area 2: organizations, invites, users.
  ...inviteRoutes,
  // Issue 30: URL resolution and embeds.
  ...urlLookupRoutes,
  ...computedRoutes,
  ...auditRoutes,
];
