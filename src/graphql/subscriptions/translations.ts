// Typed subscription of a translation's runs: each target space a run brought in line with the
// source, so a client follows a run's progress target by target.
import type { ChannelEvent } from "../../core/realtime/bus.ts";
import { builder } from "../builder.ts";
import { eventOrError, RealtimeEventRef, typedEvents } from "../realtime.ts";
import { TranslationSettingsRef } from "../translations.ts";

const TranslationRunEventRef = builder.objectRef<ChannelEvent>("TranslationRunEvent").implement({
  description: "Progress of a translation run: target spaces it synced with the source",
  interfaces: [RealtimeEventRef],
  fields: (t) => ({
    translation: t.field({
      type: TranslationSettingsRef,
      description: "The translation, as it stands now (its targets' syncedRevision, syncedAt, changedPages, untranslatedPages)",
      resolve: (e) => e.ids.translation!,
    }),
    targets: t.idList({
      description: "Ids of the targets this write synced",
      resolve: (e) => [...new Set(e.changes.flatMap((c) => (c.table === "TranslationTarget" && c.row.id ? [c.row.id] : [])))],
    }),
  }),
});

builder.subscriptionField("translationRun", (t) =>
  t.field({
    type: TranslationRunEventRef,
    description:
      "Each target space a run of the translation synced (channel `translation-run`), with the translation as queries read it. Refused at subscribe time as `channel` is",
    args: { translation: t.arg.id({ required: true, description: "Id of the translation" }) },
    subscribe: (_root, args, context) => typedEvents(context, "translation-run", { translation: String(args.translation) }),
    resolve: (item) => eventOrError(item),
  }),
);
