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
import { inputDescription, payloadDescription, toConnection } from "./common.ts";
import { RevisionRef } from "./content.ts";
import { OrganizationRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

const Permissions = builder.simpleObject("TranslationSettingsPermissions", {
  description: "What the caller may do with a translation",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the translation and its targets" }),
    edit: t.boolean({ description: "Whether the caller may change, run or delete the translation and set its targets" }),
  }),
});

const PageChangeType = builder.enumType("TranslationPageChangeType", {
  description: "How a source page changed since a target's last sync: created, edited, moved or deleted",
  values: { CREATED: { value: "created" }, EDITED: { value: "edited" }, MOVED: { value: "moved" }, DELETED: { value: "deleted" } } as const,
});

const PageChange = builder.simpleObject("TranslationPageChange", {
  description: "A source page changed since the target was last synced",
  fields: (t) => ({
    type: t.field({ type: PageChangeType, description: "How the page changed" }),
    pageId: t.id({ description: "Id of the page in the source space" }),
    title: t.string({ description: "Title of the page" }),
    path: t.string({ description: "Path of the page in the source space" }),
  }),
});

const TargetPage = builder.simpleObject("TranslationTargetPage", {
  description: "A page of a target space",
  fields: (t) => ({
    id: t.id({ description: "Id of the page in the target space" }),
    title: t.string({ description: "Title of the page" }),
    path: t.string({ description: "Path of the page in the target space" }),
  }),
});

export const TranslationSettingsRef = builder.loadableNode("TranslationSettings", {
  description: "A translation: a title, language codes, a source space and one target space per language",
  id: { resolve: (translation: TranslationSettings) => translation.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleTranslations(core, ids);
    return rows.map((row, index) => row ?? notFound("translation", ids[index]!));
  },
  fields: (t) => ({
    title: t.exposeString("title", { description: "Name of the translation (1 to 100 characters)" }),
    languages: t.stringList({
      description: "Language codes translated into (`fr`, `pt-br`…), lowercase",
      resolve: (translation) => translation.languages as string[],
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the translation was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When its settings last changed" }),
    organization: t.field({
      description: "The organization the translation belongs to",
      type: OrganizationRef,
      resolve: (translation) => translation.organizationId,
    }),
    source: t.field({
      type: SpaceRef,
      nullable: true,
      description: "The space translated from",
      resolve: (translation) => translation.sourceSpaceId,
    }),
    permissions: t.field({
      description: "What the caller may do with the translation",
      type: Permissions,
      resolve: (translation, _args, { core }) => translationPermissions(core, translation),
    }),
    urls: t.field({
      description: "Addresses of the translation",
      type: builder.simpleObject("TranslationSettingsUrls", {
        description: "Addresses of a translation",
        fields: (u) => ({ location: u.string({ description: "URL of the translation in the REST API" }) }),
      }),
      resolve: (translation, _args, { core }) => ({
        location: core.urls.api(`/orgs/${translation.organizationId}/translations/${translation.id}`),
      }),
    }),
  }),
});

export const TranslationTargetRef = builder.objectRef<TranslationTarget>("TranslationTarget").implement({
  description: "The space holding one language of a translation",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the target" }),
    language: t.exposeString("language", { description: "The language code this target holds, one of the translation's languages" }),
    space: t.field({
      description: "The space holding this language; null when the caller cannot read it",
      type: SpaceRef,
      nullable: true,
      resolve: (target) => target.spaceId,
    }),
    syncedRevision: t.field({
      type: RevisionRef,
      nullable: true,
      description: "The source revision the target's page tree was last brought in line with (null: never run)",
      resolve: (target) => target.syncedRevisionId,
    }),
    syncedAt: t.expose("syncedAt", {
      type: "DateTime",
      nullable: true,
      description: "When a run last synced the target (null: never run)",
    }),
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
  targets: t.field({
    description: "The target spaces, one per language that has one",
    type: [TranslationTargetRef],
    resolve: (translation, _args, { core }) => targetsOf(core, translation),
  }),
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
    description: "A translation of the organization by id; not found when there is none",
    type: TranslationSettingsRef,
    args: { id: t.arg.id({ required: true, description: "The translation's id" }) },
    resolve: (o, { id }, { core }) => readTranslation(core, o.id, String(id)),
  }),
}));

/** The translation an input names; with `organization`, only one of that organization (404 otherwise). */
const translationOf = (core: Parameters<typeof translationById>[0], id: string | number, organization?: string | number | null) =>
  organization != null ? readTranslation(core, String(organization), String(id)) : translationById(core, String(id));

