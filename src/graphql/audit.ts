// The audit log of an organization: Organization.auditEvents (the published filters, newest
// first), Organization.auditEvent(id) and Organization.auditEventActions. Rules are in src/core/audit.
import type { AuditEvent } from "../generated/prisma/client.ts";
import { getAuditEvent, listAuditActions, listAuditEvents } from "../core/audit/index.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { OrganizationRef } from "./organizations.ts";

const AuditEventActionRef = builder.simpleObject("AuditEventAction", {
  description: "An action the audit log records: its stable id and its label",
  fields: (t) => ({
    id: t.string({ description: "The action id events carry (`space.created`)" }),
    label: t.string({ description: "Its human-readable label" }),
  }),
});

const AuditEventActorRef = builder.simpleObject("AuditEventActor", {
  description: "Who made a recorded change",
  fields: (t) => ({
    type: t.string({ description: "user, or installation (an integration installation's token)" }),
    id: t.string({ description: "The user's or the installation's id" }),
    tokenId: t.string({ nullable: true, description: "The API token the change came with (null: none)" }),
  }),
});

const AuditEventTargetRef = builder.simpleObject("AuditEventTarget", {
  description: "The object a recorded change was made to",
  fields: (t) => ({
    type: t.string({ description: "Its kind: organization, member, link-invite, team, collection, space, change-request, site…" }),
    id: t.string({ description: "Its id" }),
    label: t.string({ nullable: true, description: "Its readable name when the change was made (a title), if it has one" }),
  }),
});

export const AuditEventRef = builder.objectRef<AuditEvent>("AuditEvent").implement({
  description: "One recorded write of an organization: who, what, on which object, when",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Id of the event (a UUID)" }),
    occurredAt: t.expose("occurredAt", { type: "DateTime", description: "When the write happened" }),
    action: t.exposeString("action", { description: "What was done: an id of Organization.auditEventActions" }),
    actor: t.field({
      type: AuditEventActorRef,
      description: "Who did it",
      resolve: (event) => ({ type: event.actorType, id: event.actorId, tokenId: event.tokenId }),
    }),
    source: t.exposeString("source", { description: "The entry point: api, or integration (an installation's token)" }),
    target: t.field({
      type: AuditEventTargetRef,
      description: "What it was done to",
      resolve: (event) => ({ type: event.targetType, id: event.targetId, label: event.targetLabel }),
    }),
    payload: t.field({ type: "JSON", description: "What the action changed, beyond its target", resolve: (event) => event.payload }),
    location: t.string({
      description: "URL of the event in the REST API",
      resolve: (event, _args, { core }) => core.urls.api(`/orgs/${event.organizationId}/audit-events/${event.id}`),
    }),
  }),
});

builder.objectFields(OrganizationRef, (t) => ({
  auditEvents: t.connection(
    {
      type: AuditEventRef,
      description: "The organization's audit log, newest first (organization admins); first: 1 to 100, default 20",
      args: {
        from: t.arg.string({ description: "Only events at or after this ISO 8601 date-time" }),
        to: t.arg.string({ description: "Only events at or before this ISO 8601 date-time" }),
        action: t.arg.string({ description: "Only events of this action (an id of auditEventActions)" }),
        actor: t.arg.string({ description: "Only events of this actor (a user or installation id)" }),
        target: t.arg.string({ description: "Only events on this object (its id)" }),
      },
      resolve: async (organization, args, { core }) =>
        toConnection(
          await listAuditEvents(
            core,
            organization.id,
            { from: args.from, to: args.to, action: args.action, actor: args.actor, target: args.target },
            args,
          ),
        ),
    },
    builder.connectionObject({ type: AuditEventRef, name: "AuditEventConnection" }, { name: "AuditEventEdge" }),
  ),
  auditEvent: t.field({
    type: AuditEventRef,
    description: "One event of the organization's audit log (organization admins); NOT_FOUND for another organization's",
    args: { id: t.arg.string({ required: true, description: "The event's id" }) },
    resolve: (organization, { id }, { core }) => getAuditEvent(core, organization.id, id),
  }),
  auditEventActions: t.field({
    type: [AuditEventActionRef],
    description: "The actions the audit log records, with their labels (organization admins)",
    resolve: (organization, _args, { core }) => listAuditActions(core, organization.id),
  }),
}));
