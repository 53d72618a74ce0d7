import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { JournalError, latestSchemaVersion, migrateJournal, openJournalReader, openJournalWriter } from "@/lib/db/journal-file";
import { migratedJournal, migrationsDir, plainSqlJournal, repoRoot, tempDir } from "../helpers/journal";

const tables = (file: string) => {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare(`SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name`).all();
  db.close();
  return rows;
};

describe("migrateJournal", () => {
  it("creates the journal in WAL mode at the latest schema version, folder included", () => {
    const file = path.join(tempDir(), "nested", "deeper", "journal.db");
    const r = migrateJournal(file, { migrationsDir });
    expect(r).toMatchObject({ created: true, from: 0, to: latestSchemaVersion(migrationsDir) });
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(latestSchemaVersion(migrationsDir));
    db.close();
  });

  it("is safe to run twice and changes nothing the second time", () => {
    const file = migratedJournal();
    const before = tables(file);
    const again = migrateJournal(file, { migrationsDir });
    expect(again).toMatchObject({ created: false, applied: [] });
    expect(tables(file)).toEqual(before);
  });

  it("creates the same schema as a bot applying the .sql files with plain SQL", () => {
    expect(tables(plainSqlJournal())).toEqual(tables(migratedJournal()));
  });

  it("upgrades a journal a bot created by hand without redoing what it applied", () => {
    const file = plainSqlJournal();
    expect(migrateJournal(file, { migrationsDir })).toMatchObject({ applied: [], from: latestSchemaVersion(migrationsDir) });
  });

  it("two migrators racing on a new file both succeed and leave one schema", async () => {
    const file = path.join(tempDir(), "journal.db");
    const run = () =>
      new Promise<string>((resolve) => {
        const child = spawn(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/journal.ts", "migrate", file], {
          cwd: repoRoot,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (d) => (output += d));
        child.stderr.on("data", (d) => (output += d));
        child.on("exit", (code) => resolve(`exit ${code ?? -1}${code === 0 ? "" : `: ${output.trim()}`}`));
      });
    // On a failure the message carries what the migrator said.
    expect(await Promise.all([run(), run()])).toEqual(["exit 0", "exit 0"]);
    expect(tables(file)).toEqual(tables(migratedJournal()));
  });

  it("refuses a journal from a newer driftwatch and leaves it untouched", () => {
    const file = migratedJournal();
    const db = new Database(file);
    db.pragma("user_version = 99");
    db.close();
    const before = fs.readFileSync(file);
    expect(() => migrateJournal(file, { migrationsDir })).toThrow(/schema version 99, newer than this driftwatch knows/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("refuses to migrate a file that is not SQLite, and does not overwrite it", () => {
    const file = path.join(tempDir(), "notes.txt");
    fs.writeFileSync(file, "these are someone's notes, not a journal\n".repeat(100));
    expect(() => migrateJournal(file, { migrationsDir })).toThrow(JournalError);
    expect(fs.readFileSync(file, "utf8")).toContain("someone's notes");
  });
});

describe("opening a journal", () => {
  const problem = (fn: () => unknown): JournalError => {
    try {
      fn();
    } catch (error) {
      if (error instanceof JournalError) return error;
      throw error;
    }
    throw new Error("expected a JournalError");
  };

  it("names the file and the fix when it is missing", () => {
    const file = path.join(tempDir(), "missing.db");
    const e = problem(() => openJournalReader(file, { migrationsDir }));
    expect(e.code).toBe("missing");
    expect(e.message).toBe(
      `journal ${file}: not found. Fix: run "npm run journal -- migrate ${file}" to create it, or set DRIFTWATCH_JOURNAL to the bot's journal`,
    );
    expect(fs.existsSync(file)).toBe(false);
  });

  it("says a file that is not SQLite is not SQLite", () => {
    const file = path.join(tempDir(), "journal.db");
    fs.writeFileSync(file, "x".repeat(4096));
    const e = problem(() => openJournalReader(file, { migrationsDir }));
    expect(e.code).toBe("not_sqlite");
    expect(e.message).toContain(file);
    expect(e.message).not.toContain("\n");
  });

  it("says a folder is not a journal file", () => {
    expect(problem(() => openJournalReader(tempDir(), { migrationsDir })).code).toBe("not_a_file");
  });

  it("refuses a journal of a future schema version with the upgrade as the fix", () => {
    const file = migratedJournal();
    const db = new Database(file);
    db.pragma(`user_version = ${latestSchemaVersion(migrationsDir) + 1}`);
    db.close();
    const e = problem(() => openJournalReader(file, { migrationsDir }));
    expect(e.code).toBe("future_schema");
    expect(e.fix).toMatch(/upgrade driftwatch/);
  });

  it("refuses an empty SQLite file as having no schema, with migrate as the fix", () => {
    const file = path.join(tempDir(), "journal.db");
    new Database(file).close();
    const e = problem(() => openJournalReader(file, { migrationsDir }));
    expect(e.code).toBe("no_schema");
    expect(e.fix).toContain("migrate");
  });

  it("reads on a read-only connection with a busy timeout of at least 5 s", () => {
    const { db, info } = openJournalReader(migratedJournal(), { migrationsDir });
    expect(info).toMatchObject({ journalMode: "wal", schemaVersion: latestSchemaVersion(migrationsDir) });
    expect(db.readonly).toBe(true);
    expect(db.pragma("busy_timeout", { simple: true })).toBeGreaterThanOrEqual(5000);
    expect(() => db.exec("DELETE FROM bots")).toThrow(/readonly/);
    db.close();
  });

  it("writes on its own connection that waits out a short lock instead of failing", async () => {
    const file = migratedJournal();
    const { db } = openJournalWriter(file, { migrationsDir });
    expect(db.pragma("busy_timeout", { simple: true })).toBeGreaterThanOrEqual(5000);
    // FULL (2): a commit is on disk when it returns; this build's WAL default is NORMAL (1).
    expect(db.pragma("synchronous", { simple: true })).toBe(2);
    // A second process holds the write lock for 1.5 s; the console's BEGIN IMMEDIATE must wait.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const D=require("better-sqlite3");const d=new D(${JSON.stringify(file)});d.exec("BEGIN IMMEDIATE");` +
          `d.prepare("INSERT INTO bots VALUES ('holder','sim','h',NULL)").run();process.stdout.write("locked\\n");` +
          `setTimeout(()=>{d.exec("COMMIT");process.exit(0)},1500);`,
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    db.transaction(() => db.prepare(`INSERT INTO bots VALUES ('console-test','sim','c',NULL)`).run()).immediate();
    const ids = db.prepare(`SELECT bot_id FROM bots ORDER BY bot_id`).pluck().all();
    expect(ids).toEqual(["console-test", "holder"]);
    db.close();
  });
});
