// Translations: settings (title, languages), source space, one target space per language, what
// changed since each target was synced, and the run. Rules are in src/core/translations.
import type { TranslationSettings, TranslationTarget } from "../generated/prisma/client.ts";
import { notFound } from "../core/errors.ts";
import {
  changedPages,
  createTranslation,
  deleteTranslation,
  listTranslations,
  loadVisibleTranslations,
  readTranslation,
  removeTarget,
  runTranslation,
  setTarget,
  targetsOf,
  translationById,
  translationPermissions,
  untranslatedPages,
  updateTranslation,
} from "../core/translations/index.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { RevisionRef } from "./content.ts";
import { OrganizationRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

const Permissions = builder.simpleObject("TranslationSettingsPermissions", {
  fields: (t) => ({ view: t.boolean(), edit: t.boolean() }),
});

const PageChangeType = builder.enumType("TranslationPageChangeType", {
  values: { CREATED: { value: "created" }, EDITED: { value: "edited" }, MOVED: { value: "moved" }, DELETED: { value: "deleted" } } as const,
});

const PageChange = builder.simpleObject("TranslationPageChange", {
  description: "A source page changed since the target was last synced",
  fields: (t) => ({ type: t.field({ type: PageChangeType }), pageId: t.id(), title: t.string(), path: t.string() }),
});

const TargetPage = builder.simpleObject("TranslationTargetPage", {
  fields: (t) => ({ id: t.id(), title: t.string(), path: t.string() }),
});

export const TranslationSettingsRef = builder.loadableNode("TranslationSettings", {
  description: "A translation: a title, language codes, a source space and one target space per language",
  id: { resolve: (translation: TranslationSettings) => translation.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleTranslations(core, ids);
    return rows.map((row, index) => row ?? notFound("translation", ids[index]!));
  },
  fields: (t) => ({
    title: t.exposeString("title"),
    languages: t.stringList({ resolve: (translation) => translation.languages as string[] }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    organization: t.field({ type: OrganizationRef, resolve: (translation) => translation.organizationId }),
    source: t.field({ type: SpaceRef, nullable: true, description: "The space translated from", resolve: (translation) => translation.sourceSpaceId }),
    permissions: t.field({ type: Permissions, resolve: (translation, _args, { core }) => translationPermissions(core, translation) }),
    urls: t.field({
      type: builder.simpleObject("TranslationSettingsUrls", { fields: (u) => ({ location: u.string() }) }),
      resolve: (translation, _args, { core }) => ({ location: core.urls.api(`/orgs/${translation.organizationId}/translations/${translation.id}`) }),
    }),
  }),
});

export const TranslationTargetRef = builder.objectRef<TranslationTarget>("TranslationTarget").implement({
  description: "The space holding one language of a translation",
  fields: (t) => ({
    id: t.exposeID("id"),
    language: t.exposeString("language"),
    space: t.field({ type: SpaceRef, nullable: true, resolve: (target) => target.spaceId }),
    syncedRevision: t.field({
      type: RevisionRef,
      nullable: true,
      description: "The source revision the target's page tree was last brought in line with (null: never run)",
      resolve: (target) => target.syncedRevisionId,
    }),
    syncedAt: t.expose("syncedAt", { type: "DateTime", nullable: true }),
    changedPages: t.field({
      type: [PageChange],
      description: "Source pages created, edited, moved or deleted since the last sync (every page before the first)",
      resolve: async (target, _args, { core }) => changedPages(core, (await core.loaders.translation.load(target.translationId))!, target),
    }),
    untranslatedPages: t.field({
      type: [TargetPage],
      description: "Pages a run added whose body is still the source's copy",
      resolve: (target, _args, { core }) => untranslatedPages(core, target),
    }),
  }),
});

builder.objectFields(TranslationSettingsRef, (t) => ({
  targets: t.field({ type: [TranslationTargetRef], resolve: (translation, _args, { core }) => targetsOf(core, translation) }),
}));

builder.objectFields(OrganizationRef, (t) => ({
  translations: t.connection(
    {
      type: TranslationSettingsRef,
      description: "The organization's translations, oldest first",
      resolve: async (o, args, { core }) => toConnection(await listTranslations(core, o.id, args)),
    },
    builder.connectionObject({ type: TranslationSettingsRef, name: "TranslationSettingsConnection" }, { name: "TranslationSettingsEdge" }),
  ),
  translation: t.field({
    type: TranslationSettingsRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (o, { id }, { core }) => readTranslation(core, o.id, String(id)),
  }),
}));

/** The translation an input names; with `organization`, only one of that organization (404 otherwise). */
const translationOf = (core: Parameters<typeof translationById>[0], id: string | number, organization?: string | number | null) =>
  organization != null ? readTranslation(core, String(organization), String(id)) : translationById(core, String(id));

const Payload = builder.simpleObject("TranslationSettingsPayload", { fields: (t) => ({ translation: t.field({ type: TranslationSettingsRef }) }) });

const TargetRun = builder.simpleObject("TranslationTargetRun", {
  description: "What a run did to one target",
  fields: (t) => ({
    target: t.field({ type: TranslationTargetRef }),
    added: t.idList({ description: "Pages created (untranslated)" }),
    moved: t.idList(),
    deleted: t.idList(),
    refreshed: t.idList({ description: "Untranslated pages given the source's new body" }),
  }),
});

builder.mutationFields((t) => ({
  createTranslation: t.field({
    type: Payload,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateTranslationInput", {
          fields: (f) => ({
            organization: f.id({ required: true }),
            title: f.string({ required: true, description: "1 to 100 characters" }),
            languages: f.stringList({ description: "Language codes (`fr`, `pt-br`…)" }),
            source: f.id({ description: "The space translated from" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      translation: await createTranslation(core, String(input.organization), { title: input.title, languages: input.languages ?? undefined, source: input.source == null ? null : String(input.source) }),
    }),
  }),
  updateTranslation: t.field({
    type: Payload,
    description: "Changes what is given; a language left out loses its target, a new source makes every target unsynced",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateTranslationInput", {
          fields: (f) => ({
            id: f.id({ required: true }),
            organization: f.id({ description: "When given, the translation must be of this organization" }),
            title: f.string(),
            languages: f.stringList(),
            source: f.id({ description: "null removes the source" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const translation = await translationOf(core, input.id, input.organization);
      return {
        translation: await updateTranslation(core, translation.organizationId, translation.id, {
          title: input.title ?? undefined,
          languages: input.languages ?? undefined,
          source: input.source === undefined ? undefined : input.source === null ? null : String(input.source),
        }),
      };
    },
  }),
  deleteTranslation: t.field({
    type: builder.simpleObject("DeleteTranslationPayload", { fields: (p) => ({ deletedId: p.id() }) }),
    args: { input: t.arg({ required: true, type: builder.inputType("DeleteTranslationInput", { fields: (f) => ({ id: f.id({ required: true }), organization: f.id() }) }) }) },
    resolve: async (_root, { input }, { core }) => {
      const translation = await translationOf(core, input.id, input.organization);
      await deleteTranslation(core, translation.organizationId, translation.id);
      return { deletedId: translation.id };
    },
  }),
  setTranslationTarget: t.field({
    type: builder.simpleObject("SetTranslationTargetPayload", { fields: (p) => ({ target: p.field({ type: TranslationTargetRef }) }) }),
    description: "Makes a space the target of one of the translation's languages",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SetTranslationTargetInput", {
          fields: (f) => ({ translation: f.id({ required: true }), language: f.string({ required: true }), space: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ target: await setTarget(core, String(input.translation), { language: input.language, space: String(input.space) }) }),
  }),
  removeTranslationTarget: t.field({
    type: Payload,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveTranslationTargetInput", { fields: (f) => ({ translation: f.id({ required: true }), language: f.string({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ translation: await removeTarget(core, String(input.translation), input.language) }),
  }),
  runTranslation: t.field({
    type: builder.simpleObject("RunTranslationPayload", {
      fields: (p) => ({ translation: p.field({ type: TranslationSettingsRef }), runs: p.field({ type: [TargetRun] }) }),
    }),
    description: "Brings every target's page tree in line with the source: new pages added untranslated, moves and deletions followed, translated bodies untouched",
    args: { input: t.arg({ required: true, type: builder.inputType("RunTranslationInput", { fields: (f) => ({ translation: f.id({ required: true }), organization: f.id() }) }) }) },
    resolve: async (_root, { input }, { core }) => {
      const translation = await translationOf(core, input.translation, input.organization);
      return runTranslation(core, translation.organizationId, translation.id);
    },
  }),
}));
