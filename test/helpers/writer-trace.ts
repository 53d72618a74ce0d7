/**
 * What the TypeScript writer did in a run, as a script another writer can replay: every call a bot
 * made on its JournalWriter (register, heartbeat, recover, refresh, sendOnce, reconcile), the
 * writer's clock when it was made, every question the writer asked the exchange during it with the
 * exchange's answer, and what the call returned. The Python writer replays it
 * (test/helpers/replay_writer_trace.py) against the same answers and the same clock, so both
 * journals hold the same story. Recording only: the calls and the exchange run unchanged.
 */
import type Database from "better-sqlite3";
import { JournalWriter } from "@/lib/bot/journal-writer";
import type { ExchangeAdapter } from "@/lib/exchange/adapter";

export interface ExchangeCall {
  fn: string;
  args: unknown[];
  ok?: unknown;
  error?: { name: string; message: string; reason?: string };
}

export interface WriterCall {
  bot: string;
  method: "register" | "heartbeat" | "recover" | "refresh" | "sendOnce" | "reconcile";
  args: unknown[];
  /** The writer's clock when the call began (simulated: it moves only by the writer's backoff). */
  at: string;
  calls: ExchangeCall[];
  result: unknown;
  /** For reconcile: the qty step of each symbol the bot trades. */
  specs?: Record<string, number>;
}

/** Rows someone other than the writer (an operator, through the console's actions) wrote or changed. */
export interface JournalWrite {
  method: "journal";
  rows: { table: string; row: Record<string, unknown> }[];
}

export interface WriterBot {
  botId: string;
  prefix: string;
  exchange: string;
  attempts: number;
  backoffMs: number;
  unknownSymbolQtyStep: number;
}

export interface WriterTrace {
  bots: WriterBot[];
  calls: (WriterCall | JournalWrite)[];
}

/** The tables a person changes through the console (its actions write nothing else). */
const OPERATOR_TABLES = ["breakers", "breaker_events", "orders", "order_events", "drift_acknowledgements", "book_corrections", "clear_requests", "audit_log"];

function snapshot(db: Database.Database): Map<string, string> {
  const rows = new Map<string, string>();
  for (const table of OPERATOR_TABLES) {
    for (const r of db.prepare(`SELECT rowid AS __rowid, * FROM ${table}`).all() as Record<string, unknown>[]) {
      const { __rowid, ...row } = r;
      rows.set(`${table}:${String(__rowid)}`, JSON.stringify(row));
    }
  }
  return rows;
}

/**
 * Runs `act` (an operator's action on `db`) and adds the rows it wrote or changed to the trace at
 * this point of the story, so the replay writes them at the same point.
 */
export async function recordJournalWrite<T>(trace: WriterTrace, db: Database.Database, act: () => Promise<T>): Promise<T> {
  const before = snapshot(db);
  const out = await act();
  const rows: JournalWrite["rows"] = [];
  for (const [key, row] of snapshot(db)) {
    if (before.get(key) !== row) rows.push({ table: key.slice(0, key.indexOf(":")), row: JSON.parse(row) as Record<string, unknown> });
  }
  trace.calls.push({ method: "journal", rows });
  return out;
}

const METHODS = ["register", "heartbeat", "recover", "refresh", "sendOnce", "reconcile"] as const;

/** The writer's own fields, read (never changed, except the exchange wrapped to record it). */
interface WriterInside {
  exchange: ExchangeAdapter;
  clock: () => Date;
  retry: { attempts: number; backoffMs: number };
  opts: { qtyStepFor: (symbol: string) => number | undefined; unknownSymbolQtyStep?: number };
}

const inside = (w: JournalWriter) => w as unknown as WriterInside;

function summary(method: WriterCall["method"], value: unknown): unknown {
  const v = value as Record<string, unknown> | null | undefined;
  if (method === "sendOnce") return { kind: v?.kind };
  if (method === "reconcile") return { outcome: v?.outcome, reconciliationId: v?.reconciliationId, tripped: v?.tripped ?? false };
  if (method === "refresh") return { state: v?.state };
  if (method === "recover") return v;
  return null;
}

/** Records every JournalWriter in this process until `stop()`. */
export function recordWriterCalls(): { trace: WriterTrace; stop: () => void } {
  const trace: WriterTrace = { bots: [], calls: [] };
  const wrapped = new WeakSet<JournalWriter>();
  let current: WriterCall | null = null;
  const proto = JournalWriter.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = Object.fromEntries(METHODS.map((m) => [m, proto[m]!]));

  const wrapExchange = (w: JournalWriter) => {
    if (wrapped.has(w)) return;
    wrapped.add(w);
    const i = inside(w);
    const real = i.exchange;
    trace.bots.push({
      botId: w.botId,
      prefix: w.prefix,
      exchange: real.name,
      attempts: i.retry.attempts,
      backoffMs: i.retry.backoffMs,
      unknownSymbolQtyStep: i.opts.unknownSymbolQtyStep ?? 1e-8,
    });
    i.exchange = new Proxy(real, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== "function" || prop === "constructor") return value;
        return async (...args: unknown[]) => {
          const call: ExchangeCall = { fn: String(prop), args: JSON.parse(JSON.stringify(args)) as unknown[] };
          current?.calls.push(call);
          try {
            const out = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
            call.ok = out instanceof Map ? [...out] : JSON.parse(JSON.stringify(out ?? null));
            return out;
          } catch (error) {
            const e = error as Error & { reason?: string };
            call.error = { name: e.name, message: e.message, ...(e.reason !== undefined ? { reason: e.reason } : {}) };
            throw error;
          }
        };
      },
    });
  };

  for (const method of METHODS) {
    proto[method] = function (this: JournalWriter, ...args: unknown[]) {
      wrapExchange(this);
      if (current !== null) return originals[method]!.apply(this, args);
      const i = inside(this);
      const call: WriterCall = {
        bot: this.botId,
        method,
        args: JSON.parse(JSON.stringify(args)) as unknown[],
        at: i.clock().toISOString(),
        calls: [],
        result: null,
      };
      if (method === "reconcile") {
        const symbols = ((args[0] as { symbols?: string[] } | undefined)?.symbols ?? []) as string[];
        call.specs = Object.fromEntries(symbols.map((s) => [s, i.opts.qtyStepFor(s) ?? i.opts.unknownSymbolQtyStep ?? 1e-8]));
      }
      trace.calls.push(call);
      current = call;
      const done = (value: unknown) => {
        call.result = summary(method, value);
        current = null;
        return value;
      };
      const failed = (error: unknown) => {
        call.result = { threw: (error as Error).name };
        current = null;
        throw error;
      };
      try {
        const out = originals[method]!.apply(this, args);
        return out instanceof Promise ? out.then(done, failed) : done(out);
      } catch (error) {
        return failed(error);
      }
    };
  }
  return {
    trace,
    stop: () => {
      for (const method of METHODS) proto[method] = originals[method]!;
    },
  };
}
