// Permission grants on spaces and collections: mutations. A grant gives a role on one item (and,
// for a collection, everything beneath it) to one member or one team of its organization.
import { badInput } from "../core/errors.ts";
import { setCollectionGrant, setSpaceGrant } from "../core/grants/index.ts";
import { builder } from "./builder.ts";
import { CollectionRef } from "./collections.ts";
import { MemberRole } from "./common.ts";
import { SpaceRef } from "./spaces.ts";

/** `role` must be given: a role, or null to remove the grant (absence is refused, not taken as removal). */
function grantInput(input: { user?: string | null; team?: string | null; role?: string | null }) {
  if (input.role === undefined) throw badInput("role is required: a role, or null to remove the grant");
  return { user: input.user, team: input.team, role: input.role };
}

const SetSpaceGrantInput = builder.inputType("SetSpaceGrantInput", {
  description: "Exactly one of user and team",
  fields: (f) => ({
    space: f.id({ required: true }),
    user: f.id({ description: "A member's user id" }),
    team: f.id({ description: "A team of the space's organization" }),
    role: f.field({ type: MemberRole, description: "The role to give; null removes the grant (required)" }),
  }),
});

const SetCollectionGrantInput = builder.inputType("SetCollectionGrantInput", {
  description: "Exactly one of user and team",
  fields: (f) => ({
    collection: f.id({ required: true }),
    user: f.id({ description: "A member's user id" }),
    team: f.id({ description: "A team of the collection's organization" }),
    role: f.field({ type: MemberRole, description: "The role to give on the collection and what is beneath it; null removes the grant (required)" }),
  }),
});

builder.mutationFields((t) => ({
  setSpaceGrant: t.field({
    type: builder.simpleObject("SetSpaceGrantPayload", {
      fields: (p) => ({ space: p.field({ type: SpaceRef }), role: p.field({ type: MemberRole, nullable: true }) }),
    }),
    description: "Gives a member or a team a role on the space (replacing their grant there), or removes it (role null)",
    args: { input: t.arg({ type: SetSpaceGrantInput, required: true }) },
    resolve: (_root, { input }, { core }) => setSpaceGrant(core, input.space, grantInput(input)) as never,
  }),
  setCollectionGrant: t.field({
    type: builder.simpleObject("SetCollectionGrantPayload", {
      fields: (p) => ({ collection: p.field({ type: CollectionRef }), role: p.field({ type: MemberRole, nullable: true }) }),
    }),
    description: "Gives a member or a team a role on the collection and what is beneath it, or removes it (role null)",
    args: { input: t.arg({ type: SetCollectionGrantInput, required: true }) },
    resolve: (_root, { input }, { core }) => setCollectionGrant(core, input.collection, grantInput(input)) as never,
  }),
}));
