// The refs of Member and TeamMembership, apart from their types (members.ts, teams.ts): each
// type's fields name the other, and with the refs here neither file imports the other.
import type { Member, TeamMember } from "../generated/prisma/client.ts";
import { builder } from "./builder.ts";

export const MemberRef = builder.objectRef<Member>("Member");
export const TeamMembershipRef = builder.objectRef<TeamMember>("TeamMembership");
