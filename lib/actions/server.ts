"use server";
/**
 * The console's server actions. Each is a public POST endpoint: the page that shows a button
 * protects nothing, so each one resolves the actor from the verified session itself and runs the
 * one guard (lib/actions/guard.ts). Next's origin check and the SameSite=Strict session cookie
 * keep other sites from posting here.
 */
import { publishConsoleAuditHead } from "../audit/console-head";
import { consoleAuditKey } from "../audit/key";
import { getActor } from "../auth/session";
import { assertJournalFile, getJournal, getWriteConnection } from "../db/console";
import { env } from "../env";
import { VenueGatewayClient } from "../exchange/venue-gateway";
import { acknowledgeDriftSpec, acknowledgeEndedDriftSpec } from "./acknowledge-drift";
import { approveClearSpec, clearHaltSpec, type ClearOutcome } from "./clear-halt";
import { formDataToObject, refuseUnavailableJournal, runGuarded, type ActionSpec } from "./guard";
import { resolveByLookupSpec, resolveManuallySpec } from "./resolve-order";
import type { ActionResult } from "./result";
import type { OrderState } from "../journal/contract";
import type { z } from "zod";

async function run<S extends z.ZodType, P, T>(spec: ActionSpec<S, P, T>, form: FormData): Promise<ActionResult<T>> {
  const actor = await getActor();
  const user = actor ? { name: actor.name, role: actor.role } : null;
  // A locked, lost or damaged journal is known before writing: refuse at once rather than wait
  // out the write lock's timeout with the whole server frozen.
  const journal = getJournal();
  if (!journal.ok) return refuseUnavailableJournal(spec.action, user, journal.error);
  let db;
  try {
    db = getWriteConnection();
  } catch (error) {
    return { ok: false, code: "internal", message: `Nothing was changed: ${(error as Error).message}` };
  }
  return runGuarded(spec, { db, user, assertJournalFile, auditKey: consoleAuditKey(), onAudited: publishConsoleAuditHead }, formDataToObject(form));
}

const clearDeps = () => {
  const c = env();
  return { heartbeatStaleMs: c.heartbeatStaleMs, doubtfulGraceMs: c.doubtfulGraceMs, twoPersonClear: c.twoPersonClear, twoPersonWindowMs: c.twoPersonWindowMs };
};

export async function resolveByLookupAction(_prev: ActionResult<{ state: OrderState }> | null, form: FormData) {
  const c = env();
  const lookup = c.venue ? new VenueGatewayClient(c.venue.url, c.venue.token) : null;
  const reader = () => {
    const j = getJournal();
    if (!j.ok) throw j.error;
    return j.sqlite;
  };
  return run(resolveByLookupSpec({ lookup, graceMs: c.doubtfulGraceMs, reader }), form);
}

export async function resolveManuallyAction(_prev: ActionResult<{ state: OrderState }> | null, form: FormData) {
  return run(resolveManuallySpec({ graceMs: env().doubtfulGraceMs }), form);
}

export async function acknowledgeDriftAction(_prev: ActionResult<{ expiresAt: string }> | null, form: FormData) {
  return run(acknowledgeDriftSpec({ ackTtlMs: env().ackTtlMs }), form);
}

export async function acknowledgeEndedDriftAction(_prev: ActionResult<{ expiresAt: string }> | null, form: FormData) {
  return run(acknowledgeEndedDriftSpec({ ackTtlMs: env().ackTtlMs }), form);
}

export async function clearHaltAction(_prev: ActionResult<ClearOutcome> | null, form: FormData) {
  return run(clearHaltSpec(clearDeps()), form);
}

export async function approveClearAction(_prev: ActionResult<{ cleared: true }> | null, form: FormData) {
  return run(approveClearSpec(clearDeps()), form);
}
