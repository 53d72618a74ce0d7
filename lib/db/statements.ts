/**
 * Prepared statements, compiled once per connection. A poll runs the same few statements every
 * second; compiling them each time cost more than running them (measured on the overview, see
 * docs/performance.md). Keyed by the connection, so a journal that is reopened compiles afresh and
 * a closed connection's statements go with it.
 */
import type Database from "better-sqlite3";
import type { JournalDb } from "./console";

const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * The driver under a JournalDb, for statements drizzle does not stream, that run on every poll, or
 * whose plan a test checks. Every JournalDb is made by drizzle(sqlite) (lib/db/console), which keeps
 * the driver as `$client`; JournalDb's type just omits it.
 */
export function driver(db: JournalDb): Database.Database {
  const client = (db as JournalDb & { $client?: Database.Database }).$client;
  if (!client) throw new Error("this journal connection has no SQLite driver under it");
  return client;
}

export function statement(db: JournalDb | Database.Database, text: string): Database.Statement {
  const sqlite = "prepare" in db ? db : driver(db);
  let cache = caches.get(sqlite);
  if (!cache) caches.set(sqlite, (cache = new Map()));
  let s = cache.get(text);
  if (!s) {
    s = sqlite.prepare(text);
    cache.set(text, s);
  }
  return s;
}
