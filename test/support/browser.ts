// A real headless browser for page tests: Debian's Chromium (package `chromium`, installed by
// .ci/run) driven by playwright-core. Playwright's own browser downloads do not work offline, so
// the executable is the system one; CHROMIUM_PATH overrides it.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Launches headless Chromium with the flags this closed network needs (no background traffic). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`No Chromium at ${chromiumPath}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
