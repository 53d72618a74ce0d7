/**
 * The soak's bot: the journal writer library trading on the simulator as fast as the soak asks,
 * on the wall clock, so the console reads it as live. Every journal write it makes is counted as it
 * commits (tools/soak/write-ledger.ts); every SQLITE_BUSY it meets is counted and survived, never
 * fatal, because a bot that dies on a busy journal is the failure the soak looks for.
 *
 * What it writes, paced to `rate` commits per second:
 *   - a stream of small AAPL orders, buy then sell reduce-only, each the three writes of a send
 *     (intent, attempt, reply) with their events;
 *   - a reconciliation snapshot every `reconcileEveryMs` and a heartbeat every `heartbeatEveryMs`;
 *   - every `incidentEveryMs`, while it is running, a lost reply on ETHUSDT: the exchange fills the
 *     order, the reply and the lookup fail, the order is unknown and the breaker trips. That is the
 *     operator's work: acknowledge the drift, settle the order, clear the halt.
 */
import type Database from "better-sqlite3";
import { BreakerHaltedError, JournalWriter } from "../../lib/bot/journal-writer";
import { SimExchange, type SimSymbolConfig } from "../../lib/exchange/simulator";
import { emptyLedger, ledgerConnection, type WriteLedger } from "./write-ledger";

export const SOAK_BOT_ID = "soak";
export const SOAK_SYMBOLS: SimSymbolConfig[] = [
  { symbol: "AAPL", qtyStep: 1, price: 190 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
];
/** The symbol of the lost replies: the trading stream never touches it, so its drift is the incident's alone. */
export const INCIDENT_SYMBOL = "ETHUSDT";

export interface SoakBotOptions {
  db: Database.Database;
  seconds: number;
  /** Target committed writes per second. */
  rate: number;
  heartbeatEveryMs?: number;
  reconcileEveryMs?: number;
  /** 0: no incidents. */
  incidentEveryMs?: number;
  /** The first incident, after the start. */
  firstIncidentAfterMs?: number;
  /** Checked between writes: stop early (SIGTERM). */
  shouldStop?: () => boolean;
}

export interface SoakBotReport {
  botId: string;
  startedAt: string;
  stoppedAt: string;
  seconds: number;
  /** Committed write transactions. */
  writes: number;
  busy: number;
  /** Other errors, counted like busy: the bot carries on. */
  errors: number;
  errorSamples: string[];
  /** Milliseconds per committed write (BEGIN to COMMIT): the console must never hold the bot up. */
  writeMs: { p50: number; p99: number; max: number };
  /** Entries refused by the bot's own breaker (no write): the halts the operator clears. */
  blocked: number;
  incidents: number;
  rows: WriteLedger["rows"];
  /** Every order the bot wrote and the version its last confirmed write left it at. */
  orders: Record<string, number>;
  /** The last heartbeat the bot confirmed. */
  heartbeatAt: string | null;
}

const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSoakBot(opts: SoakBotOptions): Promise<SoakBotReport> {
  const ledger = emptyLedger();
  const db = ledgerConnection(opts.db, ledger);
  const started = Date.now();
  const sim = new SimExchange({ seed: 42, symbols: SOAK_SYMBOLS, startAt: new Date(started) });
  const steps = new Map(SOAK_SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const writer = new JournalWriter({
    db,
    botId: SOAK_BOT_ID,
    prefix: "soak1",
    exchange: sim,
    qtyStepFor: (s) => steps.get(s),
    clock: () => new Date(),
    // One attempt: a timeout goes straight to the final lookup, and a failed lookup to "unknown".
    retry: { attempts: 1, backoffMs: 0 },
  });
  const report: SoakBotReport = {
    botId: SOAK_BOT_ID,
    startedAt: new Date(started).toISOString(),
    stoppedAt: "",
    seconds: 0,
    writes: 0,
    busy: 0,
    errors: 0,
    errorSamples: [],
    writeMs: { p50: 0, p99: 0, max: 0 },
    blocked: 0,
    incidents: 0,
    rows: ledger.rows,
    orders: {},
    heartbeatAt: null,
  };
  const heartbeatEveryMs = opts.heartbeatEveryMs ?? 250;
  const reconcileEveryMs = opts.reconcileEveryMs ?? 250;
  const incidentEveryMs = opts.incidentEveryMs ?? 12_000;
  const symbols = SOAK_SYMBOLS.map((s) => s.symbol);
  let lastBeat = 0;
  let lastReconcile = 0;
  let nextIncident = started + (opts.firstIncidentAfterMs ?? 4_000);
  let n = 0;

  const attempt = async (what: () => unknown | Promise<unknown>) => {
    try {
      await what();
    } catch (error) {
      if (error instanceof BreakerHaltedError) report.blocked++;
      else if (isBusy(error)) report.busy++;
      else {
        report.errors++;
        if (report.errorSamples.length < 5) report.errorSamples.push((error as Error).message ?? String(error));
      }
    }
  };
  const confirm = (order: { clientOrderId: string; version: number }) => {
    report.orders[order.clientOrderId] = order.version;
  };

  await attempt(() => writer.register());
  const end = started + opts.seconds * 1000;
  while (Date.now() < end && !opts.shouldStop?.()) {
    // Pace to the rate: ahead of schedule, wait; behind it, write without waiting.
    const due = ((Date.now() - started) / 1000) * opts.rate;
    if (ledger.commits > due) {
      await sleep(Math.min(50, ((ledger.commits - due) / opts.rate) * 1000));
      continue;
    }
    const now = Date.now();
    sim.advance(Math.max(0, now - sim.now().getTime()));
    if (now - lastBeat >= heartbeatEveryMs) {
      lastBeat = now;
      await attempt(() => {
        writer.heartbeat();
        report.heartbeatAt = new Date(now).toISOString();
      });
      continue;
    }
    if (now - lastReconcile >= reconcileEveryMs) {
      lastReconcile = now;
      await attempt(() => writer.reconcile({ symbols }));
      continue;
    }
    const bar = new Date(started + n).toISOString();
    if (incidentEveryMs > 0 && now >= nextIncident && !writer.breaker().halted && writer.unsettledOrders().length === 0) {
      nextIncident = now + incidentEveryMs;
      report.incidents++;
      sim.inject({ on: "create", symbol: INCIDENT_SYMBOL, fault: "timeout_after_accept" });
      sim.inject({ on: "find", symbol: INCIDENT_SYMBOL, fault: "lookup_fail" });
      n++;
      await attempt(async () => confirm((await writer.sendOnce({ strategy: "soak", symbol: INCIDENT_SYMBOL, side: "buy", qty: 1, bar })).order));
      continue;
    }
    // Buy, then sell it back reduce-only: the book stays flat, and a halted bot still writes its sells.
    const buy = n % 2 === 0;
    n++;
    await attempt(async () =>
      confirm((await writer.sendOnce({ strategy: "soak", symbol: "AAPL", side: buy ? "buy" : "sell", qty: 1, bar }, { reduceOnly: !buy })).order),
    );
  }
  const stopped = Date.now();
  report.stoppedAt = new Date(stopped).toISOString();
  report.seconds = (stopped - started) / 1000;
  report.writes = ledger.commits;
  const sorted = ledger.commitMs.sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  report.writeMs = { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
  return report;
}
