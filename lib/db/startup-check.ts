import "server-only";
import { env, EnvError } from "../env";
import { JournalError, openJournalReader, READ_BUSY_TIMEOUT_MS } from "./journal-file";

export function checkJournalAtStart(): void {
  let file: string;
  try {
    file = env().journalPath;
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`driftwatch: ${error.message}`);
      return;
    }
    throw error;
  }
  try {
    // Like every read of the console: a locked journal is reported at once, not waited for.
    const { db, info } = openJournalReader(file, { busyTimeoutMs: READ_BUSY_TIMEOUT_MS });
    db.close();
    console.log(`driftwatch: reading journal ${info.file} (schema version ${info.schemaVersion}, ${info.journalMode})`);
  } catch (error) {
    if (error instanceof JournalError) console.error(`driftwatch: ${error.message}`);
    else console.error(`driftwatch: journal ${file} cannot be opened: ${(error as Error).message}`);
  }
}
