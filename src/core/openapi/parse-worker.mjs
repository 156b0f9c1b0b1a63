// Parses and validates the files of one OpenAPI spec off the main thread (a 2 MB YAML file takes
// a second of CPU), in a worker with a bounded heap. Plain JavaScript so that it runs as is under
// tsx, vitest and node alike.
//
// Messages in: { type: "parse", path, text } → { refs } (the external $refs of that file, as
// written) or { error }; { type: "validate" } → { valid, errors } over every file parsed so far.
import { parentPort } from "node:worker_threads";
import { validate } from "@scalar/openapi-parser";
import { parseDocument } from "yaml";

/** path → { dir, filename, specification, references } */
const files = new Map();

function parse(text) {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new Error(`invalid JSON: ${error.message}`);
    }
  }
  const document = parseDocument(text, { uniqueKeys: false, maxAliasCount: 1000 });
  if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors[0].message}`);
  return document.toJS({ maxAliasCount: 1000 });
}

/**
 * The path, relative to the spec's folder, of the file an external `$ref` written in `path` names:
 * `./schemas.yaml` from `openapi.yaml` is `schemas.yaml`, `../owner.yaml` from `types/tag.yaml` is
 * `owner.yaml`. The main thread names the fetched files the same way (the URL resolved against the
 * file's URL), and the validator looks a `$ref` up by that name, as written, so each `$ref` is
 * rewritten to it before validation. Null when the reference is not a relative URL.
 */
function canonicalPath(path, external) {
  try {
    const from = new URL(path.split("/").map(encodeURIComponent).join("/"), "http://spec.invalid/");
    const target = new URL(external, from);
    if (target.origin !== from.origin) return null;
    return decodeURIComponent(target.pathname.slice(1));
  } catch {
    return null;
  }
}

/** Rewrites every external `$ref` of the value (written in the file `path`) to its canonical path. */
function canonicalizeRefs(value, path) {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (item && typeof item === "object") stack.push(item);
    } else if (node && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        if (key === "$ref" && typeof child === "string") {
          const hash = child.indexOf("#");
          const external = hash === -1 ? child : child.slice(0, hash);
          const canonical = external ? canonicalPath(path, external) : null;
          if (canonical !== null) node.$ref = canonical + (hash === -1 ? "" : child.slice(hash));
        } else if (child && typeof child === "object") stack.push(child);
      }
    }
  }
}

/** The external part (before `#`) of every `$ref` in the value, once each, in order. */
function externalRefs(value) {
  const refs = new Set();
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (item && typeof item === "object") stack.push(item);
    } else if (node && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        if (key === "$ref" && typeof child === "string") {
          const external = child.split("#")[0];
          if (external) refs.add(external);
        } else if (child && typeof child === "object") stack.push(child);
      }
    }
  }
  return [...refs];
}

const dirOf = (path) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "./");

parentPort.on("message", async (message) => {
  try {
    if (message.type === "parse") {
      const specification = parse(message.text);
      if (!specification || typeof specification !== "object" || Array.isArray(specification)) {
        throw new Error("the file is not a JSON or YAML object");
      }
      const refs = externalRefs(specification);
      canonicalizeRefs(specification, message.path);
      files.set(message.path, { dir: dirOf(message.path), filename: message.path, specification, references: refs });
      parentPort.postMessage({ refs });
    } else if (message.type === "validate") {
      const filesystem = [...files.values()].map((file, index) => ({ ...file, isEntrypoint: index === 0 }));
      const result = await validate(filesystem);
      parentPort.postMessage({
        valid: result.valid,
        errors: (result.errors ?? []).map((error) => ({
          code: error.code,
          message: error.path ? `${error.path}: ${error.message}` : error.message,
        })),
      });
    }
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
