import "server-only";
/**
 * The one guard every operator action goes through, in this order:
 *
 *   1. who is acting (from the verified session, never from the form), and may they act;
 *   2. the input, parsed with zod; field errors go back to the form;
 *   3. optional slow work outside any transaction (asking the exchange);
 *   4. the domain precondition and the version the operator saw, checked inside one
 *      BEGIN IMMEDIATE transaction that also writes the audit entry.
 *
 * A refusal at any step changes nothing but the audit log: its entry is written in a transaction
 * of its own, after the action's transaction rolled back. Until an operator is known (no session,
 * a viewer) nothing is written to the journal at all: the journal is the bot's, and a stranger's
 * posts must neither fill its disk nor hold its write lock. Those refusals go to the server log
 * instead, rate-limited and without their input. The audit log keeps a bounded summary of an
 * operator's input (field names, lengths, short prefixes), never the raw form; the domain detail
 * each action records (a note, a reason) is validated first. When the journal itself is the problem
 * (locked, gone, full, damaged) the refusal may not be recordable there: then it goes to the
 * server log and the operator is told it is not in the audit log. Nothing here imports Next, so
 * the integration tests drive the same code the server actions run.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { BOT_ID_MAX, CLIENT_ORDER_ID_MAX, SYMBOL_MAX } from "../journal/ids";
import type { AuditHead } from "../audit/chain";
import { appendAudit, type AuditEntryInput } from "../audit/log";
import { JournalError } from "../db/journal-file";
import { isDamaged, sqliteErrorKind } from "../db/sqlite-error";
import { LimitedLog } from "../http/rate-window";
import type { ActionCode, ActionResult } from "./result";

export interface ActingUser {
  name: string;
  role: "viewer" | "operator";
}

/** Thrown inside `apply` to refuse: the transaction rolls back and the refusal is audited. */
export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly code: Exclude<ActionCode, "unauthorized" | "invalid" | "internal">,
    message: string,
    readonly reasons: string[] = [],
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface ApplyContext<I, P> {
  db: Database.Database;
  input: I;
  prepared: P;
  actor: string;
  user: ActingUser;
  now: Date;
}

export interface ActionSpec<S extends z.ZodType, P, T> {
  /** The audit log's name for it. */
  action: string;
  schema: S;
  /** What it acts on, for the audit log; from raw input when the input did not parse. */
  target: (input: z.infer<S>) => string;
  /** Slow work before the transaction (an exchange lookup). Its result is re-checked inside. */
  prepare?: (input: z.infer<S>, ctx: { user: ActingUser; now: Date }) => Promise<P>;
  /** Runs inside BEGIN IMMEDIATE. Returns what to tell the operator and what to audit. */
  apply: (ctx: ApplyContext<z.infer<S>, P>) => { data: T; detail: Record<string, unknown> };
  /**
   * Work after the action committed (telling Alertmanager): it can neither block nor undo the
   * action. What it returns replaces the operator's data; its `audit`, when given, is written as an
   * entry of its own, with the same actor. It should not throw; a throw is logged and the action's
   * own result stands.
   */
  followUp?: (ctx: FollowUpContext<z.infer<S>, T>) => Promise<{ data: T; audit: FollowUpAudit | null }>;
}

export interface FollowUpContext<I, T> {
  input: I;
  data: T;
  /** What the action's own audit entry recorded. */
  detail: Record<string, unknown>;
  user: ActingUser;
  now: Date;
}

/** A follow-up's audit entry: its own action name (`alert_silence`), outcome and detail. */
export interface FollowUpAudit {
  action: string;
  target: string;
  outcome: "applied" | "refused";
  code?: string | null;
  detail: Record<string, unknown>;
}

