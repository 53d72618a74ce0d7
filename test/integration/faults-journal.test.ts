/**
 * Faults in the journal file itself, against real files and real second processes: it is deleted
 * or moved, another process locks it, a page is damaged, the disk fills up. In each the console
 * keeps answering with a one-line reason, and what it confirmed before is still there after.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { runGuarded } from "@/lib/actions/guard";
import { verifyAuditLog } from "@/lib/audit/log";
import { JournalSource } from "@/lib/db/console";
import { listBots } from "@/lib/queries/bots";
import { act, ana, auditRows, snapshotExceptAudit } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { corruptCopy, integrityCheck, startFault, type FaultProcess } from "../helpers/faults";
import { migrateJournal } from "@/lib/db/journal-file";
import { migrationsDir, repoRoot, tempDir } from "../helpers/journal";
import { execFileSync } from "node:child_process";
import { consoleAuditKey } from "@/lib/audit/key";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const symbols = SYMBOLS.map((s) => s.symbol);
const ackSpec = acknowledgeDriftSpec({ ackTtlMs: 30 * 60_000 });

/** A bot drifting on AAPL (ours 500, theirs 300), the console's source on it, and one confirmed acknowledgement. */
async function driftingJournal(opts: { file?: string } = {}) {
  const bot = botOnSim(opts.file ? { file: opts.file } : {});
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  await bot.writer.reconcile({ symbols });
  bot.writer.heartbeat();
  const since = bot.rows<{ s: string }>(`SELECT drift_since AS s FROM latest_positions WHERE symbol = 'AAPL'`)[0]!.s;
  const input = (note: string) => ({ botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: "500", theirs: "300", driftSince: since, note });
  const logged: string[] = [];
  const source = new JournalSource(bot.file, { migrationsDir, log: (l) => logged.push(l) });
  cleanup.push(
    () => source.close(),
    () => bot.close(),
  );
  const confirmed = await act(source.writeConnection(), ackSpec, ana, input("checked on the venue: confirmed"), bot.sim.now());
  expect(confirmed.ok).toBe(true);
  return { bot, source, input, logged };
}

const readBots = async (source: JournalSource, now: Date) => {
  const j = source.get();
  if (!j.ok) return j;
  return { ok: true as const, bots: await listBots({ db: j.db, now, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000 }), warnings: j.warnings };
};

