// What Git Sync is configured with (Services.gitSync), apart from the sync itself so that Services
// can name it without importing the sync's code.
import { createHash, randomBytes } from "node:crypto";
import type { GitSyncRepositoryConfig } from "../../config.ts";

export interface GitSyncSettings {
  /** Seals remote credentials at rest (32 bytes). */
  key: Buffer;
  /** Lets remotes be loopback, private or `file://` (IMPORT_ALLOW_PRIVATE_HOSTS). */
  allowPrivateHosts: boolean;
  /** The repositories installations may connect to (GIT_SYNC_REPOSITORIES). */
  repositories: GitSyncRepositoryConfig[];
}

/** A key from the configured secret (any length of at least 32 characters). */
export function gitSyncKey(secret: string | undefined): Buffer {
  return secret ? createHash("sha256").update(secret, "utf8").digest() : randomBytes(32);
}
