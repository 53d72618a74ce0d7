"use server";
import "server-only";
/**
 * The console's server actions. Each is a public POST endpoint: the page that shows a button
 * protects nothing, so each one resolves the actor from the verified session itself and runs the
 * one guard (lib/actions/guard.ts). Next's origin check and the SameSite=Strict session cookie
 * keep other sites from posting here.
 */
import { headers } from "next/headers";
import { publishConsoleAuditHead } from "../audit/console-head";
import { consoleAuditKey } from "../audit/key";
import { AlertmanagerClient } from "../alerting/alertmanager";
import type { ClearedSilences, SilenceDeps } from "../alerting/silences";
import { authContext } from "../auth/context";
import { getActor } from "../auth/session";
import { consoleSources } from "../db/console";
import { env } from "../env";
import { VenueGatewayClient } from "../exchange/venue-gateway";
import { addressLimitKey, clientAddress } from "../http/client-address";
import { WindowLimiter } from "../http/rate-window";
import { acknowledgeDriftSpec, acknowledgeEndedDriftSpec, type Acknowledged } from "./acknowledge-drift";
import { approveClearSpec, clearHaltSpec, type ClearOutcome } from "./clear-halt";
import { haltBotSpec } from "./halt-bot";
import { correctBookSpec, type BookCorrected } from "./correct-book";
import { formDataToObject, REFUSAL_LOG, refuseUnaudited, refuseUnavailableJournal, runGuarded, turnAwayNonOperator, type ActionSpec } from "./guard";
import {
  acknowledgeDriftPgSpec,
  acknowledgeEndedDriftPgSpec,
  approveClearPgSpec,
  clearHaltPgSpec,
  correctBookPgSpec,
  haltBotPgSpec,
  resolveByLookupPgSpec,
  resolveManuallyPgSpec,
} from "./pg-actions";
import { runGuardedPg, type PgActionSpec } from "./pg-guard";
import type { Pool } from "pg";
import { resolveByLookupSpec, resolveManuallySpec, type Resolved } from "./resolve-order";
import { actionSource } from "./target";
import type { ActionResult } from "./result";
import type { z } from "zod";

/**
 * Action posts a client may make a minute. An operator clicks a few times an incident; 60 leaves
 * room for a retried form or two people on one account, and bounds what a flood costs. Keyed on
 * the account when signed in and on the address otherwise, so a stranger behind the same address
 * (a shared proxy, a NAT) cannot spend an operator's allowance. (A "use server" file exports
 * only actions, so the tests read the figure from the refusal's message.)
 */
const ACTION_POST_LIMIT = { limit: 60, windowMs: 60_000, maxKeys: 10_000 };
const actionPosts = new WindowLimiter(ACTION_POST_LIMIT);

/**
 * `pgSpec`: the same action on a PostgreSQL source (lib/actions/pg-actions.ts: the same checks and
 * messages, PostgreSQL's statements), given the source's pool.
 */
async function run<S extends z.ZodType, P, T>(
  spec: ActionSpec<S, P, T>,
  pgSpec: (pool: Pool) => PgActionSpec<S, P, NoInfer<T>>,
  form: FormData,
): Promise<ActionResult<T>> {
  const [actor, h] = await Promise.all([getActor(), headers()]);
  const user = actor ? { name: actor.name, role: actor.role } : null;
  // Without a trusted proxy, proxy.ts has replaced the client's X-Forwarded-For with the socket's peer.
  const client = clientAddress(h.get("x-forwarded-for"), env().trustedProxyHops);
  // Before the journal is even looked at: past the limit, a post costs a Map lookup and writes nothing.
  const taken = actionPosts.take(actor ? `account:${actor.name}` : `address:${addressLimitKey(client)}`);
  if (!taken.ok) {
    const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
    REFUSAL_LOG.line(
      `driftwatch: refused, not audited (over ${ACTION_POST_LIMIT.limit} action posts a minute): ${actor ? `${actor.role}:${actor.name}` : "anonymous"} from ${client} posted ${spec.action}`,
    );
    return {
      ok: false,
      code: "refused",
      message: `Too many actions from ${actor ? `${actor.name}'s account` : "this address"} in the last minute (at most ${ACTION_POST_LIMIT.limit}). Nothing was changed. Try again in ${seconds} s.`,
    };
  }
  // A form Next could decode but that is not one (arguments posted by hand): refused, not a 500.
  if (!(form instanceof FormData)) {
    return { ok: false, code: "invalid", message: "The action did not receive a form. Reload the page and submit the form again. Nothing was changed." };
  }
  const raw = formDataToObject(form);
  // Nobody may act before an operator is known: the journal is not even opened for them.
  const away = turnAwayNonOperator(spec.action, user, raw, { client });
  if (away) return away;
  // The action goes to the journal of the bot (or the order) it names, its audit entry with it.
  const target = await actionSource(consoleSources(), raw);
  if (!target.ok) return refuseUnavailableJournal(spec.action, user, target.error);
  const source = target.source;
  if (source.kind === "postgres") {
    // Unreachable, refused, or at another schema version: known before the transaction, as below.
    const checked = await source.journal.check();
    if (!checked.ok) return refuseUnavailableJournal(spec.action, user, checked.error);
    let auditKey;
    try {
      auditKey = consoleAuditKey();
    } catch (error) {
      return refuseUnaudited(spec.action, user, error as Error);
    }
    const pool = source.journal.actionPool();
    // source.file is the URL without its password: the head file names the database, never the secret.
    const onAudited = (head: Parameters<typeof publishConsoleAuditHead>[0]) => publishConsoleAuditHead(head, source.file);
    return runGuardedPg(pgSpec(pool), { pool, user, client, auditKey, onAudited }, raw);
  }
  // A locked, lost or damaged journal is known before writing: refuse at once rather than wait
  // out the write lock's timeout with the whole server frozen.
  const journal = source.journal.get();
  if (!journal.ok) return refuseUnavailableJournal(spec.action, user, journal.error);
  let db;
  let auditKey;
  try {
    db = source.journal.writeConnection();
    // An unreadable or unsafe key file: a refusal that says why, not an error page.
    auditKey = consoleAuditKey();
  } catch (error) {
    return refuseUnaudited(spec.action, user, error as Error);
  }
  const assertJournalFile = () => source.journal.assertSameFile();
  const onAudited = (head: Parameters<typeof publishConsoleAuditHead>[0]) => publishConsoleAuditHead(head, source.file);
  return runGuarded(spec, { db, user, assertJournalFile, client, auditKey, onAudited }, raw);
}

