import path from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createAccount, setAccountDisabled } from "@/lib/auth/accounts";
import { signDeviceCookie } from "@/lib/auth/device";
import { LoginRateLimiter } from "@/lib/auth/rate-limit";
import { signIn } from "@/lib/auth/resolve";
import { openAccountsDb, type AccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";

const migrationsDir = path.join(repoRoot, "drizzle/accounts");
const logN = 10;
const password = "the right password";
const t0 = new Date("2026-08-10T12:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const secret = "sign-in-test-secret-Jx0c8vQ2mK5pYr7TnW1z";

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
      expect(await signIn({ db, limiter, ...attempt, clientAddress: `10.0.0.${tries.indexOf(attempt)}`, logN, now: t0 })).toEqual({
        ok: false,
        code: "unauthorized",
      });
    }
  });

  it("answers failures with growing delays, not a lockout: the right password is accepted once the wait is over", async () => {
    const { db, limiter } = await setup();
    for (let i = 0; i < 5; i++) {
      expect(await signIn({ db, limiter, name: "alice", password: `wrong ${i}`, clientAddress: `10.0.1.${i}`, logN, now: t0 })).toMatchObject({
        ok: false,
        code: "unauthorized",
      });
    }
    // The sixth attempt waits one second after the fifth failure, even with the right password…
    expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.2.1", logN, now: at(500) })).toEqual({
      ok: false,
      code: "refused",
      retryAfterMs: 500,
    });
    // …another account from another address is unaffected…
    expect((await signIn({ db, limiter, name: "bob", password, clientAddress: "10.0.2.2", logN, now: at(500) })).ok).toBe(true);
    // …and one second later the right password gets in: no fifteen-minute lock.
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.2.1", logN, now: at(1000) })).ok).toBe(true);
  });

  it("refuses a client address after five failures across different names", async () => {
    const { db, limiter } = await setup();
    for (const name of ["a1", "a2", "a3", "a4", "a5"]) await signIn({ db, limiter, name, password, clientAddress: "203.0.113.9", logN, now: t0 });
    expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "203.0.113.9", logN, now: t0 })).toMatchObject({ ok: false, code: "refused" });
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "203.0.113.10", logN, now: t0 })).ok).toBe(true);
  });

  it("counts an IPv6 client by its /64: five failures from five of its addresses delay a sixth, not the next network", async () => {
    const { db, limiter } = await setup();
    for (const [i, name] of ["a1", "a2", "a3", "a4", "a5"].entries())
      await signIn({ db, limiter, name, password, clientAddress: `2001:db8:7:1::${i + 1}`, logN, now: t0 });
    expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "2001:db8:7:1:ffff:1:2:3", logN, now: t0 })).toMatchObject({
      ok: false,
      code: "refused",
    });
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "2001:db8:7:2::1", logN, now: t0 })).ok).toBe(true);
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

describe("signing in from a browser the account signed in on before (the device cookie)", () => {
  it("lets the operator in at once after a stranger's 50 wrong attempts, even from the same address", async () => {
    const { db, limiter } = await setup();
    // The operator signed in on this browser earlier: the console gave it a device cookie.
    const first = await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, now: at(-3600_000) });
    expect(first).toMatchObject({ ok: true, deviceId: null });
    const device = signDeviceCookie({ name: "alice", secret, now: at(-3600_000) });

    // A stranger then guesses alice's password fifty times, from alice's address and from others, as fast as allowed.
    let checked = 0;
    for (let i = 0; i < 50; i++) {
      const outcome = await signIn({
        db,
        limiter,
        name: "alice",
        password: `guess ${i}`,
        clientAddress: i % 2 ? "10.0.0.1" : `198.51.100.${i}`,
        logN,
        now: at(i * 100),
      });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok && outcome.code === "unauthorized") checked++;
    }
    // The stranger's guessing stayed bounded (5 free, then 1 s, 2 s … after each failure) …
    expect(checked).toBeLessThanOrEqual(8);
    // … and a stranger (no device cookie) with the right password must wait too …
    expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "203.0.113.5", logN, now: at(5000) })).toMatchObject({
      ok: false,
      code: "refused",
    });
    // … but the operator, on their own browser, is in at that very moment.
    const owner = await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, device: { token: device, secret }, now: at(5000) });
    expect(owner).toMatchObject({ ok: true, account: { name: "alice" } });
    expect(owner.ok && owner.deviceId).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  });

  it("counts a device cookie's own failures on that device: a stolen cookie buys no free guesses", async () => {
    const { db, limiter } = await setup();
    const device = signDeviceCookie({ name: "alice", secret, now: t0 });
    const outcomes = [];
    for (let i = 0; i < 20; i++)
      outcomes.push(
        await signIn({ db, limiter, name: "alice", password: `guess ${i}`, clientAddress: "10.0.0.1", logN, device: { token: device, secret }, now: t0 }),
      );
    expect(outcomes.filter((o) => !o.ok && o.code === "unauthorized")).toHaveLength(5);
    expect(outcomes.filter((o) => !o.ok && o.code === "refused")).toHaveLength(15);
    // Another browser of alice's is not slowed down by it.
    const other = signDeviceCookie({ name: "alice", secret, now: t0 });
    expect((await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, device: { token: other, secret }, now: t0 })).ok).toBe(true);
  });

  it("treats a device cookie for another account, signed with another secret, or expired as a stranger's", async () => {
    const { db, limiter } = await setup();
    for (let i = 0; i < 5; i++) await signIn({ db, limiter, name: "alice", password: `guess ${i}`, clientAddress: `198.51.100.${i}`, logN, now: t0 });
    const cookies = [
      signDeviceCookie({ name: "bob", secret, now: t0 }),
      signDeviceCookie({ name: "alice", secret: "another-secret-of-32-characters-k2P9xQ7mB4", now: t0 }),
      signDeviceCookie({ name: "alice", secret, now: at(-91 * 24 * 3600_000) }),
      "not.a-device-cookie",
    ];
    for (const token of cookies) {
      expect(await signIn({ db, limiter, name: "alice", password, clientAddress: "10.0.0.1", logN, device: { token, secret }, now: t0 })).toMatchObject({
        ok: false,
        code: "refused",
      });
    }
  });
});
