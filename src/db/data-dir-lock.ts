// One process owns an embedded database's data directory at a time.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

/** Lock files this process holds, to tell "our own live pid" from "our pid reused after restart". */
const heldLocks = new Set<string>();

/**
 * Takes `<dataDir>/.lock` (holding our pid) or throws. The file is written aside and hard-linked
 * into place, so it appears atomically with its content and link() fails if it already exists.
 * A lock whose pid is dead is stale and taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = resolve(dataDir, ".lock");
  const temp = `${lockFile}.${process.pid}`;
  writeFileSync(temp, String(process.pid));
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temp, lockFile);
        heldLocks.add(lockFile);
        return () => {
          heldLocks.delete(lockFile);
          rmSync(lockFile, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let pid: number;
      try {
        pid = Number(readFileSync(lockFile, "utf8").trim());
      } catch {
        continue; // released between link() and read: try again
      }
      // Our own pid counts as alive only if we really hold it: in a restarted container the app
      // often gets the same pid (e.g. 1) as in its previous life.
      const alive = pid === process.pid ? heldLocks.has(lockFile) : isAlive(pid);
      if (alive) {
        throw new Error(
          `Data directory ${dataDir} is in use by another process (pid ${pid}). ` + `Stop it, or set DATA_DIR to another directory.`,
        );
      }
      // Stale (owner died without releasing). Two processes taking over the same stale lock at
      // the same instant could both win; that needs a crash and a double start together.
      rmSync(lockFile, { force: true });
    }
    throw new Error(`Could not lock data directory ${dataDir}: ${lockFile} keeps changing.`);
  } finally {
    rmSync(temp, { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by another user
  }
}
