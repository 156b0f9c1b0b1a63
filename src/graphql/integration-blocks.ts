// Blocks of the integrations installed on a space (`Space.integrationBlocks`; REST
// `GET /v1/spaces/{spaceId}/integration-blocks`), and the scripts integrations inject into a
// site (`Site.integrationScripts`). Rules in src/core/integrations/blocks.ts and site-scripts.ts.
import { type IntegrationBlockJson, spaceIntegrationBlocks } from "../core/integrations/blocks.ts";
import { siteIntegrationScripts } from "../core/integrations/site-scripts.ts";
import { builder } from "./builder.ts";
import { IntegrationRef } from "./integrations.ts";
import { SiteRef } from "./sites.ts";
import { SpaceRef } from "./spaces.ts";

const BlockMarkdown = builder.objectRef<{ codeblock: string; body: string }>("IntegrationBlockMarkdown").implement({
  description: "How the block is written as a markdown code block",
  fields: (t) => ({
    codeblock: t.exposeString("codeblock", { description: "Code block syntax that identifies the block" }),
    body: t.exposeString("body", { description: "Key of the property used as the body of the code block" }),
  }),
});

const IntegrationBlock = builder.objectRef<IntegrationBlockJson>("IntegrationBlock").implement({
  description: "A block an integration offers in pages (the published IntegrationBlock); its id is the component rendered",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Id of the block in the integration (the component rendered)" }),
    title: t.exposeString("title", { description: "Short title of the block" }),
    description: t.string({ description: "Longer description", nullable: true, resolve: (b) => b.description ?? null }),
    icon: t.string({ description: "URL of the block's icon", nullable: true, resolve: (b) => b.icon ?? null }),
    urlUnfurl: t.stringList({
      description: "URL patterns that become this block",
      nullable: true,
      resolve: (b) => (Array.isArray(b.urlUnfurl) ? b.urlUnfurl.map(String) : null),
    }),
    markdown: t.field({
      type: BlockMarkdown,
      description: "How the block is written as markdown, if the integration says",
      nullable: true,
      resolve: (b) => (b.markdown && typeof b.markdown.codeblock === "string" && typeof b.markdown.body === "string" ? b.markdown : null),
    }),
  }),
});

const SpaceIntegrationBlocks = builder
  .objectRef<Awaited<ReturnType<typeof spaceIntegrationBlocks>>[number]>("SpaceIntegrationBlocks")
  .implement({
    description: "The blocks of one integration installed on a space",
    fields: (t) => ({
      name: t.string({ description: "Name of the integration", resolve: (entry) => entry.integration.name }),
      integration: t.field({ type: IntegrationRef, description: "The integration", resolve: (entry) => entry.integration }),
      blocks: t.field({ type: [IntegrationBlock], description: "Its blocks", resolve: (entry) => entry.blocks }),
    }),
  });

builder.objectFields(SpaceRef, (t) => ({
  integrationBlocks: t.field({
    type: [SpaceIntegrationBlocks],
    description:
      "Blocks of the integrations installed on the space (active installations on it, or on all spaces of the organization), by integration name",
    resolve: (space, _args, { core }) => spaceIntegrationBlocks(core, space.id),
  }),
}));

// Scripts of integrations injected into a site's published pages (`Site.integrationScripts`;
// REST `GET /v1/orgs/{organizationId}/sites/{siteId}/integration-scripts`). Rules in
// src/core/integrations/site-scripts.ts.
const SiteIntegrationScript = builder
  .objectRef<Awaited<ReturnType<typeof siteIntegrationScripts>>[number]>("SiteIntegrationScript")
  .implement({
    description: "A script an integration injects into the site's published pages (the published SiteIntegrationScript)",
    fields: (t) => ({
      script: t.exposeString("script", { description: "URL of the script (served by this service from the integration's answer)" }),
      contentSecurityPolicy: t.string({
        description: "The integration's Content-Security-Policy for it, also sent as a header with the script",
        nullable: true,
        resolve: (entry) => entry.contentSecurityPolicy ?? null,
      }),
      cookies: t.exposeBoolean("cookies", { description: "Whether the script may use cookies (the site:script:cookies scope)" }),
    }),
  });

builder.objectFields(SiteRef, (t) => ({
  integrationScripts: t.field({
    type: [SiteIntegrationScript],
    description:
      "Scripts of the integrations installed on the site with the site:script:inject scope (active installations on it, or on all sites of the organization)",
    resolve: (site, _args, { core }) => siteIntegrationScripts(core, site),
  }),
}));
