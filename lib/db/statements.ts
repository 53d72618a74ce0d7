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
 * The better-sqlite3 connection of a handle: a read handle's `$client`, or the action guard's write
 * connection as it is (the guard runs its transactions on the driver itself).
 */
export function connectionOf(db: JournalDb | Database.Database): Database.Database {
  return "prepare" in db ? db : db.$client;
}

export function statement(db: JournalDb | Database.Database, text: string): Database.Statement {
  const sqlite = connectionOf(db);
  let cache = caches.get(sqlite);
  if (!cache) caches.set(sqlite, (cache = new Map()));
  let s = cache.get(text);
  if (!s) {
    s = sqlite.prepare(text);
    cache.set(text, s);
  }
  return s;
}
