// Typed subscriptions of a site: its structure (site spaces, sections, section groups) and its
// customization, each event carrying the site as the queries read it.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import { builder } from "../builder.ts";
import { eventOrError, RealtimeEventRef, typedEvents } from "../realtime.ts";
import { SiteRef } from "../sites.ts";

const SiteEventRef = builder.objectRef<ChannelEvent>("SiteEvent").implement({
  description: "A change of a site's structure or customization",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    site: t.field({
      type: SiteRef,
      description: "The site, as it stands now (structure, siteSpaces, customization …)",
      resolve: (e) => e.ids.site!,
    }),
  }),
});

for (const [field, channel, what] of [
  [
    "siteStructure",
    "site-structure",
    "Each change of a site's structure: a site space, section or section group created, changed, moved or deleted",
  ],
  ["siteCustomization", "site-customization", "Each change of a site's customization"],
] as const) {
  builder.subscriptionField(field, (t) =>
    t.field({
      type: SiteEventRef,
      description: `${what} (channel \`${channel}\`), with the site as queries read it. Refused at subscribe time as \`channel\` is`,
      args: { site: t.arg.id({ required: true, description: "Id of the site" }) },
      subscribe: (_root, args, context) => typedEvents(context, channel, { site: String(args.site) }),
      resolve: (item) => eventOrError(item),
    }),
  );
}