describe("the journal deleted or moved while the console runs", () => {
  it("says it is gone instead of showing the last data as live, and reads it again once it is moved back", async () => {
    const { bot, source, input, logged } = await driftingJournal();
    expect(await readBots(source, bot.sim.now())).toMatchObject({ ok: true, bots: [{ botId: "bot-a" }] });
    const moved = path.join(tempDir("moved"), "elsewhere.db");
    fs.renameSync(bot.file, moved);

    // The open descriptor could still read the moved file; the console must not.
    const gone = source.get();
    expect(gone).toMatchObject({ ok: false, error: { code: "gone" } });
    if (gone.ok) return;
    // Its date, not the year of now: "noticed at Dec 3 15:29:28 UTC".
    expect(gone.error.message).toMatch(
      /was deleted or moved away while the console was reading it, noticed at [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d UTC; nothing shown is current/,
    );
    // A banner says it after the journal's name, beside other text in brackets: it holds none of its own.
    expect(gone.error.problem).not.toMatch(/[()]/);
    expect(gone.error.fix).toMatch(/put the journal back at this path/);
    expect(logged.join("\n")).toMatch(/was deleted or moved away/);

    // An action now is refused before it writes anywhere.
    expect(() => source.writeConnection()).toThrow(/deleted or moved away/);

    fs.renameSync(moved, bot.file);
    const back = await readBots(source, bot.sim.now());
    expect(back).toMatchObject({ ok: true, bots: [{ botId: "bot-a" }], warnings: [expect.stringMatching(/^the journal was away from /)] });
    const again = await act(source.writeConnection(), ackSpec, ana, input("after the move back"), bot.sim.now());
    expect(again.ok).toBe(true);
    expect(auditRows(bot.file).map((r) => r.outcome)).toEqual(["applied", "applied"]);
  });

  it("reads a restored backup and says the journal was away, with what to check", async () => {
    const { bot, source } = await driftingJournal();
    const backup = path.join(tempDir("backup"), "journal.db");
    bot.db.exec(`VACUUM INTO '${backup}'`);
    fs.rmSync(bot.file);
    expect(source.get()).toMatchObject({ ok: false, error: { code: "gone" } });
    // The documented restore: stop the bot, drop the old file's -wal and -shm, copy the backup in.
    // (A backup copied next to a live -wal of the old file reads as damaged: SQLite replays that WAL.)
    bot.close();
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${bot.file}${suffix}`, { force: true });
    fs.copyFileSync(backup, bot.file);
    const restored = await readBots(source, bot.sim.now());
    expect(restored.ok ? restored : restored.error.message).toMatchObject({ ok: true, bots: [{ botId: "bot-a" }] });
    if (!restored.ok) return;
    expect(restored.warnings.join(" | ")).toMatch(
      /the journal was away from [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d UTC to \d\d:\d\d:\d\d UTC; it was deleted or moved, then put back.* restart the bot/,
    );
    expect(auditRows(bot.file)).toHaveLength(1);
  });

  it("follows a file swapped in at the path (renamed over it) and says it was replaced", async () => {
    const { bot, source } = await driftingJournal();
    expect(await readBots(source, bot.sim.now())).toMatchObject({ ok: true, warnings: [] });
    const copy = path.join(path.dirname(bot.file), "swap.db");
    bot.db.exec(`VACUUM INTO '${copy}'`);
    // The documented swap: the bot stopped, the old file's -wal and -shm removed. SQLite would
    // replay a WAL left at the path onto the new file (a moved file's last connection leaves it).
    bot.close();
    fs.renameSync(copy, bot.file);
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${bot.file}${suffix}`, { force: true });
    const swapped = await readBots(source, bot.sim.now());
    expect(swapped.ok ? swapped : swapped.error.message).toMatchObject({ ok: true, bots: [{ botId: "bot-a" }] });
    if (!swapped.ok) return;
    expect(swapped.warnings).toContainEqual(expect.stringMatching(/^the journal file was replaced at .*restart the bot if it was running during the swap/));
  });

  it("never commits an action into a file that was deleted during it", async () => {
    const { bot, source, input } = await driftingJournal();
    const db = source.writeConnection();
    const before = auditRows(bot.file).length;
    const deleting = { ...ackSpec, apply: (ctx: Parameters<typeof ackSpec.apply>[0]) => (fs.renameSync(bot.file, `${bot.file}.away`), ackSpec.apply(ctx)) };
    const r = await runGuarded(
      deleting,
      { db, user: ana, now: () => bot.sim.now(), assertJournalFile: () => source.assertSameFile(), auditKey: consoleAuditKey() },
      input("while it vanished"),
    );
    expect(r).toMatchObject({ ok: false, code: "internal" });
    if (r.ok) return;
    expect(r.message).toMatch(/^Nothing was changed: the journal .* was deleted or moved away/);
    expect(r.message).toMatch(/not in the audit log/);
    fs.renameSync(`${bot.file}.away`, bot.file);
    source.close();
    expect(auditRows(bot.file)).toHaveLength(before);
    expect(bot.rows(`SELECT * FROM drift_acknowledgements`)).toHaveLength(1);
  });
});

