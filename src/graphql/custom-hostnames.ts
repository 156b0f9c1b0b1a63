// Custom hostnames of sites: whether a site's hostname is proven by DNS (only then does it serve the
// site), the record that proves it, checking it again, and removing it (src/core/sites/hostnames.ts).
import { verificationRecord } from "../core/sites/hostname-rules.ts";
import { getCustomHostname, removeCustomHostname, revalidateCustomHostname, type CustomHostname } from "../core/sites/hostnames.ts";
import { builder } from "./builder.ts";
import { inputDescription } from "./common.ts";
import { SiteRef } from "./sites.ts";

const DnsRecord = builder.simpleObject("CustomHostnameDnsRecord", {
  description: "The DNS record that proves a site may serve a hostname",
  fields: (t) => ({
    type: t.string({ description: "Record type (TXT)" }),
    name: t.string({ description: "Name the record is set at" }),
    value: t.string({ description: "Value the record must hold" }),
  }),
});

export const CustomHostnameRef = builder.objectRef<CustomHostname>("CustomHostname").implement({
  description: "A site's custom hostname: pending until its DNS record is found, then it serves the site",
  fields: (t) => ({
    hostname: t.exposeString("hostname", { description: "The hostname, like docs.example.com" }),
    site: t.field({ description: "The site it serves once verified", type: SiteRef, resolve: (row) => row.siteId }),
    verified: t.exposeBoolean("verified", { description: "Whether its DNS record was found (only then does it serve the site)" }),
    location: t.string({
      description: "URL of the custom hostname in the REST API",
      resolve: (row, _args, { core }) => core.urls.api(`/custom-hostnames/${row.hostname}`),
    }),
    verification: t.field({
      description: "The DNS record to set for it to be verified",
      type: DnsRecord,
      resolve: (row) => verificationRecord(row.siteId, row.hostname),
    }),
  }),
});

builder.queryField("customHostname", (t) =>
  t.field({
    description: "A custom hostname of a site the caller may read",
    type: CustomHostnameRef,
    args: { hostname: t.arg.string({ required: true, description: "The hostname, like docs.example.com" }) },
    resolve: (_root, { hostname }, { core }) => getCustomHostname(core, hostname),
  }),
);

const hostnameInput = (name: string) =>
  builder.inputType(name, {
    description: inputDescription(name),
    fields: (f) => ({ hostname: f.string({ required: true, description: "The hostname, like docs.example.com" }) }),
  });

builder.mutationFields((t) => ({
  revalidateCustomHostname: t.field({
    description:
      "Looks up the hostname's DNS record now: verified when it holds the site's value (then the hostname serves the site), CONFLICT naming the record otherwise",
    type: builder.simpleObject("RevalidateCustomHostnamePayload", {
      description: "The hostname checked",
      fields: (p) => ({ customHostname: p.field({ description: "The hostname, verified", type: CustomHostnameRef }) }),
    }),
    args: { input: t.arg({ required: true, type: hostnameInput("RevalidateCustomHostnameInput") }) },
    resolve: async (_root, { input }, { core }) => ({ customHostname: await revalidateCustomHostname(core, input.hostname) }),
  }),
  removeCustomHostname: t.field({
    description: "Takes the hostname off its site: the site no longer serves it",
    type: builder.simpleObject("RemoveCustomHostnamePayload", {
      description: "Whether a site had the hostname",
      fields: (p) => ({ removed: p.boolean({ description: "Whether a site had it (and does not anymore)" }) }),
    }),
    args: { input: t.arg({ required: true, type: hostnameInput("RemoveCustomHostnameInput") }) },
    resolve: async (_root, { input }, { core }) => ({ removed: await removeCustomHostname(core, input.hostname) }),
  }),
}));
