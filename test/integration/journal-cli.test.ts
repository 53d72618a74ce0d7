import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migratedJournal, repoRoot, tempDir } from "../helpers/journal";

function journalCli(...args: string[]) {
  return journalCliIn({}, ...args);
}
function journalCliIn(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/journal.ts", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("npm run journal", () => {
  it("migrate creates a journal, and says so", () => {
    const file = path.join(tempDir(), "journal.db");
    const r = journalCli("migrate", file);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^journal ${file}: created, schema version 0 -> \\d+ \\(applied 0000_`));
  });

  it("migrate a second time reports it is already up to date", () => {
    const file = migratedJournal();
    const r = journalCli("migrate", file);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("already up to date");
  });

  it("check passes on a readable WAL journal", () => {
    const r = journalCli("check", migratedJournal());
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("readable");
  });

  const oneLine = (stderr: string) => {
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    return lines[0]!;
  };

  it("check on a missing path prints one line that names the file and the fix", () => {
    const file = path.join(tempDir(), "nope.db");
    const r = journalCli("check", file);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      `driftwatch: journal ${file}: not found. Fix: check the path, or run "npm run journal -- migrate ${file}" to create a new journal there`,
    );
    expect(fs.existsSync(file)).toBe(false);
  });

  it("check on a file that is not SQLite prints one line", () => {
    const file = path.join(tempDir(), "journal.db");
    fs.writeFileSync(file, "hello\n".repeat(1000));
    const r = journalCli("check", file);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(
      new RegExp(`^driftwatch: journal ${file}: is not a SQLite database .*, so not a driftwatch journal\\. Fix: check the path: give the bot's journal file$`),
    );
  });

  it("prune on a missing file, another program's SQLite database or a negative --keep says what is wrong, never to migrate, and changes nothing", () => {
    const dir = tempDir();
    const missing = path.join(dir, "nope.db");
    const r = journalCli("prune", missing, "--keep", "30d");
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(`driftwatch: journal ${missing}: not found. Fix: check the path: there is no journal there to prune`);
    expect(fs.existsSync(missing)).toBe(false);

    const other = path.join(dir, "other.sqlite");
    const db = new Database(other);
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    db.close();
    const before = fs.readFileSync(other);
    const o = journalCli("prune", other, "--keep", "30d");
    expect(o.code).toBe(1);
    expect(oneLine(o.stderr)).toMatch(
      /: is a SQLite database but not a driftwatch journal \(it has 1 table of its own and PRAGMA user_version 0\)\. Fix: give the bot's journal file; do not run migrate/,
    );
    expect(o.stderr).not.toContain("DRIFTWATCH_JOURNAL");
    expect(fs.readFileSync(other)).toEqual(before);

    const k = journalCli("prune", migratedJournal(), "--keep", "-5d");
    expect(k.code).toBe(2);
    expect(oneLine(k.stderr)).toBe("driftwatch: --keep: not a duration (-5d); use e.g. 30d, 12h or 2w");
  });

  it("check on a journal of a future schema version prints one line", () => {
    const file = migratedJournal();
    const db = new Database(file);
    db.pragma("user_version = 42");
    db.close();
    const r = journalCli("check", file);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/has schema version 42, newer than this driftwatch knows \(\d+, the migrations in .*drizzle\)\. Fix: upgrade driftwatch/);
  });

  it("version prints the number plain SQL reads", () => {
    const file = migratedJournal();
    const db = new Database(file, { readonly: true });
    const version = db.pragma("user_version", { simple: true });
    db.close();
    expect(journalCli("version", file).stdout.trim()).toBe(`${version} (this driftwatch knows ${version})`);
  });

  it("under npm run, a relative file is the one beside the person typing (INIT_CWD), not in the project's folder", () => {
    const file = migratedJournal();
    const r = journalCliIn({ INIT_CWD: path.dirname(file) }, "check", path.basename(file));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`journal ${file}: readable`);
  });

  it("an unknown command prints usage and exits 2", () => {
    const r = journalCli("frobnicate");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: npm run journal");
  });
});
