// The container set-up, checked without Docker (this machine has none): compose.yaml parsed as
// Compose reads it (YAML merge keys, `${VAR:-default}`), two app instances on one PostgreSQL with
// health checks, each instance's environment accepted by the service's own configuration
// schema; the Dockerfile multi-stage, non-root, listening on every interface, signals to node.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, "utf8");

/** A key as an operator gives it (`openssl rand -hex 32`). */
const FILES_SECRET = "5e0b7c2a9d14f863b2a0c7e1d95f4a38c6b1e02f7d9a4c851b3e6f0a2d7c9e14";

/** `${NAME:-default}`, `${NAME:?message}` and `${NAME}` as Compose substitutes them, from `env`. */
const interpolate = (value: string, env: Record<string, string> = { FILES_SECRET }) =>
  value.replace(/\$\{(\w+)(?:(:?-|:?\?)([^}]*))?\}/g, (_all, name: string, kind: string | undefined, rest: string) => {
    if (env[name]) return env[name];
    if (kind?.endsWith("?")) throw new Error(`${name}: ${rest}`);
    return kind ? rest : "";
  });

interface Service {
  image?: string;
  build?: string | { context: string };
  environment?: Record<string, string | number | boolean>;
  healthcheck?: { test: string[] | string; interval?: string; retries?: number };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  stop_grace_period?: string;
}

const compose = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
const apps = Object.entries(services).filter(([, service]) => service.build !== undefined);
const [postgresName, postgres] = Object.entries(services).find(([, service]) => service.image?.startsWith("postgres:")) ?? [];

describe("compose.yaml", () => {
  it("runs two instances built from the Dockerfile and one PostgreSQL, each with a health check", () => {
    expect(apps.map(([name]) => name)).toEqual(["app-1", "app-2"]);
    expect(postgresName).toBe("postgres");
    expect(Object.keys(services).sort()).toEqual(["app-1", "app-2", "postgres"]);
    for (const [, service] of Object.entries(services)) {
      expect(service.healthcheck?.test).toBeDefined();
      expect(service.healthcheck?.retries).toBeGreaterThan(0);
    }
    // The app's check asks /ready (database reachable, migrations applied), not just /health.
    for (const [, app] of apps) expect(String(app.healthcheck!.test)).toContain("/ready");
    expect(String(postgres!.healthcheck!.test)).toContain("pg_isready");
    // PostgreSQL keeps its data in a named volume.
    expect(compose.volumes).toHaveProperty("postgres-data");
  });

  it("points every instance at that PostgreSQL with settings the service accepts", () => {
    const postgresEnv = postgres!.environment!;
    const secrets = new Set<string>();
    for (const [name, app] of apps) {
      const env = Object.fromEntries(Object.entries(app.environment!).map(([key, value]) => [key, interpolate(String(value))]));
      const config = loadConfig(env);
      const url = new URL(config.databaseUrl!);
      expect(url.hostname, name).toBe(postgresName);
      expect(decodeURIComponent(url.username)).toBe(postgresEnv.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(postgresEnv.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${postgresEnv.POSTGRES_DB}`);
      expect(config.host).toBe("0.0.0.0");
      expect(config.filesSecret).toBeDefined();
      secrets.add(config.filesSecret!);
      // Reachable from the host on its own port, and PUBLIC_URL names that port.
      const [published, inside] = app.ports![0].split(":");
      expect(inside).toBe(String(config.port));
      expect(config.publicUrl).toBe(`http://localhost:${published}`);
      expect(app.depends_on?.postgres).toEqual({ condition: "service_healthy" });
      expect(app.stop_grace_period).toBeDefined();
    }
    // One signing key for both (a file URL from one instance works on the other), the operator's.
    expect([...secrets]).toEqual([FILES_SECRET]);
    // Exactly one instance seeds the demo, and the other starts after it is healthy.
    expect(
      apps.map(
        ([, app]) =>
          loadConfig(Object.fromEntries(Object.entries(app.environment!).map(([key, value]) => [key, interpolate(String(value))])))
            .seedDemo,
      ),
    ).toEqual([true, false]);
    expect(services["app-2"].depends_on?.["app-1"]).toEqual({ condition: "service_healthy" });
  });

  it("will not start without a FILES_SECRET of the operator's (no example key to forget)", () => {
    for (const [name, app] of apps)
      expect(() => interpolate(String(app.environment!.FILES_SECRET), {}), name).toThrow(/FILES_SECRET: set FILES_SECRET to a random key/);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const stages = instructions.filter((line) => /^FROM /i.test(line));

  it("builds in one stage and runs from another, as a user that is not root", () => {
    expect(stages).toEqual(["FROM node:24-bookworm-slim AS build", "FROM node:24-bookworm-slim AS runtime"]);
    // Node's major version is the one of .nvmrc.
    expect(stages[0]).toContain(`node:${read(".nvmrc").trim()}-`);
    const runtime = instructions.slice(instructions.indexOf(stages[1]));
    expect(runtime.filter((line) => line.startsWith("COPY")).every((line) => line.includes("--from=build"))).toBe(true);
    const users = runtime.filter((line) => line.startsWith("USER "));
    expect(users).toEqual(["USER node"]);
    // USER comes before CMD: the server never runs as root.
    expect(runtime.findIndex((line) => line.startsWith("USER "))).toBeLessThan(runtime.findIndex((line) => line.startsWith("CMD ")));
  });

  it("listens on every interface, checks /ready, and runs node itself so that docker stop drains", () => {
    const env = instructions.find((line) => line.startsWith("ENV "))!;
    expect(env).toMatch(/HOST=0\.0\.0\.0/);
    expect(env).toMatch(/NODE_ENV=production/);
    expect(instructions.find((line) => line.startsWith("HEALTHCHECK "))).toContain("/ready");
    // Exec form: no shell in between, node is PID 1 and receives SIGTERM.
    expect(instructions.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
    const packageJson = JSON.parse(read("package.json"));
    expect(packageJson.scripts.start).toBe("exec node dist/src/main.js");
  });

  it("copies only files that exist, and leaves local state out of the build context", () => {
    for (const line of instructions.filter((line) => line.startsWith("COPY ") && !line.includes("--from="))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(existsSync(`${ROOT}${source}`), source).toBe(true);
    }
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", "dist", "data", ".git"]) expect(ignored).toContain(entry);
  });
});
