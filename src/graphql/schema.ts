// The schema: every domain file registers its types on the builder when imported.
import { builder } from "./builder.ts";
import "./organizations.ts";
import "./collections.ts";
import "./spaces.ts";
import "./members.ts";
import "./teams.ts";
import "./grants.ts";
import "./saml.ts";
import "./content.ts";
import "./content-editing.ts";
import "./files.ts";
import "./import.ts";
import "./search.ts";
import "./links.ts";
import "./change-requests.ts";
import "./comments.ts";
import "./reviews.ts";
import "./pdf.ts";
import "./openapi.ts";
import "./translations.ts";
import "./sites.ts";
import "./tokens.ts";
import "./integrations.ts";
import "./integration-blocks.ts";
import "./system.ts";

export const schema = builder.toSchema({ sortSchema: true });
