/** Whether a value that may or may not be a promise is one: the one check for the code that answers without a promise when it can. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === "function";
