// The file through which the CLI finds a server that holds the embedded database: where it
// listens and the secret of its loopback token endpoint (`use-operator-token.ts`). Written with
// mode 0600 beside the database, removed at shutdown; a server that died leaves a file whose
// address no longer answers, which the CLI reports.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The server's loopback endpoint that issues tokens (`use-operator-token.ts`). */
export const OPERATOR_TOKEN_PATH = "/operator/token";

export interface OperatorFile {
  /** Loopback URL of the running server. */
  url: string;
  secret: string;
  pid: number;
}

const fileOf = (dataDir: string) => join(dataDir, "operator.json");

export function writeOperatorFile(dataDir: string, content: OperatorFile): void {
  writeFileSync(fileOf(dataDir), JSON.stringify(content), { mode: 0o600 });
}

export function readOperatorFile(dataDir: string): OperatorFile | null {
  try {
    const content = JSON.parse(readFileSync(fileOf(dataDir), "utf8")) as Partial<OperatorFile>;
    return typeof content.url === "string" && typeof content.secret === "string" ? (content as OperatorFile) : null;
  } catch {
    return null;
  }
}

export function removeOperatorFile(dataDir: string): void {
  rmSync(fileOf(dataDir), { force: true });
}

/** The loopback address a local client reaches a server listening on `host:port` by. */
export function loopbackUrl(host: string, port: number): string {
  return host === "::" || host === "::1" ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;
}
