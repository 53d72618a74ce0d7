/**
 * npm run journal -- <command> [file]
 *
 *   migrate [file]   create the journal (WAL) or upgrade it to this driftwatch's schema; safe twice
 *   check [file]     exit 0 when the console can read it and SQLite's quick_check finds no damage,
 *                    else print the one-line reason, exit 1
 *   version [file]   print the schema version (PRAGMA user_version) and the version this code knows
 *
 * The file defaults to DRIFTWATCH_JOURNAL (./data/journal.db). When that default is missing and the
 * demo's journal exists, check and version name the demo's and the command for it (scripts/cli-files.ts).
 */
import { env, EnvError } from "../lib/env";
import { demoFileHint } from "./cli-files";
import { corruptError, JournalError, journalFault, latestSchemaVersion, migrateJournal, openJournalReader } from "../lib/db/journal-file";

const usage = `usage: npm run journal -- <migrate|check|version> [file]`;

function main(argv: string[]): number {
  const [command, fileArg, ...rest] = argv;
  if (!command || rest.length > 0 || command === "help" || command === "--help") {
    console.error(usage);
    return command === "help" || command === "--help" ? 0 : 2;
  }
  const file = fileArg ?? env().journalPath;
  // Reading a default that is not there while the demo's journal is: say so, not "migrate" (which
  // would create an empty journal beside the demo's).
  const hint = fileArg === undefined && command !== "migrate" ? demoFileHint("journal", file, { script: "journal", args: [command] }) : undefined;
  if (hint) {
    console.error(`driftwatch: ${hint}`);
    return 1;
  }
  switch (command) {
    case "migrate": {
      const r = migrateJournal(file);
      const what = r.created ? "created" : r.applied.length > 0 ? "upgraded" : "already up to date";
      console.log(`journal ${r.file}: ${what}, schema version ${r.from} -> ${r.to}${r.applied.length ? ` (applied ${r.applied.join(", ")})` : ""}, WAL`);
      return 0;
    }
    case "check": {
      const { db, info } = openJournalReader(file);
      try {
        // Every page, not just the header: a damaged page deep in a table opens fine and fails later.
        const problems = (db.pragma("quick_check(5)") as { quick_check: string }[]).map((r) => r.quick_check).filter((r) => r !== "ok");
        if (problems.length > 0) throw corruptError(info.file, problems.join("; "));
      } catch (error) {
        throw journalFault(info.file, error) ?? error;
      } finally {
        db.close();
      }
      const wal = info.journalMode === "wal" ? "WAL" : `${info.journalMode} mode, not WAL: run migrate to switch it`;
      console.log(`journal ${info.file}: readable, schema version ${info.schemaVersion}, ${wal}`);
      return info.journalMode === "wal" ? 0 : 1;
    }
    case "version": {
      const { db, info } = openJournalReader(file);
      db.close();
      console.log(`${info.schemaVersion} (this driftwatch knows ${latestSchemaVersion()})`);
      return 0;
    }
    default:
      console.error(`unknown command ${JSON.stringify(command)}\n${usage}`);
      return 2;
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  // One line, no stack: the person reading it needs the file and the fix, not our call graph.
  if (error instanceof JournalError || error instanceof EnvError) console.error(`driftwatch: ${error.message}`);
  else console.error(`driftwatch: ${(error as Error).message}`);
  process.exitCode = 1;
}
