/**
 * The fleet row's journals (issue 15): ten journal files of ten bots each, and the same hundred
 * bots in one file, written by the real journal writer on the simulator with times near the wall
 * clock. The row compares the overview of a console on the ten files with one on the single file:
 * the same data, so the ratio is what reading several journals costs.
 */
import fs from "node:fs";
import path from "node:path";
import { JournalWriter } from "../../lib/bot/journal-writer";
import { migrateJournal, openJournalWriter } from "../../lib/db/journal-file";
import { SimExchange } from "../../lib/exchange/simulator";

const SYMBOLS = [
  { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
  { symbol: "AAPL", qtyStep: 1, price: 190 },
];
const CYCLES = 10;

async function writeBot(db: ReturnType<typeof openJournalWriter>["db"], botId: string, prefix: string, seed: number) {
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const sim = new SimExchange({ seed, symbols: SYMBOLS, startAt: new Date(Date.now() - CYCLES * 15_000) });
  const writer = new JournalWriter({ db, botId, prefix, exchange: sim, qtyStepFor: (s) => steps.get(s), clock: () => sim.now() });
  writer.register();
  await writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: sim.now().toISOString() });
  for (let i = 0; i < CYCLES; i++) {
    await writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
    writer.heartbeat();
    sim.advance(15_000);
  }
}

/** Writes the journals afresh under `dir`; returns the ten files and the one file. */
export async function fleetJournals(dir: string, opts: { journals: number; botsEach: number }): Promise<{ several: string[]; one: string }> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const one = path.join(dir, "all.sqlite");
  migrateJournal(one);
  const all = openJournalWriter(one).db;
  const several: string[] = [];
  for (let j = 0; j < opts.journals; j++) {
    const file = path.join(dir, `desk-${j}.sqlite`);
    migrateJournal(file);
    const { db } = openJournalWriter(file);
    for (let b = 0; b < opts.botsEach; b++) {
      const botId = `bot-${j}-${b}`;
      const prefix = `b${j}x${b}`;
      await writeBot(db, botId, prefix, j * 100 + b);
      await writeBot(all, botId, prefix, j * 100 + b);
    }
    db.close();
    several.push(file);
  }
  all.close();
  return { several, one };
}
