// What the database wrappers (instrument.ts, postgres-cancel.ts) share: the shape of a statement a
// driver adapter runs, and a proxy that swaps some of an adapter's methods once each.

/** A statement as Prisma hands it to a driver adapter. */
export interface SqlQuery {
  sql: string;
  args: unknown[];
}

type Method = (this: unknown, ...args: unknown[]) => Promise<unknown>;
type Made = (...args: never[]) => unknown;

/**
 * A proxy of `target` whose methods are `wrap(property, method)`'s function where it gives one,
 * else the method bound to `target`: each made once per method (a statement reads `queryRaw`
 * through two of these proxies; a function made at every access was garbage at every statement).
 */
export function cachedMethods<T extends object>(target: T, wrap: (property: string | symbol, method: Method) => Made | undefined): T {
  const made = new Map<string | symbol, { method: unknown; made: Made }>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      const known = made.get(property);
      if (known?.method === value) return known.made;
      const fn: Made = wrap(property, value as Method) ?? value.bind(object);
      made.set(property, { method: value, made: fn });
      return fn;
    },
  });
}
