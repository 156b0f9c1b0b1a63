// Translations of an organization. The REST surface is the contract's `TranslationSettings`
// (a title and language codes); beyond it (GraphQL, and `POST …/translations/{id}/run`) a
// translation links a source space to one target space per language, records the source
// revision each target was last brought in line with, says which source pages changed since,
// and runs: each target's page tree is brought in line with the source (src/core/translations/
// sync.ts) without touching what translators wrote.
//
// A run is synchronous and checks every target (readable, editable, live) before it changes any;
// each target's edits are one revision of that space (several when they exceed a batch).
import type { TranslationSettings, TranslationTarget } from "../../generated/prisma/client.ts";
import { allows, POLICY } from "../auth/policy.ts";
import { contentOf, editContent, sha256 } from "../content/index.ts";
import { checkLiveEditing, requireEditableTarget, revisionAt } from "../content/target.ts";
import { EDITS_MAX, flatten } from "../content/tree.ts";
import type { CoreContext } from "../context.ts";
import { badInput, conflict, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { organizationAllows, pageOfOrganization, requireOrganization } from "../organizations/index.ts";
import { type PageArgs } from "../pagination.ts";
import { semanticChanges } from "../reviews/changes.ts";
import { readSpace, requireSpace } from "../spaces/index.ts";
import { checkLength } from "../validate.ts";
import { glossaryFor, glossaryOf, LANGUAGE_CODE, translationsOf } from "./glossary.ts";
import { bodiesNeeded, planSync } from "./sync.ts";

export const TRANSLATION_TITLE_MAX = 100;
export const TRANSLATION_LANGUAGES_MAX = 50;
export { LANGUAGE_CODE } from "./glossary.ts";

// ---------------------------------------------------------------------------------------------
// Input rules

export function checkTitle(title: unknown): string {
  if (typeof title !== "string") throw badInput("title must be a string");
  if (title.trim() === "") throw badInput(`title must be between 1 and ${TRANSLATION_TITLE_MAX} characters (got 0)`);
  return checkLength("title", title, { min: 1, max: TRANSLATION_TITLE_MAX });
}

/** Language codes, lowercased; unknown shapes and duplicates are refused. */
export function checkLanguages(languages: unknown): string[] {
  if (!Array.isArray(languages)) throw badInput("languages must be a list of language codes");
  if (languages.length > TRANSLATION_LANGUAGES_MAX)
    throw badInput(`languages: at most ${TRANSLATION_LANGUAGES_MAX} (got ${languages.length})`);
  const seen = new Set<string>();
  return languages.map((value, index) => {
    if (typeof value !== "string" || !LANGUAGE_CODE.test(value.toLowerCase())) {
      throw badInput(`languages[${index}] must be a language code such as "fr" or "pt-br" (got ${quote(value)})`);
    }
    const code = value.toLowerCase();
    if (seen.has(code)) throw badInput(`languages[${index}]: ${quote(code)} is listed twice`);
    seen.add(code);
    return code;
  });
}

export const languagesOf = (translation: TranslationSettings) => translation.languages as string[];
export const untranslatedOf = (target: TranslationTarget) => target.untranslated as Record<string, string>;

// ---------------------------------------------------------------------------------------------
// Reading

/** The translation `id` of the organization, when the caller may read its translations (404 / 403 otherwise). */
export async function readTranslation(ctx: CoreContext, organizationId: string, id: string): Promise<TranslationSettings> {
  await requireOrganization(ctx, organizationId, "translation.read");
  const translation = await ctx.loaders.translation.load(id);
  if (!translation || translation.organizationId !== organizationId) throw notFound("translation", id);
  return translation;
}

/** For `node(id:)`: translations of organizations whose translations the caller may read; null for the others. */
export async function loadVisibleTranslations(ctx: CoreContext, ids: readonly string[]): Promise<(TranslationSettings | null)[]> {
  const rows = await ctx.loaders.translation.loadMany(ids);
  return Promise.all(
    rows.map(async (row) => {
      if (!row || row instanceof Error) return null;
      const membership = await ctx.access.membership(row.organizationId);
      return membership && allows(POLICY["translation.read"].least, membership.role ?? "member") ? row : null;
    }),
  );
}

export const translationPermissions = (ctx: CoreContext, translation: TranslationSettings) =>
  organizationAllows(ctx, translation.organizationId, { view: "translation.read", edit: "translation.manage" });

export const listTranslations = (ctx: CoreContext, organizationId: string, page: PageArgs) =>
  pageOfOrganization<TranslationSettings>(ctx, organizationId, "translation.read", page, ctx.prisma.translationSettings);

/** The targets of a translation, in the order of its languages. */
export async function targetsOf(ctx: CoreContext, translation: TranslationSettings): Promise<TranslationTarget[]> {
  const targets = await ctx.loaders.translationTargets.load(translation.id);
  const order = languagesOf(translation);
  return [...targets].sort((a, b) => order.indexOf(a.language) - order.indexOf(b.language));
}

export interface TranslationPageChange {
  type: "created" | "edited" | "moved" | "deleted";
  pageId: string;
  title: string;
  path: string;
}

/**
 * The source pages that changed since the target was last synced (every page when it never
 * was): what a translator has to redo. Empty without a source.
 */
export async function changedPages(
  ctx: CoreContext,
  translation: TranslationSettings,
  target: TranslationTarget,
): Promise<TranslationPageChange[]> {
  if (!translation.sourceSpaceId) return [];
  const source = await ctx.loaders.space.load(translation.sourceSpaceId);
  if (!source) return [];
  const [head, synced] = await Promise.all([
    revisionAt(ctx, source),
    target.syncedRevisionId ? ctx.loaders.revision.load(target.syncedRevisionId) : null,
  ]);
  const base = synced ? contentOf(synced) : { pages: [], files: [] };
  const changes: TranslationPageChange[] = [];
  for (const change of semanticChanges(base, contentOf(head!))) {
    if (!change.type.startsWith("page_") || !("page" in change)) continue;
    const type = change.type.slice("page_".length) as TranslationPageChange["type"];
    const previous = changes.find((entry) => entry.pageId === change.page.id);
    if (previous) continue; // moved and edited: listed once, as moved
    changes.push({ type, pageId: change.page.id, title: change.page.title, path: change.page.path });
  }
  return changes;
}

/** The target's pages a run added that nobody has translated yet (body still the copy). */
export async function untranslatedPages(
  ctx: CoreContext,
  target: TranslationTarget,
): Promise<{ id: string; title: string; path: string }[]> {
  const marks = untranslatedOf(target);
  if (Object.keys(marks).length === 0) return [];
  const space = await ctx.loaders.space.load(target.spaceId);
  if (!space) return [];
  const head = await revisionAt(ctx, space);
  return flatten(contentOf(head).pages)
    .filter((located) => marks[located.page.id] !== undefined && located.page.body === marks[located.page.id])
    .map((located) => ({ id: located.page.id, title: located.page.title, path: located.path }));
}

// ---------------------------------------------------------------------------------------------
// Writing

/** The source space: in the organization and readable by the caller (404 otherwise). */
async function checkSourceSpace(ctx: CoreContext, organizationId: string, spaceId: string) {
  const space = await requireSpace(ctx, spaceId, "space.read");
  if (space.organizationId !== organizationId) throw badInput(`source: space ${quote(spaceId)} is not in this organization`);
  return space;
}

export interface TranslationInput {
  title?: unknown;
  languages?: unknown;
  /** Source space id; null removes it. */
  source?: string | null;
}

export async function createTranslation(ctx: CoreContext, organizationId: string, input: TranslationInput) {
  await requireOrganization(ctx, organizationId, "translation.manage");
  if (input.title == null) throw badInput("title is required");
  const title = checkTitle(input.title);
  const languages = input.languages == null ? [] : checkLanguages(input.languages);
  if (input.source != null) await checkSourceSpace(ctx, organizationId, input.source);
  const now = ctx.clock.now();
  return ctx.prisma.translationSettings.create({
    data: {
      id: newId("TranslationSettings"),
      organizationId,
      title,
      languages,
      sourceSpaceId: input.source ?? null,
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * Changes the title, the languages (a language left out loses its target) and the source (a new
 * source makes every target unsynced). Fields left undefined are kept.
 */
export async function updateTranslation(ctx: CoreContext, organizationId: string, id: string, input: TranslationInput) {
  await requireOrganization(ctx, organizationId, "translation.manage");
  const translation = await readTranslation(ctx, organizationId, id);
  const title = input.title === undefined ? undefined : checkTitle(input.title);
  const languages = input.languages === undefined ? undefined : checkLanguages(input.languages);
  if (input.source != null) await checkSourceSpace(ctx, organizationId, input.source);
  const sourceChanged = input.source !== undefined && input.source !== translation.sourceSpaceId;
  const updated = await ctx.prisma.$transaction(async (tx) => {
    if (languages) await tx.translationTarget.deleteMany({ where: { translationId: id, language: { notIn: languages } } });
    if (sourceChanged)
      await tx.translationTarget.updateMany({
        where: { translationId: id },
        data: { syncedRevisionId: null, syncedAt: null, untranslated: {}, untranslatedSource: {} },
      });
    return tx.translationSettings.update({
      where: { id },
      data: {
        ...(title !== undefined ? { title } : {}),
        ...(languages ? { languages } : {}),
        ...(input.source !== undefined ? { sourceSpaceId: input.source } : {}),
        updatedAt: ctx.clock.now(),
      },
    });
  });
  ctx.loaders.translation.clear(id);
  ctx.loaders.translationTargets.clear(id);
  return updated;
}

export async function deleteTranslation(ctx: CoreContext, organizationId: string, id: string) {
  await requireOrganization(ctx, organizationId, "translation.manage");
  await readTranslation(ctx, organizationId, id);
  await ctx.prisma.translationSettings.delete({ where: { id } });
  ctx.loaders.translation.clear(id);
}

/** A translation by id for GraphQL mutations (which name no organization). */
export async function translationById(ctx: CoreContext, id: string): Promise<TranslationSettings> {
  const row = await ctx.loaders.translation.load(id);
  if (!row) throw notFound("translation", id);
  return readTranslation(ctx, row.organizationId, id);
}

/**
 * Makes `space` the target of `language` (one of the translation's languages; the space in the
 * organization, not the source, not another language's target, editable by the caller). A new
 * space for a language starts unsynced.
 */
export async function setTarget(ctx: CoreContext, translationId: string, input: { language: string; space: string }) {
  const translation = await translationById(ctx, translationId);
  await requireOrganization(ctx, translation.organizationId, "translation.manage");
  const language = input.language.toLowerCase();
  if (!languagesOf(translation).includes(language)) {
    throw badInput(
      `language must be one of the translation's languages (${languagesOf(translation).join(", ") || "none yet"}; got ${quote(input.language)})`,
    );
  }
  const space = await requireSpace(ctx, input.space, "space.editContent");
  if (space.organizationId !== translation.organizationId) throw badInput(`space: ${quote(input.space)} is not in this organization`);
  if (space.id === translation.sourceSpaceId) throw badInput("space: the source space cannot be a target");
  const targets = await targetsOf(ctx, translation);
  const other = targets.find((target) => target.spaceId === space.id && target.language !== language);
  if (other) throw conflict(`space: ${quote(space.id)} is already the target of ${quote(other.language)}`);
  const existing = targets.find((target) => target.language === language);
  if (existing?.spaceId === space.id) return existing;
  const data = { spaceId: space.id, syncedRevisionId: null, syncedAt: null, untranslated: {}, untranslatedSource: {} };
  const target = existing
    ? await ctx.prisma.translationTarget.update({ where: { id: existing.id }, data })
    : await ctx.prisma.translationTarget.create({
        data: { id: newId("TranslationTarget"), translationId, language, ...data, createdAt: ctx.clock.now() },
      });
  ctx.loaders.translationTargets.clear(translationId);
  return target;
}

export async function removeTarget(ctx: CoreContext, translationId: string, language: string) {
  const translation = await translationById(ctx, translationId);
  await requireOrganization(ctx, translation.organizationId, "translation.manage");
  const { count } = await ctx.prisma.translationTarget.deleteMany({ where: { translationId, language: language.toLowerCase() } });
  if (count === 0) throw notFound("translation target", language);
  ctx.loaders.translationTargets.clear(translationId);
  return translation;
}

export interface TargetRun {
  target: TranslationTarget;
  added: string[];
  moved: string[];
  deleted: string[];
  refreshed: string[];
}

/** Brings every target's page tree in line with the source (see sync.ts). */
export async function runTranslation(
  ctx: CoreContext,
  organizationId: string,
  id: string,
): Promise<{ translation: TranslationSettings; runs: TargetRun[] }> {
  await requireOrganization(ctx, organizationId, "translation.run");
  const translation = await readTranslation(ctx, organizationId, id);
  if (!translation.sourceSpaceId) throw conflict("The translation has no source space: set one before running it");
  const { space: source } = await readSpace(ctx, translation.sourceSpaceId);
  const targets = await targetsOf(ctx, translation);
  // Every target must take the edits before any of them changes.
  const heads = await Promise.all(
    targets.map(async (target) => {
      const head = await requireEditableTarget(ctx, { spaceId: target.spaceId });
      if (head.space.deletedAt) throw conflict(`The target space of ${quote(target.language)} is deleted`);
      checkLiveEditing(head.space);
      return head;
    }),
  );
  const sourceHead = await revisionAt(ctx, source);
  // The organization's glossary, applied to what the run copies into each target.
  const glossary = (await glossaryOf(ctx, organizationId)).map(translationsOf);
  const sourcePages = contentOf(sourceHead).pages;
  const runs: TargetRun[] = [];
  for (const [index, target] of targets.entries()) {
    const head = await revisionAt(ctx, heads[index]!.space);
    const targetPages = contentOf(head).pages;
    const untranslated = untranslatedOf(target);
    const untranslatedSource = target.untranslatedSource as Record<string, string>;
    const synced = target.syncedRevisionId ? await ctx.loaders.revision.load(target.syncedRevisionId) : null;
    const syncedSourceIds = new Set(synced ? flatten(contentOf(synced).pages).map((located) => located.page.id) : []);
    const bodies = await loadBodies(ctx, bodiesNeeded(sourcePages, targetPages, untranslated, untranslatedSource));
    const plan = planSync({
      source: sourcePages,
      target: targetPages,
      syncedSourceIds,
      untranslated,
      untranslatedSource,
      bodies,
      copy: glossaryFor(glossary, target.language) ?? undefined,
      bodyHash: (markdown) => sha256(Buffer.from(markdown, "utf8")),
      now: ctx.clock.now().toISOString(),
    });
    for (let start = 0; start < plan.edits.length; start += EDITS_MAX) {
      await editContent(ctx, {
        target: { spaceId: target.spaceId },
        edits: plan.edits.slice(start, start + EDITS_MAX),
        message: `Translation "${translation.title}" (${target.language}) brought in line with the source`,
      });
    }
    const updated = await ctx.prisma.translationTarget.update({
      where: { id: target.id },
      data: {
        syncedRevisionId: sourceHead.id,
        syncedAt: ctx.clock.now(),
        untranslated: plan.untranslated,
        untranslatedSource: plan.untranslatedSource,
      },
    });
    runs.push({ target: updated, added: plan.added, moved: plan.moved, deleted: plan.deleted, refreshed: plan.refreshed });
  }
  ctx.loaders.translationTargets.clear(id);
  return { translation, runs };
}

async function loadBodies(ctx: CoreContext, hashes: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(hashes)];
  const data = await ctx.loaders.blob.loadMany(unique);
  return new Map(
    unique.map((hash, index) => {
      const bytes = data[index];
      return [hash, bytes && !(bytes instanceof Error) ? Buffer.from(bytes).toString("utf8") : ""];
    }),
  );
}
