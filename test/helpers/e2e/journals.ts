/**
 * Journals for browser tests, written by the real journal writer trading on the simulator, with
 * timestamps near the wall clock so the console reads them as live.
 */
import { migrateJournal, openJournalWriter } from "@/lib/db/journal-file";
import { JournalWriter } from "@/lib/bot/journal-writer";
import { SimExchange } from "@/lib/exchange/simulator";
import { migrationsDir, tempDir } from "../journal";

const SYMBOLS = [
  { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
  { symbol: "AAPL", qtyStep: 1, price: 190 },
];

export interface LiveBot {
  writer: JournalWriter;
  sim: SimExchange;
}

/**
 * A new journal with one bot's writer on `sim`, registered: the start every browser test's journal
 * shares; each test brings its own venue (a SimExchange or a subclass) and symbols.
 */
export function botOnJournal(opts: { sim: SimExchange; symbols: readonly { symbol: string; qtyStep: number }[]; botId: string; prefix: string }) {
  const file = `${tempDir("e2e")}/journal.db`;
  migrateJournal(file, { migrationsDir });
  const { db } = openJournalWriter(file, { migrationsDir });
  const steps = new Map(opts.symbols.map((s) => [s.symbol, s.qtyStep]));
  const sim = opts.sim;
  const writer = new JournalWriter({
    db,
    botId: opts.botId,
    prefix: opts.prefix,
    exchange: sim,
    qtyStepFor: (s) => steps.get(s),
    clock: () => sim.now(),
    sleep: async (ms) => sim.advance(ms),
  });
  writer.register();
  return { file, db, writer, close: () => db.close() };
}

/**
 * One bot that has traded cleanly up to this moment: running, until its heartbeat stops. `pause`:
 * it wrote nothing for `ms`, starting `startMsAgo` before now (a bot stopped for a while).
 */
export async function healthyJournal(
  bot: { botId: string; prefix: string } = { botId: "gamma", prefix: "ga1" },
  pause?: { startMsAgo: number; ms: number },
): Promise<{ file: string; beat: () => void; close: () => void }> {
  const file = `${tempDir("e2e")}/journal.db`;
  migrateJournal(file, { migrationsDir });
  const { db } = openJournalWriter(file, { migrationsDir });
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const sim = new SimExchange({ seed: 3, symbols: SYMBOLS, startAt: new Date(Date.now() - 5 * 60_000) });
  const writer = new JournalWriter({ db, botId: bot.botId, prefix: bot.prefix, exchange: sim, qtyStepFor: (s) => steps.get(s), clock: () => sim.now() });
  writer.register();
  await writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: sim.now().toISOString() });
  let paused = false;
  while (sim.now().getTime() < Date.now() - 1_000) {
    if (pause && !paused && sim.now().getTime() >= Date.now() - pause.startMsAgo) {
      paused = true;
      sim.advance(pause.ms);
      continue;
    }
    await writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
    writer.heartbeat();
    sim.advance(Math.min(15_000, Math.max(1, Date.now() - 1_000 - sim.now().getTime())));
  }
  await writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
  writer.heartbeat();
  // One last cycle stamped with the wall clock, for a test to call just before it looks.
  const beat = () => {
    sim.advance(Math.max(0, Date.now() - sim.now().getTime()));
    writer.heartbeat();
  };
  return { file, beat, close: () => db.close() };
}

/** Two bots on one journal; `alpha` meets a position it never opened, `beta` a lost reply it cannot settle. */
export async function incidentJournal(
  opts: { startMsAgo?: number } = {},
): Promise<{ file: string; bots: Record<"alpha" | "beta", LiveBot>; close: () => void }> {
  const file = `${tempDir("e2e")}/journal.db`;
  migrateJournal(file, { migrationsDir });
  const { db } = openJournalWriter(file, { migrationsDir });
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const start = new Date(Date.now() - (opts.startMsAgo ?? 20 * 60_000));
  const make = (botId: string, prefix: string, seed: number): LiveBot => {
    const sim = new SimExchange({ seed, symbols: SYMBOLS, startAt: start });
    const writer = new JournalWriter({
      db,
      botId,
      prefix,
      exchange: sim,
      qtyStepFor: (s) => steps.get(s),
      clock: () => sim.now(),
      sleep: async (ms) => sim.advance(ms),
    });
    writer.register();
    return { writer, sim };
  };
  const bots = { alpha: make("alpha", "al1", 1), beta: make("beta", "be1", 2) };
  const symbols = SYMBOLS.map((s) => s.symbol);
  for (const [i, { writer, sim }] of Object.values(bots).entries()) {
    await writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.5, bar: start.toISOString() });
    await writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 100 + i, bar: start.toISOString() });
    // A quiet stretch of clean cycles, every 15 s, up to a minute before now.
    while (sim.now().getTime() < Date.now() - 60_000) {
      await writer.reconcile({ symbols });
      writer.heartbeat();
      sim.advance(15_000);
    }
  }
  bots.alpha.sim.setPositionBehindBot("ETHUSDT", 3);
  bots.beta.sim.inject({ on: "create", fault: "timeout_after_accept" });
  bots.beta.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
  await bots.beta.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 2, bar: bots.beta.sim.now().toISOString() });
  for (const { writer, sim } of Object.values(bots)) {
    sim.advance(Math.max(0, Date.now() - 2_000 - sim.now().getTime()));
    await writer.reconcile({ symbols });
    writer.heartbeat();
  }
  return { file, bots, close: () => db.close() };
}

/**
 * The lost-reply incident, live: beta's buy of 2 ETHUSDT was filled but its reply lost and every
 * lookup failed, so the order is unknown, the exchange holds a position the book does not, and the
 * breaker is tripped. `cycle()` runs one bot cycle on a clock synced to now.
 */
export async function lostReplyJournal(): Promise<{ file: string; bot: LiveBot; cycle: () => Promise<void>; close: () => void }> {
  const sim = new SimExchange({ seed: 5, symbols: SYMBOLS, startAt: new Date(Date.now() - 3 * 60_000) });
  const { file, db, writer } = botOnJournal({ sim, symbols: SYMBOLS, botId: "beta", prefix: "be1" });
  const symbols = SYMBOLS.map((s) => s.symbol);
  const cycle = async () => {
    sim.advance(Math.max(0, Date.now() - sim.now().getTime()));
    await writer.reconcile({ symbols });
    writer.heartbeat();
  };
  await writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.5, bar: sim.now().toISOString() });
  await cycle();
  sim.inject({ on: "create", fault: "timeout_after_accept" });
  sim.inject({ on: "find", fault: "lookup_fail", times: 3 }); // every lookup the bot makes fails; later ones work
  await writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 2, bar: sim.now().toISOString() });
  await cycle();
  return { file, bot: { writer, sim }, cycle, close: () => db.close() };
}
