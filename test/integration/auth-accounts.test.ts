import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import {
  AccountError,
  createAccount,
  ensureDemoOperator,
  getAccount,
  listAccounts,
  setAccountDisabled,
  setAccountPassword,
  setAccountRole,
} from "@/lib/auth/accounts";
import { verifyPassword } from "@/lib/auth/password";
import { actorFromSession, actorFromTrustedHeader, isTrustedProxy, UnprovenHeaderLog } from "@/lib/auth/resolve";
import { sessionPayload, signSession } from "@/lib/auth/token";
import { openAccountsDb, type AccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";

const migrationsDir = path.join(repoRoot, "drizzle/accounts");
const secret = "integration-test-secret-of-at-least-32-chars";
const logN = 10; // cheap hashes: the cost is recorded in each hash, and is not what is tested here
const password = "a long enough password";
const TTL = 12 * 3600_000;

const opened: Database.Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function freshAccounts(label = "accounts"): { db: AccountsDb; sqlite: Database.Database; file: string } {
  const file = path.join(tempDir(label), "accounts.db");
  const { db, sqlite } = openAccountsDb(file, { migrationsDir });
  opened.push(sqlite);
  return { db, sqlite, file };
}

/** What the login action does after a good password: a token for the account as it is now. */
function sessionFor(db: AccountsDb, name: string, now = new Date()): string {
  const account = getAccount(db, { name })!;
  return signSession(sessionPayload({ name, sessionsValidFrom: account.sessionsValidFrom, ttlMs: 3600_000, now }), secret);
}

describe("the accounts file", () => {
  it("is created on first use: WAL, schema version 3, readable by its owner only", () => {
    const { file } = freshAccounts();
    const raw = new Database(file, { readonly: true });
    opened.push(raw);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(raw.pragma("user_version", { simple: true })).toBe(3);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("opens an existing file without migrating it twice", () => {
    const { file } = freshAccounts();
    const again = openAccountsDb(file, { migrationsDir });
    opened.push(again.sqlite);
    expect(again.sqlite.pragma("user_version", { simple: true })).toBe(3);
  });

  it("upgrades a version-1 file: existing accounts keep their sessions (valid from their password change)", async () => {
    const v1 = tempDir("accounts-v1");
    fs.mkdirSync(path.join(v1, "migrations"));
    fs.copyFileSync(path.join(migrationsDir, "0000_accounts_v1.sql"), path.join(v1, "migrations", "0000_accounts_v1.sql"));
    const file = path.join(v1, "accounts.db");
    const old = openAccountsDb(file, { migrationsDir: path.join(v1, "migrations") });
    old.sqlite
      .prepare(
        `INSERT INTO accounts (name, role, password_hash, disabled, created_at, updated_at, password_changed_at) VALUES ('alice', 'operator', 'x', 0, ?, ?, ?)`,
      )
      .run("2026-08-01T00:00:00.000Z", "2026-08-01T00:00:00.000Z", "2026-08-02T00:00:00.000Z");
    expect(old.sqlite.pragma("user_version", { simple: true })).toBe(1);
    old.sqlite.close();
    const { db, sqlite } = openAccountsDb(file, { migrationsDir });
    opened.push(sqlite);
    expect(sqlite.pragma("user_version", { simple: true })).toBe(3);
    expect(getAccount(db, { name: "alice" })).toMatchObject({ passwordChangedAt: "2026-08-02T00:00:00.000Z", sessionsValidFrom: "2026-08-02T00:00:00.000Z" });
  });

  it("says which file is not SQLite, in one line", () => {
    const file = path.join(tempDir(), "accounts.db");
    fs.writeFileSync(file, "not a database\n".repeat(100));
    expect(() => openAccountsDb(file, { migrationsDir })).toThrow(`accounts file ${file}: is not a SQLite database`);
  });

  it("enforces the name and role rules in SQL too, for anyone writing with the sqlite3 tool", () => {
    const { file } = freshAccounts();
    const raw = new Database(file);
    opened.push(raw);
    const insert = raw.prepare(
      "insert into accounts (name, role, password_hash, disabled, created_at, updated_at, password_changed_at) values (?, ?, 'x', 0, 't', 't', 't')",
    );
    expect(() => insert.run("Bad Name", "viewer")).toThrow(/accounts_name_check/);
    expect(() => insert.run("ok", "admin")).toThrow(/accounts_role_check/);
  });
});

describe("the accounts store", () => {
  it("adds an account whose password verifies, and lists it without its hash", async () => {
    const { db, sqlite } = freshAccounts();
    const added = await createAccount(db, { name: "alice", role: "operator", password, logN });
    expect(added).toMatchObject({ name: "alice", role: "operator", disabled: false });
    expect(added).not.toHaveProperty("passwordHash");
    expect(listAccounts(db)).toEqual([added]);
    const row = sqlite.prepare("select password_hash from accounts where name = 'alice'").get() as { password_hash: string };
    expect(row.password_hash).not.toContain(password);
    expect(await verifyPassword(password, row.password_hash)).toBe(true);
  });

  it("refuses a second account of the same name and keeps the first", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    await expect(createAccount(db, { name: "alice", role: "viewer", password: "some other password", logN })).rejects.toMatchObject({ code: "exists" });
    expect(getAccount(db, { name: "alice" })?.role).toBe("operator");
  });

  it.each(["Alice", "al ice", "", "a".repeat(65), "alice/..", "élise", "alice@example.com"])("refuses the account name %j", async (name) => {
    const { db } = freshAccounts();
    await expect(createAccount(db, { name, role: "viewer", password, logN })).rejects.toMatchObject({ code: "invalid_name" });
    expect(listAccounts(db)).toEqual([]);
  });

  it("refuses a password under 12 characters, on add and on change", async () => {
    const { db } = freshAccounts();
    await expect(createAccount(db, { name: "bob", role: "viewer", password: "elevenchars", logN })).rejects.toThrow(AccountError);
    await createAccount(db, { name: "bob", role: "viewer", password, logN });
    await expect(setAccountPassword(db, { name: "bob", password: "short", logN })).rejects.toMatchObject({ code: "weak_password" });
  });

  it("refuses to change an account that does not exist", async () => {
    const { db } = freshAccounts();
    expect(() => setAccountRole(db, { name: "ghost", role: "operator" })).toThrow(expect.objectContaining({ code: "not_found" }));
    expect(() => setAccountDisabled(db, { name: "ghost", disabled: true })).toThrow(expect.objectContaining({ code: "not_found" }));
    await expect(setAccountPassword(db, { name: "ghost", password, logN })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("a session, checked against the account on every request", () => {
  it("names the account with the role from the file, not from the cookie", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    expect(actorFromSession({ db, token: sessionFor(db, "alice"), secret, maxTtlMs: TTL })).toEqual({
      ok: true,
      actor: { name: "alice", role: "operator", via: "session" },
    });
  });

  it("ends for good when the account is disabled: enabling it again does not revive the session", async () => {
    const { db } = freshAccounts();
    const now = new Date("2026-08-10T12:00:00Z");
    await createAccount(db, { name: "alice", role: "operator", password, logN, now });
    const token = sessionFor(db, "alice");
    // All in one millisecond: the bump must not depend on the clock moving.
    setAccountDisabled(db, { name: "alice", disabled: true, now });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "disabled" });
    setAccountDisabled(db, { name: "alice", disabled: false, now });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "session_ended" });
    // A session begun after enabling works.
    expect(actorFromSession({ db, token: sessionFor(db, "alice"), secret, maxTtlMs: TTL }).ok).toBe(true);
  });

  it("keeps a live session when a disabled account is enabled again without having been used", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    setAccountDisabled(db, { name: "alice", disabled: false });
    expect(actorFromSession({ db, token: sessionFor(db, "alice"), secret, maxTtlMs: TTL }).ok).toBe(true);
  });

  it("refuses a validly signed session whose lifetime is longer than the configured TTL", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    const account = getAccount(db, { name: "alice" })!;
    const overlong = signSession(sessionPayload({ name: "alice", sessionsValidFrom: account.sessionsValidFrom, ttlMs: 30 * 24 * 3600_000 }), secret);
    expect(actorFromSession({ db, token: overlong, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "overlong" });
  });

  it("reflects a role change at the next request, both ways", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    const token = sessionFor(db, "alice");
    setAccountRole(db, { name: "alice", role: "viewer" });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toMatchObject({ ok: true, actor: { role: "viewer" } });
    setAccountRole(db, { name: "alice", role: "operator" });
    expect(actorFromSession({ db, token, secret, maxTtlMs: TTL })).toMatchObject({ ok: true, actor: { role: "operator" } });
  });

  it("ends every older session when the password changes, even twice in one millisecond", async () => {
    const { db } = freshAccounts();
    const now = new Date("2026-08-10T12:00:00Z");
    await createAccount(db, { name: "alice", role: "operator", password, logN, now });
    const before = sessionFor(db, "alice");
    await setAccountPassword(db, { name: "alice", password: "a brand new password", logN, now });
    expect(actorFromSession({ db, token: before, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "session_ended" });
    const after = sessionFor(db, "alice");
    expect(actorFromSession({ db, token: after, secret, maxTtlMs: TTL }).ok).toBe(true);
    await setAccountPassword(db, { name: "alice", password: "a third new password", logN, now });
    expect(actorFromSession({ db, token: after, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "session_ended" });
  });

  it("ends when the account is gone (a file swapped for another)", async () => {
    const first = freshAccounts("first");
    await createAccount(first.db, { name: "alice", role: "operator", password, logN });
    const token = sessionFor(first.db, "alice");
    const second = freshAccounts("second");
    expect(actorFromSession({ db: second.db, token, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "unknown_account" });
  });

  it("refuses an expired or forged token before reading the account", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    const old = sessionFor(db, "alice", new Date(Date.now() - 2 * 3600_000));
    expect(actorFromSession({ db, token: old, secret, maxTtlMs: TTL })).toEqual({ ok: false, reason: "expired" });
    expect(actorFromSession({ db, token: sessionFor(db, "alice"), secret: "y".repeat(40), maxTtlMs: TTL })).toEqual({ ok: false, reason: "bad_signature" });
  });
});

describe("SSO mode: a user named by the trusted proxy header", () => {
  it("takes the role of a local account of the same name, and nobody if it is disabled", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "alice", role: "operator", password, logN });
    expect(actorFromTrustedHeader({ db, identity: "Alice" })).toEqual({ name: "alice", role: "operator", via: "sso" });
    setAccountDisabled(db, { name: "alice", disabled: true });
    expect(actorFromTrustedHeader({ db, identity: "alice" })).toBeNull();
  });

  it("is a viewer without a local account: no header can make anyone an operator", async () => {
    const { db } = freshAccounts();
    await createAccount(db, { name: "carol", role: "viewer", password, logN });
    expect(actorFromTrustedHeader({ db, identity: "bob@example.com" })).toEqual({ name: "bob@example.com", role: "viewer", via: "sso" });
    expect(actorFromTrustedHeader({ db, identity: "mallory" })).toEqual({ name: "mallory", role: "viewer", via: "sso" });
    expect(actorFromTrustedHeader({ db, identity: "carol" })).toEqual({ name: "carol", role: "viewer", via: "sso" });
  });

  it("names nobody when the header is not a plausible user name", () => {
    const { db } = freshAccounts();
    for (const identity of ["", "   ", "bob smith", "<script>", "a".repeat(200)]) expect(actorFromTrustedHeader({ db, identity })).toBeNull();
  });
});

