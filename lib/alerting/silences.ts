import "server-only";
/**
 * An acknowledgement silences the page: the Alertmanager silence the console makes for a drift
 * acknowledgement, and its end. The silence lasts exactly as long as the acknowledgement covers the
 * drift: Alertmanager ends it at the acknowledgement's expiry (endsAt); the console ends it earlier
 * when lib/reconcile/ack-coverage.ts says the acknowledgement no longer covers (the drift grew,
 * changed class, a new episode, no drift), and when a halt of its bot is cleared.
 *
 * Which silence belongs to which acknowledgement is the console's own state, in the accounts file
 * (alert_silences), never in the bot's journal. Nothing here throws at its caller: every failure
 * comes back as an outcome that the action audits and shows, or that the sweep records and logs.
 */
import type Database from "better-sqlite3";
import { and, eq, isNull } from "drizzle-orm";
import type { AccountsDb } from "../db/accounts-file";
import { alertSilences } from "../db/accounts-schema";
import { getCurrentBookLine } from "../queries/book-line";
import { ackCovers, type AckSeen } from "../reconcile/ack-coverage";
import type { FollowUpAudit } from "../actions/guard";
import { AlertmanagerError, type AlertmanagerClient } from "./alertmanager";

/** The alert rules a drift acknowledgement silences (deploy/prometheus/driftwatch.rules.yml). */
export const DRIFT_ALERT_NAMES = ["DriftwatchUnknownPosition", "DriftwatchSizeDrift"] as const;

export interface SilenceDeps {
  client: AlertmanagerClient;
  /** The console's accounts file; a function, so a file that cannot be opened is an outcome, not a throw. */
  accounts: () => AccountsDb;
  /** The journal's absolute path: acknowledgement ids are per journal. */
  journalFile: string;
  /** DRIFTWATCH_PUBLIC_URL, for the link in the silence's comment; null: a path only. */
  publicUrl: string | null;
}

type FailureCode = "unreachable" | "refused" | "internal";

/** What the operator is told about the silence of their acknowledgement. */
export type SilenceOutcome = { ok: true; silenceId: string; endsAt: string } | { ok: false; code: FailureCode; message: string };

/** What clearing a halt did to its bot's silences. */
export interface ClearedSilences {
  expired: string[];
  failed: { silenceId: string; code: FailureCode; message: string }[];
}

const failureOf = (error: unknown): { code: FailureCode; message: string } =>
  error instanceof AlertmanagerError ? { code: error.code, message: error.message } : { code: "internal", message: (error as Error).message ?? String(error) };

const botPath = (botId: string) => `/bots/${encodeURIComponent(botId)}`;

/**
 * Creates the silence for one acknowledgement just committed, and records it. Returns what to tell
 * the operator and the audit entry (`alert_silence`) naming the silence id or the failure.
 */
export async function silenceAcknowledgement(
  deps: SilenceDeps,
  ack: { acknowledgementId: number; botId: string; symbol: string; note: string; expiresAt: string; operator: string; now: Date },
): Promise<{ outcome: SilenceOutcome; audit: FollowUpAudit }> {
  const target = `${ack.botId}/${ack.symbol}`;
  const refused = (code: FailureCode, message: string) => ({
    outcome: { ok: false as const, code, message },
    audit: { action: "alert_silence", target, outcome: "refused" as const, code, detail: { acknowledgementId: ack.acknowledgementId, message } },
  });
  let accounts: AccountsDb;
  try {
    accounts = deps.accounts();
  } catch (error) {
    return refused("internal", `No silence was made: the console cannot record it (${(error as Error).message})`);
  }
  const link = `${deps.publicUrl ?? ""}${botPath(ack.botId)}`;
  let silenceId: string;
  try {
    silenceId = await deps.client.createSilence({
      matchers: [
        { name: "alertname", value: DRIFT_ALERT_NAMES.join("|"), isRegex: true, isEqual: true },
        { name: "bot", value: ack.botId, isRegex: false, isEqual: true },
        { name: "symbol", value: ack.symbol, isRegex: false, isEqual: true },
      ],
      startsAt: ack.now.toISOString(),
      endsAt: ack.expiresAt,
      createdBy: ack.operator,
      comment: `Acknowledged in driftwatch (acknowledgement #${ack.acknowledgementId}): ${ack.note} — ${link}. Ends early if the drift grows, changes class or starts again.`,
    });
  } catch (error) {
    const f = failureOf(error);
    return refused(f.code, f.message);
  }
  try {
    accounts
      .insert(alertSilences)
      .values({
        journalFile: deps.journalFile,
        acknowledgementId: ack.acknowledgementId,
        botId: ack.botId,
        symbol: ack.symbol,
        silenceId,
        createdAt: ack.now.toISOString(),
        endsAt: ack.expiresAt,
      })
      .run();
  } catch (error) {
    // The silence exists and ends at the acknowledgement's expiry; only the early end is lost.
    const message = `Silence ${silenceId} was made, but the console could not record it (${(error as Error).message}): it ends at the acknowledgement's expiry, not earlier`;
    console.error(`driftwatch: ${message}`);
    return {
      outcome: { ok: true, silenceId, endsAt: ack.expiresAt },
      audit: {
        action: "alert_silence",
        target,
        outcome: "applied",
        detail: { acknowledgementId: ack.acknowledgementId, silenceId, expiresAt: ack.expiresAt, message },
      },
    };
  }
  return {
    outcome: { ok: true, silenceId, endsAt: ack.expiresAt },
    audit: { action: "alert_silence", target, outcome: "applied", detail: { acknowledgementId: ack.acknowledgementId, silenceId, expiresAt: ack.expiresAt } },
  };
}

