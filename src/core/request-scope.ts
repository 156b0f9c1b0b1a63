// What one request (or one page render) keeps for itself: loaders of a domain, memos, what the
// reader presented. Each module declares its slot once (`new ScopeSlot(...)`, a constant); the
// values live on the request's scope, so they die with the request and no module holds a table
// shared by every app in the process.

/** A value each request makes for itself on first use; `C` is what making it needs (e.g. the Prisma client). */
export class ScopeSlot<T, C = void> {
  constructor(
    /** Says what the value is, for a reader of the code and a debugger. */
    readonly name: string,
    readonly create: (context: C) => T,
    /** Dropped when the request's operation ends (`RequestScope.release`), like its loaders' rows. */
    readonly releasedAfterOperation = false,
  ) {}
}

export class RequestScope {
  // Made on first use: most requests use no slot, and a scope is made for every request.
  #values: Map<ScopeSlot<unknown, never>, unknown> | undefined;

  /** The request's value of `slot`, made on first use (from `context`). */
  get<T, C>(slot: ScopeSlot<T, C>, ...context: C extends void ? [] : [C]): T {
    this.#values ??= new Map();
    if (this.#values.has(slot)) return this.#values.get(slot) as T;
    const value = slot.create(context[0] as C);
    this.#values.set(slot, value);
    return value;
  }

  /** The value of `slot` if this request made one. */
  peek<T, C>(slot: ScopeSlot<T, C>): T | undefined {
    return this.#values?.get(slot) as T | undefined;
  }

  /** The operation is over: the memos marked so let go of what they hold (a later use starts afresh). */
  release(): void {
    if (!this.#values) return;
    for (const slot of this.#values.keys()) if (slot.releasedAfterOperation) this.#values.delete(slot);
  }
}
