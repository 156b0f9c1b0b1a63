// The published Team shape, shared by the team routes and by a member's teams (members.ts, which
// teams.ts imports: here, neither needs the other at load time).
import { graphql, type FragmentOf } from "../graphql.ts";

export const TeamFields = graphql(`
  fragment TeamFields on Team {
    id title createdAt memberCount spaceCount
    permissions { admin view }
  }`);

export function restTeam(t: FragmentOf<typeof TeamFields>) {
  return {
    object: "team",
    id: t.id,
    title: t.title,
    members: t.memberCount,
    spaces: t.spaceCount,
    createdAt: t.createdAt,
    permissions: t.permissions,
  };
}