export interface GuardEnv {
  db: Database.Database;
  user: ActingUser | null;
  now?: () => Date;
  /**
   * Runs last inside the action's transaction, before COMMIT; throws (a JournalError) when the
   * journal file was deleted or replaced meanwhile, so an action never lands in a lost file.
   */
  assertJournalFile?: () => void;
  /** Signs the audit entries (lib/audit/key.ts). */
  auditKey: string;
  /**
   * Called with the chain's new head after every audited action (applied or refused), once its
   * transaction committed: publishes it outside the journal. A throw is logged, never undoes anything.
   */
  onAudited?: (head: AuditHead) => void;
  /** The client's address (lib/http/client-address.ts), for the server log's line about a stranger. */
  client?: string;
  /** Where refusals without an operator go; the process-wide REFUSAL_LOG unless a test passes its own. */
  refusalLog?: LimitedLog;
}

/**
 * The server log's share of what strangers cause: 30 lines a minute, each at most 400 characters;
 * past that, one line a minute counts the rest.
 */
export const REFUSAL_LOG = new LimitedLog({ linesPerWindow: 30, windowMs: 60_000, maxLineChars: 400, write: (line) => console.error(line) });

/**
 * When the journal itself stopped the write: what to tell the operator, and whether trying to
 * audit the refusal in that same journal is pointless (it would wait out the lock again, or write
 * into a file that is gone).
 */
export function journalWriteFault(error: unknown): { message: string; auditable: boolean } | null {
  if (error instanceof JournalError) {
    return { message: `Nothing was changed: the ${error.message}`, auditable: error.code !== "gone" && error.code !== "locked" };
  }
  const kind = sqliteErrorKind(error);
  if (kind === null) return null;
  const code = (error as { code: string }).code;
  if (kind === "locked") {
    return { message: "Nothing was changed: the journal stayed locked by another process (SQLITE_BUSY). Try again once it is free.", auditable: false };
  }
  if (kind === "full") {
    return {
      message: "Nothing was changed: the journal's disk is full (SQLITE_FULL). Free space on that disk; the bot cannot write either until you do.",
      auditable: true,
    };
  }
  if (isDamaged(kind)) {
    return { message: `Nothing was changed: the journal is damaged (${code}). Stop the bot and run "npm run journal -- check" on it.`, auditable: false };
  }
  if (kind === "readonly" || kind === "io" || kind === "cantopen") {
    return {
      message: `Nothing was changed: the journal cannot be written (${code}: ${(error as Error).message}). Check the file, its permissions and its disk.`,
      auditable: true,
    };
  }
  return null;
}

const actorOf = (user: ActingUser | null) => (user === null ? "anonymous" : user.role === "operator" ? `operator:${user.name}` : `viewer:${user.name}`);

/**
 * Any value as bounded text, without throwing: a refusal must reach the audit log even for input
 * that has no text form (a null-prototype object, a throwing toString).
 */
function asText(v: unknown, max: number): string {
  try {
    return String(v).slice(0, max);
  } catch {
    return `[${typeof v} without a text form]`;
  }
}

/** Fields whose first characters an auditor needs to read an entry: ids, versions, the note. */
const QUOTED_FIELDS = new Set([
  "clientOrderId",
  "botId",
  "symbol",
  "requestId",
  "reconciliationId",
  "version",
  "seenState",
  "seenFilledQty",
  "breakerVersion",
  "status",
  "drift",
  "ours",
  "theirs",
  "driftSince",
  "kind",
  "filledQty",
  "avgPrice",
  "exchangeOrderId",
  "confirmBotId",
  "note",
  "reason",
]);
const SUMMARY_FIELDS = 20;
const PREFIX_CHARS = 80;

export interface FieldSummary {
  /** Characters of its text form, or the type when it has none that means anything. */
  length: number | null;
  type?: string;
  /** The first PREFIX_CHARS characters, for QUOTED_FIELDS only. */
  prefix?: string;
}

/**
 * The input as the audit log keeps it: each field's name (bounded), length and, for the fields an
 * auditor reads, a short prefix; never the raw form, so a 40 KB field costs the journal a few
 * bytes. At most SUMMARY_FIELDS fields, and a count of the rest. A null-prototype object, so a
 * field named `__proto__` is recorded as a field rather than changing the object's prototype.
 */
