// The audit actions this service records, by their published ids (GitBook's "Audit log actions":
// `<scope>.<object>.<verb>`, as `organization.team.created`) and labels. Only actions a write here
// records are listed: GET /orgs/{id}/audit-event-actions answers this list, and a filter on any
// other action is refused (docs/audit-log.md names the published ones no write here does).
export const AUDIT_ACTIONS = {
  "organization.settings.updated": "Updated organization settings",
  "organization.member.updated": "Updated organization member",
  "organization.member.removed": "Removed organization member",
  "organization.link-invite.created": "Created organization invite link",
  "organization.link-invite.updated": "Updated organization invite link",
  "organization.link-invite.deleted": "Deleted organization invite link",
  "organization.team.created": "Created organization team",
  "organization.team.updated": "Updated organization team",
  "organization.team.deleted": "Deleted organization team",
  "organization.team.member-added": "Added organization team member",
  "organization.team.member-removed": "Removed organization team member",
  "organization.team.member-updated": "Updated organization team member",
  "organization.integration.installed": "Installed integration",
  "organization.integration.uninstalled": "Uninstalled integration",
  "collection.created": "Created collection",
  "collection.updated": "Updated collection",
  "collection.deleted": "Deleted collection",
  "collection.moved": "Moved collection",
  "collection.transferred": "Transferred collection",
  "space.created": "Created space",
  "space.updated": "Updated space",
  "space.deleted": "Deleted space",
  "space.restored": "Restored space",
  "space.moved": "Moved space",
  "space.transferred": "Transferred space",
  "space.change-request.merged": "Merged change request",
  "site.created": "Created site",
  "site.updated": "Updated site",
  "site.deleted": "Deleted site",
  "site.published": "Published site",
  "site.unpublished": "Unpublished site",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const isAuditAction = (value: string): value is AuditAction => Object.hasOwn(AUDIT_ACTIONS, value);