describe("the proxy's proof (X-Driftwatch-Proxy-Secret)", () => {
  const proxySecret = "Jx0c8vQ2mK5pYr7TnW1zL4bH9dF3gS6a-proxy";

  it("holds only for exactly the configured secret", () => {
    expect(isTrustedProxy(proxySecret, proxySecret)).toBe(true);
    for (const given of [null, undefined, "", proxySecret.slice(0, -1), `${proxySecret} `, proxySecret.toUpperCase(), `${proxySecret}x`, "operator"]) {
      expect(isTrustedProxy(given, proxySecret)).toBe(false);
    }
  });

  it("never holds when no secret is configured, whatever the request sends", () => {
    for (const given of [null, "", "anything at all"]) expect(isTrustedProxy(given, undefined)).toBe(false);
  });
});

describe("identity headers without the proxy's proof", () => {
  it("are logged once a minute with a count of the rest, never echoing the header's value", () => {
    const lines: string[] = [];
    const log = new UnprovenHeaderLog((line) => lines.push(line), 60_000);
    const t0 = Date.parse("2026-08-10T12:00:00Z");
    for (let i = 0; i < 1000; i++) log.report({ header: "x-forwarded-user", clientAddress: "127.0.0.1", now: t0 + i * 100 });
    // 1000 attempts over 100 s: one line at the start, one a minute later counting what it held back.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /ignored x-forwarded-user from 127\.0\.0\.1: the request did not carry the proxy's X-Driftwatch-Proxy-Secret\. If your proxy sent it, set the same DRIFTWATCH_TRUSTED_PROXY_SECRET on both/,
    );
    expect(lines[1]).toMatch(/\(and 599 more since the last report\)/);
  });
});

