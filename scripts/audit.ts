/**
 * npm run audit -- verify [file]
 *
 * Recomputes the audit log's hash chain. Exit 0 with the head of the chain when every entry holds;
 * exit 1 naming the first broken entry otherwise. The file defaults to DRIFTWATCH_JOURNAL.
 */
import { env } from "../lib/env";
import { openJournalReader } from "../lib/db/journal-file";
import { verifyAuditLog } from "../lib/audit/log";

function main(argv: string[]): number {
  const [command, fileArg, ...rest] = argv;
  if (command !== "verify" || rest.length > 0) {
    console.error("usage: npm run audit -- verify [file]");
    return 2;
  }
  const { db, info } = openJournalReader(fileArg ?? env().journalPath);
  try {
    const r = verifyAuditLog(db);
    if (r.ok) {
      console.log(`audit log of ${info.file}: ${r.entries} entries, chain verified, head ${r.head}`);
      return 0;
    }
    const e = r.brokenAt;
    console.error(
      `audit log of ${info.file}: chain broken at entry #${e.id} (${e.at}, ${e.actor}, ${e.action} ${e.target}): ${r.problem}. Entries before #${e.id} verify; treat #${e.id} and everything after it as untrusted.`,
    );
    return 1;
  } finally {
    db.close();
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`driftwatch: ${(error as Error).message}`);
  process.exitCode = 1;
}