export function summarizeInput(raw: Record<string, unknown>): { fields: Record<string, FieldSummary>; omittedFields?: number } {
  const fields: Record<string, FieldSummary> = Object.create(null);
  const entries = Object.entries(raw);
  for (const [k, v] of entries.slice(0, SUMMARY_FIELDS)) {
    const name = k.slice(0, 64);
    if (typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") {
      const text = String(v);
      fields[name] = QUOTED_FIELDS.has(k) ? { length: text.length, prefix: text.slice(0, PREFIX_CHARS) } : { length: text.length };
    } else {
      fields[name] = { length: null, type: v === null ? "null" : Array.isArray(v) ? "array" : typeof v };
    }
  }
  return entries.length > SUMMARY_FIELDS ? { fields, omittedFields: entries.length - SUMMARY_FIELDS } : { fields };
}

/** Field names and lengths only, for the server log: what a stranger sent never appears there. */
function fieldsForLog(raw: Record<string, unknown>): string {
  const entries = Object.entries(raw);
  const shown = entries.slice(0, 10).map(([k, v]) => `${k.slice(0, 32).replace(/[^\w.$-]/g, "?")}(${typeof v === "string" ? v.length : typeof v})`);
  return `${shown.join(" ") || "no fields"}${entries.length > 10 ? ` +${entries.length - 10} more` : ""}`;
}

/** Form fields as plain data; null-prototype, so a field named `__proto__` stays a field. */
export function formDataToObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of form.entries()) if (!k.startsWith("$ACTION")) out[k] = typeof v === "string" ? v : "[file]";
  return out;
}

/**
 * The journal cannot be read at all (locked, gone, damaged…): refuse before touching it, since
 * neither the action nor its refusal can be written there. The server log keeps the attempt.
 */
export function refuseUnavailableJournal(action: string, user: ActingUser | null, error: JournalError): ActionResult<never> {
  console.error(`driftwatch: NOT AUDITED (journal unavailable): ${actorOf(user)} ${action} refused: ${error.message}`);
  return {
    ok: false,
    code: "internal",
    message: `Nothing was changed: the ${error.message}. This attempt is not in the audit log (the journal could not record it); the console's server log has it.`,
  };
}

/** The journal is there but the console cannot write it, or its audit key is unreadable or unsafe: refused, said why, logged. */
export function refuseUnaudited(action: string, user: ActingUser | null, error: Error): ActionResult<never> {
  console.error(`driftwatch: NOT AUDITED (cannot write): ${actorOf(user)} ${action} refused: ${error.message}`);
  return {
    ok: false,
    code: "internal",
    message: `Nothing was changed: ${error.message}. This attempt is not in the audit log; the console's server log has it.`,
  };
}

/**
 * Step 1 of the guard for anyone who is not an operator (no session, a viewer): the refusal the
 * form shows, and one bounded, rate-limited line in the server log naming the field names and
 * lengths only; nothing is written to the journal, and the input is not read further. Null for an
 * operator. Exported so that lib/actions/server.ts turns strangers away before opening the journal.
 */
export function turnAwayNonOperator(
  action: string,
  user: ActingUser | null,
  raw: Record<string, unknown>,
  opts: { client?: string; refusalLog?: LimitedLog } = {},
): ActionResult<never> | null {
  if (user !== null && user.role === "operator") return null;
  const message = user === null ? "Sign in to act. Nothing was changed." : `${user.name} is a viewer: only operators can act. Nothing was changed.`;
  try {
    const who = user === null ? "anonymous" : `viewer:${user.name.slice(0, 64)}`;
    (opts.refusalLog ?? REFUSAL_LOG).line(
      `driftwatch: refused, not audited (no operator): ${who} from ${opts.client ?? "unknown"} posted ${action} [${fieldsForLog(raw)}]`,
    );
  } catch {
    // Refusals never throw; the log is best effort (LimitedLog never throws itself).
  }
  return { ok: false, code: "unauthorized", message };
}

