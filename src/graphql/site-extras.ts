// Site extras (issue 30): the external links of a site's header. Rules are in
// src/core/sites/external-links.ts.
import type { Site } from "../generated/prisma/client.ts";
import { createExternalLink, deleteExternalLink, externalLinksOf, updateExternalLink } from "../core/sites/external-links.ts";
import { sitePreviewUrl } from "../core/sites/preview.ts";
import { adsOf, partnerListSites, partnerUpdateSite, updateSiteAds } from "../core/sites/ads.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription, toConnection } from "./common.ts";
import { SiteExternalLinkRef, SiteRef, SiteSpaceRef } from "./sites.ts";
import { duplicateSiteSpace } from "../core/sites/duplicate.ts";
import { applySiteTemplate } from "../core/sites/template.ts";

const siteField = "The site";
const organizationField = "When given, the site must be of this organization (not found otherwise)";

builder.objectType(SiteExternalLinkRef, {
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
  ads: t.field({
    type: "JSON",
    description:
      "The site's ads review state (the published SiteAds): pending, in-review, live, rejected or disabled. Stored only: pages load nothing from an ad network",
    resolve: (site) => adsOf(site),
  }),
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
  applySiteTemplate: t.field({
    type: builder.simpleObject("ApplySiteTemplatePayload", {
      description: payloadDescription("ApplySiteTemplatePayload"),
      fields: (p) => ({ site: p.field({ type: SiteRef, description: "The site, now showing the starter space" }) }),
    }),
    description:
      "Gives a site that shows no content yet a starter space (Getting started, with a welcome page) as its site space; a site showing content is left as it is (400)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("ApplySiteTemplateInput", {
          description: inputDescription("ApplySiteTemplateInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ site: await applySiteTemplate(core, input.organization, String(input.site)) }),
  }),
  updateSiteAds: t.field({
    type: builder.simpleObject("UpdateSiteAdsPayload", {
      description: payloadDescription("UpdateSiteAdsPayload"),
      fields: (p) => ({ site: p.field({ type: SiteRef, description: "The site, as it is now" }) }),
    }),
    description: "Submits the site for ads review (in-review, with a topic), turns live ads off (disabled) or changes the topic (admins)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSiteAdsInput", {
          description: inputDescription("UpdateSiteAdsInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: siteField }),
            organization: f.id({ description: organizationField }),
            status: f.string({ description: "in-review or disabled" }),
            topic: f.string({ description: "webdev or crypto" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      site: await updateSiteAds(core, input.organization, String(input.site), { status: input.status, topic: input.topic }),
    }),
  }),
  partnerUpdateSiteAds: t.field({
    type: builder.simpleObject("PartnerUpdateSiteAdsPayload", {
      description: payloadDescription("PartnerUpdateSiteAdsPayload"),
      fields: (p) => ({ siteId: p.id({ description: "The site" }) }),
    }),
    description: "The ad partner's answer for a site submitted to it: live (zone and reporting ids), rejected (a reason) or pending",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PartnerUpdateSiteAdsInput", {
          description: inputDescription("PartnerUpdateSiteAdsInput"),
          fields: (f) => ({
            partnerKey: f.string({ required: true, description: "The ad partner's key" }),
            site: f.id({ required: true, description: siteField }),
            status: f.string({ required: true, description: "live, rejected or pending" }),
            zoneId: f.string({ description: "The ad network's zone (live)" }),
            reportingId: f.string({ description: "The id to fetch reporting data (live)" }),
            reason: f.string({ description: "Why (rejected), at most 512 characters" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      siteId: (await partnerUpdateSite(core, input.partnerKey, String(input.site), input)).id,
    }),
  }),
}));

const PartnerSiteRef = builder.objectRef<{ site: Site; url: string; email: string }>("AdsPartnerSite").implement({
  description: "A site as the ad partner sees it",
  fields: (t) => ({
    id: t.id({ description: "The site", resolve: (row) => row.site.id }),
    url: t.exposeString("url", { description: "The site's published URL" }),
    email: t.exposeString("email", { description: "A contact: an admin of the site's organization" }),
    // Listed sites were submitted, which needs a topic (partnerListSites lists no site without one).
    topic: t.string({ description: "The topic it was submitted with", resolve: (row) => row.site.adsTopic! }),
    ads: t.field({ type: "JSON", description: "The site's ads state", resolve: (row) => adsOf(row.site) }),
  }),
});

builder.queryField("adsPartnerSites", (t) =>
  t.connection(
    {
      type: PartnerSiteRef,
      description: "The ad partner: sites whose ads are in a state (default in-review), oldest first",
      args: {
        partnerKey: t.arg.string({ required: true, description: "The ad partner's key" }),
        status: t.arg.string({ description: "in-review (default), live or rejected" }),
      },
      resolve: async (_root, args, { core }) => toConnection(await partnerListSites(core, args.partnerKey, args.status, args)),
    },
    { name: "AdsPartnerSiteConnection" },
    { name: "AdsPartnerSiteEdge" },
  ),
);
