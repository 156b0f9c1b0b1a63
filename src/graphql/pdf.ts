// A change request's or a space's content as a PDF: a temporary URL (one hour) that serves it without a token
// (src/core/change-requests/pdf.ts; the download plugin use-pdf-downloads.ts).
import { pdfUrlOf } from "../core/change-requests/pdf.ts";
import { builder } from "./builder.ts";
import { ChangeRequestRef } from "./change-requests.ts";
import { SpaceRef } from "./spaces.ts";

const PdfUrl = builder.simpleObject("PdfUrl", {
  description: "A signed URL of a PDF export, valid for a limited time",
  fields: (t) => ({ url: t.string({ description: "Temporary URL of the PDF: it works for one hour, without a token" }) }),
});

builder.objectField(ChangeRequestRef, "pdf", (t) =>
  t.field({
    type: PdfUrl,
    description: "The change request's content as a PDF (each page on new PDF pages, in tree order)",
    args: {
      page: t.arg.id({ description: "Only this page and its subpages" }),
      only: t.arg.boolean({ description: "With page: that page alone, without its subpages" }),
    },
    resolve: async (changeRequest, args, { core }) => ({ url: await pdfUrlOf(core, changeRequest.spaceId, changeRequest.id, args) }),
  }),
);

builder.objectField(SpaceRef, "pdf", (t) =>
  t.field({
    type: PdfUrl,
    description: "The space's current content as a PDF (each page on new PDF pages, in tree order)",
    args: {
      page: t.arg.id({ description: "Only this page and its subpages" }),
      only: t.arg.boolean({ description: "With page: that page alone, without its subpages" }),
    },
    resolve: async (space, args, { core }) => ({ url: await pdfUrlOf(core, space.id, null, args) }),
  }),
);
