/**
 * Copies a SQLite journal into a migrated PostgreSQL journal, table by table, with PostgreSQL's
 * COPY: `sqlite3 -csv` reads each table (the file opened read-only, never changed) and pipes it
 * into `psql`'s `\copy … FROM pstdin`. The triggers are off for the copy
 * (session_replication_role = replica, a superuser's setting: the test and bench servers' user), so
 * the trigger-maintained tables (latest positions, rollups) and the audit chain are copied as the
 * SQLite journal holds them instead of being recomputed; the identity sequences are then moved past
 * the copied ids and the tables analyzed. Reals are printed with 17 significant digits, so every
 * double arrives bit for bit. For tests (the same data on both engines) and the bench rows.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";

/** Tables of the contract, in an order that satisfies their foreign keys. */
const TABLES = [
  "bots",
  "breakers",
  "reconciliations",
  "reconciliation_positions",
  "latest_positions",
  "cycle_rollups",
  "position_rollups",
  "orders",
  "order_events",
  "breaker_events",
  "audit_log",
  "clear_requests",
  "drift_acknowledgements",
  "book_corrections",
  "journal_prunes",
];

function psqlPath(): string {
  return process.env.DRIFTWATCH_PSQL ?? "psql";
}

function pipe(sqliteFile: string, select: string, pgUrl: string, copy: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const reader = spawn("sqlite3", ["-readonly", "-csv", "-nullvalue", "\\N", sqliteFile, select], { stdio: ["ignore", "pipe", "pipe"] });
    const writer = spawn(psqlPath(), [pgUrl, "-v", "ON_ERROR_STOP=1", "-q", "-c", "SET session_replication_role = replica", "-c", copy], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let errors = "";
    reader.stderr.on("data", (d: Buffer) => (errors += d.toString()));
    writer.stderr.on("data", (d: Buffer) => (errors += d.toString()));
    reader.stdout.pipe(writer.stdin);
    let pending = 2;
    const done = (who: string) => (code: number | null) => {
      if (code !== 0) reject(new Error(`${who} exited with ${code}: ${errors.trim()}`));
      else if (--pending === 0) resolve();
    };
    reader.on("close", done("sqlite3"));
    writer.on("close", done("psql"));
    reader.on("error", reject);
    writer.on("error", reject);
  });
}

export interface CopyReport {
  rows: Record<string, number>;
  ms: Record<string, number>;
  totalMs: number;
}

/** `pgUrl`: a migrated, empty PostgreSQL journal (lib/db/pg-journal.ts), reached as a superuser. */
export async function copySqliteJournalToPg(sqliteFile: string, pgUrl: string, log: (line: string) => void = () => {}): Promise<CopyReport> {
  const began = performance.now();
  const db = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  const report: CopyReport = { rows: {}, ms: {}, totalMs: 0 };
  try {
    for (const table of TABLES) {
      const cols = db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(table) as { name: string; type: string }[];
      if (cols.length === 0) continue;
      const select = `SELECT ${cols
        .map((c) => (/real|double|float/i.test(c.type) ? `CASE WHEN "${c.name}" IS NULL THEN NULL ELSE printf('%!.17g', "${c.name}") END` : `"${c.name}"`))
        .join(", ")} FROM "${table}"`;
      const copy = `\\copy "${table}" (${cols.map((c) => `"${c.name}"`).join(", ")}) FROM pstdin WITH (FORMAT csv, NULL '\\N')`;
      const t0 = performance.now();
      await pipe(sqliteFile, select, pgUrl, copy);
      report.ms[table] = Math.round(performance.now() - t0);
      report.rows[table] = (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
      log(`copied ${table}: ${report.rows[table]} rows in ${(report.ms[table] / 1000).toFixed(1)} s`);
    }
  } finally {
    db.close();
  }
  // Identity columns continue after the copied ids; the planner gets its statistics.
  const fix = `DO $$ DECLARE r record; BEGIN
    FOR r IN SELECT table_name FROM information_schema.columns WHERE column_name = 'id' AND is_identity = 'YES' AND table_schema = current_schema() LOOP
      EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, ''id''), COALESCE((SELECT max(id) FROM %I), 0) + 1, false)', r.table_name, r.table_name);
    END LOOP; END $$`;
  await new Promise<void>((resolve, reject) => {
    const p = spawn(psqlPath(), [pgUrl, "-v", "ON_ERROR_STOP=1", "-q", "-c", fix, "-c", "ANALYZE"], { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    p.stderr.on("data", (d: Buffer) => (errors += d.toString()));
    p.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}: ${errors.trim()}`))));
  });
  report.totalMs = Math.round(performance.now() - began);
  return report;
}
