// SAML providers and SSO logins through HTTP, on both surfaces: the six /v1 routes (official
// client, every response validated against the published schemas) and the GraphQL fields and
// mutations. Covers validation (nothing stored on a refusal), the service URLs built from
// PUBLIC_URL, the default team of another organization, and who may read and change providers.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { type MemberRole } from "@gitbook/api";
import { newId } from "../src/core/ids.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;

// A self-signed certificate for these tests, made once with
// `openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=test -days 3650 -keyout /dev/null`.
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIC/zCCAeegAwIBAgIUNrA6WNueDbmpvbFSAVREoKL2+akwDQYJKoZIhvcNAQEL
BQAwDzENMAsGA1UEAwwEdGVzdDAeFw0yNjExMjIwMzQzMjNaFw0zNjExMTkwMzQz
MjNaMA8xDTALBgNVBAMMBHRlc3QwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEK
AoIBAQCueRmXT3IMfZy4CXVfd/pAocm/wGjkzOyL9cwQRkKp4ccTttJ6d2uhCum1
mVI2g+fx6KXSjCVQAk1nYDI6oNIAPg/oKpCqoKi0SB3GwRnmjamffdH512Aih4Pl
JiMgp5Wf8B2miJAGAmmU2gBKAKb/wQEUn0cGwBC91J5LV45rY8E9ybP/+P2Nl/E+
CB2+avds0jSZBamMb5Uz/4GmO50cvy0mydONwPod/7EfqKGXzu4Q+U2e29xoJb0B
o56FtWWWlx1azEdjEbAskC1WEfHM2I6lf3Dp+0ca2EYCMtQRs3H4nxVShozndBoG
kZSGKdmOFu63xmAXjuQ90cdkNv7ZAgMBAAGjUzBRMB0GA1UdDgQWBBREjGa/rRYW
YBXYITXB8A/XVQGbSTAfBgNVHSMEGDAWgBREjGa/rRYWYBXYITXB8A/XVQGbSTAP
BgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQB/fn1Yk7bAAE+E1pBp
bBPfLRkyjotX92krjDRlGo/V9DkMbOQqhnzfG3wvbtUNZThDpGSF+W/CHikTYhxp
cSuFlFTStFwUQ/vL4aC4KwMtZEP/HlOA8mIf4d1kJOa75gyAQy0/0DopfsSEOQFx
Hm3pggg5cnwJQ5/iFvHWdvo88BQ3aQ+l5Zwym1GM5Jf4Pi7ep97VtiMKSJjQt05V
cYvSzUEBzozzwbzKS4YSjILUtEYC0z/X6z/FiDa/CjL2w6hStnCa82uzMuMGn014
Z6LgGSTuqo9HlGyb16qYaaLuClZQ8pkCz6a/lkiTa+pC9h5dnxjhC5urqzAeajnq
cH+V
-----END CERTIFICATE-----`;
/** The same certificate as identity providers' metadata gives it: the base64 alone. */
const CERTIFICATE_BODY = CERTIFICATE.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");

const api = (token: string) => server.client(token).orgs;
const role = (value: string) => value as MemberRole;
const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const prisma = () => server.database.prisma;
const storedProviders = () => prisma().samlProvider.findMany({ orderBy: { id: "asc" } });

let labels = 0;
const providerBody = (extra: Record<string, unknown> = {}) => ({
  label: `IdP ${++labels}`,
  entityID: `https://idp.example.com/${labels}`,
  ssoURL: "https://idp.example.com/sso",
  certificate: CERTIFICATE,
  ...extra,
});

/** A refused request must leave every provider row as it was. */
async function expectNothingStored(attempt: () => Promise<void>) {
  const before = await storedProviders();
  await attempt();
  expect(await storedProviders()).toEqual(before);
}

interface Principal {
  organizationId: string;
  userId: string;
  token: string;
}

let alpha: Principal;
let beta: Principal;
let member: { userId: string; token: string };
let guest: { userId: string; token: string };
let alphaTeam: string;
let betaTeam: string;

async function newTeam(organizationId: string, title: string) {
  const id = newId("Team");
  await prisma().team.create({ data: { id, organizationId, title } });
  return id;
}

