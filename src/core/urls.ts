// Absolute URLs of the API (`urls.location`), the app (`urls.app`) and the other routes served
// beside them (file downloads, PDFs, SAML), all from PUBLIC_URL (config.ts strips trailing slashes).
export class Urls {
  constructor(readonly publicUrl: string) {}

  /** PUBLIC_URL + `path` (a path from the root, starting with `/`). */
  absolute(path: string): string {
    return `${this.publicUrl}${path}`;
  }

  api(path: string): string {
    return this.absolute(`/v1${path}`);
  }

  app(path: string): string {
    return this.absolute(`/app${path}`);
  }

  /** Where published sites are read: `/sites/{siteId}/…`. */
  site(path: string): string {
    return this.absolute(`/sites${path}`);
  }

  /**
   * The public HTTP endpoint of an integration: any method and sub-path under it is delivered to
   * its script as a `fetch` event (src/core/integrations/endpoints.ts). GitBook serves these on an
   * origin of their own as `/v1/integrations/{name}/integration`; here they share the API's origin.
   */
  integrationEndpoint(name: string): string {
    return this.api(`/integrations/${name}/integration`);
  }

  /**
   * The public HTTP endpoint of an installation. Under the integration's (not at GitBook's
   * `/v1/integrations/{name}/installations/{id}`, which on this origin is the REST installation
   * with its `tokens`, `spaces`, `sites` and site scripts).
   */
  installationEndpoint(name: string, installationId: string): string {
    return this.api(`/integrations/${name}/integration/installations/${installationId}`);
  }

  /**
   * The public HTTP endpoint of an installation on one space or site (`spaces/{spaceId}` or
   * `sites/{siteId}` under the installation's): its `fetch` events carry the `spaceId` or `siteId`
   * and the environment the space or site installation, as `@gitbook/runtime` integrations expect
   * when they route under `environment.spaceInstallation.urls.publicEndpoint`.
   */
  contentInstallationEndpoint(name: string, installationId: string, path: `spaces/${string}` | `sites/${string}`): string {
    return `${this.installationEndpoint(name, installationId)}/${path}`;
  }

  graphiql(): string {
    return this.absolute("/graphql");
  }
}