describe("another process holding an exclusive lock", () => {
  const lockHolder = async (file: string, kind: "wal" | "rollback", holdMs: number): Promise<FaultProcess> => {
    const p = startFault(["lock", file, kind, String(holdMs)]);
    cleanup.push(() => p.kill());
    await p.waitFor("locked");
    return p;
  };

  it("on a rollback-mode journal: answers at once with 'locked by another process', refuses actions with nothing half-done, recovers", async () => {
    const { bot, source, input } = await driftingJournal();
    // Out of WAL mode (which needs every other connection closed): there, a writer's lock keeps readers out.
    source.close();
    bot.close();
    const switcher = new Database(bot.file);
    switcher.pragma("journal_mode = DELETE");
    switcher.close();
    expect(await readBots(source, bot.sim.now())).toMatchObject({ ok: true });
    const writer = source.writeConnection();
    const before = snapshotExceptAudit(bot.file);
    const auditBefore = auditRows(bot.file);

    const holder = await lockHolder(bot.file, "rollback", 8_000);
    const first = source.get();
    expect(first).toMatchObject({ ok: false, error: { code: "locked" } });
    if (first.ok) return;
    expect(first.error.message).toMatch(/is locked by another process \(since \d{4}-\d\d-\d\dT[\d:.]+Z\)/);
    expect(first.error.fix).toMatch(/fuser|lsof/);

    // Later requests do not wait for the lock at all. Had each waited even the first one's 0.5 s,
    // 20 of them would outlast the 8 s hold and one would find the journal free.
    for (let i = 0; i < 20; i++) {
      expect(source.get(), `request ${i + 2}`).toMatchObject({ ok: false, error: { code: "locked", message: first.error.message } });
    }
    // The server-action path refuses before writing; a write already under way waits its 5 s, then refuses.
    expect(() => source.writeConnection()).toThrow(/locked by another process/);
    const r = await runGuarded(ackSpec, { db: writer, user: ana, now: () => bot.sim.now(), auditKey: consoleAuditKey() }, input("while locked"));
    expect(r).toMatchObject({ ok: false, code: "internal" });
    if (r.ok) return;
    expect(r.message).toMatch(/^Nothing was changed: the journal stayed locked by another process/);
    expect(r.message).toMatch(/not in the audit log/);

    await holder.waitFor("released", 30_000);
    await holder.exited;
    const after = await readBots(source, bot.sim.now());
    expect(after).toMatchObject({ ok: true, bots: [{ botId: "bot-a" }] });
    expect(auditRows(bot.file)).toEqual(auditBefore);
    const snap = snapshotExceptAudit(bot.file);
    expect(snap.drift_acknowledgements).toEqual(before.drift_acknowledgements);
    const again = await act(source.writeConnection(), ackSpec, ana, input("after the lock"), bot.sim.now());
    expect(again.ok).toBe(true);
    expect(integrityCheck(bot.file)).toBe("ok");
  });

  it("on a WAL journal locked before the console connects: says so at once and reads it once released", async () => {
    const { bot, source } = await driftingJournal();
    // A WAL journal can only be locked exclusively while nobody else has it open.
    source.close();
    bot.close();
    const holder = await lockHolder(bot.file, "wal", 5_000);
    const fresh = new JournalSource(bot.file, { migrationsDir, log: () => {} });
    cleanup.push(() => fresh.close());
    expect(fresh.get()).toMatchObject({ ok: false, error: { code: "locked" } });
    // The next requests do not wait for it: had each waited the first one's 0.5 s, 20 of them
    // would outlast the 5 s hold and one would find the journal free.
    for (let i = 0; i < 20; i++) expect(fresh.get(), `request ${i + 2}`).toMatchObject({ ok: false, error: { code: "locked" } });
    await holder.waitFor("released", 30_000);
    await holder.exited;
    expect(fresh.get()).toMatchObject({ ok: true });
  });
});

