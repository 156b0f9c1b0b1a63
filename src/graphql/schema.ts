// The schema: every domain file registers its types on the builder when imported.
import { GraphQLObjectType, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { builder } from "./builder.ts";
import { ownProperty } from "./common.ts";
import "./organizations.ts";
import "./collections.ts";
import "./spaces.ts";
import "./members.ts";
import "./invites.ts";
import "./teams.ts";
import "./grants.ts";
import "./saml.ts";
import "./content.ts";
import "./content-editing.ts";
import "./space-templates.ts";
import "./files.ts";
import "./import.ts";
import "./git-sync.ts";
import "./search.ts";
import "./links.ts";
import "./change-requests.ts";
import "./conversations.ts";
import "./comments.ts";
import "./reviews.ts";
import "./pdf.ts";
import "./openapi.ts";
import "./translations.ts";
import "./fonts.ts";
import "./glossary.ts";
import "./storage.ts";
import "./sites.ts";
import "./site-redirects.ts";
import "./site-insights.ts";
import "./ask.ts";
import "./site-findings.ts";
import "./audit.ts";
import "./site-extras.ts";
import "./custom-hostnames.ts";
import "./url-lookup.ts";
import "./computed.ts";
import "./tokens.ts";
import "./integrations.ts";
import "./integration-blocks.ts";
import "./system.ts";
import "./rate-limit.ts";
import "./realtime.ts";
import "./subscriptions/content.ts";
import "./subscriptions/change-requests.ts";
import "./subscriptions/comments.ts";
import "./subscriptions/sites.ts";
import "./subscriptions/translations.ts";
import "./subscriptions/openapi.ts";

export const schema = syncNodeIds(builder.toSchema({ sortSchema: true }));

/**
 * Node ids answer at once (issue 15). The relay plugin resolves every node's `id` through an async
 * function (a promise, and an await, per item of every list and per reference to a node); ours
 * are the row's id, which `encodeGlobalID` (builder.ts) turns into String(id): a string id is
 * answered as it is, anything else goes through the plugin's resolver as before.
 */
function syncNodeIds(built: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(built.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || !type.getInterfaces().some((iface) => iface.name === "Node")) continue;
    const idOf = (type.extensions.pothosOptions as { id?: { resolve?: GraphQLFieldResolver<unknown, unknown> } } | undefined)?.id?.resolve;
    const field = type.getFields().id;
    const plugin = field?.resolve;
    if (!idOf || !plugin) continue;
    // The row's own `id` (the common case): no resolver at all, as an exposed field has none.
    if (idOf === ownProperty) {
      field.resolve = undefined;
      continue;
    }
    field.resolve = (parent, args, context, info) => {
      const id = idOf(parent, args, context, info);
      return typeof id === "string" ? id : plugin(parent, args, context, info);
    };
  }
  return built;
}
