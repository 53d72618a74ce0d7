import "server-only";
import { env, EnvError, type Env } from "../env";
import { CLASH_ADVICE, clashFact } from "./console";
import { JournalError, openJournalReader, READ_BUSY_TIMEOUT_MS } from "./journal-file";

/** Bot ids two journals both hold: the console cannot tell which one an action is for. */
export class BotClashError extends Error {
  override name = "BotClashError";
}

/**
 * Says on the command line, one line per journal, what each is and what is wrong with it. A
 * journal that cannot be read is no reason to stop: every page says the same and it is picked up
 * once fixed. A bot id in two journals is: it throws BotClashError naming both sources.
 */
export function checkJournalAtStart(): void {
  let journals: Env["journals"];
  try {
    journals = env().journals;
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`driftwatch: ${error.message}`);
      return;
    }
    throw error;
  }
  const owner = new Map<string, (typeof journals)[number]>();
  const clashes: string[] = [];
  for (const source of journals) {
    const label = journals.length > 1 ? `source ${source.name}: ` : "";
    if (source.kind === "postgres") {
      // Checked on the first request and every one after (lib/db/pg-source.ts); its bots join the clash check from what it shows.
      console.log(`driftwatch: ${label}reading the PostgreSQL journal at ${source.file} (checked on every request)`);
      continue;
    }
    try {
      // Like every read of the console: a locked journal is reported at once, not waited for.
      const { db, info } = openJournalReader(source.file, { busyTimeoutMs: READ_BUSY_TIMEOUT_MS });
      try {
        console.log(`driftwatch: ${label}reading journal ${info.file} (schema version ${info.schemaVersion}, ${info.journalMode})`);
        if (journals.length > 1) {
          const ids = db.prepare(`SELECT bot_id FROM bots UNION SELECT bot_id FROM breakers`).pluck().all() as string[];
          for (const id of ids) {
            const other = owner.get(id);
            if (other) clashes.push(clashFact(id, other, source));
            else owner.set(id, source);
          }
        }
      } finally {
        db.close();
      }
    } catch (error) {
      if (error instanceof JournalError) console.error(`driftwatch: ${label}${error.message}`);
      else console.error(`driftwatch: ${label}journal ${source.file} cannot be opened: ${(error as Error).message}`);
    }
  }
  // The advice once, after every clash (a fleet made from copies of one journal has many).
  if (clashes.length > 0) throw new BotClashError(`driftwatch configuration is invalid: ${clashes.join("; ")}. ${CLASH_ADVICE}`);
}

/** The server's start: checkJournalAtStart, and the process stopped on a bot id in two journals. */
export function checkJournalsOrStop(): void {
  try {
    checkJournalAtStart();
  } catch (error) {
    // No action could be routed safely, so do not serve at all.
    if (!(error instanceof BotClashError)) throw error;
    console.error(`driftwatch: ${error.message}`);
    process.exit(1);
  }
}
