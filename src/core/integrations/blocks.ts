// Blocks of installed integrations: which ones a space may embed (`GET /v1/spaces/{spaceId}/
// integration-blocks`, `Space.integrationBlocks`) and how a published page renders an embed
// (src/core/integrations/embed.ts) through the integration's script.
//
// Where an integration counts as installed for a page: its installation in the page's
// organization is active, and it is on the page's space (a space installation, or
// `space_selection: all`) or, on a published site, on the site (a site installation, or
// `site_selection: all`). A space's block list follows the same rule without the site.
//
// Rendering is the render route's path (`IntegrationRuntime.render`: a `ui_render` event to the
// script, its answer checked as ContentKit), in a document context
// (`{ type: "document", spaceId, editable: false }`), then ContentKit → HTML
// (src/core/sites/contentkit-html.ts). A page never waits on scripts longer than one deadline
// (`min(timeoutMs, BLOCK_RENDER_MAX_MS)` from the page's first block, all blocks rendered at
// once), renders at most BLOCKS_PER_PAGE_MAX of them, and shows a small notice instead of a
// block that failed, timed out, or whose integration or block is not there. A failed block marks
// the page `volatile` (the site cache keeps it briefly); what a page shows of integrations is in
// the site cache key (src/core/sites/serve.ts), so a new version, configuration or installation
// renders it again.
import type { Integration, IntegrationInstallation } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { type BlockContext, escapeHtml as e, type FencedBlockKind } from "../sites/render.ts";
import { contentKitHtml } from "../sites/contentkit-html.ts";
import { requireSpace } from "../spaces/index.ts";
import { INTEGRATION_EMBED_LANGUAGE, parseIntegrationEmbed, type IntegrationEmbed } from "./embed.ts";
import { installedWhere, manifestOf } from "./installed.ts";
import { ScopeSlot } from "../request-scope.ts";

/** Longest a page waits for its integration blocks (the sandbox's own timeout may be shorter). */
export const BLOCK_RENDER_MAX_MS = 3000;
/** Integration blocks rendered on one page; those after it show a notice. */
export const BLOCKS_PER_PAGE_MAX = 20;

/** An integration block as its manifest declares it (the published `IntegrationBlock`). */
export interface IntegrationBlockJson {
  id: string;
  title: string;
  description?: string;
  icon?: string;
  urlUnfurl?: string[];
  markdown?: { codeblock: string; body: string };
}

export const blocksOf = (integration: Integration) => (manifestOf(integration).blocks ?? []) as IntegrationBlockJson[];

/** The blocks of the integrations installed on a space (readers of the space), by integration name. */
export async function spaceIntegrationBlocks(
  ctx: CoreContext,
  spaceId: string,
): Promise<{ integration: Integration; blocks: IntegrationBlockJson[] }[]> {
  const space = await requireSpace(ctx, spaceId, "space.read", { allowDeleted: true });
  const installations = await ctx.prisma.integrationInstallation.findMany({
    where: { ...installedWhere(space.organizationId, spaceId), integration: { hasBlocks: true } },
    include: { integration: true },
  });
  return installations
    .map(({ integration }) => ({ integration, blocks: blocksOf(integration) }))
    .sort((a, b) => a.integration.name.localeCompare(b.integration.name));
}

// ---------------------------------------------------------------------------------------------
// Rendering on published pages
// ---------------------------------------------------------------------------------------------

type Loaded = { html: string } | { notice: string };

/** Per page: when its blocks must be done (from the first one's start), and how many were started. */
const PAGE_BUDGET = new ScopeSlot("integration blocks' time budget of the page", (timeoutMs: number) => ({
  deadline: Date.now() + Math.min(timeoutMs, BLOCK_RENDER_MAX_MS),
  started: 0,
}));

const wrap = (embed: IntegrationEmbed, inner: string, extra = "") =>
  `<div class="integration-block${extra}" data-integration="${e(embed.integration)}" data-block="${e(embed.block)}">${inner}</div>`;

function renderBlock(content: string, _info: string, loaded?: unknown): string {
  const embed = parseIntegrationEmbed(content);
  if (!embed) return `<pre><code class="language-${INTEGRATION_EMBED_LANGUAGE}">${e(content)}</code></pre>`;
  const result = (loaded as Loaded | undefined) ?? { notice: "it could not be loaded" };
  if ("html" in result) return wrap(embed, result.html);
  return wrap(
    embed,
    `<p>This block of the integration “${e(embed.integration)}” is not available: ${e(result.notice)}.</p>`,
    " integration-missing",
  );
}

type Installed = IntegrationInstallation & { integration: Integration };

async function loadBlock(content: string, _info: string, context: BlockContext): Promise<Loaded> {
  const embed = parseIntegrationEmbed(content);
  if (!embed) return { notice: "it is not a complete embed" };
  const { services, organizationId, spaceId, siteId } = context;
  if (!spaceId) return { notice: "it is not in a space" };
  const runtime = services.integrations;
  const page = context.scope.get(PAGE_BUDGET, runtime.settings.timeoutMs);
  if (++page.started > BLOCKS_PER_PAGE_MAX) return { notice: `a page renders at most ${BLOCKS_PER_PAGE_MAX} integration blocks` };
  const log = services.logger.child({ integration: embed.integration, block: embed.block, siteId, spaceId });
  try {
    const installation: Installed | null = await services.prisma.integrationInstallation.findFirst({
      where: { ...installedWhere(organizationId, spaceId, siteId), integration: { name: embed.integration } },
      include: { integration: true },
    });
    if (!installation) return { notice: "the integration is not installed here" };
    const { integration } = installation;
    if (!blocksOf(integration).some((block) => block.id === embed.block)) return { notice: "the integration has no such block" };
    const event = {
      type: "ui_render",
      componentId: embed.block,
      props: embed.props,
      context: { type: "document", spaceId, editable: false, theme: "light" },
    };
    const remaining = Math.max(0, page.deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    const rendered = runtime.render(integration, installation, event);
    rendered.catch(() => {}); // abandoned after the deadline: its failure is nobody's
    const output = await Promise.race([
      rendered,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${remaining} ms`)), remaining);
      }),
    ]).finally(() => clearTimeout(timer));
    const answer = output.output as { type?: string; element?: unknown; state?: Record<string, unknown> };
    if (answer.type === "complete") return { html: "" };
    return {
      html: contentKitHtml(answer.element, { state: answer.state, log: (message) => log.warn(message) }),
    };
  } catch (error) {
    context.volatile = true;
    log.warn({ err: error }, "integration block could not be rendered on a published page");
    return { notice: "it could not be rendered" };
  }
}

/** Makes published pages render `integration` blocks through their scripts (called by createApp). */
/** The fenced block of an integration's block on published pages (`services.siteExtensions.blocks`). */
export const integrationBlock: FencedBlockKind = { render: renderBlock, load: loadBlock };
