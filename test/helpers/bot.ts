/** A JournalWriter on a real migrated journal, trading on the simulator on simulated time. */
import Database from "better-sqlite3";
import { openJournalWriter } from "@/lib/db/journal-file";
import { JournalWriter, type Alert, type JournalWriterOptions } from "@/lib/bot/journal-writer";
import { SimExchange, type SimSymbolConfig } from "@/lib/exchange/simulator";
import { migratedJournal, migrationsDir } from "./journal";

export const SYMBOLS: SimSymbolConfig[] = [
  { symbol: "AAPL", qtyStep: 1, price: 92 },
  { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
];

export function botOnSim(opts: { seed?: number; file?: string; botId?: string; prefix?: string; startAt?: Date; writer?: Partial<JournalWriterOptions> } = {}) {
  const file = opts.file ?? migratedJournal("bot");
  // A fixed start by default; browser tests pass one near the wall clock so the console reads it as recent.
  const sim = new SimExchange({ seed: opts.seed ?? 7, symbols: SYMBOLS, startAt: opts.startAt ?? new Date("2026-08-10T15:30:00.000Z") });
  const { db } = openJournalWriter(file, { migrationsDir });
  const alerts: Alert[] = [];
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const writer = new JournalWriter({
    db,
    botId: opts.botId ?? "bot-a",
    prefix: opts.prefix ?? "q500",
    exchange: sim,
    qtyStepFor: (s) => steps.get(s),
    clock: () => sim.now(),
    // Backoff passes simulated time, so delayed orders can appear between attempts.
    sleep: async (ms) => sim.advance(ms),
    retry: { attempts: 3, backoffMs: 500 },
    onAlert: (a) => alerts.push(a),
    ...opts.writer,
  });
  writer.register();
  const read = new Database(file, { readonly: true });
  return {
    file,
    sim,
    writer,
    db,
    alerts,
    rows: <T = Record<string, unknown>>(sql: string, ...params: unknown[]) => read.prepare(sql).all(...params) as T[],
    close: () => {
      read.close();
      db.close();
    },
  };
}
