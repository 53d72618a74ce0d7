/**
 * Fast history: N simulated days of the two demo bots, written into a journal file without any real
 * waiting. The same bots, the same writer and the same short transactions as the live demo; only
 * the clock is simulated. Benign faults happen a dozen times a day, an incident (a trip) about once
 * or twice a day, and a simulated on-call person clears each halt after a while.
 *
 * Memory stays bounded: the bots keep a few bars of closes, the writer keeps nothing, and the
 * journal is the only thing that grows. The one thing that grows in memory is the simulated venue's
 * order history (a few hundred orders a day), which a lookup needs.
 */
import { migrateJournal, openJournalReader } from "../../lib/db/journal-file";
import { applyFault, randomBenignFault, randomIncident } from "./faults";
import { SimulatedOnCall } from "./operator";
import { seededRng, subSeed } from "./random";
import { DemoWorld } from "./world";

export const JOURNAL_TABLES = ["bots", "orders", "order_events", "reconciliations", "reconciliation_positions", "breakers", "breaker_events"] as const;

export interface HistoryOptions {
  file: string;
  days: number;
  seed: number;
  /** First simulated instant. Defaults to UTC midnight `days` days before today, so it ends today. */
  start?: Date;
  barMs?: number;
  cycleMs?: number;
  /** Per bot and simulated day, on average. */
  benignFaultsPerDay?: number;
  incidentsPerDay?: number;
  migrationsDir?: string;
  /** Called once per simulated day, and with each incident and operator action. */
  onProgress?: (line: string) => void;
}

export interface HistoryReport {
  file: string;
  start: string;
  end: string;
  cycles: number;
  rows: Record<(typeof JOURNAL_TABLES)[number], number>;
  rowsWritten: number;
  incidents: number;
  trips: number;
  clears: number;
  elapsedMs: number;
}

const DAY_MS = 86_400_000;

export function defaultHistoryStart(days: number, today = new Date()): Date {
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return new Date(midnight - days * DAY_MS);
}

export function countRows(file: string, migrationsDir?: string): HistoryReport["rows"] {
  const { db } = openJournalReader(file, { migrationsDir });
  try {
    const rows = {} as HistoryReport["rows"];
    for (const t of JOURNAL_TABLES) rows[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return rows;
  } finally {
    db.close();
  }
}

export async function writeHistory(opts: HistoryOptions): Promise<HistoryReport> {
  if (!(opts.days > 0) || !Number.isFinite(opts.days)) throw new RangeError(`days must be a number above 0, got ${opts.days}`);
  const started = performance.now();
  migrateJournal(opts.file, { migrationsDir: opts.migrationsDir });
  const before = countRows(opts.file, opts.migrationsDir);
  if (before.bots > 0) throw new Error(`journal ${opts.file} already has bots: fast history writes into a fresh journal`);

  const barMs = opts.barMs ?? 60_000;
  const cycleMs = opts.cycleMs ?? barMs;
  const start = opts.start ?? defaultHistoryStart(opts.days);
  const cycles = Math.floor((opts.days * DAY_MS) / cycleMs);
  const cyclesPerDay = DAY_MS / cycleMs;
  const pBenign = (opts.benignFaultsPerDay ?? 12) / cyclesPerDay;
  const pIncident = (opts.incidentsPerDay ?? 1.5) / cyclesPerDay;
  const say = opts.onProgress ?? (() => undefined);

  const world = await DemoWorld.open({
    file: opts.file,
    seed: opts.seed,
    start,
    barMs,
    cycleMs,
    migrationsDir: opts.migrationsDir,
    // Simulated history is rewritable: trade fsync per commit for speed (see WorldOptions).
    synchronous: "NORMAL",
  });
  const rng = seededRng(subSeed(opts.seed, "history-faults"));
  const onCall = new SimulatedOnCall({ world, rng: seededRng(subSeed(opts.seed, "on-call")) });
  let incidents = 0;
  try {
    for (let i = 0; i < cycles; i++) {
      for (const bot of world.bots) {
        if (rng.chance(pBenign)) applyFault(world, bot.botId, randomBenignFault(rng));
        if (rng.chance(pIncident)) {
          const applied = randomIncident(rng)
            .map((f) => applyFault(world, bot.botId, f))
            .filter((x): x is string => x !== null);
          if (applied.length > 0) {
            incidents++;
            say(`${world.now().toISOString()} ${bot.botId}: ${applied.join("; ")}`);
          }
        }
      }
      // The first cycle runs at the start instant itself; every later one a cycle length after.
      if (i === 0) await world.cycle();
      else await world.step();
      for (const line of onCall.tick()) say(`${world.now().toISOString()} ${line}`);
      if ((i + 1) % cyclesPerDay === 0) say(`day ${(i + 1) / cyclesPerDay} of ${opts.days} written`);
    }
  } finally {
    world.close();
  }

  const rows = countRows(opts.file, opts.migrationsDir);
  const { db } = openJournalReader(opts.file, { migrationsDir: opts.migrationsDir });
  const kinds = db.prepare(`SELECT kind, count(*) AS n FROM breaker_events GROUP BY kind`).all() as { kind: string; n: number }[];
  db.close();
  const rowsWritten = JOURNAL_TABLES.reduce((sum, t) => sum + rows[t] - before[t], 0);
  return {
    file: opts.file,
    start: start.toISOString(),
    end: new Date(start.getTime() + (cycles - 1) * cycleMs).toISOString(),
    cycles,
    rows,
    rowsWritten,
    incidents,
    trips: kinds.find((k) => k.kind === "trip")?.n ?? 0,
    clears: kinds.find((k) => k.kind === "clear")?.n ?? 0,
    elapsedMs: performance.now() - started,
  };
}