describe("a corrupt page", () => {
  it("names the damage and the fix, and 'journal check' finds it too", async () => {
    const { bot } = await driftingJournal();
    const copy = corruptCopy(bot.file, "bots");
    const source = new JournalSource(copy, { migrationsDir, log: () => {} });
    cleanup.push(() => source.close());
    // The header is intact, so it opens; the damage shows when a page of the table is read.
    const opened = source.get();
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    let fault;
    try {
      await listBots({ db: opened.db, now: bot.sim.now(), heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000 });
    } catch (error) {
      fault = source.classify(error);
    }
    expect(fault).toMatchObject({ code: "corrupt" });
    expect(fault!.message).toMatch(/is damaged: SQLite found corrupt pages \(SQLITE_CORRUPT/);
    expect(fault!.fix).toMatch(/npm run journal -- check .*restore the journal from the last good backup/);

    let cli = "";
    try {
      execFileSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/journal.ts", "check", copy], { cwd: repoRoot, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      cli = String((error as { stderr: string }).stderr);
    }
    expect(cli.trim()).toMatch(/^driftwatch: journal .*: is damaged: SQLite found corrupt pages/);
    expect(cli).not.toMatch(/\n\s+at /);
    // The original is untouched.
    expect(integrityCheck(bot.file)).toBe("ok");
  });
});

describe("the disk full when the console writes", () => {
  it("refuses the action with a clear message, changes nothing, and keeps what it confirmed", async () => {
    const { bot, source, input } = await driftingJournal();
    const db = source.writeConnection();
    bot.db.pragma("wal_checkpoint(TRUNCATE)");
    // No room left: this connection may not grow the file by a single page.
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    // Acknowledgements with a note of about 3 KB (990 three-byte characters) until one needs a
    // page the file may not have. The audit no longer keeps the raw form, so a single attempt may
    // still fit in the pages' free space; each one that fits is an ordinary double acknowledgement.
    const big = input("€".repeat(990));
    let before = snapshotExceptAudit(bot.file);
    let auditBefore = auditRows(bot.file);
    let r = await act(db, ackSpec, ana, big, bot.sim.now());
    for (let i = 0; r.ok && i < 30; i++) {
      before = snapshotExceptAudit(bot.file);
      auditBefore = auditRows(bot.file);
      r = await act(db, ackSpec, ana, big, bot.sim.now());
    }
    expect(r).toMatchObject({ ok: false, code: "internal" });
    if (r.ok) return;
    expect(r.message).toMatch(/^Nothing was changed: the journal's disk is full \(SQLITE_FULL\)\. Free space on that disk/);
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    const audit = auditRows(bot.file);
    // Its refusal is audited only if there was room for it; either way, the earlier entries stand.
    expect(audit.slice(0, auditBefore.length)).toEqual(auditBefore);
    // Not audited exactly when the message says so.
    expect(audit.length - auditBefore.length).toBeLessThanOrEqual(1);
    expect(/could not be written to the audit log/.test(r.message), r.message).toBe(audit.length === auditBefore.length);
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true });
    expect(integrityCheck(bot.file)).toBe("ok");

    // Space again: the same action goes through.
    db.pragma("max_page_count = 1073741823");
    expect((await act(db, ackSpec, ana, input("after the disk was freed"), bot.sim.now())).ok).toBe(true);
  });

  /** A small tmpfs of its own; null where this process may not mount one (not root, no CAP_SYS_ADMIN). */
  function smallDisk(): string | null {
    const dir = tempDir("tmpfs");
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir], { stdio: "pipe" });
    } catch (error) {
      // CI runs as root (.ci/run): there a failed mount is a broken runner, not a reason to skip.
      if (process.env.CI) throw new Error(`mounting a 4 MB tmpfs failed in CI, where it runs as root: ${(error as Error).message}`);
      return null;
    }
    cleanup.unshift(() => {
      execFileSync("umount", [dir], { stdio: "pipe" });
    });
    return dir;
  }
  it("on a real full disk (a 4 MB tmpfs): the same refusal, and the action goes through once space is freed", async (ctx) => {
    const disk = smallDisk();
    if (disk === null) return ctx.skip("*** SKIPPING: mounting a tmpfs needs root (CI runs as root and never skips this) ***");
    const file = path.join(disk, "journal.db");
    migrateJournal(file, { migrationsDir });
    const { bot, source, input } = await driftingJournal({ file });
    const db = source.writeConnection();
    const before = snapshotExceptAudit(file);
    const auditBefore = auditRows(file);
    // An empty WAL, so the next commit needs new blocks; then nothing left on the disk.
    bot.db.pragma("wal_checkpoint(TRUNCATE)");
    const filler = path.join(disk, "filler");
    const fd = fs.openSync(filler, "w");
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024, 1));
    } catch (error) {
      expect((error as { code: string }).code).toBe("ENOSPC");
    } finally {
      fs.closeSync(fd);
    }
    const r = await act(db, ackSpec, ana, input("while the disk is full"), bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "internal" });
    if (r.ok) return;
    expect(r.message).toMatch(/^Nothing was changed: the journal's disk is full \(SQLITE_FULL\)/);
    expect(snapshotExceptAudit(file)).toEqual(before);
    expect(auditRows(file).slice(0, auditBefore.length)).toEqual(auditBefore);

    fs.rmSync(filler);
    expect((await act(db, ackSpec, ana, input("after the disk was freed"), bot.sim.now())).ok).toBe(true);
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true });
    expect(integrityCheck(file)).toBe("ok");
    source.close();
    bot.close();
  });
});
