// Text columns holding one value of a family (a role, an edit mode, a status…): the database stores
// text, the code works with the family's union. Rows are read through the family's parser, which
// refuses a value outside the family (a corrupt row fails loudly) instead of casting it.
import { ROLES } from "./auth/roles.ts";
import { CHANGE_REQUEST_STATUSES } from "./change-requests/access.ts";
import { COMMENT_STATUSES } from "./comments/index.ts";
import { OPENAPI_VISIBILITIES, PROCESS_ERROR_CODES, PROCESSING_STATES } from "./openapi/index.ts";
import { ORGANIZATION_TYPES } from "./organizations/index.ts";
import { REVIEW_STATUSES } from "./reviews/index.ts";
import { AGENTS_CONTEXTS, SITE_TYPES, SITE_VISIBILITIES } from "./sites/index.ts";
import { SPACE_EDIT_MODES, SPACE_VISIBILITIES } from "./spaces/index.ts";
import { TEAM_MEMBER_ROLES } from "./teams/index.ts";
import { quote } from "./errors.ts";

/** The parser of one family: a stored text → its value; null stays null (a nullable column). */
function family<const Values extends readonly string[]>(name: string, values: Values) {
  type Value = Values[number];
  const known = new Set<string>(values);
  function parse(text: string): Value;
  function parse(text: string | null): Value | null;
  function parse(text: string | null): Value | null {
    if (text === null) return null;
    if (!known.has(text)) throw new Error(`Stored ${name} ${quote(text)} is not one of ${values.join(", ")}`);
    return text as Value;
  }
  return parse;
}

export const roleOf = family("role", ROLES);
export const teamRoleOf = family("team member role", TEAM_MEMBER_ROLES);
export const organizationTypeOf = family("organization type", ORGANIZATION_TYPES);
export const spaceVisibilityOf = family("space visibility", SPACE_VISIBILITIES);
export const editModeOf = family("edit mode", SPACE_EDIT_MODES);
export const changeRequestStatusOf = family("change request status", CHANGE_REQUEST_STATUSES);
export const reviewStatusOf = family("review status", REVIEW_STATUSES);
export const commentStatusOf = family("comment status", COMMENT_STATUSES);
export const siteTypeOf = family("site type", SITE_TYPES);
export const siteVisibilityOf = family("site visibility", SITE_VISIBILITIES);
export const agentsContextOf = family("agents context", AGENTS_CONTEXTS);
export const processingStateOf = family("processing state", PROCESSING_STATES);
export const processErrorCodeOf = family("process error code", PROCESS_ERROR_CODES);
export const openapiVisibilityOf = family("OpenAPI visibility", OPENAPI_VISIBILITIES);
