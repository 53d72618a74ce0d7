/**
 * The live demo's cycle, timed: `npx tsx scripts/bench/demo-cycle.ts [--cycles 240] [--seed 1]`.
 * Runs alpha and beta as scripts/demo-bots.ts does (15 s bars, a cycle every 2.5 s, benign faults
 * and incidents at the demo's rate) on simulated time, once with each bot's writer calling the
 * simulator directly and once through CcxtAdapter and its Bybit V5 venue on loopback, and prints
 * the wall time of one world cycle (both bots) and of the world's start. Figures, not a test.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { migrateJournal } from "../../lib/db/journal-file";
import { applyFault, randomBenignFault, randomIncident } from "../../tools/demo/faults";
import { seededRng, subSeed } from "../../tools/demo/random";
import { DemoWorld, type VenueLink } from "../../tools/demo/world";

const { values } = parseArgs({ options: { cycles: { type: "string", default: "240" }, seed: { type: "string", default: "1" } } });
const CYCLES = Number(values.cycles);
const SEED = Number(values.seed);
const BAR_MS = 15_000;
const CYCLE_MS = 2_500;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function run(link: VenueLink): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-cycle-"));
  const file = path.join(dir, "demo.db");
  migrateJournal(file);
  const opened = performance.now();
  const world = await DemoWorld.open({ file, seed: SEED, start: new Date("2026-06-01T00:00:00Z"), barMs: BAR_MS, cycleMs: CYCLE_MS, venueLink: link });
  const startMs = performance.now() - opened;
  const rng = seededRng(subSeed(SEED, "demo-faults"));
  const times: number[] = [];
  try {
    for (let i = 0; i < CYCLES; i++) {
      world.advance(CYCLE_MS);
      // The demo's rate after its opening act: a benign fault every couple of minutes, an incident every ~20.
      const perCycle = (CYCLE_MS / 60_000) * 4;
      for (const bot of world.bots) {
        if (rng.chance(perCycle / 2)) applyFault(world, bot.botId, randomBenignFault(rng));
        if (rng.chance(perCycle / 20)) for (const f of randomIncident(rng)) applyFault(world, bot.botId, f);
      }
      const t = performance.now();
      await world.cycle();
      times.push(performance.now() - t);
    }
  } finally {
    world.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const f = (n: number) => n.toFixed(1).padStart(7);
  return `${link.padEnd(9)} start ${f(startMs)} ms   cycle mean ${f(mean)}  p50 ${f(quantile(sorted, 0.5))}  p95 ${f(quantile(sorted, 0.95))}  max ${f(sorted.at(-1) ?? NaN)} ms`;
}

console.log(`demo cycle, ${CYCLES} cycles of both bots (faults at 4x the demo's rate), seed ${SEED}, load ${os.loadavg()[0]!.toFixed(1)}`);
for (const link of ["direct", "bybit-v5"] as const) console.log(await run(link));
