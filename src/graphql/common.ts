// Types shared by several domains: role and visibility enums, positions, page → connection.
import {
  defaultFieldResolver,
  type FieldNode,
  getDirectiveValues,
  type GraphQLResolveInfo,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { ROLES } from "../core/auth/roles.ts";
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

/** One edge of a connection; its cursor is encoded only when asked for (REST lists read the last one only). */
class Edge<T> {
  constructor(
    readonly node: T,
    private readonly page: Page<T>,
  ) {}

  get cursor(): string {
    return this.page.cursorOf(this.node);
  }
}

/**
 * A connection's page info; its cursors, like an edge's, are encoded only when asked for (a REST
 * list reads `endCursor` only; encoding one cost ~25 us in a list's profile).
 */
class PageInfo<T> {
  constructor(
    private readonly edges: Edge<T>[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}

  get startCursor(): string | null {
    return this.edges.length ? this.edges[0].cursor : null;
  }

  get endCursor(): string | null {
    return this.edges.length ? this.edges[this.edges.length - 1].cursor : null;
  }
}

/** A core page as the connection object Pothos expects. */
export function toConnection<T>(page: Page<T>) {
  const edges = page.items.map((node) => new Edge(node, page));
  return { edges, totalCount: page.totalCount, pageInfo: new PageInfo(edges, page.hasNextPage, page.hasPreviousPage) };
}

/**
 * The names of the fields a connection field selects on its items (`nodes { … }` and
 * `edges { node { … } }`), through fragments, leaving out what `@skip`/`@include` leave out: a
 * list loads in one go, before its items resolve, what their fields will read (issue 15).
 */
export function selectedNodeFields(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = visitor(info);
  const addName = (field: FieldNode) => names.add(field.name.value);
  for (const fieldNode of info.fieldNodes) {
    visit(fieldNode.selectionSet, (field) => {
      if (field.name.value === "nodes") visit(field.selectionSet, addName);
      else if (field.name.value === "edges")
        visit(field.selectionSet, (edge) => edge.name.value === "node" && visit(edge.selectionSet, addName));
    });
  }
  return names;
}

/** The names of the fields a field selects on its value, as selectedNodeFields finds them. */
export function selectedFields(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = visitor(info);
  for (const fieldNode of info.fieldNodes) visit(fieldNode.selectionSet, (field) => names.add(field.name.value));
  return names;
}

/** Walks a selection set's fields, through fragments, leaving out what `@skip`/`@include` leave out. */
function visitor(info: GraphQLResolveInfo) {
  const visit = (selectionSet: SelectionSetNode | undefined, onField: (field: FieldNode) => void) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (!included(selection, info.variableValues)) continue;
      if (selection.kind === Kind.FIELD) onField(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, onField);
      else visit(info.fragments[selection.name.value]?.selectionSet, onField);
    }
  };
  return visit;
}

function included(selection: SelectionNode, variables: Record<string, unknown>): boolean {
  if (!selection.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false;
}

/**
 * The resolver of a field answered by its parent's property of the same name: graphql's default
 * resolver, given as the field's `resolve` where `t.expose` cannot type the property (a text column
 * holding an enum value, a node's id). Pothos builds such a field without a resolver (schema.ts
 * does the same for a node's id), so graphql-jit reads the property in its compiled code instead of
 * calling a function with a resolve info per item of a list (issue 15: a REST list of 100 spaces
 * made 16 such calls per space). An enum refuses a stored value outside it when it is serialized,
 * as the storage-types parsers do when read (the message is graphql's).
 */
export const ownProperty = defaultFieldResolver as <Parent>(parent: Parent) => never;

/** `CreatePageInput` → `createPage`: the mutation an input or payload type belongs to. */
const mutationOf = (typeName: string) => {
  const base = typeName.replace(/(Input|Payload)$/, "");
  return base[0].toLowerCase() + base.slice(1);
};

/** The description of a mutation's input type, from its name. */
export const inputDescription = (typeName: string) => `Input of the ${mutationOf(typeName)} mutation`;

/** The description of a mutation's payload type, from its name. */
export const payloadDescription = (typeName: string) => `Result of the ${mutationOf(typeName)} mutation`;
