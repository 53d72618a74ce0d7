/**
 * One operator's clear, in its own process, fired at an agreed instant: two of these racing on
 * one journal show that BEGIN IMMEDIATE plus the version check lets exactly one win.
 *   tsx test/helpers/clear-race.ts <journal> <operator> <form-json> <now-iso> <start-at-ms>
 */
import { clearHaltSpec } from "../../lib/actions/clear-halt";
import { runGuarded } from "../../lib/actions/guard";
import { openJournalWriter } from "../../lib/db/journal-file";
import { consoleAuditKey } from "../../lib/audit/key";

const [file, name, form, nowIso, startAt] = process.argv.slice(2) as [string, string, string, string, string];
const { db } = openJournalWriter(file);
const spec = clearHaltSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 });
while (Date.now() < Number(startAt)) {
  // spin: both processes leave the line within microseconds of each other
}
const result = await runGuarded(spec, { db, user: { name, role: "operator" }, now: () => new Date(nowIso), auditKey: consoleAuditKey() }, JSON.parse(form));
db.close();
process.stdout.write(JSON.stringify(result.ok ? { ok: true } : { ok: false, code: result.code }));
