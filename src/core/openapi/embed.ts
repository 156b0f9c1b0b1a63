// The embed of one OpenAPI operation in a page's markdown: a fenced block whose language is
// `openapi-operation` and whose body names the spec (its slug), the method and the path, one
// `key: value` per line:
//
//     ```openapi-operation
//     spec: petstore
//     method: get
//     path: /pets/{petId}
//     ```
//
// In `format=document` it is the published `DocumentBlockOpenAPIOperation`
// (`{ type: 'openapi-operation', data: { ref: { kind: 'openapi', spec }, method, path } }`);
// published sites render it as an API reference (src/core/openapi/reference.ts). A block that
// does not name all three (or names an unknown method) stays an ordinary code block.

export const OPERATION_EMBED_LANGUAGE = "openapi-operation";
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface OperationEmbed {
  spec: string;
  method: (typeof HTTP_METHODS)[number];
  path: string;
}

/** The spec, method and path an embed's body names, or null when it is not a complete embed. */
export function parseOperationEmbed(body: string): OperationEmbed | null {
  const fields = new Map<string, string>();
  for (const line of body.split("\n")) {
    const match = line.match(/^\s*([a-zA-Z]+)\s*:\s*(.*?)\s*$/);
    if (match) fields.set(match[1]!.toLowerCase(), match[2]!.replace(/^["']|["']$/g, ""));
    else if (line.trim() !== "") return null;
  }
  const spec = fields.get("spec");
  const method = fields.get("method")?.toLowerCase();
  const path = fields.get("path");
  if (!spec || !path?.startsWith("/") || !method || !(HTTP_METHODS as readonly string[]).includes(method)) return null;
  return { spec, method: method as OperationEmbed["method"], path };
}

/** The markdown of an embed (what the README documents). */
export const operationEmbedMarkdown = (embed: OperationEmbed) =>
  `\`\`\`${OPERATION_EMBED_LANGUAGE}\nspec: ${embed.spec}\nmethod: ${embed.method}\npath: ${embed.path}\n\`\`\``;