/**
 * What differs between engines: how the action's transaction runs, how an entry is audited on its
 * own, and which errors mean the journal itself stopped the write. Everything else of the guard
 * (who, the input, the refusals and their audit, the follow-up) is the one code below.
 */
export interface GuardEngine<I, P, T> {
  /**
   * The precondition, the version the operator saw and the applied audit entry, in one
   * transaction; a Refusal thrown by the action rolls all of it back and is rethrown.
   */
  applyInTransaction: (
    ctx: { input: I; prepared: P; actor: string; user: ActingUser; now: Date },
    entry: (detail: Record<string, unknown>, now: Date) => AuditEntryInput,
  ) => Promise<{ data: T; detail: Record<string, unknown>; head: AuditHead }>;
  /** One entry in a transaction of its own (a refusal, a follow-up's entry). */
  auditAlone: (entry: AuditEntryInput) => Promise<AuditHead>;
  /** The journal stopped the write: what to tell the operator, and whether a refusal can be audited there. */
  writeFault: (error: unknown) => { message: string; auditable: boolean } | null;
}

/** The parts of GuardEnv that do not depend on the engine. */
export type GuardCommon = Pick<GuardEnv, "user" | "now" | "onAudited" | "client" | "refusalLog">;

/** The SQLite engine: BEGIN IMMEDIATE on the guard's write connection, as always. */
function sqliteEngine<S extends z.ZodType, P, T>(spec: ActionSpec<S, P, T>, env: GuardEnv): GuardEngine<z.infer<S>, P, T> {
  return {
    applyInTransaction: async (ctx, entry) =>
      env.db
        .transaction(() => {
          const now = (env.now ?? (() => new Date()))();
          const { data, detail } = spec.apply({ db: env.db, input: ctx.input, prepared: ctx.prepared, actor: ctx.actor, user: ctx.user, now });
          const head = appendAudit(env.db, entry(detail, now), env.auditKey);
          env.assertJournalFile?.();
          return { data, detail, head };
        })
        .immediate(),
    auditAlone: async (e) => env.db.transaction(() => appendAudit(env.db, e, env.auditKey)).immediate(),
    writeFault: journalWriteFault,
  };
}

export async function runGuarded<S extends z.ZodType, P, T>(spec: ActionSpec<S, P, T>, env: GuardEnv, raw: Record<string, unknown>): Promise<ActionResult<T>> {
  return runGuardedOn(spec, sqliteEngine(spec, env), env, raw);
}

/**
 * The guard's steps on any engine (runGuarded for SQLite, runGuardedPg for PostgreSQL). `spec`
 * gives the audit name, schema, target, prepare and follow-up; the engine runs the transaction.
 */
