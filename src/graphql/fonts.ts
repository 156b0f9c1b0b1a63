// Custom fonts of an organization: a family and its faces, which sites' customization may use.
// Rules are in src/core/fonts.
import type { CustomFont } from "../generated/prisma/client.ts";
import { notFound } from "../core/errors.ts";
import {
  createCustomFont,
  customFontById,
  customFontPermissions,
  deleteCustomFont,
  fontFacesOf,
  listCustomFonts,
  loadVisibleCustomFonts,
  readCustomFont,
  updateCustomFont,
} from "../core/fonts/index.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription, toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";

const FontFormat = builder.enumType("FontFormat", {
  description: "The format of a font file, from its name (`.woff2`, `.woff`)",
  values: { WOFF2: { value: "woff2" }, WOFF: { value: "woff" } } as const,
});

const FontSource = builder.simpleObject("FontSource", {
  description: "A font file of a face: where it is and its format",
  fields: (t) => ({
    url: t.string({ description: "The URL of the font file (http or https)" }),
    format: t.field({
      type: FontFormat,
      nullable: true,
      description: "Its format, when its name says it",
    }),
  }),
});

const FontFace = builder.simpleObject("FontFace", {
  description: "One face of a font: a weight and its file",
  fields: (t) => ({
    weight: t.int({
      description: "The weight, 1 to 1000 (400 regular, 700 bold)",
    }),
    sources: t.field({
      type: [FontSource],
      description: "The face's file (one)",
    }),
  }),
});

const Permissions = builder.simpleObject("CustomFontPermissions", {
  description: "What the caller may do with a custom font",
  fields: (t) => ({
    edit: t.boolean({
      description: "Whether the caller may change or delete the font (organization admins)",
    }),
  }),
});

export const CustomFontRef = builder.loadableNode("CustomFont", {
  description: "A font of the organization: a family name and its faces, which sites' customization may use",
  id: { resolve: (font: CustomFont) => font.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleCustomFonts(core, ids);
    return rows.map((row, index) => row ?? notFound("custom font", ids[index]!));
  },
  fields: (t) => ({
    fontFamily: t.exposeString("fontFamily", {
      description: "The CSS family name (1 to 50 letters, digits, spaces, `-`, `_`, `.`)",
    }),
    custom: t.boolean({
      description: "Always true: the font is the organization's own",
      resolve: () => true,
    }),
    fontFaces: t.field({
      type: [FontFace],
      description: "The faces, by weight; one has the regular weight (400)",
      resolve: (font) =>
        fontFacesOf(font).map((face) => ({
          ...face,
          sources: face.sources.map((s) => ({
            url: s.url,
            format: s.format ?? null,
          })),
        })),
    }),
    organization: t.field({
      type: OrganizationRef,
      description: "The organization the font belongs to",
      resolve: (font) => font.organizationId,
    }),
    createdAt: t.expose("createdAt", {
      type: "DateTime",
      description: "When the font was created",
    }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description: "When its family or faces last changed",
    }),
    permissions: t.field({
      type: Permissions,
      description: "What the caller may do with the font",
      resolve: (font, _args, { core }) => customFontPermissions(core, font),
    }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  customFonts: t.connection(
    {
      type: CustomFontRef,
      description: "The organization's custom fonts, oldest first",
      resolve: async (o, args, { core }) => toConnection(await listCustomFonts(core, o.id, args)),
    },
    builder.connectionObject({ type: CustomFontRef, name: "CustomFontConnection" }, { name: "CustomFontEdge" }),
  ),
  customFont: t.field({
    type: CustomFontRef,
    description: "A custom font of the organization by id; not found when there is none",
    args: { id: t.arg.id({ required: true, description: "The font's id" }) },
    resolve: (o, { id }, { core }) => readCustomFont(core, o.id, String(id)),
  }),
}));

/** The font an input names; with `organization`, only one of that organization (404 otherwise). */
const fontOf = (core: Parameters<typeof customFontById>[0], id: string | number, organization?: string | number | null) =>
  organization != null ? readCustomFont(core, String(organization), String(id)) : customFontById(core, String(id));

const organizationField = "When given, the font must be of this organization (not found otherwise)";

const Payload = builder.simpleObject("CustomFontPayload", {
  description: "Result of the createCustomFont and updateCustomFont mutations",
  fields: (t) => ({
    font: t.field({
      type: CustomFontRef,
      description: "The font, as it is now",
    }),
  }),
});

const faceInput = (name: string, description: string, keyDescription: string, required: boolean) =>
  builder.inputType(name, {
    description,
    fields: (f) => ({
      weight: f.int({
        required: true,
        description: "The weight, 1 to 1000 (400 regular, 700 bold)",
      }),
      storageKey: f.string({ required, description: keyDescription }),
    }),
  });

const NewFace = faceInput(
  "CustomFontFaceInput",
  "A face of a new custom font: a weight and its file",
  "The font file: its http(s) URL (at most 512 characters), the published API's storage key (this service has no upload bucket)",
  true,
);
const ChangedFace = faceInput(
  "CustomFontFaceChangeInput",
  "A face to add, replace or remove: a weight and its file, or null to remove the weight",
  "The font file's http(s) URL for this weight; null removes the weight",
  false,
);

builder.mutationFields((t) => ({
  createCustomFont: t.field({
    type: Payload,
    description: "Creates a custom font of the organization (organization admins); at most 50 per organization",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateCustomFontInput", {
          description: inputDescription("CreateCustomFontInput"),
          fields: (f) => ({
            organization: f.id({
              required: true,
              description: "The organization the font belongs to",
            }),
            fontFamily: f.string({
              required: true,
              description: "The CSS family name: 1 to 50 letters, digits, spaces, `-`, `_`, `.`",
            }),
            fontFaces: f.field({
              type: [NewFace],
              required: true,
              description: "1 to 20 faces, each weight once, the regular weight (400) among them",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      font: await createCustomFont(core, String(input.organization), {
        fontFamily: input.fontFamily,
        fontFaces: input.fontFaces,
      }),
    }),
  }),
  updateCustomFont: t.field({
    type: Payload,
    description: "Changes the family and the faces given (a face replaces its weight, a null key removes it); the rest stays",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateCustomFontInput", {
          description: inputDescription("UpdateCustomFontInput"),
          fields: (f) => ({
            id: f.id({ required: true, description: "The font to change" }),
            organization: f.id({ description: organizationField }),
            fontFamily: f.string({
              description: "The new family name; unchanged when left out",
            }),
            fontFaces: f.field({
              type: [ChangedFace],
              description: "Faces to add, replace (same weight) or remove (null key); the regular weight cannot be removed",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const font = await fontOf(core, input.id, input.organization);
      return {
        font: await updateCustomFont(core, font.organizationId, font.id, {
          fontFamily: input.fontFamily ?? undefined,
          fontFaces: input.fontFaces ?? undefined,
        }),
      };
    },
  }),
  deleteCustomFont: t.field({
    type: builder.simpleObject("DeleteCustomFontPayload", {
      description: payloadDescription("DeleteCustomFontPayload"),
      fields: (p) => ({
        deletedId: p.id({ description: "Id of the deleted font" }),
      }),
    }),
    description: "Deletes the font; sites that used it show the default font",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteCustomFontInput", {
          description: inputDescription("DeleteCustomFontInput"),
          fields: (f) => ({
            id: f.id({ required: true, description: "The font to delete" }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const font = await fontOf(core, input.id, input.organization);
      await deleteCustomFont(core, font.organizationId, font.id);
      return { deletedId: font.id };
    },
  }),
}));
