// The embed of an integration's block in a page's markdown: a fenced block whose language is
// `integration` and whose body is a small YAML mapping naming the integration, the block (an id
// of the integration's `blocks`, which is also the component rendered) and the props it is
// rendered with (a mapping; JSON `{ … }` is YAML too), as the `openapi-operation` embed does:
//
//     ```integration
//     integration: hello
//     block: hello-button
//     props:
//       label: docs
//     ```
//
// `url` (the unfurled URL) and `fullWidth` are optional keys. In `format=document` it is the
// published `DocumentBlockIntegration`
// (`{ object: "block", type: "integration", isVoid: true, data: { integration, block, props } }`);
// published sites render it through the integration's script (src/core/integrations/blocks.ts).
// A body that is not such a mapping (a missing or non-string name, props that are not a mapping,
// another key) stays an ordinary code block. Pure: no database, so the document converter can
// import it.
import { parse } from "yaml";

export const INTEGRATION_EMBED_LANGUAGE = "integration";
/** The embed's body is small: anything longer stays a code block (and is never parsed). */
const EMBED_MAX_CHARS = 16 * 1024;
const NAME = /^[a-zA-Z0-9-_.]+$/;
const KEYS: ReadonlySet<string> = new Set(["integration", "block", "props", "url", "fullWidth"]);

export interface IntegrationEmbed {
  integration: string;
  block: string;
  props: Record<string, unknown>;
  url?: string;
  fullWidth?: boolean;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** The integration, block and props an embed's body names, or null when it is not a complete embed. */
export function parseIntegrationEmbed(body: string): IntegrationEmbed | null {
  if (body.length > EMBED_MAX_CHARS) return null;
  let value: unknown;
  try {
    // JSON-compatible values only (no dates, no custom tags), and no alias expansion bombs.
    value = parse(body, { schema: "core", maxAliasCount: 0, uniqueKeys: true, logLevel: "error" });
  } catch {
    return null;
  }
  if (!isMapping(value) || Object.keys(value).some((key) => !KEYS.has(key))) return null;
  const { integration, block, props = {}, url, fullWidth } = value;
  if (typeof integration !== "string" || !NAME.test(integration)) return null;
  if (typeof block !== "string" || block.trim() === "") return null;
  if (!isMapping(props)) return null;
  if (url !== undefined && typeof url !== "string") return null;
  if (fullWidth !== undefined && typeof fullWidth !== "boolean") return null;
  return {
    integration,
    block,
    props,
    ...(url !== undefined ? { url } : {}),
    ...(fullWidth !== undefined ? { fullWidth } : {}),
  };
}

/** The published `DocumentBlockIntegration` of an embed. */
export function integrationDocumentBlock(embed: IntegrationEmbed) {
  return { object: "block" as const, type: "integration", isVoid: true, data: { ...embed } };
}
