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
    before: t.id({ description: "Put it right before this sibling" }),
    after: t.id({ description: "Put it right after this sibling" }),
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

/** `CreatePageInput` → `createPage`: the mutation an input or payload type belongs to. */
const mutationOf = (typeName: string) => {
  const base = typeName.replace(/(Input|Payload)$/, "");
  return base[0].toLowerCase() + base.slice(1);
};

/** The description of a mutation's input type, from its name. */
export const inputDescription = (typeName: string) => `Input of the ${mutationOf(typeName)} mutation`;

/** The description of a mutation's payload type, from its name. */
export const payloadDescription = (typeName: string) => `Result of the ${mutationOf(typeName)} mutation`;
