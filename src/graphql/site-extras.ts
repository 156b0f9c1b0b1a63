// Site extras (issue 30): the external links of a site's header. Rules are in
// src/core/sites/external-links.ts.
import type { SiteExternalLink } from "../generated/prisma/client.ts";
import { createExternalLink, deleteExternalLink, externalLinksOf, updateExternalLink } from "../core/sites/external-links.ts";
import { sitePreviewUrl } from "../core/sites/preview.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription } from "./common.ts";
import { SiteRef, SiteSpaceRef } from "./sites.ts";
import { duplicateSiteSpace } from "../core/sites/duplicate.ts";

const siteField = "The site";
const organizationField = "When given, the site must be of this organization (not found otherwise)";

export const SiteExternalLinkRef = builder.objectRef<SiteExternalLink>("SiteExternalLink").implement({
  description: "An external link of a site's header, shown among the section tabs to visitors for whom its condition holds",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the link" }),
    title: t.exposeString("title", { description: "The text of the link (2 to 128 characters)" }),
    localizedTitle: t.field({
      type: "JSON",
      nullable: true,
      description: "Titles by language code (the published TranslationLanguage values)",
      resolve: (link) => link.localizedTitle ?? null,
    }),
    description: t.exposeString("description", { nullable: true, description: "A description (at most 256 characters)" }),
    localizedDescription: t.field({
      type: "JSON",
      nullable: true,
      description: "Descriptions by language code",
      resolve: (link) => link.localizedDescription ?? null,
    }),
    icon: t.exposeString("icon", { nullable: true, description: "Name of an icon" }),
    url: t.exposeString("url", { description: "The absolute http(s) URL it opens" }),
    sectionGroup: t.exposeString("sectionGroupId", { nullable: true, description: "The section group it is in; null at the root" }),
    draft: t.exposeBoolean("draft", { description: "true: stored, not shown on the site" }),
    condition: t.exposeString("condition", { nullable: true, description: "The condition on the visitor's claims for it to show" }),
  }),
});

builder.objectFields(SiteRef, (t) => ({
  previewUrl: t.string({
    description: "A URL that opens the site as it is now, published or not, for one hour (the published getSitePublishingPreviewById)",
    args: {
      siteSpace: t.arg.string({ description: "The site space to open (default: the site's root)" }),
      claims: t.arg.string({ description: "The visitor's claims, Rison-encoded: (name:value,…) (at most 4,096 characters)" }),
      draft: t.arg.boolean({ description: "Accepted as published; the preview shows the spaces' current content either way" }),
      target: t.arg.string({ description: "A URL of the site to open instead" }),
    },
    resolve: (site, args, { core }) => sitePreviewUrl(core, site.organizationId, site.id, args),
  }),
  externalLinks: t.field({
    type: [SiteExternalLinkRef],
    description: "The site's external links in their order (at most 50), drafts included",
    resolve: async (site, _args, { core }) => externalLinksOf(core.prisma, site.id, { drafts: true }),
  }),
}));

/** GraphQL's input as the core's: absent fields stay absent, explicit nulls stay null. */
const inputOf = (input: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(input).filter(([key, value]) => key !== "site" && key !== "organization" && key !== "id" && value !== undefined),
  );

const Payload = builder.simpleObject("SiteExternalLinkPayload", {
  description: "Result of the createSiteExternalLink and updateSiteExternalLink mutations",
  fields: (t) => ({ link: t.field({ type: SiteExternalLinkRef, description: "The link, as it is now" }) }),
});

builder.mutationFields((t) => ({
  createSiteExternalLink: t.field({
    type: Payload,
    description: "Adds an external link to the site's header (after the sections); the site needs sections; at most 50 per site",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSiteExternalLinkInput", {
          description: inputDescription("CreateSiteExternalLinkInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            title: f.string({ required: true, description: "The text of the link (2 to 128 characters)" }),
            url: f.string({ required: true, description: "An absolute http(s) URL (at most 2,048 characters)" }),
            parent: f.string({ description: "A section group of the site to put it in; absent: the root" }),
            localizedTitle: f.field({ type: "JSON", description: "Titles by language code; null removes them" }),
            description: f.string({ description: "A description (at most 256 characters); null removes it" }),
            localizedDescription: f.field({ type: "JSON", description: "Descriptions by language code; null removes them" }),
            icon: f.string({ description: "Name of an icon; null removes it" }),
            draft: f.boolean({ description: "true: stored, not shown on the site" }),
            condition: f.string({ description: "A condition on the visitor's claims; null or empty removes it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      link: await createExternalLink(core, input.organization, String(input.site), inputOf(input)),
    }),
  }),
  updateSiteExternalLink: t.field({
    type: Payload,
    description: "Changes the fields given of an external link of the site",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteExternalLinkInput", {
          description: inputDescription("UpdateSiteExternalLinkInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            id: f.id({ required: true, description: "The link to change" }),
            title: f.string({ description: "The text of the link (2 to 128 characters)" }),
            url: f.string({ description: "An absolute http(s) URL" }),
            parent: f.string({ description: "A section group of the site to move it into; null: the root" }),
            localizedTitle: f.field({ type: "JSON", description: "Titles by language code; null removes them" }),
            description: f.string({ description: "A description (at most 256 characters); null removes it" }),
            localizedDescription: f.field({ type: "JSON", description: "Descriptions by language code; null removes them" }),
            icon: f.string({ description: "Name of an icon; null removes it" }),
            draft: f.boolean({ description: "true: stored, not shown on the site" }),
            condition: f.string({ description: "A condition on the visitor's claims; null or empty removes it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      link: await updateExternalLink(core, input.organization, String(input.site), String(input.id), inputOf(input)),
    }),
  }),
  deleteSiteExternalLink: t.field({
    type: builder.simpleObject("DeleteSiteExternalLinkPayload", {
      description: payloadDescription("DeleteSiteExternalLinkPayload"),
      fields: (p) => ({
        deletedId: p.id({ description: "Id of the deleted link" }),
        existed: p.boolean({ description: "false when the site had no such link" }),
      }),
    }),
    description: "Deletes an external link of the site",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteSiteExternalLinkInput", {
          description: inputDescription("DeleteSiteExternalLinkInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            id: f.id({ required: true, description: "The link to delete" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      deletedId: String(input.id),
      existed: await deleteExternalLink(core, input.organization, String(input.site), String(input.id)),
    }),
  }),
  duplicateSiteSpace: t.field({
    type: builder.simpleObject("DuplicateSiteSpacePayload", {
      description: payloadDescription("DuplicateSiteSpacePayload"),
      fields: (p) => ({ siteSpace: p.field({ type: SiteSpaceRef, description: "The new site space, showing the copy of the space" }) }),
    }),
    description: "Duplicates a site space's space and adds the copy to the site next to it (same section); draft: true adds it hidden",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DuplicateSiteSpaceInput", {
          description: inputDescription("DuplicateSiteSpaceInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            siteSpace: f.id({ required: true, description: "The site space to duplicate" }),
            draft: f.boolean({ description: "Add the copy hidden (default false)" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteSpace: await duplicateSiteSpace(core, input.organization, String(input.site), String(input.siteSpace), { draft: input.draft }),
    }),
  }),
}));
