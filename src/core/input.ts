// The one input boundary: every string a client sends (path, query, body, GraphQL variables and
// literals) is checked here before it reaches the core. PostgreSQL cannot store a NUL character
// and a lone UTF-16 surrogate has no UTF-8 form, so either would fail deep in a query as a 500;
// nesting deeper than any real input would exhaust the stack of whatever walks it later.
import { badInput } from "./errors.ts";

/** Deepest nesting of objects and arrays accepted in a body or in GraphQL variables. */
export const MAX_INPUT_DEPTH = 64;
/** Largest integer a column of the database holds (PostgreSQL `integer`). */
export const INT4_MAX = 2_147_483_647;

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` cannot be stored as text, or undefined when it can. */
export function unsafeTextReason(value: string): string | undefined {
  const match = UNSAFE.exec(value);
  if (!match) return undefined;
  return match[0] === "\u0000" ? "must not contain NUL characters" : "must not contain unpaired UTF-16 surrogates (invalid Unicode)";
}

/** Removes what cannot be stored as text (imported pages: the site's text is kept, its NULs are not). */
export const stripUnsafeText = (value: string) =>
  value.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "");

export interface InputProblem {
  /** Where, as a client names it: `title`, `edits[2].markdown`, `spaceId`. */
  field: string;
  message: string;
}

const fieldPath = (parent: string, key: string | number) =>
  typeof key === "number" ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * The first problem in a JSON-like value: an unsafe string (keys included), nesting deeper than
 * MAX_INPUT_DEPTH, or a number that is not finite. Walks with an explicit stack, so a hostile
 * nesting cannot overflow the call stack here.
 */
export function findInputProblem(value: unknown, field: string): InputProblem | undefined {
  const stack: { value: unknown; field: string; depth: number }[] = [{ value, field, depth: 0 }];
  while (stack.length) {
    const item = stack.pop()!;
    const { value: current, depth } = item;
    if (typeof current === "string") {
      const reason = unsafeTextReason(current);
      if (reason) return { field: item.field || "value", message: `${item.field || "value"} ${reason}` };
    } else if (typeof current === "number") {
      if (!Number.isFinite(current)) return { field: item.field, message: `${item.field} must be a finite number` };
    } else if (current !== null && typeof current === "object") {
      // Bytes are not text: an upload (a Blob or File, of any implementation) or a typed array is
      // not walked element by element (4 MiB were 4 million entries and seconds of GC); a file's
      // name is text and is checked.
      if (ArrayBuffer.isView(current) || current instanceof ArrayBuffer) continue;
      if (typeof (current as Blob).arrayBuffer === "function" && typeof (current as Blob).size === "number") {
        const name = (current as { name?: unknown }).name;
        if (typeof name === "string") stack.push({ value: name, field: fieldPath(item.field, "name"), depth: depth + 1 });
        continue;
      }
      if (depth >= MAX_INPUT_DEPTH) {
        return { field: item.field || "body", message: `${item.field || "body"} is nested more than ${MAX_INPUT_DEPTH} levels deep` };
      }
      if (Array.isArray(current)) {
        current.forEach((element, index) => stack.push({ value: element, field: fieldPath(item.field, index), depth: depth + 1 }));
      } else {
        for (const [key, element] of Object.entries(current)) {
          const reason = unsafeTextReason(key);
          if (reason) return { field: item.field || "body", message: `a key of ${item.field || "body"} ${reason}` };
          stack.push({ value: element, field: fieldPath(item.field, key), depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
}

/** Throws the 400 naming the field when `value` has a problem (see findInputProblem). */
export function checkInput(value: unknown, field: string): void {
  const problem = findInputProblem(value, field);
  if (problem) throw badInput(problem.message);
}
