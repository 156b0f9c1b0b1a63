// Custom fonts of an organization (the published API's `custom-fonts` operations): a family name
// and up to 20 faces, each a weight and the URL of its file. Organization admins write them,
// members read them; a site's customization names one to use it (faces.ts). The published API
// gives each face a `storageKey` from its upload bucket; this service has none, so the key is
// the font file's URL (http or https), answered as the face's source.
import type { CustomFont } from "../../generated/prisma/client.ts";
import { allows, POLICY } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { organizationAllows, pageOfOrganization, requireOrganization } from "../organizations/index.ts";
import type { PageArgs } from "../pagination.ts";
import {
  checkFontFamily,
  checkFontUrl,
  checkFontWeight,
  facesOf,
  FONT_FACES_MAX,
  FONTS_PER_ORGANIZATION_MAX,
  REGULAR_WEIGHT,
  type StoredFace,
} from "./faces.ts";

export * from "./faces.ts";

// ---------------------------------------------------------------------------------------------
// Reading

/** The custom font `id` of the organization, when the caller may read its fonts (404 / 403 otherwise). */
export async function readCustomFont(ctx: CoreContext, organizationId: string, id: string): Promise<CustomFont> {
  await requireOrganization(ctx, organizationId, "font.read");
  const font = await ctx.loaders.customFont.load(id);
  if (!font || font.organizationId !== organizationId) throw notFound("custom font", id);
  return font;
}

/** A custom font by id for GraphQL mutations that name no organization. */
export async function customFontById(ctx: CoreContext, id: string): Promise<CustomFont> {
  const font = await ctx.loaders.customFont.load(id);
  if (!font) throw notFound("custom font", id);
  return readCustomFont(ctx, font.organizationId, id);
}

/** For `node(id:)`: fonts of organizations whose fonts the caller may read; null for the others. */
export async function loadVisibleCustomFonts(ctx: CoreContext, ids: readonly string[]): Promise<(CustomFont | null)[]> {
  const rows = await ctx.loaders.customFont.loadMany(ids);
  return Promise.all(
    rows.map(async (row) => {
      if (!row || row instanceof Error) return null;
      const membership = await ctx.access.membership(row.organizationId);
      return membership && allows(POLICY["font.read"].least, membership.role ?? "member") ? row : null;
    }),
  );
}

export const customFontPermissions = (ctx: CoreContext, font: CustomFont) =>
  organizationAllows(ctx, font.organizationId, { edit: "font.manage" });

export const listCustomFonts = (ctx: CoreContext, organizationId: string, page: PageArgs) =>
  pageOfOrganization<CustomFont>(ctx, organizationId, "font.read", page, ctx.prisma.customFont);

// ---------------------------------------------------------------------------------------------
// Writing

/** One face of a write: a weight and the file's URL (its `storageKey`); null removes the weight (updates only). */
export interface FaceInput {
  weight: unknown;
  storageKey?: unknown;
}

export interface CustomFontInput {
  fontFamily?: unknown;
  fontFaces?: readonly FaceInput[] | null;
}

/** The faces of a write, checked: each weight once, each URL safe; null keys only when `removals`. */
function checkFaces(faces: unknown, removals: boolean): { weight: number; url: string | null }[] {
  if (!Array.isArray(faces)) throw badInput("fontFaces must be a list of faces ({ weight, storageKey })");
  if (faces.length > FONT_FACES_MAX) throw badInput(`fontFaces: at most ${FONT_FACES_MAX} faces (got ${faces.length})`);
  const seen = new Set<number>();
  return faces.map((face: unknown, index) => {
    const field = `fontFaces[${index}]`;
    if (typeof face !== "object" || face === null) throw badInput(`${field} must be an object { weight, storageKey }`);
    const { weight: rawWeight, storageKey } = face as FaceInput;
    const weight = checkFontWeight(`${field}.weight`, rawWeight);
    if (seen.has(weight)) throw badInput(`${field}.weight: ${weight} is given twice`);
    seen.add(weight);
    if (storageKey === null && removals) return { weight, url: null };
    return { weight, url: checkFontUrl(`${field}.storageKey`, storageKey) };
  });
}

