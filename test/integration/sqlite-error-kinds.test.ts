/**
 * sqliteErrorKind against the errors better-sqlite3 really throws, on real journal files, and the
 * three readers of it (the opener, the console's read path, the action guard) naming each the same.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { journalWriteFault } from "@/lib/actions/guard";
import { journalFault, migrateJournal } from "@/lib/db/journal-file";
import { sqliteErrorKind } from "@/lib/db/sqlite-error";

let dir: string;
let journal: string;
const open: Database.Database[] = [];
const connect = (file: string, opts?: Database.Options) => {
  const db = new Database(file, opts);
  open.push(db);
  return db;
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-sqlite-errors-"));
  journal = path.join(dir, "journal.db");
  migrateJournal(journal, { migrationsDir: path.resolve(import.meta.dirname, "../../drizzle") });
});
afterAll(() => {
  for (const db of open) if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What `fn` threw; fails the test when it threw nothing. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a SQLite error, nothing was thrown");
}

const insertBot = "INSERT INTO bots (bot_id, exchange, client_id_prefix) VALUES ('bot-x', 'sim', 'x')";

describe("sqliteErrorKind on errors better-sqlite3 throws", () => {
  it("a write while another connection holds the write lock is locked, for the opener and the guard alike", () => {
    const holder = connect(journal);
    holder.exec("BEGIN IMMEDIATE");
    const error = thrownBy(() => connect(journal, { timeout: 0 }).exec("BEGIN IMMEDIATE"));
    holder.exec("ROLLBACK");
    expect((error as { code: string }).code).toBe("SQLITE_BUSY");
    expect(sqliteErrorKind(error)).toBe("locked");
    expect(journalFault(journal, error)?.code).toBe("locked");
    expect(journalWriteFault(error)).toMatchObject({ auditable: false, message: expect.stringMatching(/stayed locked/) });
  });

  it("a file that is not a database is not_sqlite, and damaged to the readers", () => {
    const file = path.join(dir, "notes.db");
    fs.writeFileSync(file, "these are notes, not a database ".repeat(200));
    const error = thrownBy(() => connect(file).prepare("SELECT count(*) FROM bots").get());
    expect((error as { code: string }).code).toBe("SQLITE_NOTADB");
    expect(sqliteErrorKind(error)).toBe("not_sqlite");
    expect(journalFault(file, error)?.code).toBe("corrupt");
    expect(journalWriteFault(error)).toMatchObject({ auditable: false, message: expect.stringMatching(/is damaged \(SQLITE_NOTADB\)/) });
  });

  it("a table whose first page was overwritten is corrupt", () => {
    const copy = path.join(dir, "corrupt.db");
    const src = connect(journal, { readonly: true });
    src.exec(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
    const meta = connect(copy);
    const pageSize = meta.pragma("page_size", { simple: true }) as number;
    const root = meta.prepare(`SELECT rootpage FROM sqlite_schema WHERE name = 'bots'`).pluck().get() as number;
    meta.close();
    const fd = fs.openSync(copy, "r+");
    fs.writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
    fs.closeSync(fd);
    const error = thrownBy(() => connect(copy).prepare("SELECT * FROM bots").all());
    expect((error as { code: string }).code).toMatch(/^SQLITE_CORRUPT/);
    expect(sqliteErrorKind(error)).toBe("corrupt");
    expect(journalFault(copy, error)?.code).toBe("corrupt");
    expect(journalWriteFault(error)?.auditable).toBe(false);
  });

  it("a write past the page limit is full", () => {
    const db = connect(journal);
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    const error = thrownBy(() => {
      const insert = db.prepare("INSERT INTO bots (bot_id, exchange, client_id_prefix) VALUES (?, 'sim', 'x')");
      db.transaction(() => {
        for (let i = 0; i < 5_000; i++) insert.run(`bot-${i}-${"x".repeat(200)}`);
      })();
    });
    db.close();
    expect((error as { code: string }).code).toBe("SQLITE_FULL");
    expect(sqliteErrorKind(error)).toBe("full");
    expect(journalFault(journal, error)).toBeNull();
    expect(journalWriteFault(error)).toMatchObject({ auditable: true, message: expect.stringMatching(/disk is full \(SQLITE_FULL\)/) });
  });

  it("a write on a read-only connection is readonly", () => {
    const error = thrownBy(() => connect(journal, { readonly: true }).exec(insertBot));
    expect((error as { code: string }).code).toMatch(/^SQLITE_READONLY/);
    expect(sqliteErrorKind(error)).toBe("readonly");
    expect(journalWriteFault(error)).toMatchObject({ auditable: true, message: expect.stringMatching(/cannot be written/) });
  });

  it("attaching a file in a folder that does not exist is cantopen", () => {
    const error = thrownBy(() => connect(journal).exec(`ATTACH '${path.join(dir, "no-such-folder", "x.db")}' AS other`));
    expect((error as { code: string }).code).toMatch(/^SQLITE_CANTOPEN/);
    expect(sqliteErrorKind(error)).toBe("cantopen");
    expect(journalFault(journal, error)?.code).toBe("unreadable");
    expect(journalWriteFault(error)?.auditable).toBe(true);
  });

  it("a query's own mistake (a constraint, a missing table) is not a file problem", () => {
    const db = connect(journal);
    db.exec(insertBot);
    const duplicate = thrownBy(() => db.exec(insertBot));
    const missing = thrownBy(() => db.prepare("SELECT * FROM no_such_table").all());
    for (const error of [duplicate, missing]) {
      expect(sqliteErrorKind(error)).toBeNull();
      expect(journalFault(journal, error)).toBeNull();
      expect(journalWriteFault(error)).toBeNull();
    }
  });
});
