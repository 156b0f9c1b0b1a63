// Random, URL-safe ids with a type prefix: the same string is the REST `id` and the GraphQL
// node id, and `node(id:)` routes on the prefix.
import { randomBytes } from "node:crypto";

export const ID_PREFIXES = {
  User: "usr",
  ApiToken: "tok",
  Organization: "org",
  Team: "team",
  Collection: "col",
  Space: "spc",
  Revision: "rev",
  PermissionGrant: "grt",
  SamlProvider: "saml",
  LinkInvite: "inv",
  EmailInvite: "einv",
  Page: "pg",
  File: "file",
  ReusableContent: "rc",
  ChangeRequest: "cr",
  Comment: "cmt",
  CommentReply: "rpl",
  OpenAPISpec: "oas",
  OpenAPISpecVersion: "oasv",
  TranslationSettings: "trs",
  TranslationTarget: "trt",
  CustomFont: "font",
  GlossaryEntry: "gle",
  ImportRun: "imp",
  ChangeRequestReview: "rvw",
  Site: "site",
  SiteSpace: "ssp",
  SiteSection: "ssec",
  SiteSectionGroup: "ssg",
  SiteShareLink: "shl",
  SiteRedirect: "srd",
  SiteExternalLink: "sxl",
  Integration: "intg",
  IntegrationInstallation: "inst",
  IntegrationEvent: "ievt",
} as const;

export type EntityName = keyof typeof ID_PREFIXES;

export function newId(entity: EntityName): string {
  return `${ID_PREFIXES[entity]}_${randomBytes(12).toString("base64url")}`;
}

/** The entity an id belongs to, from its prefix; undefined for a malformed id. */
export function entityOfId(id: string): EntityName | undefined {
  const prefix = id.slice(0, id.indexOf("_"));
  return (Object.keys(ID_PREFIXES) as EntityName[]).find((name) => ID_PREFIXES[name] === prefix);
}
