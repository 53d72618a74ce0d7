/**
 * The audit key kept beside the accounts file, and the chain's head published outside the journal
 * after every audited action, applied or refused, through the real guard on a real journal.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveManuallySpec } from "@/lib/actions/resolve-order";
import { runGuarded } from "@/lib/actions/guard";
import type { AuditHead } from "@/lib/audit/chain";
import { lastPublishedHead, publishAuditHead } from "@/lib/audit/head";
import { auditKeyFile, findAuditKey, resolveAuditKey } from "@/lib/audit/key";
import { verifyAuditLog } from "@/lib/audit/log";
import { ana, consoleWriter } from "../helpers/actions";
import { botOnSim } from "../helpers/bot";
import { tempDir } from "../helpers/journal";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
  vi.restoreAllMocks();
});

const KEY = "k".repeat(20) + "audit-head-test-key";

async function lostReply() {
  const bot = botOnSim();
  bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
  const out = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  return { bot, db, order: out.order };
}

const spec = resolveManuallySpec({ graceMs: 30_000 });
const input = (order: { clientOrderId: string; version: number }) => ({
  clientOrderId: order.clientOrderId,
  version: String(order.version),
  status: "filled",
  note: "filled at 92",
});
const lastRow = (db: ReturnType<typeof consoleWriter>) =>
  db.prepare(`SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1`).get() as { id: number; hash: string };

describe("the audit head", () => {
  it("is handed to onAudited after the applied action committed, and after a refusal, keyed", async () => {
    const { bot, db, order } = await lostReply();
    const heads: { head: AuditHead; committedRow: { id: number; hash: string } }[] = [];
    // Read on another connection: it sees the entry only once the transaction committed.
    const onAudited = (head: AuditHead) => {
      const other = consoleWriter(bot.file);
      heads.push({ head, committedRow: lastRow(other) });
      other.close();
    };
    expect(await runGuarded(spec, { db, user: ana, now: () => bot.sim.now(), auditKey: KEY, onAudited }, input(order))).toMatchObject({ ok: true });
    expect(await runGuarded(spec, { db, user: ana, now: () => bot.sim.now(), auditKey: KEY, onAudited }, input(order))).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(heads.map((h) => h.head.entries)).toEqual([1, 2]);
    for (const h of heads) expect(h.committedRow).toEqual({ id: h.head.entries, hash: h.head.hash });
    expect(heads[0]!.head.hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(verifyAuditLog(db, KEY)).toMatchObject({ ok: true, entries: 2, unkeyed: 0, head: heads[1]!.head.hash });
    expect(verifyAuditLog(db, "another key of at least 32 characters")).toMatchObject({ ok: false, badId: 1 });
  });

  it("a hook that throws is logged and never undoes the action", async () => {
    const { bot, db, order } = await lostReply();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = await runGuarded(
      spec,
      {
        db,
        user: ana,
        now: () => bot.sim.now(),
        auditKey: KEY,
        onAudited: () => {
          throw new Error("disk gone");
        },
      },
      input(order),
    );
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: null } });
    expect(bot.writer.order(order.clientOrderId)).toMatchObject({ state: "filled" });
    expect(String(errors.mock.calls[0]?.[0])).toContain("could not publish audit head #1; the action stands");
  });

  it("is appended as one JSON line (mode 0600) and logged in one line, and the last one for the journal is found again", () => {
    const dir = tempDir("audit-head");
    const headFile = path.join(dir, "state", "audit-heads.jsonl");
    const lines: string[] = [];
    const journalPath = path.join(dir, "journal.db");
    publishAuditHead({ journalPath, headFile, head: { entries: 1, hash: "hmac-sha256:aa" }, at: new Date("2026-08-10T15:00:00Z"), log: (l) => lines.push(l) });
    publishAuditHead({ journalPath: path.join(dir, "other.db"), headFile, head: { entries: 9, hash: "hmac-sha256:ff" }, log: () => {} });
    publishAuditHead({ journalPath, headFile, head: { entries: 2, hash: "hmac-sha256:bb" }, at: new Date("2026-08-10T15:01:00Z"), log: () => {} });
    expect(lines).toEqual([`driftwatch: audit head #1 hmac-sha256:aa of ${journalPath}`]);
    expect(fs.statSync(headFile).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(headFile, "utf8").trimEnd().split("\n");
    expect(text).toHaveLength(3);
    expect(JSON.parse(text[0]!)).toEqual({ journal: journalPath, entries: 1, head: "hmac-sha256:aa", at: "2026-08-10T15:00:00.000Z" });
    expect(lastPublishedHead(headFile, journalPath)).toEqual({ journal: journalPath, entries: 2, head: "hmac-sha256:bb", at: "2026-08-10T15:01:00.000Z" });
  });

  it("a head file that cannot be written is logged with the fix, and nothing throws", () => {
    const dir = tempDir("audit-head");
    const blocker = path.join(dir, "not-a-folder");
    fs.writeFileSync(blocker, "");
    const errors: string[] = [];
    publishAuditHead({
      journalPath: path.join(dir, "j.db"),
      headFile: path.join(blocker, "heads.jsonl"),
      head: { entries: 3, hash: "h" },
      log: () => {},
      error: (l) => errors.push(l),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^driftwatch: could not append audit head #3 to .*; the action stands\. Fix: make the file writable, or set DRIFTWATCH_AUDIT_HEAD_FILE$/,
    );
  });
});

describe("the audit key", () => {
  it("is the configured one when DRIFTWATCH_AUDIT_KEY is set, and no file is written", () => {
    const accountsDbPath = path.join(tempDir("audit-key"), "accounts.db");
    const configured = "c".repeat(40);
    expect(resolveAuditKey({ configured, accountsDbPath, log: () => {} })).toBe(configured);
    expect(fs.existsSync(auditKeyFile(accountsDbPath))).toBe(false);
  });

  it("is generated once beside the accounts file, mode 0600, logged without the key, and reused", () => {
    const accountsDbPath = path.join(tempDir("audit-key"), "data", "accounts.db");
    const lines: string[] = [];
    const first = resolveAuditKey({ configured: undefined, accountsDbPath, log: (l) => lines.push(l) });
    const file = path.join(path.dirname(accountsDbPath), "audit-key");
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).not.toContain(first);
    expect(resolveAuditKey({ configured: undefined, accountsDbPath, log: (l) => lines.push(l) })).toBe(first);
    expect(findAuditKey({ configured: undefined, accountsDbPath })).toBe(first);
    expect(lines).toHaveLength(1);
  });

  it("is never generated by verification: no kept key is no key", () => {
    const accountsDbPath = path.join(tempDir("audit-key"), "accounts.db");
    expect(findAuditKey({ configured: undefined, accountsDbPath })).toBeNull();
    expect(fs.existsSync(auditKeyFile(accountsDbPath))).toBe(false);
  });

  it("refuses a kept key that other users can read, and says how to fix it", () => {
    const accountsDbPath = path.join(tempDir("audit-key"), "accounts.db");
    resolveAuditKey({ configured: undefined, accountsDbPath, log: () => {} });
    const file = auditKeyFile(accountsDbPath);
    fs.chmodSync(file, 0o644);
    expect(() => resolveAuditKey({ configured: undefined, accountsDbPath, log: () => {} })).toThrow(`Fix: chmod 600 ${file}`);
    expect(() => findAuditKey({ configured: undefined, accountsDbPath })).toThrow(`Fix: chmod 600 ${file}`);
  });

  it("refuses a kept key that is too short", () => {
    const accountsDbPath = path.join(tempDir("audit-key"), "accounts.db");
    fs.writeFileSync(auditKeyFile(accountsDbPath), "short\n", { mode: 0o600 });
    expect(() => resolveAuditKey({ configured: undefined, accountsDbPath, log: () => {} })).toThrow(/shorter than 32 characters/);
  });
});
