// /v1/custom-hostnames/:hostname: a site's custom hostname, its DNS check and its removal
// (src/core/sites/hostnames.ts). The published API marks these routes internal; here an admin of
// the site's organization may use them, since a hostname serves its site only once verified.
import { graphql } from "../graphql.ts";
import { type RestRoute, typedRoute } from "../route.ts";

export const customHostnameRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/custom-hostnames/:hostname",
    action: "site.read",
    document: graphql(`
      query GetCustomHostname($hostname: String!) { customHostname(hostname: $hostname) { hostname verified location site { id } } }`),
    variables: ({ params }) => ({ hostname: params.hostname }),
    status: 200,
    body: (data) => {
      const row = data.customHostname;
      return {
        object: "custom-hostname",
        hostname: row.hostname,
        target: { type: "site", site: row.site.id },
        isActive: row.verified,
        // The published statuses are about DNS: the proof found, or not (yet).
        status: row.verified ? "dns_passed" : "dns_no_cname",
        urls: { location: row.location },
      };
    },
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/custom-hostnames/:hostname",
    action: "site.configure",
    document: graphql(`
      mutation RevalidateCustomHostname($hostname: String!) {
        revalidateCustomHostname(input: { hostname: $hostname }) { customHostname { verified } }
      }`),
    variables: ({ params }) => ({ hostname: params.hostname }),
    status: 204,
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/custom-hostnames/:hostname",
    action: "site.configure",
    document: graphql(`
      mutation RemoveCustomHostname($hostname: String!) { removeCustomHostname(input: { hostname: $hostname }) { removed } }`),
    variables: ({ params }) => ({ hostname: params.hostname }),
    status: 205,
    statusOf: (data) => (data.removeCustomHostname.removed ? 205 : 204),
  }),
];
