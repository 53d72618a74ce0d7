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
 * of its own, after the action's transaction rolled back. When the journal itself is the problem
 * (locked, gone, full, damaged) the refusal may not be recordable there: then it goes to the
 * server log and the operator is told it is not in the audit log. Nothing here imports Next, so
 * the integration tests drive the same code the server actions run.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import type { AuditHead } from "../audit/chain";
import { appendAudit } from "../audit/log";
import { isCorruptError, isLockedError, JournalError } from "../db/journal-file";
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
}

/**
 * When the journal itself stopped the write: what to tell the operator, and whether trying to
 * audit the refusal in that same journal is pointless (it would wait out the lock again, or write
 * into a file that is gone).
 */
export function journalWriteFault(error: unknown): { message: string; auditable: boolean } | null {
  const code = (error as { code?: unknown }).code;
  if (error instanceof JournalError) {
    return { message: `Nothing was changed: the ${error.message}`, auditable: error.code !== "gone" && error.code !== "locked" };
  }
  if (typeof code !== "string") return null;
  if (isLockedError(error)) {
    return { message: "Nothing was changed: the journal stayed locked by another process (SQLITE_BUSY). Try again once it is free.", auditable: false };
  }
  if (code.startsWith("SQLITE_FULL")) {
    return { message: "Nothing was changed: the journal's disk is full (SQLITE_FULL). Free space on that disk; the bot cannot write either until you do.", auditable: true };
  }
  if (isCorruptError(error)) {
    return { message: `Nothing was changed: the journal is damaged (${code}). Stop the bot and run "npm run journal -- check" on it.`, auditable: false };
  }
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN")) {
    return { message: `Nothing was changed: the journal cannot be written (${code}: ${(error as Error).message}). Check the file, its permissions and its disk.`, auditable: true };
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

/**
 * The raw input as the audit log keeps it: strings only, each bounded. A null-prototype object,
 * so a field named `__proto__` is recorded as a field rather than changing the object's prototype.
 */
function rawForAudit(raw: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(raw).slice(0, 30)) out[k.slice(0, 64)] = asText(v, 500);
  return out;
}

/** Form fields as plain data; null-prototype for the same reason as rawForAudit. */
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

export async function runGuarded<S extends z.ZodType, P, T>(spec: ActionSpec<S, P, T>, env: GuardEnv, raw: Record<string, unknown>): Promise<ActionResult<T>> {
  const clock = env.now ?? (() => new Date());
  const actor = actorOf(env.user);
  const published = (head: AuditHead) => {
    try {
      env.onAudited?.(head);
    } catch (error) {
      console.error(`driftwatch: could not publish audit head #${head.entries}; the action stands:`, error);
    }
  };
  const audit = (outcome: "applied" | "refused", target: string, code: ActionCode | null, detail: Record<string, unknown>) => {
    const head = env.db
      .transaction(() => appendAudit(env.db, { at: clock().toISOString(), actor, action: spec.action, target, outcome, code, detail }, env.auditKey))
      .immediate();
    published(head);
    return head;
  };
  const rawTarget = () => {
    const candidate = raw.clientOrderId ?? raw.botId ?? raw.requestId ?? "";
    return `${asText(candidate, 200)}${raw.symbol ? `/${asText(raw.symbol, 50)}` : ""}` || "(none)";
  };
  const notAudited = (code: ActionCode, message: string, target: string, why: string): ActionResult<T> => {
    // Greppable: the only record of this attempt is the server log.
    console.error(`driftwatch: NOT AUDITED (${why}): ${actor} ${spec.action} ${target} refused with ${code}: ${message}`);
    return { ok: false, code, message: `${message.replace(/\.?$/, ".")} This attempt is not in the audit log (${why}); the console's server log has it.` };
  };
  const refuse = (code: ActionCode, message: string, target: string, extra: Partial<ActionResult<T> & { ok: false }> = {}, detail: Record<string, unknown> = {}): ActionResult<T> => {
    try {
      audit("refused", target, code, { message, reasons: extra.reasons ?? [], fieldErrors: extra.fieldErrors, input: rawForAudit(raw), ...detail });
    } catch (error) {
      // The refusal stands (nothing changed); the operator must know it is not on record.
      console.error(`driftwatch: could not audit a refused ${spec.action}:`, error);
      return { ok: false, code, message: `${message} (This refusal could not be written to the audit log: ${(error as Error).message})`, ...extra };
    }
    return { ok: false, code, message, ...extra };
  };

  // 1. Who, and may they.
  if (env.user === null) return refuse("unauthorized", "Sign in to act. Nothing was changed.", rawTarget());
  if (env.user.role !== "operator") return refuse("unauthorized", `${env.user.name} is a viewer: only operators can act. Nothing was changed.`, rawTarget());

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
    const prepared = (spec.prepare ? await spec.prepare(input, { user: env.user, now: clock() }) : undefined) as P;
    // 4. Precondition, version and audit entry: one transaction.
    const user = env.user;
    const { data, head } = env.db
      .transaction(() => {
        const now = clock();
        const { data, detail } = spec.apply({ db: env.db, input, prepared, actor, user, now });
        const head = appendAudit(env.db, { at: now.toISOString(), actor, action: spec.action, target, outcome: "applied", detail: { ...detail, input: rawForAudit(raw) } }, env.auditKey);
        env.assertJournalFile?.();
        return { data, head };
      })
      .immediate();
    published(head);
    return { ok: true, data };
  } catch (error) {
    if (error instanceof Refusal) return refuse(error.code, error.message, target, { reasons: error.reasons }, error.detail);
    const fault = journalWriteFault(error);
    if (fault) {
      console.error(`driftwatch: action ${spec.action} stopped by the journal:`, (error as Error).message);
      return fault.auditable ? refuse("internal", fault.message, target) : notAudited("internal", fault.message, target, "the journal could not record it");
    }
    // Unexpected: say so plainly, keep the stack in the server log, never in the page.
    console.error(`driftwatch: action ${spec.action} failed:`, error);
    return refuse("internal", `The action failed and nothing was changed: ${(error as Error).message}`, target);
  }
}
