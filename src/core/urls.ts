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

  graphiql(): string {
    return this.absolute("/graphql");
  }
}