beforeAll(async () => {
  server = await startTestServer();
  alpha = await server.bootstrap("SAML Alpha");
  beta = await server.bootstrap("SAML Beta");
  member = await server.addMember(alpha.organizationId, "create");
  guest = await server.addMember(alpha.organizationId, null);
  alphaTeam = await newTeam(alpha.organizationId, "Engineering");
  betaTeam = await newTeam(beta.organizationId, "Beta people");
});

afterAll(async () => {
  await server?.close();
});

describe("SAML providers over REST", () => {
  it("creates, reads, lists, updates and deletes a provider", async () => {
    const created = await api(alpha.token).createOrganizationSamlProvider(
      alpha.organizationId,
      providerBody({ label: "Okta", defaultTeam: alphaTeam, defaultRole: role("edit") }),
    );
    expect(created.status).toBe(201);
    const provider = created.data;
    expect(provider).toMatchObject({
      object: "saml-provider",
      label: "Okta",
      ssoURL: "https://idp.example.com/sso",
      certificate: CERTIFICATE,
      defaultRole: "edit",
      status: "active",
      defaultTeam: { object: "team", id: alphaTeam, title: "Engineering", members: 0, spaces: 0 },
      urls: { location: `${server.url}/v1/orgs/${alpha.organizationId}/saml/${provider.id}` },
    });
    expect(provider.id).toMatch(/^saml_/);
    expect(new Date(provider.createdAt).getTime()).not.toBeNaN();

    const { data: read } = await api(alpha.token).getOrganizationSamlProviderById(alpha.organizationId, provider.id);
    expect(read).toEqual(provider);

    const { data: list } = await api(alpha.token).listSamlProvidersInOrganizationById(alpha.organizationId);
    expect(list.items.map((item) => item.id)).toContain(provider.id);
    expect(list.count).toBe(list.items.length);

    const { data: updated } = await api(alpha.token).updateOrganizationSamlProvider(alpha.organizationId, provider.id, {
      label: "Okta (prod)",
      ssoURL: "https://idp.example.com/sso/v2",
      defaultRole: null,
    });
    expect(updated).toMatchObject({
      id: provider.id,
      label: "Okta (prod)",
      ssoURL: "https://idp.example.com/sso/v2",
      entityID: provider.entityID,
      defaultRole: null,
      defaultTeam: { id: alphaTeam },
    });
    expect(await prisma().samlProvider.findUniqueOrThrow({ where: { id: provider.id } })).toMatchObject({
      label: "Okta (prod)",
      defaultRole: null,
      defaultTeamId: alphaTeam,
    });

    // null removes the default team (sent raw: the client's types do not allow null there).
    const cleared = await server.rest(alpha.token, "PATCH", `/v1/orgs/${alpha.organizationId}/saml/${provider.id}`, { defaultTeam: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.defaultTeam).toBeUndefined();

    const deleted = await api(alpha.token).deleteOrganizationSamlProvider(alpha.organizationId, provider.id);
    expect(deleted.status).toBe(205);
    expect(await prisma().samlProvider.findUnique({ where: { id: provider.id } })).toBeNull();
    await expectRestError(api(alpha.token).getOrganizationSamlProviderById(alpha.organizationId, provider.id), 404);
    await expectRestError(api(alpha.token).deleteOrganizationSamlProvider(alpha.organizationId, provider.id), 404);
  });

  it("computes the service provider URLs from PUBLIC_URL", async () => {
    const { data: provider } = await api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody());
    const base = `${server.url}/sso/saml/${provider.id}`;
    expect(provider.service).toEqual({ entityID: base, acsURL: `${base}/acs`, startURL: `${base}/start` });
  });

  it("refuses a garbage certificate with 400 naming certificate, and stores nothing", async () => {
    await expectNothingStored(async () => {
      await expectRestError(
        api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody({ certificate: "not a certificate" })),
        400,
        "certificate",
      );
      await expectRestError(
        api(alpha.token).createOrganizationSamlProvider(
          alpha.organizationId,
          providerBody({ certificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" }),
        ),
        400,
        "certificate",
      );
    });
    expect(await prisma().samlProvider.count({ where: { organizationId: alpha.organizationId, certificate: "not a certificate" } })).toBe(
      0,
    );
  });

  it("refuses a certificate update that does not parse, and keeps the old one", async () => {
    const { data: provider } = await api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody());
    await expectNothingStored(async () => {
      await expectRestError(
        api(alpha.token).updateOrganizationSamlProvider(alpha.organizationId, provider.id, { certificate: "garbage", label: "Renamed" }),
        400,
        "certificate",
      );
    });
    expect((await prisma().samlProvider.findUniqueOrThrow({ where: { id: provider.id } })).certificate).toBe(CERTIFICATE);
  });

  it("refuses other PEM content: a private key, or two certificates", async () => {
    const key = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----";
    await expectNothingStored(async () => {
      for (const certificate of [key, `${CERTIFICATE}\n${CERTIFICATE}`, `${CERTIFICATE}\ntrailing`]) {
        await expectRestError(
          api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody({ certificate })),
          400,
          "certificate",
        );
      }
    });
  });

  it("accepts a real certificate as PEM or as its base64 body alone, and stores it as PEM", async () => {
    const { data: fromPem } = await api(alpha.token).createOrganizationSamlProvider(
      alpha.organizationId,
      providerBody({ certificate: `\n${CERTIFICATE}\n` }),
    );
    expect(fromPem.certificate).toBe(CERTIFICATE);
    const { data: fromBody } = await api(alpha.token).createOrganizationSamlProvider(
      alpha.organizationId,
      providerBody({ certificate: CERTIFICATE_BODY }),
    );
    expect(fromBody.certificate).toBe(CERTIFICATE);
    expect((await prisma().samlProvider.findUniqueOrThrow({ where: { id: fromBody.id } })).certificate).toBe(CERTIFICATE);
  });

  it("refuses an ssoURL that is not an absolute http(s) URL", async () => {
    await expectNothingStored(async () => {
      for (const ssoURL of ["not a url", "/relative/sso", "ftp://idp.example.com/sso", `https://idp.example.com/${"a".repeat(2048)}`]) {
        await expectRawRestError(
          server,
          alpha.token,
          "POST",
          `/v1/orgs/${alpha.organizationId}/saml`,
          providerBody({ ssoURL }),
          400,
          "ssoURL",
        );
      }
    });
  });

  it("refuses a default team of another organization, or none at all", async () => {
    await expectNothingStored(async () => {
      for (const defaultTeam of [betaTeam, "team_doesnotexist"]) {
        await expectRestError(
          api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody({ defaultTeam })),
          400,
          "defaultTeam",
        );
      }
    });
    const { data: provider } = await api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody());
    await expectNothingStored(async () => {
      await expectRestError(
        api(alpha.token).updateOrganizationSamlProvider(alpha.organizationId, provider.id, { defaultTeam: betaTeam }),
        400,
        "defaultTeam",
      );
    });
  });

  it("checks label, entityID and defaultRole, with the published limits", async () => {
    const path = `/v1/orgs/${alpha.organizationId}/saml`;
    await expectNothingStored(async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ label: "" }, "label"],
        [{ label: "   " }, "label"],
        [{ label: "x".repeat(31) }, "label"],
        [{ label: undefined }, "label"],
        [{ entityID: "" }, "entityID"],
        [{ entityID: "x".repeat(1025) }, "entityID"],
        [{ entityID: undefined }, "entityID"],
        [{ ssoURL: undefined }, "ssoURL"],
        [{ certificate: undefined }, "certificate"],
        [{ certificate: "x".repeat(10001) }, "certificate"],
        [{ defaultRole: "owner" }, "defaultRole"],
        [{ defaultRole: "ADMIN" }, "defaultRole"],
      ];
      for (const [change, field] of cases) {
        const body = providerBody(change);
        for (const key of Object.keys(change)) if (change[key] === undefined) delete (body as Record<string, unknown>)[key];
        await expectRawRestError(server, alpha.token, "POST", path, body, 400, field);
      }
    });
    // At the limits, and a guest default role.
    const { data } = await api(alpha.token).createOrganizationSamlProvider(
      alpha.organizationId,
      providerBody({ label: "x".repeat(30), entityID: "urn:x".padEnd(1024, "x"), defaultRole: null }),
    );
    expect(data.label).toHaveLength(30);
    expect(data.defaultRole).toBeNull();
  });

  it("pages the provider list", async () => {
    const gamma = await server.bootstrap("SAML Gamma");
    for (let index = 0; index < 3; index++) await api(gamma.token).createOrganizationSamlProvider(gamma.organizationId, providerBody());
    const first = await api(gamma.token).listSamlProvidersInOrganizationById(gamma.organizationId, { limit: 2 });
    expect(first.data.items).toHaveLength(2);
    expect(first.data.count).toBe(3);
    const second = await api(gamma.token).listSamlProvidersInOrganizationById(gamma.organizationId, {
      limit: 2,
      page: first.data.next!.page,
    });
    expect(second.data.items).toHaveLength(1);
    expect(second.data.next).toBeUndefined();
    const ids = [...first.data.items, ...second.data.items].map((item) => item.id);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("SSO logins", () => {
  it("lists id, label and startURL of every provider, to any member", async () => {
    const delta = await server.bootstrap("SAML Delta");
    const deltaGuest = await server.addMember(delta.organizationId, null);
    expect((await api(delta.token).listSsoProviderLoginsInOrganization(delta.organizationId)).data).toEqual({ items: [] });
    const { data: one } = await api(delta.token).createOrganizationSamlProvider(delta.organizationId, providerBody({ label: "Okta" }));
    const { data: two } = await api(delta.token).createOrganizationSamlProvider(delta.organizationId, providerBody({ label: "Azure AD" }));
    const expected = [one, two].map((p) => ({ id: p.id, label: p.label, startURL: p.service.startURL }));
    for (const token of [delta.token, deltaGuest.token]) {
      const { data } = await api(token).listSsoProviderLoginsInOrganization(delta.organizationId);
      expect(data.items).toHaveLength(2);
      expect(data.items).toEqual(expect.arrayContaining(expected));
      for (const item of data.items) expect(Object.keys(item).sort()).toEqual(["id", "label", "startURL"]);
    }
    await expectRestError(api(beta.token).listSsoProviderLoginsInOrganization(delta.organizationId), 404);
  });
});

describe("who may manage SAML providers", () => {
  let providerId: string;
  beforeAll(async () => {
    providerId = (await api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody())).data.id;
  });

  it("refuses reads and writes to a non-admin member and a guest (403), and changes nothing", async () => {
    await expectNothingStored(async () => {
      for (const token of [member.token, guest.token]) {
        await expectRestError(api(token).listSamlProvidersInOrganizationById(alpha.organizationId), 403);
        await expectRestError(api(token).getOrganizationSamlProviderById(alpha.organizationId, providerId), 403);
        await expectRestError(api(token).createOrganizationSamlProvider(alpha.organizationId, providerBody()), 403);
        await expectRestError(api(token).updateOrganizationSamlProvider(alpha.organizationId, providerId, { label: "Taken over" }), 403);
        await expectRestError(api(token).deleteOrganizationSamlProvider(alpha.organizationId, providerId), 403);
      }
    });
  });

  it("answers 404 to another organization's admin, even for a bad body", async () => {
    await expectNothingStored(async () => {
      await expectRestError(api(beta.token).listSamlProvidersInOrganizationById(alpha.organizationId), 404);
      await expectRestError(api(beta.token).getOrganizationSamlProviderById(alpha.organizationId, providerId), 404);
      await expectRestError(api(beta.token).createOrganizationSamlProvider(alpha.organizationId, providerBody()), 404);
      await expectRestError(api(beta.token).createOrganizationSamlProvider(alpha.organizationId, providerBody({ certificate: "x" })), 404);
      await expectRestError(api(beta.token).updateOrganizationSamlProvider(alpha.organizationId, providerId, { label: "Taken over" }), 404);
      await expectRestError(api(beta.token).deleteOrganizationSamlProvider(alpha.organizationId, providerId), 404);
      // Through its own organization: the provider is not one of Beta's.
      await expectRestError(api(beta.token).getOrganizationSamlProviderById(beta.organizationId, providerId), 404);
      await expectRestError(api(beta.token).deleteOrganizationSamlProvider(beta.organizationId, providerId), 404);
    });
  });

  it("answers 401 without a token", async () => {
    const response = await server.rest(undefined, "GET", `/v1/orgs/${alpha.organizationId}/saml`);
    expect(response.status).toBe(401);
  });
});

describe("SAML providers over GraphQL", () => {
  const FIELDS = /* GraphQL */ `
    fragment P on SamlProvider {
      id label entityID ssoURL certificate defaultRole status createdAt
      defaultTeam { id title }
      service { acsURL startURL entityID }
      organization { id }
      urls { location }
    }`;
  const CREATE = `mutation($input: CreateSamlProviderInput!) { createSamlProvider(input: $input) { samlProvider { ...P } } } ${FIELDS}`;
  const UPDATE = `mutation($input: UpdateSamlProviderInput!) { updateSamlProvider(input: $input) { samlProvider { ...P } } } ${FIELDS}`;
  const DELETE = `mutation($input: DeleteSamlProviderInput!) { deleteSamlProvider(input: $input) { deletedSamlProviderId } }`;
  const LIST = `query($id: ID!) { organization(id: $id) { samlProviders(first: 100) { totalCount nodes { ...P } } ssoLogins { id label startURL } } } ${FIELDS}`;
  const NODE = `query($id: ID!) { node(id: $id) { id ... on SamlProvider { label } } }`;

  it("creates, lists, reads by node id, updates and deletes", async () => {
    const epsilon = await server.bootstrap("SAML Epsilon");
    const team = await newTeam(epsilon.organizationId, "Support");
    const { createSamlProvider } = await gql(epsilon.token, CREATE, {
      input: { organization: epsilon.organizationId, ...providerBody({ label: "Google", defaultTeam: team, defaultRole: "READ" }) },
    });
    const provider = createSamlProvider.samlProvider;
    expect(provider).toMatchObject({
      label: "Google",
      defaultRole: "READ",
      status: "ACTIVE",
      certificate: CERTIFICATE,
      defaultTeam: { id: team, title: "Support" },
      organization: { id: epsilon.organizationId },
      service: { startURL: `${server.url}/sso/saml/${provider.id}/start` },
    });

    const listed = await gql(epsilon.token, LIST, { id: epsilon.organizationId });
    expect(listed.organization.samlProviders).toEqual({ totalCount: 1, nodes: [provider] });
    expect(listed.organization.ssoLogins).toEqual([{ id: provider.id, label: "Google", startURL: provider.service.startURL }]);

    expect((await gql(epsilon.token, NODE, { id: provider.id })).node).toEqual({ id: provider.id, label: "Google" });

    const { updateSamlProvider } = await gql(epsilon.token, UPDATE, {
      input: { organization: epsilon.organizationId, id: provider.id, entityID: "urn:google", defaultTeam: null, label: null },
    });
    expect(updateSamlProvider.samlProvider).toMatchObject({ label: "Google", entityID: "urn:google", defaultTeam: null });

    const { deleteSamlProvider } = await gql(epsilon.token, DELETE, { input: { organization: epsilon.organizationId, id: provider.id } });
    expect(deleteSamlProvider).toEqual({ deletedSamlProviderId: provider.id });
    expect(await prisma().samlProvider.count({ where: { organizationId: epsilon.organizationId } })).toBe(0);
  });

  it("gives the same 400 as REST for a garbage certificate, and stores nothing", async () => {
    await expectNothingStored(async () => {
      const response = await server.graphql(alpha.token, CREATE, {
        input: { organization: alpha.organizationId, ...providerBody({ certificate: "garbage" }) },
      });
      expectGraphQLError(response, "BAD_REQUEST", "certificate must be one X.509 certificate in PEM format");
    });
  });

  it("hides providers from non-admins: 403 on the organization's list, not found by node id", async () => {
    const providerId = (await api(alpha.token).createOrganizationSamlProvider(alpha.organizationId, providerBody())).data.id;
    expectGraphQLError(await server.graphql(member.token, LIST, { id: alpha.organizationId }), "FORBIDDEN");
    expectGraphQLError(await server.graphql(member.token, NODE, { id: providerId }), "NOT_FOUND");
    expectGraphQLError(await server.graphql(beta.token, NODE, { id: providerId }), "NOT_FOUND");
    const logins = await gql(member.token, `query($id: ID!) { organization(id: $id) { ssoLogins { id } } }`, { id: alpha.organizationId });
    expect(logins.organization.ssoLogins.map((login: { id: string }) => login.id)).toContain(providerId);
  });
});
