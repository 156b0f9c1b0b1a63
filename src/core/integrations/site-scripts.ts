// Scripts of integrations injected into a site's published pages (`GET /v1/orgs/{organizationId}/
// sites/{siteId}/integration-scripts`, `Site.integrationScripts`), and the script URL each one
// names: fetching it sends a `fetch_published_script` event to the integration's script and
// answers what it returned as JavaScript, with the integration's `contentSecurityPolicy` as the
// `Content-Security-Policy` header (the contract's "sent as headers when script-fetch events are
// processed"); the published pages that load it merge that policy into theirs (csp.ts).
//
// A site has an integration's script when the integration has the `site:script:inject` scope and
// its installation in the site's organization is active and on the site (a site installation, or
// `site_selection: all`); `cookies` is whether it also has `site:script:cookies`.
import type { Integration, IntegrationInstallation, Prisma, Site } from "../../generated/prisma/client.ts";
import type { CoreContext, Services } from "../context.ts";
import { DomainError, notFound, quote } from "../errors.ts";
import type { PageScript } from "../sites/render.ts";
import { contentSecurityPolicyHeader } from "./csp.ts";
import { manifestOf } from "./installed.ts";

const INJECT_SCOPE = "site:script:inject";
const COOKIES_SCOPE = "site:script:cookies";
/** Longest a script fetch waits for the integration (the sandbox's own timeout may be shorter). */
const SCRIPT_FETCH_MAX_MS = 5000;
/** Largest script answered. */
const SCRIPT_MAX_BYTES = 1024 * 1024;

function onSite(organizationId: string, siteId: string): Prisma.IntegrationInstallationWhereInput {
  return {
    organizationId,
    status: "active",
    integration: { scopes: { has: INJECT_SCOPE } },
    OR: [{ siteSelection: "all" }, { sites: { some: { siteId, status: "active" } } }],
  };
}

/** Where a site loads an installation's script. */
export const scriptUrl = (services: Pick<Services, "urls">, integration: Integration, installationId: string, siteId: string) =>
  services.urls.api(`/integrations/${integration.name}/installations/${installationId}/sites/${siteId}/script.js?v=${integration.version}`);

/**
 * The scripts of a site's published pages (as `siteIntegrationScripts` lists them, in the same
 * order), each with its integration's Content-Security-Policy, which the page's merges (csp.ts):
 * one statement. The site cache key follows these installations (src/core/sites/serve.ts).
 */
export async function publishedPageScripts(services: Services, site: { id: string; organizationId: string }): Promise<PageScript[]> {
  const installations = await services.prisma.integrationInstallation.findMany({
    where: onSite(site.organizationId, site.id),
    select: { id: true, integration: true },
    orderBy: { id: "asc" },
  });
  return installations.map(({ integration, id }) => ({
    src: scriptUrl(services, integration, id, site.id),
    contentSecurityPolicy: contentSecurityPolicyHeader(manifestOf(integration).contentSecurityPolicy),
  }));
}

/** The published `SiteIntegrationScript` items of a site the caller reads (its resolver checked that). */
export async function siteIntegrationScripts(ctx: CoreContext, site: Site) {
  const installations = await ctx.prisma.integrationInstallation.findMany({
    where: onSite(site.organizationId, site.id),
    include: { integration: true },
    orderBy: { id: "asc" },
  });
  return installations.map(({ integration, id }) => {
    const contentSecurityPolicy = contentSecurityPolicyHeader(manifestOf(integration).contentSecurityPolicy);
    return {
      script: scriptUrl(ctx, integration, id, site.id),
      ...(contentSecurityPolicy ? { contentSecurityPolicy } : {}),
      cookies: integration.scopes.includes(COOKIES_SCOPE),
    };
  });
}

export interface FetchedScript {
  body: string;
  headers: Record<string, string>;
}

/**
 * The script of an installation on a site (anyone may fetch it: published pages load it): a
 * `fetch_published_script` event answered by the integration's script now, its body as
 * JavaScript with the integration's Content-Security-Policy. 404 when the installation does not
 * inject a script there; 502 when the script fails, times out or does not answer 2xx.
 */
export async function fetchPublishedScript(
  services: Services,
  name: string,
  installationId: string,
  siteId: string,
): Promise<FetchedScript> {
  const site = await services.prisma.site.findUnique({ where: { id: siteId }, select: { id: true, organizationId: true } });
  const installation: (IntegrationInstallation & { integration: Integration }) | null = site
    ? await services.prisma.integrationInstallation.findFirst({
        where: { id: installationId, integration: { name }, ...onSite(site.organizationId, site.id) },
        include: { integration: true },
      })
    : null;
  if (!site || !installation) throw notFound("integration script", `${name} on site ${siteId}`);
  const { integration } = installation;
  const runtime = services.integrations;
  const limit = Math.min(runtime.settings.timeoutMs, SCRIPT_FETCH_MAX_MS);
  const badGateway = (why: string) =>
    new DomainError("BAD_GATEWAY", `The integration ${quote(name)} could not answer its site script: ${why}`);
  const delivery = runtime.deliver(integration, installation, { type: "fetch_published_script", installationId, siteId });
  delivery.catch(() => {}); // abandoned after the deadline: its failure is nobody's
  let timer: NodeJS.Timeout | undefined;
  let answer: Awaited<typeof delivery>;
  try {
    answer = await Promise.race([
      delivery,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${limit} ms`)), limit);
      }),
    ]);
  } catch (error) {
    throw badGateway((error as Error).message);
  } finally {
    clearTimeout(timer);
  }
  if (answer.status < 200 || answer.status >= 300) throw badGateway(`it answered ${answer.status}`);
  if (Buffer.byteLength(answer.body) > SCRIPT_MAX_BYTES) throw badGateway(`its script is over ${SCRIPT_MAX_BYTES} bytes`);
  const headers: Record<string, string> = {
    "content-type": "application/javascript; charset=utf-8",
    "cache-control": "public, max-age=60",
    "x-content-type-options": "nosniff",
  };
  const policy = contentSecurityPolicyHeader(manifestOf(integration).contentSecurityPolicy);
  if (policy) headers["content-security-policy"] = policy;
  return { body: answer.body, headers };
}
