// Content-addressed bytes (`Blob`): stored once per SHA-256 and shared by every row that names the
// hash. Nothing deletes a blob when its last referrer goes (revisions leave with their space, specs
// with their organization), so `collectUnreferencedBlobs` sweeps them.
//
// Safety with concurrent writers: a writer may name a blob that exists already (its insert is
// skipped) but whose last referrer was just deleted. Writers therefore store blobs through
// `storeBlobs`, which takes a shared advisory lock held until their transaction commits; the
// collector takes the same lock exclusively, so it runs between writers and sees every reference
// they committed. Blobs younger than the grace period are never collected either.
import { Prisma } from "../generated/prisma/client.ts";
import type { Services } from "./context.ts";

/** Arbitrary constant key of the blob lock (advisory locks are per database). */
const BLOB_LOCK_KEY = 72_310_456;

/**
 * Every place a blob hash is kept, as SQL yielding the hashes. A writer names its referrer when
 * storing, so a new kind of reference cannot be added without teaching the collector about it.
 */
const BLOB_REFERRERS = {
  /** Page bodies (any depth of the tree), files and reusable contents of every revision. */
  revision: `SELECT jsonb_path_query(pages, 'strict $.**.body') #>> '{}' FROM "Revision"
    UNION ALL SELECT jsonb_path_query(files, 'strict $[*].blob') #>> '{}' FROM "Revision"
    UNION ALL SELECT jsonb_path_query("reusableContents", 'strict $[*].body') #>> '{}' FROM "Revision"`,
  /** A spec's submitted text and the files of each of its versions. */
  openapiSpec: `SELECT "sourceTextHash" FROM "OpenAPISpec"
    UNION ALL SELECT jsonb_path_query(files, 'strict $[*].hash') #>> '{}' FROM "OpenAPISpecVersion"`,
  /** The bytes a signed storage upload URL accepted (src/core/storage). */
  storageUpload: `SELECT "blobHash" FROM "StorageUpload" WHERE "blobHash" IS NOT NULL`,
} as const;

export type BlobReferrer = keyof typeof BLOB_REFERRERS;

export type BlobRow = Prisma.BlobCreateManyInput;

/** Stores `rows` (existing hashes are kept) for a row of `referrer` written in the same transaction. */
export async function storeBlobs(tx: Prisma.TransactionClient, _referrer: BlobReferrer, rows: BlobRow[]): Promise<void> {
  if (!rows.length) return;
  await tx.$queryRaw`SELECT pg_advisory_xact_lock_shared(${BLOB_LOCK_KEY})::text`;
  // The bytes travel as base64 text decoded by the database: on PGlite a 2 MB bytea parameter
  // costs over a second of the main thread (every request waits), base64 about a fifth of that.
  for (let start = 0; start < rows.length; start += BLOB_ROWS_PER_INSERT) {
    const values = rows
      .slice(start, start + BLOB_ROWS_PER_INSERT)
      .map((row) => Prisma.sql`(${row.hash}, decode(${Buffer.from(row.data).toString("base64")}, 'base64'), ${row.size})`);
    await tx.$executeRaw`INSERT INTO "Blob" (hash, data, size) VALUES ${Prisma.join(values)} ON CONFLICT (hash) DO NOTHING`;
  }
}

/** Rows per INSERT statement (three parameters each, far below PostgreSQL's 65535). */
const BLOB_ROWS_PER_INSERT = 1000;

/**
 * Deletes blobs older than `graceMs` that no referrer names; returns how many. Age is measured by
 * the database's clock, the one that stamped `createdAt`.
 */
export async function collectUnreferencedBlobs(services: Services, graceMs: number): Promise<number> {
  const referenced = Object.values(BLOB_REFERRERS).join("\n    UNION ALL ");
  return services.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(${BLOB_LOCK_KEY})::text`;
    return tx.$executeRawUnsafe(
      `DELETE FROM "Blob" b WHERE b."createdAt" < now() - make_interval(secs => $1::float8 / 1000)
        AND NOT EXISTS (SELECT 1 FROM (${referenced}) AS referenced(hash) WHERE referenced.hash = b.hash)`,
      graceMs,
    );
  });
}