type OpenRow = typeof alertSilences.$inferSelect;

function openRows(accounts: AccountsDb, journalFile: string, botId?: string): OpenRow[] {
  const open = and(eq(alertSilences.journalFile, journalFile), isNull(alertSilences.expiredAt));
  return accounts
    .select()
    .from(alertSilences)
    .where(botId === undefined ? open : and(open, eq(alertSilences.botId, botId)))
    .all();
}

function markExpired(accounts: AccountsDb, row: OpenRow, at: string, why: string): void {
  accounts.update(alertSilences).set({ expiredAt: at, expiredWhy: why }).where(eq(alertSilences.id, row.id)).run();
}

/**
 * Records a failure to expire, and why it was to end: the sweep retries it for that reason even
 * while the acknowledgement still covers (a clear's expiry must not wait for the drift to change).
 * True when the error differs from the last one recorded (worth a log line).
 */
function markFailed(accounts: AccountsDb, row: OpenRow, why: string, message: string, now: Date): boolean {
  accounts.update(alertSilences).set({ expiredWhy: why, lastError: message, lastErrorAt: now.toISOString() }).where(eq(alertSilences.id, row.id)).run();
  return row.lastError !== message;
}

/**
 * Expires one silence the console made, or records why it could not. A silence whose endsAt
 * passed has ended by itself: recorded without asking Alertmanager.
 */
async function expireRow(deps: { client: AlertmanagerClient; accounts: AccountsDb }, row: OpenRow, why: string, now: Date) {
  if (Date.parse(row.endsAt) <= now.getTime()) {
    markExpired(deps.accounts, row, row.endsAt, "acknowledgement expired");
    return { ok: true as const };
  }
  try {
    await deps.client.expireSilence(row.silenceId);
  } catch (error) {
    const f = failureOf(error);
    if (markFailed(deps.accounts, row, why, f.message, now))
      console.error(`driftwatch: could not expire Alertmanager silence ${row.silenceId} (${row.botId} ${row.symbol}: ${why}); retrying: ${f.message}`);
    return { ok: false as const, ...f };
  }
  markExpired(deps.accounts, row, now.toISOString(), why);
  return { ok: true as const };
}

/**
 * After a halt was cleared: expires the silences made for that bot's acknowledgements. Null when
 * there were none (nothing to audit or to say); else the audit entry names each one.
 */
export async function expireBotSilences(
  deps: SilenceDeps,
  opts: { botId: string; now: Date },
): Promise<{ outcome: ClearedSilences; audit: FollowUpAudit } | null> {
  let accounts: AccountsDb;
  try {
    accounts = deps.accounts();
  } catch (error) {
    const message = `The silences of ${opts.botId} could not be looked up (${(error as Error).message}): they end at their acknowledgements' expiry`;
    return {
      outcome: { expired: [], failed: [{ silenceId: "", code: "internal", message }] },
      audit: { action: "alert_silence", target: opts.botId, outcome: "refused", code: "internal", detail: { message } },
    };
  }
  const rows = openRows(accounts, deps.journalFile, opts.botId);
  if (rows.length === 0) return null;
  const outcome: ClearedSilences = { expired: [], failed: [] };
  for (const row of rows) {
    const r = await expireRow({ client: deps.client, accounts }, row, "halt cleared", opts.now);
    if (r.ok) outcome.expired.push(row.silenceId);
    else outcome.failed.push({ silenceId: row.silenceId, code: r.code, message: r.message });
  }
  const first = outcome.failed[0];
  return {
    outcome,
    audit: first
      ? {
          action: "alert_silence",
          target: opts.botId,
          outcome: "refused",
          code: first.code,
          detail: { message: first.message, silenceIds: outcome.failed.map((f) => f.silenceId), expiredSilenceIds: outcome.expired },
        }
      : { action: "alert_silence", target: opts.botId, outcome: "applied", detail: { expiredSilenceIds: outcome.expired, reason: "halt cleared" } },
  };
}

/**
 * One pass of the console's watch over its silences: each one still open whose acknowledgement no
 * longer covers the drift (ackCovers, the one rule) is expired. Reads the journal on the given
 * (read-only) connection. Returns what it ended, for the tests and the log.
 */
export async function sweepSilences(opts: {
  client: AlertmanagerClient;
  accounts: AccountsDb;
  journalFile: string;
  journal: Database.Database;
  now: Date;
}): Promise<{ silenceId: string; why: string; ok: boolean }[]> {
  const ended: { silenceId: string; why: string; ok: boolean }[] = [];
  const ackOf = opts.journal.prepare(
    `SELECT drift, ours, theirs, drift_since AS driftSince, expires_at AS expiresAt FROM drift_acknowledgements WHERE id = ? AND bot_id = ? AND symbol = ?`,
  );
  for (const row of openRows(opts.accounts, opts.journalFile)) {
    const ack = ackOf.get(row.acknowledgementId, row.botId, row.symbol) as AckSeen | undefined;
    let why: string;
    // An expiry that failed earlier (a clear while Alertmanager was down) is retried for its reason.
    if (row.expiredWhy !== null) why = row.expiredWhy;
    else if (!ack) why = "the acknowledgement is not in the journal";
    else {
      const line = getCurrentBookLine({ db: opts.journal, botId: row.botId, symbol: row.symbol });
      const coverage = line ? ackCovers(ack, line, opts.now) : { covers: false, why: "no drift" };
      if (coverage.covers) continue;
      why = coverage.why;
    }
    const r = await expireRow({ client: opts.client, accounts: opts.accounts }, row, why, opts.now);
    ended.push({ silenceId: row.silenceId, why, ok: r.ok });
  }
  return ended;
}
