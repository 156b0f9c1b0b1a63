// Prisma CLI configuration. Prisma 6.19 runs fully offline with its WebAssembly engines when the
// datasource goes through a driver adapter; the CLI still reads `url` from the schema, so a
// placeholder is set when no real DATABASE_URL is given (the app itself never uses it then).
import { defineConfig } from "prisma/config";

if (!process.env.DATABASE_URL) {
  process.env.DATABASE_URL = "postgresql://placeholder:placeholder@localhost:5432/placeholder";
}

export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    if (process.env.DATABASE_URL && !process.env.DATABASE_URL.includes("placeholder")) {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      return new PrismaPg({ connectionString: process.env.DATABASE_URL });
    }
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const { PGlite } = await import("@electric-sql/pglite");
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    // The PGlite adapter ships its own copy of Prisma's adapter types, hence the cast.
    return new PrismaPGlite(new PGlite()) as unknown as InstanceType<typeof PrismaPg>;
  },
});
