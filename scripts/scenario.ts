/**
 * npm run scenario -- <name> [journal-file] [--seed S] [--force]
 * npm run scenario -- list
 *
 * Runs one named scenario (tools/demo/scenarios.ts) into a fresh journal file (default
 * ./data/scenario-<name>.db), then prints what happened and what the journal now holds. Point the
 * console at the file to see it: DRIFTWATCH_JOURNAL=<file> npm start.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { isScenarioName, SCENARIO_NAMES, SCENARIOS } from "../tools/demo/scenarios";

const usage = `usage: npm run scenario -- <${SCENARIO_NAMES.join("|")}|list> [journal-file] [--seed S] [--force]`;

function table(db: Database.Database, title: string, sql: string): void {
  const rows = db.prepare(sql).all() as Record<string, unknown>[];
  console.log(`\n${title} (${rows.length})`);
  for (const r of rows)
    console.log(
      `  ${Object.values(r)
        .map((v) => (v === null ? "-" : String(v)))
        .join("  ")}`,
    );
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { seed: { type: "string", default: "7" }, force: { type: "boolean", default: false }, help: { type: "boolean", default: false } },
  });
  const [name, fileArg, ...rest] = positionals;
  if (values.help || name === undefined) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  if (name === "list") {
    for (const n of SCENARIO_NAMES) console.log(`${n.padEnd(20)} ${SCENARIOS[n].title}`);
    return 0;
  }
  const seed = Number(values.seed);
  if (!isScenarioName(name) || rest.length > 0 || !Number.isInteger(seed)) {
    console.error(usage);
    return 2;
  }
  const file = path.resolve(fileArg ?? `data/scenario-${name}.db`);
  if (fs.existsSync(file)) {
    if (!values.force) {
      console.error(`${file} exists: pass --force to replace it, or name another file`);
      return 2;
    }
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  }

  const scenario = SCENARIOS[name];
  console.log(`${scenario.name}: ${scenario.title}\n${scenario.summary}\n`);
  const result = await scenario.run({ file, seed, onActivity: (a) => console.log(`  ${a.at} ${a.botId} ${a.kind}: ${a.message}`) });
  console.log("\nwhat happened");
  for (const line of result.story) console.log(`  ${line}`);
  for (const [k, v] of Object.entries(result.facts)) console.log(`  ${k}: ${JSON.stringify(v)}`);

  const db = new Database(file, { readonly: true });
  try {
    table(
      db,
      `orders of ${scenario.botId}`,
      `SELECT client_order_id, strategy, symbol, side, qty, state, filled_qty, avg_price, attempts FROM orders WHERE bot_id = '${scenario.botId}' ORDER BY created_at`,
    );
    table(
      db,
      `their events`,
      `SELECT e.client_order_id, e.at, e.kind, e.detail FROM order_events e JOIN orders o USING (client_order_id) WHERE o.bot_id = '${scenario.botId}' ORDER BY e.id`,
    );
    table(
      db,
      "reconciliations",
      `SELECT bot_id, outcome, count(*) AS cycles, min(at) AS first, max(at) AS last FROM reconciliations GROUP BY bot_id, outcome ORDER BY bot_id, first`,
    );
    table(
      db,
      "drifting positions",
      `SELECT r.bot_id, r.at, p.symbol, p.ours, p.theirs FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id
       WHERE abs(p.ours - p.theirs) >= p.qty_step / 2 ORDER BY r.id, p.symbol LIMIT 20`,
    );
    table(db, "breaker events", `SELECT bot_id, at, kind, actor, reconciliation_id, reason FROM breaker_events ORDER BY id`);
  } finally {
    db.close();
  }
  console.log("\nfinal positions (book / exchange)");
  for (const b of result.bots) {
    const held = Object.keys(b.book).filter((s) => b.book[s] !== 0 || b.exchange[s] !== 0);
    const line = held.map((s) => `${s} ${b.book[s]} / ${b.exchange[s]}`).join(", ") || "flat";
    console.log(`  ${b.botId.padEnd(6)} ${b.halted ? `HALTED (${b.reason})` : "running"}: ${line}`);
  }
  console.log(`\njournal: ${file} (${result.cycles} cycles, ${result.from} to ${result.to})`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
