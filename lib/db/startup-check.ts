import { env, EnvError } from "../env";
import { JournalError, openJournalReader } from "./journal-file";

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
    const { db, info } = openJournalReader(file);
    db.close();
    console.log(`driftwatch: reading journal ${info.file} (schema version ${info.schemaVersion}, ${info.journalMode})`);
  } catch (error) {
    if (error instanceof JournalError) console.error(`driftwatch: ${error.message}`);
    else console.error(`driftwatch: journal ${file} cannot be opened: ${(error as Error).message}`);
  }
}
