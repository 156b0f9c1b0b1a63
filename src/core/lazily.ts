// A process-wide constant that is costly to build and seldom needed (a validator compiled from the
// published spec): built on first use. It depends on nothing an app holds, so every app in the
// process may share it.
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
