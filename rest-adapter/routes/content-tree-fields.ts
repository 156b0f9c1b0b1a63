// REST inputs of the content tree that spaces and collections both take.
import { ROLES } from "../../src/core/auth/roles.ts";
import { compact, graphqlEnum } from "../route.ts";

/** `defaultLevel` in a REST body: a role, "inherit" or null (both inherit). */
export const defaultLevelInput = (value: unknown) =>
  value === "inherit" ? null : graphqlEnum("defaultLevel", value, [...ROLES, "inherit"]);

/** REST position pointers (`{ type: "space", space }`, `{ type: "collection", collection }`) → ids. */
export function positionInput(position: unknown) {
  if (typeof position !== "object" || position === null) return position;
  const pointer = (value: unknown) => {
    const { space, collection } = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
    const id = space ?? collection;
    return typeof id === "string" ? id : value;
  };
  const { before, after } = position as Record<string, unknown>;
  return compact({ before: pointer(before), after: pointer(after) });
}
