// The translation glossary of an organization: its entries (a term in several languages) and
// the batch of inserts, updates and deletes that changes them. Rules in
// src/core/translations/glossary.ts; translation runs apply it to the pages they copy.
import type { GlossaryEntry } from "../generated/prisma/client.ts";
import { listGlossaryEntries, readGlossaryEntry, translationsOf, updateGlossary } from "../core/translations/glossary.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";

const GlossaryEntryRef = builder.objectRef<GlossaryEntry>("GlossaryEntry").implement({
  description: "A term of the organization's translation glossary in several languages",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the entry" }),
    translations: t.field({
      type: "JSON",
      description: "Language code -> the term in that language",
      resolve: (entry) => translationsOf(entry),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the entry was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed" }),
    location: t.string({
      description: "Address of the entry in the REST API",
      resolve: (entry, _args, { core }) => core.urls.api(`/orgs/${entry.organizationId}/translations-glossary/${entry.id}`),
    }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  translationGlossary: t.connection(
    {
      type: GlossaryEntryRef,
      description: "The translation glossary, oldest first, or by the term in the language `orderBy` names",
      args: { orderBy: t.arg.string({ description: "A language code: entries by their term in it, those without one last" }) },
      resolve: async (o, args, { core }) => toConnection(await listGlossaryEntries(core, o.id, args.orderBy, args)),
    },
    builder.connectionObject({ type: GlossaryEntryRef, name: "GlossaryEntryConnection" }, { name: "GlossaryEntryEdge" }),
  ),
  translationGlossaryEntry: t.field({
    type: GlossaryEntryRef,
    description: "An entry of the translation glossary by id; not found when there is none",
    args: { id: t.arg.id({ required: true, description: "The entry's id" }) },
    resolve: (o, { id }, { core }) => readGlossaryEntry(core, o.id, String(id)),
  }),
}));

const Operation = builder.inputType("GlossaryOperationInput", {
  description: "One change of the glossary: insert (translations), update (id, translations: replaced) or delete (id)",
  fields: (f) => ({
    type: f.string({ required: true, description: "insert, update or delete" }),
    id: f.id({ description: "The entry, for update and delete" }),
    translations: f.field({ type: "JSON", description: "Language code -> term (1 to 255 characters, one line), for insert and update" }),
  }),
});

builder.mutationFields((t) => ({
  updateTranslationGlossary: t.field({
    description: "Applies the operations to the organization's glossary in order, all or none (at most 100; 1,000 entries)",
    type: builder.simpleObject("UpdateTranslationGlossaryPayload", {
      description: "The glossary was changed",
      fields: (f) => ({ organizationId: f.id({ description: "The organization" }) }),
    }),
    args: {
      organization: t.arg.id({ required: true, description: "The organization" }),
      operations: t.arg({ type: [Operation], required: true, description: "The changes, applied in order" }),
    },
    resolve: async (_root, args, { core }) => {
      const operations = args.operations.map((op) => ({
        type: op.type,
        ...(op.id != null ? { id: String(op.id) } : {}),
        ...(op.translations !== undefined ? { translations: op.translations } : {}),
      }));
      await updateGlossary(core, String(args.organization), operations);
      return { organizationId: String(args.organization) };
    },
  }),
}));
