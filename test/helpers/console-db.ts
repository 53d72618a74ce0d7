/** The console's view of a journal file: a read-only drizzle handle, as lib/db/console.ts makes it. */
import type Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import type { JournalDb } from "@/lib/db/console";
import { openJournalReader } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { migrationsDir } from "./journal";

export function consoleDb(file: string) {
  const { db: sqlite } = openJournalReader(file, { migrationsDir });
  return { db: drizzle(sqlite, { schema }), close: () => sqlite.close() };
}

/** The one journal handle (drizzle with the connection as `$client`) over a connection a test already holds. */
export function journalDbOf(sqlite: Database.Database): JournalDb {
  return drizzle(sqlite, { schema });
}
