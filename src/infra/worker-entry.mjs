// The first module of a WorkerPool thread (src/infra/worker-pool.ts): loads the thread's module,
// TypeScript source through tsx (vitest and tsx load no TypeScript into a new thread by
// themselves), or its build as is. Plain JavaScript so that it runs under tsx, vitest and node
// (`npm run build` copies it into dist).
import { workerData } from "node:worker_threads";

const { module } = workerData;
if (module.endsWith(".ts")) {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport(module, import.meta.url);
} else await import(module);