describe("the demo operator", () => {
  it("is created with the given password, and reset to it (enabled, operator) when run again", async () => {
    const file = path.join(tempDir("demo"), "accounts.db");
    expect(await ensureDemoOperator({ accountsDb: file, password: "demo-password-1", logN, migrationsDir })).toEqual({
      name: "demo",
      password: "demo-password-1",
      created: true,
    });
    const { db, sqlite } = openAccountsDb(file, { migrationsDir });
    opened.push(sqlite);
    setAccountDisabled(db, { name: "demo", disabled: true });
    setAccountRole(db, { name: "demo", role: "viewer" });
    const again = await ensureDemoOperator({ accountsDb: file, password: "demo-password-2", logN, migrationsDir });
    expect(again).toEqual({ name: "demo", password: "demo-password-2", created: false });
    expect(getAccount(db, { name: "demo" })).toMatchObject({ role: "operator", disabled: false });
    const row = sqlite.prepare("select password_hash from accounts where name = 'demo'").get() as { password_hash: string };
    expect(await verifyPassword("demo-password-2", row.password_hash)).toBe(true);
    const generated = await ensureDemoOperator({ accountsDb: file, name: "demo2", logN, migrationsDir });
    expect(generated.password.length).toBeGreaterThanOrEqual(12);
  });
});
