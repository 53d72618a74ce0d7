/**
 * A TypeScript bot on a PostgreSQL journal, for trying one by hand and for the tests' second
 * processes (several bots on several hosts writing one database):
 *
 *   npm run pg-bot -- --journal postgresql://USER@HOST:PORT/DB [--migrate] [--bot alpha] [--cycles 20] [--seed 7]
 *
 * With --migrate, first applies drizzle/pg (lib/db/pg-journal.ts; safe beside a second migrator).
 * Then the PgJournalWriter trades on the simulator, on simulated time from the wall clock: one AAPL
 * decision and one reconciliation per cycle, with a lost reply in cycle 3 (the exchange filled it,
 * the lookup finds it: no double buy). Prints one JSON line of what it did; exits 1 on any error.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { BreakerHaltedError } from "../lib/bot/journal-writer";
import { openPgJournal, PgJournalWriter, redactUrl } from "../lib/bot/pg-journal-writer";
import { migratePgJournal } from "../lib/db/pg-journal";
import { SimExchange, type SimSymbolConfig } from "../lib/exchange/simulator";

const SYMBOLS: SimSymbolConfig[] = [
  { symbol: "AAPL", qtyStep: 1, price: 190 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
];
const usage = "usage: npm run pg-bot -- --journal postgresql://… [--migrate] [--bot alpha] [--cycles 20] [--seed 7]";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      journal: { type: "string" },
      migrate: { type: "boolean", default: false },
      bot: { type: "string", default: "alpha" },
      cycles: { type: "string", default: "20" },
      seed: { type: "string", default: "7" },
    },
  });
  const cycles = Number(values.cycles);
  const seed = Number(values.seed);
  if (!values.journal?.startsWith("postgres") || !Number.isInteger(cycles) || cycles < 1 || !Number.isInteger(seed)) {
    console.error(usage);
    return 2;
  }
  if (values.migrate) {
    const client = new pg.Client({ connectionString: values.journal });
    await client.connect();
    try {
      const { applied } = await migratePgJournal(client);
      if (applied.length > 0) console.error(`pg-bot: migrated ${redactUrl(values.journal)}: ${applied.join(", ")}`);
    } finally {
      await client.end();
    }
  }
  const pool = await openPgJournal(values.journal);
  try {
    const sim = new SimExchange({ seed, symbols: SYMBOLS, startAt: new Date(Math.floor(Date.now() / 1000) * 1000) });
    const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
    const botId = values.bot;
    const writer = new PgJournalWriter({
      pool,
      botId,
      prefix: botId.replace(/[^A-Za-z0-9_.:]/g, "_"),
      exchange: sim,
      qtyStepFor: (s) => steps.get(s),
      clock: () => sim.now(),
      sleep: async (ms) => sim.advance(ms),
    });
    await writer.register();
    await writer.recover();
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < cycles; i++) {
      sim.advance(15_000);
      await writer.heartbeat();
      if (i === 3) sim.inject({ on: "create", fault: "timeout_after_accept" });
      const bar = sim.now().toISOString();
      try {
        const out = await writer.sendOnce({ strategy: "pg_demo", symbol: "AAPL", side: i % 2 === 0 ? "buy" : "sell", qty: 10, bar });
        outcomes[out.kind] = (outcomes[out.kind] ?? 0) + 1;
      } catch (error) {
        if (!(error instanceof BreakerHaltedError)) throw error;
        outcomes.halted = (outcomes.halted ?? 0) + 1;
      }
      const r = await writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
      outcomes[`reconcile_${r.outcome}`] = (outcomes[`reconcile_${r.outcome}`] ?? 0) + 1;
    }
    console.log(JSON.stringify({ bot: botId, cycles, outcomes, position: sim.position("AAPL") }));
  } finally {
    await pool.end();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`pg-bot: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
