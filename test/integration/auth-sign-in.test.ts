import path from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createAccount, setAccountDisabled } from "@/lib/auth/accounts";
import { LoginRateLimiter } from "@/lib/auth/rate-limit";
import { signIn } from "@/lib/auth/resolve";
import { openAccountsDb, type AccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";

const migrationsDir = path.join(repoRoot, "drizzle/accounts");
const logN = 10;
const password = "the right password";
const t0 = new Date("2026-08-10T12:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

const opened: Database.Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function setup(): Promise<{ db: AccountsDb; limiter: LoginRateLimiter }> {
  const { db, sqlite } = openAccountsDb(path.join(tempDir("sign-in"), "accounts.db"), { migrationsDir });
  opened.push(sqlite);
  await createAccount(db, { name: "alice", role: "operator", password, logN });
  await createAccount(db, { name: "bob", role: "viewer", password, logN });
  return { db, limiter: new LoginRateLimiter() };
}

describe("signing in", () => {
  it("succeeds with the right password, and gives the account as it is in the file", async () => {
    const { db, limiter } = await setup();
    const outcome = await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, now: t0 });
    expect(outcome).toMatchObject({ ok: true, account: { name: "alice", role: "operator" } });
  });

  it("gives the same answer for a wrong password, an unknown name and a disabled account", async () => {
    const { db, limiter } = await setup();
    setAccountDisabled(db, { name: "bob", disabled: true });
    const tries = [
      { name: "alice", password: "not the password" },
      { name: "nobody", password },
      { name: "bob", password },
    ];
    for (const attempt of tries) {
      expect(await signIn({ db, limiter, ...attempt, clientAddress: `10.0.0.${tries.indexOf(attempt)}`, logN, now: t0 })).toEqual({ ok: false, code: "unauthorized" });
    }
  });

  it("refuses a sixth attempt on an account within 15 minutes, even with the right password, and says for how long", async () => {
    const { db, limiter } = await setup();
    for (let i = 0; i < 5; i++) {
      expect(await signIn({ db, limiter, name: "alice", password: `wrong ${i}`, clientAddress: `10.0.1.${i}`, logN, now: at(i * 60_000) })).toMatchObject({ ok: false, code: "unauthorized" });
    }
    const refused = await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.2.1", logN, now: at(5 * 60_000) });
    expect(refused).toEqual({ ok: false, code: "refused", retryAfterMs: 10 * 60_000 });
    // Another account from another address is unaffected.
    expect((await signIn({ db, limiter, name: "bob", password, clientAddress: "10.0.2.2", logN, now: at(5 * 60_000) })).ok).toBe(true);
    // Once the first failure is 15 minutes old, one more try is allowed.
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.2.1", logN, now: at(15 * 60_000) })).ok).toBe(true);
  });

  it("refuses a client address after five failures across different names", async () => {
    const { db, limiter } = await setup();
    for (const name of ["a1", "a2", "a3", "a4", "a5"]) await signIn({ db, limiter, name, password, clientAddress: "203.0.113.9", logN, now: t0 });
    expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "203.0.113.9", logN, now: t0 })).toMatchObject({ ok: false, code: "refused" });
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "203.0.113.10", logN, now: t0 })).ok).toBe(true);
  });

  it("counts guesses sent in parallel: ten at once get at most five password checks", async () => {
    const { db, limiter } = await setup();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signIn({ db, limiter, name: "alice", password: `guess ${i}`, clientAddress: `10.9.0.${i}`, logN, now: t0 })),
    );
    expect(outcomes.filter((o) => !o.ok && o.code === "unauthorized")).toHaveLength(5);
    expect(outcomes.filter((o) => !o.ok && o.code === "refused")).toHaveLength(5);
  });

  it("does not count successful sign-ins against the limit", async () => {
    const { db, limiter } = await setup();
    for (let i = 0; i < 8; i++) expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, now: at(i) })).ok).toBe(true);
  });
});