const Payload = builder.simpleObject("TranslationSettingsPayload", {
  description: "Result of the createTranslation, updateTranslation and removeTranslationTarget mutations",
  fields: (t) => ({ translation: t.field({ type: TranslationSettingsRef, description: "The translation, as it is now" }) }),
});
const organizationField = "When given, the translation must be of this organization (not found otherwise)";

const TargetRun = builder.simpleObject("TranslationTargetRun", {
  description: "What a run did to one target",
  fields: (t) => ({
    target: t.field({ type: TranslationTargetRef, description: "The target, as synced by the run" }),
    added: t.idList({ description: "Pages created (untranslated)" }),
    moved: t.idList({ description: "Pages moved to follow the source" }),
    deleted: t.idList({ description: "Pages deleted because their source page was" }),
    refreshed: t.idList({ description: "Untranslated pages given the source's new body" }),
  }),
});

builder.mutationFields((t) => ({
  createTranslation: t.field({
    type: Payload,
    description: "Creates a translation of the organization",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateTranslationInput", {
          description: inputDescription("CreateTranslationInput"),
          fields: (f) => ({
            organization: f.id({ required: true, description: "The organization the translation belongs to" }),
            title: f.string({ required: true, description: "1 to 100 characters" }),
            languages: f.stringList({ description: "Language codes (`fr`, `pt-br`…)" }),
            source: f.id({ description: "The space translated from" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      translation: await createTranslation(core, String(input.organization), {
        title: input.title,
        languages: input.languages ?? undefined,
        source: input.source == null ? null : String(input.source),
      }),
    }),
  }),
  updateTranslation: t.field({
    type: Payload,
    description: "Changes what is given; a language left out loses its target, a new source makes every target unsynced",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateTranslationInput", {
          description: inputDescription("UpdateTranslationInput"),
          fields: (f) => ({
            id: f.id({ required: true, description: "The translation to change" }),
            organization: f.id({ description: organizationField }),
            title: f.string({ description: "New title, 1 to 100 characters; unchanged when left out" }),
            languages: f.stringList({ description: "The full new list of language codes; unchanged when left out" }),
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
    type: builder.simpleObject("DeleteTranslationPayload", {
      description: payloadDescription("DeleteTranslationPayload"),
      fields: (p) => ({ deletedId: p.id({ description: "Id of the deleted translation" }) }),
    }),
    description: "Deletes the translation and its targets (the target spaces themselves stay)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteTranslationInput", {
          description: inputDescription("DeleteTranslationInput"),
          fields: (f) => ({
            id: f.id({ required: true, description: "The translation to delete" }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const translation = await translationOf(core, input.id, input.organization);
      await deleteTranslation(core, translation.organizationId, translation.id);
      return { deletedId: translation.id };
    },
  }),
  setTranslationTarget: t.field({
    type: builder.simpleObject("SetTranslationTargetPayload", {
      description: payloadDescription("SetTranslationTargetPayload"),
      fields: (p) => ({ target: p.field({ type: TranslationTargetRef, description: "The target, as it is now" }) }),
    }),
    description: "Makes a space the target of one of the translation's languages",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SetTranslationTargetInput", {
          description: inputDescription("SetTranslationTargetInput"),
          fields: (f) => ({
            translation: f.id({ required: true, description: "The translation" }),
            language: f.string({ required: true, description: "One of the translation's language codes" }),
            space: f.id({
              required: true,
              description: "The space to hold that language: of the same organization, not the source, not another language's target",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      target: await setTarget(core, String(input.translation), { language: input.language, space: String(input.space) }),
    }),
  }),
  removeTranslationTarget: t.field({
    type: Payload,
    description: "Stops a language's space from being its target (the space itself stays); not found when the language has none",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveTranslationTargetInput", {
          description: inputDescription("RemoveTranslationTargetInput"),
          fields: (f) => ({
            translation: f.id({ required: true, description: "The translation" }),
            language: f.string({ required: true, description: "The language code whose target is removed" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ translation: await removeTarget(core, String(input.translation), input.language) }),
  }),
  runTranslation: t.field({
    type: builder.simpleObject("RunTranslationPayload", {
      description: payloadDescription("RunTranslationPayload"),
      fields: (p) => ({
        translation: p.field({ type: TranslationSettingsRef, description: "The translation that ran" }),
        runs: p.field({ type: [TargetRun], description: "What the run did, one entry per target" }),
      }),
    }),
    description:
      "Brings every target's page tree in line with the source: new pages added untranslated, moves and deletions followed, translated bodies untouched",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RunTranslationInput", {
          description: inputDescription("RunTranslationInput"),
          fields: (f) => ({
            translation: f.id({ required: true, description: "The translation to run" }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const translation = await translationOf(core, input.translation, input.organization);
      return runTranslation(core, translation.organizationId, translation.id);
    },
  }),
}));