/** The faces to store: by weight, with the regular one. */
function finalFaces(faces: Map<number, string>): StoredFace[] {
  if (!faces.has(REGULAR_WEIGHT)) throw badInput(`fontFaces must include the regular weight (${REGULAR_WEIGHT})`);
  if (faces.size > FONT_FACES_MAX) throw badInput(`fontFaces: a font has at most ${FONT_FACES_MAX} faces (this would make ${faces.size})`);
  return [...faces.entries()].sort(([a], [b]) => a - b).map(([weight, url]) => ({ weight, url }));
}

/** Serializes the writes of one organization's fonts (the count bound, read-modify-write of faces). */
const lockFonts = (tx: { $queryRaw: CoreContext["prisma"]["$queryRaw"] }, organizationId: string) =>
  tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`fonts:${organizationId}`}))::text`;

export async function createCustomFont(ctx: CoreContext, organizationId: string, input: CustomFontInput): Promise<CustomFont> {
  await requireOrganization(ctx, organizationId, "font.manage");
  if (input.fontFamily == null) throw badInput("fontFamily is required");
  const fontFamily = checkFontFamily(input.fontFamily);
  if (input.fontFaces == null) throw badInput("fontFaces is required");
  const checked = checkFaces(input.fontFaces, false);
  if (checked.length === 0) throw badInput(`fontFaces must include the regular weight (${REGULAR_WEIGHT})`);
  const faces = finalFaces(new Map(checked.map((face) => [face.weight, face.url!])));
  const now = ctx.clock.now();
  return ctx.prisma.$transaction(async (tx) => {
    await lockFonts(tx, organizationId);
    const count = await tx.customFont.count({ where: { organizationId } });
    if (count >= FONTS_PER_ORGANIZATION_MAX) {
      throw badInput(`custom fonts: an organization has at most ${FONTS_PER_ORGANIZATION_MAX} (this one has ${count}); delete one first`);
    }
    return tx.customFont.create({
      data: {
        id: newId("CustomFont"),
        organizationId,
        fontFamily,
        faces: faces as never,
        createdAt: now,
        updatedAt: now,
      },
    });
  });
}

/**
 * Changes the family (when given) and the faces given: a face with a URL adds or replaces its
 * weight, one with a null `storageKey` removes it; the other faces stay. The regular weight stays.
 */
export async function updateCustomFont(ctx: CoreContext, organizationId: string, id: string, input: CustomFontInput): Promise<CustomFont> {
  await requireOrganization(ctx, organizationId, "font.manage");
  await readCustomFont(ctx, organizationId, id);
  const fontFamily = input.fontFamily == null ? undefined : checkFontFamily(input.fontFamily);
  const changes = input.fontFaces == null ? [] : checkFaces(input.fontFaces, true);
  const updated = await ctx.prisma.$transaction(async (tx) => {
    await lockFonts(tx, organizationId);
    const current = await tx.customFont.findFirst({
      where: { id, organizationId },
    });
    if (!current) throw notFound("custom font", id);
    const faces = new Map(facesOf(current).map((face) => [face.weight, face.url]));
    for (const change of changes) {
      if (change.url === null) faces.delete(change.weight);
      else faces.set(change.weight, change.url);
    }
    return tx.customFont.update({
      where: { id },
      data: {
        ...(fontFamily !== undefined ? { fontFamily } : {}),
        faces: finalFaces(faces) as never,
        updatedAt: ctx.clock.now(),
      },
    });
  });
  ctx.loaders.customFont.clear(id);
  return updated;
}

/** Deletes the font; sites that used it show the default font again. */
export async function deleteCustomFont(ctx: CoreContext, organizationId: string, id: string): Promise<void> {
  await requireOrganization(ctx, organizationId, "font.manage");
  await readCustomFont(ctx, organizationId, id);
  const { count } = await ctx.prisma.customFont.deleteMany({
    where: { id, organizationId },
  });
  if (count === 0) throw notFound("custom font", id);
  ctx.loaders.customFont.clear(id);
}
