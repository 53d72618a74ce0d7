/** The console's view of a journal file: a read-only drizzle handle, as lib/db/console.ts makes it. */
import { drizzle } from "drizzle-orm/better-sqlite3";
import { openJournalReader } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { migrationsDir } from "./journal";

export function consoleDb(file: string) {
  const { db: sqlite } = openJournalReader(file, { migrationsDir });
  return { db: drizzle(sqlite, { schema }), close: () => sqlite.close() };
}