export async function runGuardedOn<S extends z.ZodType, P, T>(
  spec: Omit<ActionSpec<S, P, T>, "apply">,
  engine: GuardEngine<z.infer<S>, P, T>,
  env: GuardCommon,
  raw: Record<string, unknown>,
): Promise<ActionResult<T>> {
  const clock = env.now ?? (() => new Date());
  const actor = actorOf(env.user);
  const published = (head: AuditHead) => {
    try {
      env.onAudited?.(head);
    } catch (error) {
      console.error(`driftwatch: could not publish audit head #${head.entries}; the action stands:`, error);
    }
  };
  const audit = async (outcome: "applied" | "refused", target: string, code: ActionCode | null, detail: Record<string, unknown>) => {
    const head = await engine.auditAlone({ at: clock().toISOString(), actor, action: spec.action, target, outcome, code, detail });
    published(head);
    return head;
  };
  const rawTarget = () => {
    const candidate = raw.clientOrderId ?? raw.botId ?? raw.requestId ?? "";
    return `${asText(candidate, Math.max(BOT_ID_MAX, CLIENT_ORDER_ID_MAX))}${raw.symbol ? `/${asText(raw.symbol, SYMBOL_MAX)}` : ""}` || "(none)";
  };
  const notAudited = (code: ActionCode, message: string, target: string, why: string): ActionResult<T> => {
    // Greppable: the only record of this attempt is the server log.
    console.error(`driftwatch: NOT AUDITED (${why}): ${actor} ${spec.action} ${target} refused with ${code}: ${message}`);
    return { ok: false, code, message: `${message.replace(/\.?$/, ".")} This attempt is not in the audit log (${why}); the console's server log has it.` };
  };
  const refuse = async (
    code: ActionCode,
    message: string,
    target: string,
    extra: Partial<ActionResult<T> & { ok: false }> = {},
    detail: Record<string, unknown> = {},
  ): Promise<ActionResult<T>> => {
    try {
      await audit("refused", target, code, { message, reasons: extra.reasons ?? [], fieldErrors: extra.fieldErrors, input: summarizeInput(raw), ...detail });
    } catch (error) {
      // The refusal stands (nothing changed); the operator must know it is not on record.
      console.error(`driftwatch: could not audit a refused ${spec.action}:`, error);
      return { ok: false, code, message: `${message} (This refusal could not be written to the audit log: ${(error as Error).message})`, ...extra };
    }
    return { ok: false, code, message, ...extra };
  };

  const followUp = async (run: NonNullable<typeof spec.followUp>, ctx: FollowUpContext<z.infer<S>, T>): Promise<T> => {
    let after: Awaited<ReturnType<typeof run>>;
    try {
      after = await run(ctx);
    } catch (error) {
      console.error(`driftwatch: the follow-up of ${spec.action} failed; the action stands:`, error);
      return ctx.data;
    }
    if (after.audit) {
      const a = after.audit;
      try {
        const head = await engine.auditAlone({
          at: clock().toISOString(),
          actor,
          action: a.action,
          target: a.target,
          outcome: a.outcome,
          code: a.code ?? null,
          detail: a.detail,
        });
        published(head);
      } catch (error) {
        console.error(
          `driftwatch: NOT AUDITED (the journal could not record it): ${actor} ${a.action} ${a.target} ${a.outcome}: ${JSON.stringify(a.detail).slice(0, 400)}:`,
          error,
        );
      }
    }
    return after.data;
  };

  // 1. Who, and may they.
  const away = turnAwayNonOperator(spec.action, env.user, raw, env);
  if (away) return away;
  const user = env.user as ActingUser;

  // 2. The input.
  const parsed = spec.schema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors = z.flattenError(parsed.error).fieldErrors as Record<string, string[]>;
    return refuse("invalid", "Some fields need fixing. Nothing was changed.", rawTarget(), { fieldErrors });
  }
  const input = parsed.data as z.infer<S>;
  const target = spec.target(input);

  try {
    // 3. Slow work, outside the write lock.
    const prepared = (spec.prepare ? await spec.prepare(input, { user, now: clock() }) : undefined) as P;
    // 4. Precondition, version and audit entry: one transaction.
    const { data, detail, head } = await engine.applyInTransaction({ input, prepared, actor, user, now: clock() }, (detail, now) => ({
      at: now.toISOString(),
      actor,
      action: spec.action,
      target,
      outcome: "applied",
      detail: { ...detail, input: summarizeInput(raw) },
    }));
    published(head);
    if (!spec.followUp) return { ok: true, data };
    return { ok: true, data: await followUp(spec.followUp, { input, data, detail, user, now: clock() }) };
  } catch (error) {
    if (error instanceof Refusal) return refuse(error.code, error.message, target, { reasons: error.reasons }, error.detail);
    const fault = engine.writeFault(error);
    if (fault) {
      console.error(`driftwatch: action ${spec.action} stopped by the journal:`, (error as Error).message);
      return fault.auditable ? refuse("internal", fault.message, target) : notAudited("internal", fault.message, target, "the journal could not record it");
    }
    // Unexpected: say so plainly, keep the stack in the server log, never in the page.
    console.error(`driftwatch: action ${spec.action} failed:`, error);
    return refuse("internal", `The action failed and nothing was changed: ${(error as Error).message}`, target);
  }
}
