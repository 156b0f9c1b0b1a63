// Space templates (the published applyTemplateToSpace). Rules: src/core/content/space-templates.ts.
import { applySpaceTemplate, SPACE_TEMPLATES } from "../core/content/space-templates.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription } from "./common.ts";
import { RevisionRef } from "./content.ts";

builder.mutationField("applySpaceTemplate", (t) =>
  t.field({
    type: builder.simpleObject("ApplySpaceTemplatePayload", {
      description: payloadDescription("ApplySpaceTemplatePayload"),
      fields: (p) => ({ revision: p.field({ type: RevisionRef, description: "The revision the template's pages were written in" }) }),
    }),
    description:
      "Fills empty content (a space's, or one of its change requests') with a template's pages, as one revision; content that already has pages is left as it is (400)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("ApplySpaceTemplateInput", {
          description: inputDescription("ApplySpaceTemplateInput"),
          fields: (f) => ({
            space: f.id({ required: true, description: "Id of the space" }),
            changeRequest: f.id({
              description: "A change request of the space (id or number) to apply it to, instead of the space's own content",
            }),
            id: f.string({ required: true, description: `The template: ${Object.keys(SPACE_TEMPLATES).join(", ")}` }),
            params: f.field({ type: "JSON", description: "The published SpaceTemplateParams; these templates take no content references" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      revision: await applySpaceTemplate(
        core,
        { spaceId: String(input.space), changeRequest: input.changeRequest == null ? null : String(input.changeRequest) },
        { id: input.id, params: input.params as { contentRefs?: unknown } | null },
      ),
    }),
  }),
);
