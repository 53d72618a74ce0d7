/**
 * What a SQLite error says about the file rather than the query, from its result code alone. One
 * reading for the journal's opener, the console's read path, the action guard and the accounts
 * file, so "locked" or "damaged" means the same everywhere. Plain TypeScript: it reads `code` off
 * whatever was thrown and never imports the driver.
 */

export type SqliteErrorKind =
  /** SQLITE_BUSY*, SQLITE_LOCKED*: another connection holds a lock we waited out. */
  | "locked"
  /** SQLITE_CORRUPT*: damaged pages. */
  | "corrupt"
  /** SQLITE_NOTADB: the file is not a SQLite database at all. */
  | "not_sqlite"
  /** SQLITE_FULL*: the disk (or the page limit) is full. */
  | "full"
  /** SQLITE_READONLY*: the file or its folder cannot be written. */
  | "readonly"
  /** SQLITE_IOERR*: the operating system failed a read or write. */
  | "io"
  /** SQLITE_CANTOPEN*: the file cannot be opened. */
  | "cantopen";

/** The extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_SHORT_READ…) count as their primary code. */
const PRIMARY: readonly (readonly [prefix: string, kind: SqliteErrorKind])[] = [
  ["SQLITE_BUSY", "locked"],
  ["SQLITE_LOCKED", "locked"],
  ["SQLITE_CORRUPT", "corrupt"],
  ["SQLITE_NOTADB", "not_sqlite"],
  ["SQLITE_FULL", "full"],
  ["SQLITE_READONLY", "readonly"],
  ["SQLITE_IOERR", "io"],
  ["SQLITE_CANTOPEN", "cantopen"],
];

/** The kind of trouble a thrown value reports about the database file; null when it is about something else (a bug in a query, a constraint). */
export function sqliteErrorKind(error: unknown): SqliteErrorKind | null {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== "string") return null;
  for (const [prefix, kind] of PRIMARY) {
    if (code === prefix || code.startsWith(`${prefix}_`)) return kind;
  }
  return null;
}

/** The file is damaged or is not a database: either way nothing in it can be trusted. */
export const isDamaged = (kind: SqliteErrorKind | null): boolean => kind === "corrupt" || kind === "not_sqlite";
