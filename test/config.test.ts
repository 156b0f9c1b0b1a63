// Configuration: every variable validated at start-up (zod), every wrong one named in one error,
// secrets never echoed, and docs/configuration.md's table lists exactly the variables the service reads.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_GRAPHQL_LIMITS, loadConfig, variables } from "../src/config.ts";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("has defaults for a local demo", () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: "127.0.0.1",
      publicUrl: "http://localhost:4000",
      databaseUrl: undefined,
      databaseConnectTimeoutMs: 10_000,
      databaseDirectReads: true,
      dataDir: "./data",
      seedDemo: true,
      filesSecret: undefined,
      git: {
        dataDir: "./data/git",
        timeoutMs: 120_000,
        maxFiles: 20_000,
        maxFileBytes: 10485760,
        maxPushBytes: 209715200,
        maxRepositoryBytes: 1073741824,
      },
      gitSyncRepositories: [],
      importAllowPrivateHosts: false,
      openapiRefetchIntervalHours: 24,
      integrations: {
        cpuMs: 1000,
        memoryMb: 128,
        timeoutMs: 10_000,
        eventAttempts: 3,
        maxSandboxes: 8,
        allowedHosts: [],
        endpointMaxRequestBytes: 1_048_576,
        endpointMaxResponseBytes: 5_242_880,
        endpointEventsKept: 1000,
      },
      corsOrigins: [],
      logLevel: "info",
      shutdownTimeoutMs: 10_000,
      graphqlLimits: DEFAULT_GRAPHQL_LIMITS,
      graphiqlEnabled: true,
      introspectionEnabled: true,
      rateLimits: { perToken: 1200, perAddress: 300, credentialFailuresPerAddress: 30, windowSeconds: 60 },
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      visitorTokenMaxLifetimeSeconds: 604_800,
      organizationsPerUserMax: 10,
      realtime: { maxPerToken: 100, maxPerInstance: 10_000, maxQueuedEvents: 100 },
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      PUBLIC_URL: "https://docs.example.com/",
      DATABASE_URL: "postgres://u:p@db:5432/app",
      DATABASE_CONNECT_TIMEOUT_MS: "2500",
      DATABASE_DIRECT_READS: "false",
      DATA_DIR: "/var/lib/dps",
      SEED_DEMO: "0",
      FILES_SECRET: "9f2c71e0a4b85d36c1e7f09a2b4d6e8f13579bdf2468ace0",
      IMPORT_ALLOW_PRIVATE_HOSTS: "true",
      OPENAPI_REFETCH_INTERVAL_HOURS: "6",
      CORS_ORIGINS: "https://a.example.com, http://localhost:3000",
      LOG_LEVEL: "warn",
      SHUTDOWN_TIMEOUT_MS: "500",
      GRAPHQL_MAX_DEPTH: "8",
      GRAPHQL_MAX_ALIASES: "5",
      GRAPHQL_MAX_DIRECTIVES: "6",
      GRAPHQL_MAX_REPEATED_FIELDS: "12",
      GRAPHQL_MAX_TOKENS: "700",
      GRAPHQL_MAX_DOCUMENT_BYTES: "2048",
      GRAPHQL_MAX_BODY_BYTES: "4096",
      GRAPHQL_ANONYMOUS_BODY_BYTES: "0",
      GRAPHQL_MAX_COST: "900",
      GRAPHQL_MAX_NODE_IDS: "9",
      EXECUTION_TIMEOUT_MS: "1500",
      NODE_ENV: "production",
      GRAPHIQL_ENABLED: "yes",
      RATE_LIMIT_PER_TOKEN: "10",
      RATE_LIMIT_PER_ADDRESS: "5",
      RATE_LIMIT_WINDOW_SECONDS: "2",
      RATE_LIMIT_CREDENTIAL_FAILURES: "3",
      HEADERS_TIMEOUT_MS: "3000",
      REQUEST_TIMEOUT_MS: "4000",
      VISITOR_TOKEN_MAX_LIFETIME_SECONDS: "3600",
      ORGANIZATIONS_PER_USER_MAX: "2",
      INTEGRATION_CPU_MS: "250",
      INTEGRATION_MEMORY_MB: "64",
      INTEGRATION_TIMEOUT_MS: "3000",
      INTEGRATION_EVENT_ATTEMPTS: "4",
      INTEGRATION_MAX_SANDBOXES: "2",
      INTEGRATION_ALLOWED_HOSTS: "API.example.com, hooks.example.org",
      INTEGRATION_ENDPOINT_MAX_REQUEST_BYTES: "2048",
      INTEGRATION_ENDPOINT_MAX_RESPONSE_BYTES: "4096",
      INTEGRATION_ENDPOINT_EVENTS_KEPT: "50",
      GIT_DATA_DIR: "/srv/git",
      GIT_TIMEOUT_MS: "5000",
      GIT_MAX_FILES: "100",
      GIT_MAX_FILE_BYTES: "2048",
      GIT_MAX_PUSH_BYTES: "4096",
      GIT_MAX_REPOSITORY_BYTES: "8192",
      GIT_SYNC_REPOSITORIES: '[{"id": 7, "provider": "gitlab", "url": "https://oauth2:t@gitlab.example.com/docs/handbook.git"}]',
      REALTIME_MAX_SUBSCRIPTIONS_PER_TOKEN: "7",
      REALTIME_MAX_SUBSCRIPTIONS: "70",
      REALTIME_MAX_QUEUED_EVENTS: "3",
    });
    expect(config).toEqual({
      port: 8080,
      host: "0.0.0.0",
      publicUrl: "https://docs.example.com",
      databaseUrl: "postgres://u:p@db:5432/app",
      databaseConnectTimeoutMs: 2500,
      databaseDirectReads: false,
      dataDir: "/var/lib/dps",
      git: { dataDir: "/srv/git", timeoutMs: 5000, maxFiles: 100, maxFileBytes: 2048, maxPushBytes: 4096, maxRepositoryBytes: 8192 },
      gitSyncRepositories: [{ id: 7, provider: "gitlab", url: "https://oauth2:t@gitlab.example.com/docs/handbook.git" }],
      seedDemo: false,
      filesSecret: "9f2c71e0a4b85d36c1e7f09a2b4d6e8f13579bdf2468ace0",
      importAllowPrivateHosts: true,
      openapiRefetchIntervalHours: 6,
      integrations: {
        cpuMs: 250,
        memoryMb: 64,
        timeoutMs: 3000,
        eventAttempts: 4,
        maxSandboxes: 2,
        allowedHosts: ["api.example.com", "hooks.example.org"],
        endpointMaxRequestBytes: 2048,
        endpointMaxResponseBytes: 4096,
        endpointEventsKept: 50,
      },
      corsOrigins: ["https://a.example.com", "http://localhost:3000"],
      logLevel: "warn",
      shutdownTimeoutMs: 500,
      graphqlLimits: {
        maxDepth: 8,
        maxAliases: 5,
        maxDirectives: 6,
        maxRepeatedFields: 12,
        maxTokens: 700,
        maxDocumentBytes: 2048,
        maxBodyBytes: 4096,
        anonymousBodyBytes: 0,
        maxCost: 900,
        maxNodeIds: 9,
        executionTimeoutMs: 1500,
      },
      // Production turns introspection off; GraphiQL was asked for explicitly.
      graphiqlEnabled: true,
      introspectionEnabled: false,
      rateLimits: { perToken: 10, perAddress: 5, credentialFailuresPerAddress: 3, windowSeconds: 2 },
      headersTimeoutMs: 3000,
      requestTimeoutMs: 4000,
      visitorTokenMaxLifetimeSeconds: 3600,
      organizationsPerUserMax: 2,
      realtime: { maxPerToken: 7, maxPerInstance: 70, maxQueuedEvents: 3 },
    });
  });

  it("takes 1/0 and yes/no for flags, and an empty optional variable as unset", () => {
    expect(loadConfig({ SEED_DEMO: "0" }).seedDemo).toBe(false);
    expect([loadConfig({}).databaseDirectReads, loadConfig({ DATABASE_DIRECT_READS: "false" }).databaseDirectReads]).toStrictEqual([
      true,
      false,
    ]);
    expect(loadConfig({ SEED_DEMO: "yes" }).seedDemo).toBe(true);
    expect(loadConfig({ SEED_DEMO: "FALSE" }).seedDemo).toBe(false);
    expect(loadConfig({ DATABASE_URL: "", SEED_DEMO: "" })).toMatchObject({ databaseUrl: undefined, seedDemo: true });
  });

  it("refuses an empty or out-of-range PORT instead of listening on a random port", () => {
    expect(problemsOf({ PORT: "" })).toEqual(['PORT: expected a whole number from 0 to 65535 (got "")']);
    expect(problemsOf({ PORT: "70000" })[0]).toMatch(/^PORT: /);
    expect(problemsOf({ PORT: "80a" })[0]).toMatch(/^PORT: /);
  });

  it("refuses a flag it cannot read rather than guessing", () => {
    expect(problemsOf({ SEED_DEMO: "off" })).toEqual(['SEED_DEMO: expected true or false (or 1/0, yes/no) (got "off")']);
    expect(problemsOf({ IMPORT_ALLOW_PRIVATE_HOSTS: "nope" })[0]).toMatch(/^IMPORT_ALLOW_PRIVATE_HOSTS: expected true or false/);
  });

  it("refuses a DATABASE_URL that is not postgres(ql):// without echoing it (it holds a password)", () => {
    const [problem] = problemsOf({ DATABASE_URL: "mysql://root:hunter2@db/app" });
    expect(problem).toMatch(/^DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(problem).not.toContain("hunter2");
    expect(problemsOf({ FILES_SECRET: "short-secret" })).toEqual([
      "FILES_SECRET: must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)",
    ]);
  });

  it("refuses a placeholder key at start, whatever its length", () => {
    const placeholder = "looks like a placeholder, not a random key: use e.g. the output of `openssl rand -hex 32`";
    // The example compose.yaml once shipped, a repeated character, a word left to replace.
    for (const value of ["change-me-to-32-or-more-random-characters", "x".repeat(40), "0123456701234567012345670123456701"])
      expect(problemsOf({ FILES_SECRET: value }), value).toEqual([`FILES_SECRET: ${placeholder}`]);
    expect(problemsOf({ GIT_SYNC_KEY: "my-example-git-sync-key-0123456789abcdef" })).toEqual([`GIT_SYNC_KEY: ${placeholder}`]);
    // What `openssl rand -hex 32` and `openssl rand -base64 32` print.
    const hex = "b1946ac92492d2347c6235b4d2611184d0a6f2f27e9c6d5e8b0c4a1f3e7d2c90";
    const base64 = "q8Xr2mN0vLk5Tz7Wb3Yc9Hd1Fg6Js4Pa0Ue2Io8Ku6=";
    expect(loadConfig({ FILES_SECRET: hex, GIT_SYNC_KEY: base64 })).toMatchObject({ filesSecret: hex, gitSyncKey: base64 });
  });

  it("takes Ask's model as an http(s) URL with a model name, its key never echoed", () => {
    expect(loadConfig({ ASK_MODEL_URL: "https://models.example.com/v1", ASK_MODEL_NAME: "small", ASK_MODEL_KEY: "sk-1" }).askModel).toEqual(
      {
        url: "https://models.example.com/v1",
        name: "small",
        key: "sk-1",
        timeoutMs: 20_000,
        concurrency: 8,
      },
    );
    expect(loadConfig({}).askModel).toBeUndefined();
    expect(problemsOf({ ASK_MODEL_URL: "file:///etc/passwd", ASK_MODEL_NAME: "small" })[0]).toMatch(/^ASK_MODEL_URL: /);
    expect(problemsOf({ ASK_MODEL_URL: "https://models.example.com/v1" })).toEqual([
      "ASK_MODEL_NAME: needed with ASK_MODEL_URL (the model to ask for)",
    ]);
    expect(problemsOf({ ASK_MODEL_KEY: "", ASK_MODEL_TIMEOUT_MS: "10" }).join()).not.toContain("sk-");
  });

  it("refuses a GIT_SYNC_REPOSITORIES that is not a list of { id, provider, url }, naming the entry", () => {
    expect(() => loadConfig({ GIT_SYNC_REPOSITORIES: "[" })).toThrow(/GIT_SYNC_REPOSITORIES: expected JSON/);
    expect(() => loadConfig({ GIT_SYNC_REPOSITORIES: '[{"id": 1, "provider": "bitbucket", "url": "https://x.example/a.git"}]' })).toThrow(
      /GIT_SYNC_REPOSITORIES\[0\]\["provider"\]/,
    );
    expect(() =>
      loadConfig({
        GIT_SYNC_REPOSITORIES:
          '[{"id": 1, "provider": "github", "url": "https://x.example/a.git"}, {"id": 1, "provider": "github", "url": "https://x.example/b.git"}]',
      }),
    ).toThrow(/github repository 1 is listed twice/);
  });

  it("names every wrong variable at once", () => {
    const problems = problemsOf({
      PORT: "x",
      PUBLIC_URL: "ftp://host",
      LOG_LEVEL: "loud",
      CORS_ORIGINS: "https://a.example.com/path",
      SHUTDOWN_TIMEOUT_MS: "-1",
    });
    expect(problems.map((problem) => problem.split(":")[0]).sort()).toEqual([
      "CORS_ORIGINS",
      "LOG_LEVEL",
      "PORT",
      "PUBLIC_URL",
      "SHUTDOWN_TIMEOUT_MS",
    ]);
    expect(() => loadConfig({ PORT: "x" })).toThrow(/^Invalid configuration:\n {2}PORT: /);
  });
});

describe("docs/configuration.md", () => {
  it("documents exactly the variables the service reads", () => {
    const section = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(variables).sort());
  });
});
