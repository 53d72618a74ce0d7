/**
 * The command-line tools as a newcomer runs them beside the demo: from a folder whose ./data holds
 * the demo's files (data/demo.db, data/demo-accounts/accounts.db) and not the defaults
 * (data/journal.db, data/accounts.db). Real CLIs on real files migrated from drizzle/.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrateJournal } from "@/lib/db/journal-file";
import { migrationsDir, repoRoot, tempDir } from "../helpers/journal";

/** A folder laid out like the repository's root, with ./data as `npm run demo` leaves it (or empty). */
function checkout({ demo }: { demo: boolean }): string {
  const dir = tempDir("cli-files");
  // The CLIs read their migrations from ./drizzle, as they do from the repository's root.
  fs.symlinkSync(migrationsDir, path.join(dir, "drizzle"));
  fs.mkdirSync(path.join(dir, "data"));
  if (demo) {
    migrateJournal(path.join(dir, "data/demo.db"), { migrationsDir });
    const added = cli(dir, "accounts", ["add", "demo", "--role", "operator", "--password-stdin"], {
      input: "a demo password that is long\n",
      env: { DRIFTWATCH_ACCOUNTS_DB: path.join(dir, "data/demo-accounts/accounts.db") },
    });
    expect(added.code).toBe(0);
  }
  return dir;
}

function cli(cwd: string, script: "journal" | "accounts" | "audit", args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: path.join(repoRoot, "tsconfig.json"), ...opts.env };
  // The defaults, as on a fresh terminal.
  if (!opts.env?.DRIFTWATCH_JOURNAL) delete env.DRIFTWATCH_JOURNAL;
  if (!opts.env?.DRIFTWATCH_ACCOUNTS_DB) delete env.DRIFTWATCH_ACCOUNTS_DB;
  delete env.DRIFTWATCH_DEMO_DIR;
  const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), [path.join(repoRoot, "scripts", `${script}.ts`), ...args], {
    cwd,
    encoding: "utf8",
    input: opts.input ?? "",
    env,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const files = (dir: string) => fs.readdirSync(path.join(dir, "data")).sort();

describe("the CLIs beside the demo's files", () => {
  it("journal check without a file names the demo's journal and the command for it, and creates nothing", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "journal", ["check"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "driftwatch: no journal at ./data/journal.db; the demo's is ./data/demo.db: DRIFTWATCH_JOURNAL=./data/demo.db npm run journal -- check\n",
    );
    expect(r.stderr).not.toContain("migrate");
    expect(files(dir)).toEqual(["demo-accounts", "demo.db"]);
  });

  it("the command it prints for the journal works", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "journal", ["check"], { env: { DRIFTWATCH_JOURNAL: "./data/demo.db" } });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("demo.db: readable");
  });

  it("accounts list names the demo's accounts file and creates no data/accounts.db", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "accounts", ["list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "driftwatch: no accounts file at ./data/accounts.db; the demo's is ./data/demo-accounts/accounts.db: DRIFTWATCH_ACCOUNTS_DB=./data/demo-accounts/accounts.db npm run accounts -- list\n",
    );
    expect(files(dir)).toEqual(["demo-accounts", "demo.db"]);
    const listed = cli(dir, "accounts", ["list"], { env: { DRIFTWATCH_ACCOUNTS_DB: "./data/demo-accounts/accounts.db" } });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^demo\s+operator\s+enabled/);
  });

  it("accounts add beside the demo names the demo's file and the console's own, and creates neither until one is named", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "accounts", ["add", "vic", "--role", "viewer", "--password-stdin"], { input: "a viewer password that is long\n" });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "driftwatch: no accounts file at ./data/accounts.db; the demo's is ./data/demo-accounts/accounts.db: DRIFTWATCH_ACCOUNTS_DB=./data/demo-accounts/accounts.db npm run accounts -- add vic --role viewer --password-stdin; " +
        "or, to start the console's own accounts file there instead: DRIFTWATCH_ACCOUNTS_DB=./data/accounts.db npm run accounts -- add vic --role viewer --password-stdin\n",
    );
    expect(files(dir)).toEqual(["demo-accounts", "demo.db"]);
    // Each command it prints does what it says.
    const toDemo = cli(dir, "accounts", ["add", "vic", "--role", "viewer", "--password-stdin"], {
      input: "a viewer password that is long\n",
      env: { DRIFTWATCH_ACCOUNTS_DB: "./data/demo-accounts/accounts.db" },
    });
    expect(toDemo.code).toBe(0);
    expect(cli(dir, "accounts", ["list"], { env: { DRIFTWATCH_ACCOUNTS_DB: "./data/demo-accounts/accounts.db" } }).stdout).toMatch(/^vic\s+viewer\s+enabled/m);
    const own = cli(dir, "accounts", ["add", "ana", "--role", "operator", "--password-stdin"], {
      input: "an operator password that is long\n",
      env: { DRIFTWATCH_ACCOUNTS_DB: "./data/accounts.db" },
    });
    expect(own.code).toBe(0);
    expect(files(dir)).toEqual(["accounts.db", "demo-accounts", "demo.db"]);
    // With the console's own file there, the default is no longer a mistake.
    expect(cli(dir, "accounts", ["add", "bo", "--role", "viewer", "--password-stdin"], { input: "another password that is long\n" }).code).toBe(0);
  });

  it("audit verify names both of the demo's files in the command for it", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "audit", ["verify", "--expect-head"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "driftwatch: no journal at ./data/journal.db; the demo's is ./data/demo.db: DRIFTWATCH_JOURNAL=./data/demo.db DRIFTWATCH_ACCOUNTS_DB=./data/demo-accounts/accounts.db npm run audit -- verify --expect-head\n",
    );
    expect(files(dir)).toEqual(["demo-accounts", "demo.db"]);
  });

  it("a journal named in DRIFTWATCH_JOURNAL that is missing gets the usual fix, not the demo's", () => {
    const dir = checkout({ demo: true });
    const r = cli(dir, "journal", ["check"], { env: { DRIFTWATCH_JOURNAL: "./data/bot.db" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`journal ${path.join(fs.realpathSync(dir), "data/bot.db")}: not found. Fix: run "npm run journal -- migrate`);
  });
});

describe("read-only accounts commands never create the accounts file", () => {
  for (const args of [["list"], ["role", "ana", "viewer"], ["disable", "ana"], ["enable", "ana"], ["passwd", "ana", "--password-stdin"]])
    it(`accounts ${args[0]} on a missing file is an error naming it and DRIFTWATCH_ACCOUNTS_DB, and leaves no file`, () => {
      const dir = checkout({ demo: false });
      const r = cli(dir, "accounts", args, { input: "a good long password\n" });
      expect(r.code).toBe(1);
      const file = path.join(fs.realpathSync(dir), "data/accounts.db");
      expect(r.stderr).toBe(
        `driftwatch: accounts file ${file}: not found. Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file, or create this one with npm run accounts -- add <name> --role operator\n`,
      );
      expect(files(dir)).toEqual([]);
    });

  it("add still creates it", () => {
    const dir = checkout({ demo: false });
    const r = cli(dir, "accounts", ["add", "ana", "--role", "operator", "--password-stdin"], { input: "a good long password\n" });
    expect(r.code).toBe(0);
    expect(files(dir)).toContain("accounts.db");
  });
});
