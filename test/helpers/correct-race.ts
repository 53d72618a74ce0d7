/**
 * One operator's book correction, in its own process, fired at an agreed instant: two of these
 * racing on one journal show that the second correction of one drift is refused, not counted twice.
 *   tsx test/helpers/correct-race.ts <journal> <operator> <form-json> <now-iso> <start-at-ms>
 */
import { correctBookSpec } from "../../lib/actions/correct-book";
import { runGuarded } from "../../lib/actions/guard";
import { openJournalWriter } from "../../lib/db/journal-file";
import { consoleAuditKey } from "../../lib/audit/key";

const [file, name, form, nowIso, startAt] = process.argv.slice(2) as [string, string, string, string, string];
const { db } = openJournalWriter(file);
const spec = correctBookSpec({ ackTtlMs: 600_000 });
while (Date.now() < Number(startAt)) {
  // spin: both processes leave the line within microseconds of each other
}
const result = await runGuarded(spec, { db, user: { name, role: "operator" }, now: () => new Date(nowIso), auditKey: consoleAuditKey() }, JSON.parse(form));
db.close();
process.stdout.write(JSON.stringify(result.ok ? { ok: true } : { ok: false, code: result.code, message: result.message }));
