/**
 * One operator's clear on a PostgreSQL journal, in its own process, fired at an agreed instant: two
 * of these racing show that the audit lock, the row lock and the version check let exactly one win.
 *   tsx test/helpers/pg-clear-race.ts <database-url> <operator> <form-json> <now-iso> <start-at-ms> <audit-key>
 */
import pg from "pg";
import { clearHaltPgSpec } from "../../lib/actions/pg-actions";
import { runGuardedPg } from "../../lib/actions/pg-guard";

const [url, name, form, nowIso, startAt, key] = process.argv.slice(2) as [string, string, string, string, string, string];
const pool = new pg.Pool({ connectionString: url, max: 2 });
// Connected before the line, so both leave it with a connection in hand.
(await pool.connect()).release();
const spec = clearHaltPgSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 });
while (Date.now() < Number(startAt)) {
  // spin: both processes leave the line within microseconds of each other
}
const result = await runGuardedPg(spec, { pool, user: { name, role: "operator" }, now: () => new Date(nowIso), auditKey: key }, JSON.parse(form));
await pool.end();
process.stdout.write(JSON.stringify(result));
