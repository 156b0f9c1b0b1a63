// The audit log of an organization: what was written, by whom (a user or an integration
// installation, with the token they came with), on which object, when. An event is written by the
// write itself, in its own transaction (`recordAuditEvent` takes the write's transaction client),
// so a write that is refused or rolls back leaves none. Organization admins read it.
import { randomUUID } from "node:crypto";
import type { AuditEvent, Prisma } from "../../generated/prisma/client.ts";
import type { Transaction } from "../../db/transaction.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { unsafeTextReason } from "../input.ts";
import { requireOrganization } from "../organizations/read.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { AUDIT_ACTIONS, type AuditAction, isAuditAction } from "./actions.ts";

export { AUDIT_ACTIONS, type AuditAction } from "./actions.ts";

/** Events a page holds by default, and at most (the published limit). */
export const AUDIT_PAGE_DEFAULT = 20;
export const AUDIT_PAGE_MAX = 100;
/** Longest actor or target id a filter takes: ids here are far shorter. */
const FILTER_ID_MAX = 200;
const DATE_MIN = Date.UTC(1970, 0, 1);
const DATE_MAX = Date.UTC(9999, 11, 31);

export interface AuditTarget {
  /** The kind of object, as its published `object` name: space, collection, site, team, member… */
  type: string;
  id: string;
  /** Its readable name when the write happened (a title), if it has one. */
  label?: string | null;
}

export interface AuditEventInput {
  organizationId: string;
  action: AuditAction;
  target: AuditTarget;
  /** What the action changed, beyond the target (the published AuditEventDetails.payload). */
  payload?: Record<string, unknown>;
}

/**
 * Records `events` as done by the caller, inside the write's transaction `tx`: they commit with
 * the write or not at all.
 */
export async function recordAuditEvent(ctx: CoreContext, tx: Transaction, ...events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const { userId, tokenId, installationId } = ctx.viewer;
  const occurredAt = ctx.clock.now();
  await tx.auditEvent.createMany({
    data: events.map((event) => ({
      id: randomUUID(),
      organizationId: event.organizationId,
      occurredAt,
      action: event.action,
      actorType: installationId ? "installation" : "user",
      actorId: installationId ?? userId,
      tokenId: tokenId || null,
      source: installationId ? "integration" : "api",
      targetType: event.target.type,
      targetId: event.target.id,
      targetLabel: event.target.label ?? null,
      payload: (event.payload ?? {}) as Prisma.InputJsonValue,
    })),
  });
}

/** The actions the organization's log may hold, with their labels (admins). */
export async function listAuditActions(ctx: CoreContext, organizationId: string) {
  await requireOrganization(ctx, organizationId, "audit.read");
  return Object.entries(AUDIT_ACTIONS).map(([id, label]) => ({ id, label }));
}

export interface AuditFilters {
  from?: string | null;
  to?: string | null;
  action?: string | null;
  actor?: string | null;
  target?: string | null;
}

function dateOf(field: string, value: string | null | undefined): Date | undefined {
  if (value == null) return undefined;
  const date = new Date(value);
  // Date parses more than ISO 8601 ("1"): a date-time is asked for, with its date first.
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || !(date.getTime() >= DATE_MIN && date.getTime() <= DATE_MAX)) {
    throw badInput(`${field} must be an ISO 8601 date-time between 1970 and 9999 (got ${quote(value)})`);
  }
  return date;
}

function idOf(field: string, value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  if (value.length < 1 || value.length > FILTER_ID_MAX || unsafeTextReason(value)) {
    throw badInput(`${field} must be an id of 1 to ${FILTER_ID_MAX} characters (got ${quote(value)})`);
  }
  return value;
}

/** The checked filters as a query of the organization's events. */
function whereOf(organizationId: string, filters: AuditFilters): Prisma.AuditEventWhereInput {
  const from = dateOf("from", filters.from);
  const to = dateOf("to", filters.to);
  if (from && to && from > to) throw badInput(`from must not be after to (got ${filters.from} and ${filters.to})`);
  if (filters.action != null && !isAuditAction(filters.action)) {
    throw badInput(
      `action must be one of the audit actions (GET /orgs/{organizationId}/audit-event-actions), got ${quote(filters.action)}`,
    );
  }
  const actorId = idOf("actor", filters.actor);
  const targetId = idOf("target", filters.target);
  return {
    organizationId,
    ...(filters.action != null ? { action: filters.action } : {}),
    ...(actorId !== undefined ? { actorId } : {}),
    ...(targetId !== undefined ? { targetId } : {}),
    ...(from || to ? { occurredAt: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } } : {}),
  };
}

/** The organization's events, newest first, filtered (admins); at most AUDIT_PAGE_MAX a page. */
export async function listAuditEvents(ctx: CoreContext, organizationId: string, filters: AuditFilters, page: PageArgs) {
  await requireOrganization(ctx, organizationId, "audit.read");
  const first = page.first ?? AUDIT_PAGE_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > AUDIT_PAGE_MAX) {
    throw badInput(`first must be an integer between 1 and ${AUDIT_PAGE_MAX} (got ${first})`);
  }
  return paginate(
    { ...page, first },
    { rows: ctx.prisma.auditEvent, sortField: "occurredAt", sortKind: "date", direction: "desc", where: whereOf(organizationId, filters) },
  );
}

/** One event of the organization (admins); another organization's is not found. */
export async function getAuditEvent(ctx: CoreContext, organizationId: string, id: string): Promise<AuditEvent> {
  await requireOrganization(ctx, organizationId, "audit.read");
  const event = await ctx.prisma.auditEvent.findFirst({ where: { id, organizationId } });
  if (!event) throw notFound("audit event", id);
  return event;
}