/**
 * With DRIFTWATCH_ALERTMANAGER_URL set: acknowledgements silence their page, clears end those
 * silences. Kept per journal: the silences of the journal the form's bot is in.
 */
const silenceDeps = async (form: FormData): Promise<SilenceDeps | null> => {
  const c = env();
  if (!c.alertmanagerUrl) return null;
  const target = form instanceof FormData ? await actionSource(consoleSources(), formDataToObject(form)) : null;
  const journalFile = target?.ok ? target.source.file : c.journalPath;
  return { client: new AlertmanagerClient(c.alertmanagerUrl), accounts: () => authContext().db, journalFile, publicUrl: c.publicUrl };
};

const clearDeps = async (form: FormData) => {
  const c = env();
  return {
    heartbeatStaleMs: c.heartbeatStaleMs,
    doubtfulGraceMs: c.doubtfulGraceMs,
    twoPersonClear: c.twoPersonClear,
    twoPersonWindowMs: c.twoPersonWindowMs,
    silences: await silenceDeps(form),
  };
};

export async function resolveByLookupAction(_prev: ActionResult<Resolved> | null, form: FormData) {
  const c = env();
  const lookup = c.venue ? new VenueGatewayClient(c.venue.url, c.venue.token) : null;
  const reader = () => {
    const raw = form instanceof FormData ? form.get("clientOrderId") : null;
    const place = consoleSources().placeOrder(typeof raw === "string" ? raw : "");
    const j = (place.kind === "found" || place.kind === "unavailable" ? place.source : consoleSources().sources[0]!).journal.get();
    if (!j.ok) throw j.error;
    return j.db;
  };
  return run(
    resolveByLookupSpec({ lookup, graceMs: c.doubtfulGraceMs, reader }),
    (pool) => resolveByLookupPgSpec({ lookup, graceMs: c.doubtfulGraceMs, pool }),
    form,
  );
}

export async function resolveManuallyAction(_prev: ActionResult<Resolved> | null, form: FormData) {
  const deps = { graceMs: env().doubtfulGraceMs };
  return run(resolveManuallySpec(deps), () => resolveManuallyPgSpec(deps), form);
}

export async function acknowledgeDriftAction(_prev: ActionResult<Acknowledged> | null, form: FormData) {
  const deps = { ackTtlMs: env().ackTtlMs, silences: await silenceDeps(form) };
  return run(acknowledgeDriftSpec(deps), () => acknowledgeDriftPgSpec(deps), form);
}

export async function acknowledgeEndedDriftAction(_prev: ActionResult<{ expiresAt: string }> | null, form: FormData) {
  const deps = { ackTtlMs: env().ackTtlMs };
  return run(acknowledgeEndedDriftSpec(deps), () => acknowledgeEndedDriftPgSpec(deps), form);
}

export async function clearHaltAction(_prev: ActionResult<ClearOutcome> | null, form: FormData) {
  const deps = await clearDeps(form);
  return run(clearHaltSpec(deps), () => clearHaltPgSpec(deps), form);
}

export async function approveClearAction(_prev: ActionResult<{ cleared: true; silences?: ClearedSilences }> | null, form: FormData) {
  const deps = await clearDeps(form);
  return run(approveClearSpec(deps), () => approveClearPgSpec(deps), form);
}

export async function haltBotAction(_prev: ActionResult<{ version: number }> | null, form: FormData) {
  return run(haltBotSpec(), () => haltBotPgSpec(), form);
}

export async function correctBookAction(_prev: ActionResult<BookCorrected> | null, form: FormData) {
  const deps = { ackTtlMs: env().ackTtlMs };
  return run(correctBookSpec(deps), () => correctBookPgSpec(deps), form);
}
