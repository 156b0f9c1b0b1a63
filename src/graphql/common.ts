// Types shared by several domains: role and visibility enums, positions, page → connection.
import { ROLES } from "../auth/roles.ts";
import type { Page } from "../core/pagination.ts";
import { SPACE_EDIT_MODES, SPACE_VISIBILITIES } from "../core/spaces/index.ts";
import { builder } from "./builder.ts";

/** GraphQL enum names are SCREAMING_CASE; the stored and REST values are kebab-case. */
export const enumName = (value: string) => value.toUpperCase().replace(/-/g, "_");

function enumOf<T extends string>(name: string, description: string, values: readonly T[]) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [enumName(value), { value }])) as Record<string, { value: T }>,
  });
}

export const MemberRole = enumOf("MemberRole", "Role of a member, or level of access to content", ROLES);
export const ContentVisibility = enumOf("ContentVisibility", "Who can access a space", SPACE_VISIBILITIES);
export const SpaceEditMode = enumOf("SpaceEditMode", "live: direct edits; locked: all edits locked", SPACE_EDIT_MODES);

export const ContentPositionInput = builder.inputType("ContentPositionInput", {
  description: "Where to put an item among its siblings; the ids are of spaces or collections. Default: last.",
  fields: (t) => ({
    before: t.id(),
    after: t.id(),
  }),
});

/** A core page as the connection object Pothos expects. */
export function toConnection<T>(page: Page<T>) {
  const edges = page.items.map((node) => ({ cursor: page.cursorOf(node), node }));
  return {
    edges,
    totalCount: page.totalCount,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
