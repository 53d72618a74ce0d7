/**
 * Writes the benchmark's reference journal: `npm run bench:journal -- --days 20 [--out FILE]
 * [--seed N] [--symbols N] [--force]` (default .bench/reference-20d.sqlite; kept while current).
 * See tools/bench/reference-journal.ts for its shape.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { referenceJournal } from "../../tools/bench/reference";

const { values } = parseArgs({
  options: {
    days: { type: "string", default: "20" },
    out: { type: "string" },
    seed: { type: "string", default: "7" },
    symbols: { type: "string", default: "50" },
    force: { type: "boolean", default: false },
  },
});
const days = Number(values.days);
const symbols = Number(values.symbols);
if (!(days > 0 && days <= 400) || !(Number.isInteger(symbols) && symbols > 0 && symbols <= 1000)) {
  console.error(`bench:journal: --days must be between 0 and 400 and --symbols a whole number up to 1000 (got "${values.days}", "${values.symbols}")`);
  process.exit(2);
}
const { report } = referenceJournal(days, { force: values.force, symbols, seed: Number(values.seed), out: values.out ? path.resolve(values.out) : undefined });
console.log(JSON.stringify(report, null, 2));
