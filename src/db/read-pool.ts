// PostgreSQL's read pool: the reads `queryRows` names (raw-query.ts) run on connections of their
// own, as named prepared statements planned once (a generic plan).
import pg from "pg";

/** The read pool, beside the main one: same server and limits, `plan_cache_mode = force_generic_plan` (see preparedReads). */
export function openReadPool(options: pg.PoolConfig): pg.Pool {
  return new pg.Pool({ ...options, options: "-c plan_cache_mode=force_generic_plan" });
}

/** How many distinct statement texts of `queryRows` PostgreSQL keeps prepared, per connection of the read pool. */
const MAX_PREPARED_READS = 200;

/**
 * The names `queryRows`' statements are prepared under on PostgreSQL (issue 15). PostgreSQL parses
 * and plans an unnamed statement at every execution, and plans a named one for its values (a
 * custom plan) unless it judges a generic plan cheaper by estimated execution cost alone, which it
 * never does for the wide reads of src/core/loaders.ts (`= ANY($1)`): planning the space view
 * costs PostgreSQL ~0.6 ms, twice what executing it does. Named, and run on the read pool, whose
 * sessions have `plan_cache_mode = force_generic_plan`, a read is parsed and planned once per
 * connection, its values bound at each execution; as on the embedded database (`planOnce`), for
 * statements whose results do not depend on a plan's row order. Prisma's own statements stay on
 * the main pool, unnamed and planned as before. A name is never given to another text (pg refuses
 * that): past MAX_PREPARED_READS texts, the rest go unnamed to the main pool, as before.
 */
export function preparedReads(): (sql: string) => string | undefined {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_PREPARED_READS) names.set(sql, (name = `read_${names.size + 1}`));
    return name;
  };
}
