// Absolute URLs of the API (`urls.location`) and of the app (`urls.app`), from PUBLIC_URL.
export class Urls {
  constructor(private readonly publicUrl: string) {}

  api(path: string): string {
    return `${this.publicUrl}/v1${path}`;
  }

  app(path: string): string {
    return `${this.publicUrl}/app${path}`;
  }

  /** Where published sites are read: `/sites/{siteId}/…`. */
  site(path: string): string {
    return `${this.publicUrl}/sites${path}`;
  }

  graphiql(): string {
    return `${this.publicUrl}/graphql`;
  }
}
