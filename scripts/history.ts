/**
 * npm run history -- --days N --out FILE [--seed S] [--start ISO] [--force]
 *
 * Writes N simulated days of the two demo bots into a fresh journal file, on simulated time (no
 * real waiting), with the occasional incident and a simulated on-call person who clears halts.
 * Prints the rows written and the time it took. The same seed and start give the same journal.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { writeHistory } from "../tools/demo/history";

const usage = "usage: npm run history -- --days N --out FILE [--seed S] [--start 2026-08-01T00:00:00Z] [--force] [--quiet]";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      days: { type: "string" },
      out: { type: "string" },
      seed: { type: "string", default: "1" },
      start: { type: "string" },
      force: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const days = Number(values.days);
  const seed = Number(values.seed);
  const start = values.start === undefined ? undefined : new Date(values.start);
  if (!values.out || !(days > 0) || !Number.isFinite(days) || !Number.isInteger(seed) || (start && Number.isNaN(start.getTime()))) {
    console.error(usage);
    return 2;
  }
  const out = path.resolve(values.out);
  if (fs.existsSync(out)) {
    if (!values.force) {
      console.error(`${out} exists: pass --force to replace it`);
      return 2;
    }
    for (const f of [out, `${out}-wal`, `${out}-shm`]) fs.rmSync(f, { force: true });
  }
  const report = await writeHistory({
    file: out,
    days,
    seed,
    start,
    onProgress: values.quiet ? undefined : (line) => console.log(line),
  });
  const seconds = (report.elapsedMs / 1000).toFixed(1);
  console.log(`\n${out}: ${days} simulated day(s), ${report.start} to ${report.end}, seed ${seed}`);
  console.log(
    `${report.rowsWritten} rows written in ${seconds} s (${report.cycles} cycles per bot, ${report.incidents} incidents, ${report.trips} trips, ${report.clears} clears)`,
  );
  for (const [table, n] of Object.entries(report.rows)) console.log(`  ${table.padEnd(26)} ${n}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
