// The TXT lookups of custom-hostname verification, through the machine's resolver, bounded in time.
import { Resolver } from "node:dns/promises";
import type { TxtResolver } from "../core/sites/policy.ts";

export function systemTxtResolver({ timeoutMs = 5_000 }: { timeoutMs?: number } = {}): TxtResolver {
  // `timeout` is per try; two tries bound one lookup at about twice it.
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return (hostname) => resolver.resolveTxt(hostname);
}
