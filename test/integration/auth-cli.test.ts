import { spawnSync } from "node:child_process";
import path from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { getAccount } from "@/lib/auth/accounts";
import { actorFromSession } from "@/lib/auth/resolve";
import { sessionPayload, signSession } from "@/lib/auth/token";
import { openAccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";

const secret = "cli-test-secret-that-is-over-32-characters";
const TTL = 3600_000;

function accountsCli(file: string, args: string[], input?: string) {
  const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/accounts.ts", ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    input: input ?? "",
    env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: file },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const oneLine = (stderr: string) => {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
};

const opened: Database.Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function read(file: string) {
  const { db, sqlite } = openAccountsDb(file, { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
  opened.push(sqlite);
  return db;
}

describe("npm run accounts", () => {
  it("adds an operator with a password from stdin, creating the file, and lists it", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    const added = accountsCli(file, ["add", "alice", "--role", "operator", "--password-stdin"], "a good long password\n");
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toBe(`added alice (operator) to ${file}\n`);
    const list = accountsCli(file, ["list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^alice\s+operator\s+enabled\s+password set \d{4}-/);
  });

  it("refuses to add a name that exists, in one line, exit 1, without asking for a password", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    accountsCli(file, ["add", "alice", "--role", "operator", "--password-stdin"], "a good long password\n");
    const again = accountsCli(file, ["add", "alice", "--role", "viewer", "--password-stdin"], "another long password\n");
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toBe('driftwatch: account "alice" already exists (use passwd, role or enable to change it)');
    expect(getAccount(read(file), { name: "alice" })?.role).toBe("operator");
  });

  it("refuses a short password and a bad name, in one line each, exit 1, adding nothing", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    const short = accountsCli(file, ["add", "bob", "--role", "viewer", "--password-stdin"], "elevenchars\n");
    expect(short.code).toBe(1);
    expect(oneLine(short.stderr)).toBe("driftwatch: password too short: at least 12 characters, got 11");
    const bad = accountsCli(file, ["add", "Bob Smith", "--role", "viewer", "--password-stdin"], "a good long password\n");
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toMatch(/^driftwatch: invalid account name "Bob Smith": use 1 to 64 characters/);
    expect(accountsCli(file, ["list"]).stdout).toMatch(/^no accounts in /);
  });

  it("exits 2 with one line for wrong usage", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    for (const args of [[], ["frobnicate"], ["add", "carol"], ["add", "carol", "--role", "operator", "--nope"], ["role", "carol"], ["list", "extra"]]) {
      const r = accountsCli(file, args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(oneLine(r.stderr)).toMatch(/^driftwatch: .*\(npm run accounts -- help shows the usage\)$/);
    }
    expect(accountsCli(file, ["help"]).code).toBe(0);
  });

  it("refuses to ask for a password with no terminal and no --password-stdin", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    const r = accountsCli(file, ["add", "carol", "--role", "viewer"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/no terminal to ask for the password on: pipe it in and pass --password-stdin/);
  });

  it("disable ends a live session for good: enable does not bring it back", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    accountsCli(file, ["add", "alice", "--role", "operator", "--password-stdin"], "a good long password\n");
    const db = read(file);
    const token = signSession(
      sessionPayload({ name: "alice", sessionsValidFrom: getAccount(db, { name: "alice" })!.sessionsValidFrom, ttlMs: 3600_000 }),
      secret,
    );
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL }).ok).toBe(true);
    expect(accountsCli(file, ["disable", "alice"])).toMatchObject({ code: 0, stdout: "disabled alice: its sessions have ended\n" });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "disabled" });
    expect(accountsCli(file, ["list"]).stdout).toMatch(/^alice\s+operator\s+disabled/);
    expect(accountsCli(file, ["enable", "alice"])).toMatchObject({
      code: 0,
      stdout: "enabled alice (operator): its owner signs in again (older sessions stay ended)\n",
    });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "session_ended" });
  });

  it("role changes what a live session may do at its next request", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    accountsCli(file, ["add", "alice", "--role", "operator", "--password-stdin"], "a good long password\n");
    const db = read(file);
    const token = signSession(
      sessionPayload({ name: "alice", sessionsValidFrom: getAccount(db, { name: "alice" })!.sessionsValidFrom, ttlMs: 3600_000 }),
      secret,
    );
    expect(accountsCli(file, ["role", "alice", "viewer"]).code).toBe(0);
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toMatchObject({ ok: true, actor: { role: "viewer" } });
    const bad = accountsCli(file, ["role", "alice", "admin"]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toBe('driftwatch: invalid role "admin": use viewer or operator');
  });

  it("passwd ends the sessions made with the old password", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    accountsCli(file, ["add", "alice", "--role", "operator", "--password-stdin"], "a good long password\n");
    const db = read(file);
    const token = signSession(
      sessionPayload({ name: "alice", sessionsValidFrom: getAccount(db, { name: "alice" })!.sessionsValidFrom, ttlMs: 3600_000 }),
      secret,
    );
    const r = accountsCli(file, ["passwd", "alice", "--password-stdin"], "a different long password\n");
    expect(r).toMatchObject({ code: 0, stdout: "new password for alice (operator); its existing sessions have ended\n" });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "session_ended" });
  });

  it("passwd, disable and role on an unknown name: one line, exit 1", () => {
    const file = path.join(tempDir("cli"), "accounts.db");
    // An accounts file that exists (a missing one is refused before any name is looked up).
    expect(accountsCli(file, ["add", "alice", "--role", "viewer", "--password-stdin"], "a good long password\n").code).toBe(0);
    for (const args of [
      ["passwd", "ghost", "--password-stdin"],
      ["disable", "ghost"],
      ["role", "ghost", "viewer"],
    ]) {
      const r = accountsCli(file, args, "a good long password\n");
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toBe('driftwatch: no account named "ghost" (npm run accounts -- list shows them)');
    }
  });
});
