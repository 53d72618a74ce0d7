/**
 * The benchmark's reference journals in .bench/, written once and reused while they are current:
 * same generator and migrations (a hash of their sources), data no older than 12 h.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeReferenceJournal, type ReferenceReport } from "./reference-journal";

export const root = path.resolve(import.meta.dirname, "../..");
export const benchDir = path.join(root, ".bench");

export function generatorVersion(): string {
  const inputs = [
    "tools/bench/reference-journal.ts",
    ...fs
      .readdirSync(path.join(root, "drizzle"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => `drizzle/${f}`),
  ];
  const hash = crypto.createHash("sha256");
  for (const f of inputs) hash.update(fs.readFileSync(path.join(root, f)));
  return hash.digest("hex").slice(0, 16);
}

export function referenceJournal(
  days: number,
  opts: { force?: boolean; symbols?: number; seed?: number; out?: string } = {},
): { file: string; report: ReferenceReport } {
  const file = opts.out ?? path.join(benchDir, `reference-${days}d.sqlite`);
  const meta = `${file}.json`;
  const version = generatorVersion();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const known = fs.existsSync(meta) && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(meta, "utf8")) as { version: string; report: ReferenceReport }) : null;
  if (!opts.force && known && known.version === version && Date.now() - Date.parse(known.report.end) < 12 * 3_600_000) {
    console.log(`bench: reference journal ${path.relative(root, file)} is current (ends ${known.report.end})`);
    return { file, report: known.report };
  }
  console.log(`bench: writing the ${days}-day reference journal ${path.relative(root, file)} (about ${Math.ceil(days * 8)} s on an idle machine)`);
  fs.rmSync(meta, { force: true });
  const report = writeReferenceJournal({
    file,
    days,
    seed: opts.seed,
    symbolsPerBot: opts.symbols,
    onProgress: (l) => process.stdout.write(`\r  ${l}          `),
  });
  process.stdout.write("\n");
  fs.writeFileSync(meta, JSON.stringify({ version, report }, null, 2));
  return { file, report };
}
