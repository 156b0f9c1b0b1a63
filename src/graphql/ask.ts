// Ask: questions answered from the content the caller may read (src/core/ask). The answers are
// subscriptions, a snapshot of the whole answer per event (the published SearchAIAnswerStream),
// so that a model's text reaches the reader as it is written; recommended questions are fields.
import {
  type AskAnswer,
  type AskSource,
  askInOrganization,
  askInSite,
  answerOf,
  recommendedQuestionsInOrganization,
  recommendedQuestionsInSite,
} from "../core/ask/index.ts";
import { markdownToDocument } from "../core/content/document.ts";
import { builder } from "./builder.ts";
import { OrganizationRef } from "./organizations.ts";
import { SiteRef } from "./sites.ts";

const AskSourceRef = builder.objectRef<AskSource>("AskSource").implement({
  description: "A page an answer used (the published SearchAIAnswerSourcePage)",
  fields: (t) => ({
    space: t.exposeID("spaceId", { description: "Id of the space owning the page" }),
    revision: t.exposeID("revisionId", { description: "Id of the revision the page was read from" }),
    page: t.exposeID("pageId", { description: "Id of the page" }),
    sections: t.exposeStringList("sections", { description: "Anchors of the page's sections the answer used" }),
  }),
});

const AskAnswerRef = builder.objectRef<AskAnswer>("AskAnswer").implement({
  description: "An answer to a question, as it stands so far: the passages quoted (or a model's text) and the pages it used",
  fields: (t) => ({
    markdown: t.string({
      nullable: true,
      description: "The answer as Markdown, links to the pages it quotes; null before any text",
      resolve: (answer) => answer.markdown,
    }),
    document: t.field({
      type: "JSON",
      nullable: true,
      description: "The answer as a document tree (the published JSONDocument); null before any text",
      resolve: (answer) => (answer.markdown === null ? null : markdownToDocument(answer.markdown)),
    }),
    sources: t.field({ type: [AskSourceRef], description: "The pages the answer used, best first", resolve: (answer) => answer.sources }),
    followupQuestions: t.exposeStringList("followupQuestions", { description: "Questions to ask next (none for an extractive answer)" }),
  }),
});

builder.subscriptionField("askInOrganization", (t) =>
  t.field({
    type: AskAnswerRef,
    description:
      "A question over the organization's content the caller may read: each event is the whole answer so far, the last one complete",
    args: {
      organization: t.arg.id({ required: true, description: "Id of the organization" }),
      query: t.arg.string({ required: true, description: "The question (at most 512 characters)" }),
    },
    subscribe: async (_root, args, { core }) => answerOf(core, await askInOrganization(core, String(args.organization), args.query)),
    resolve: (answer) => answer,
  }),
);

builder.subscriptionField("askInSite", (t) =>
  t.field({
    type: AskAnswerRef,
    description:
      "A question over a site's published content, as a visitor with no claims reads it, within `scope`: each event is the whole answer so far, the last one complete",
    args: {
      organization: t.arg.id({ required: true, description: "Id of the organization owning the site" }),
      site: t.arg.id({ required: true, description: "Id of the site" }),
      question: t.arg.string({ required: true, description: "The question (at most 512 characters)" }),
      scope: t.arg({
        type: "JSON",
        description: "The published API's SiteSearchScope: { mode: default | specific | all, currentSiteSpace, restrictTo, siteSpaceIds }",
      }),
    },
    subscribe: async (_root, args, { core }) =>
      answerOf(core, await askInSite(core, String(args.organization), String(args.site), { question: args.question, scope: args.scope })),
    resolve: (answer) => answer,
  }),
);

builder.objectField(OrganizationRef, "recommendedQuestions", (t) =>
  t.stringList({
    description: "Questions worth asking of the organization's content the caller may read (from its headings and pages), at most 10",
    resolve: (organization, _args, { core }) => recommendedQuestionsInOrganization(core, organization.id),
  }),
);

builder.objectField(SiteRef, "recommendedQuestions", (t) =>
  t.stringList({
    description:
      "Questions worth asking of the site's published content: its readers' most frequent searches that found something, then its headings and pages; at most 10",
    args: {
      siteSpace: t.arg.id({ description: "Only this site space's content" }),
      space: t.arg.id({ description: "Only the content of this space's site spaces (the published, deprecated spaceId)" }),
    },
    resolve: (site, args, { core }) =>
      recommendedQuestionsInSite(core, site.organizationId, site.id, {
        siteSpaceId: args.siteSpace == null ? null : String(args.siteSpace),
        spaceId: args.space == null ? null : String(args.space),
      }),
  }),
);
