/**
 * Processes killed halfway: a bot in the middle of a transaction, and the console in the middle of
 * an operator's action. SIGKILL, so nothing gets to clean up; what SQLite's WAL guarantees must be
 * what the console shows.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { verifyAuditLog } from "@/lib/audit/log";
import { JournalSource } from "@/lib/db/console";
import { getOverview } from "@/lib/queries/overview";
import { act, ana, auditRows, snapshotExceptAudit } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { integrityCheck, startFault } from "../helpers/faults";
import { migrationsDir } from "../helpers/journal";
import { consoleAuditKey } from "@/lib/audit/key";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const symbols = SYMBOLS.map((s) => s.symbol);

async function driftingBot() {
  const bot = botOnSim();
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  await bot.writer.reconcile({ symbols });
  bot.writer.heartbeat();
  const since = bot.rows<{ s: string }>(`SELECT drift_since AS s FROM latest_positions WHERE symbol = 'AAPL'`)[0]!.s;
  const form = { botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: "500", theirs: "300", driftSince: since, note: "checked on the venue" };
  return { bot, form };
}

const overview = (source: JournalSource, now: Date) => {
  const j = source.get();
  if (!j.ok) throw j.error;
  return getOverview({ db: j.db, now, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 });
};

describe("the bot killed in the middle of a transaction", () => {
  it("leaves the last committed state: no partial rows, an intact file, and the console can still write", async () => {
    const { bot, form } = await driftingBot();
    const source = new JournalSource(bot.file, { migrationsDir, log: () => {} });
    cleanup.push(
      () => source.close(),
      () => bot.close(),
    );
    const before = overview(source, bot.sim.now());
    const snapshot = snapshotExceptAudit(bot.file);

    const killed = startFault(["bot-txn", bot.file]);
    cleanup.push(() => killed.kill());
    await killed.waitFor("in-transaction");
    // The uncommitted pages are in the WAL by now (a 5-page cache); the console reads around them.
    expect(overview(source, bot.sim.now())).toEqual(before);
    killed.child.kill("SIGKILL");
    await killed.exited;

    expect(overview(source, bot.sim.now())).toEqual(before);
    expect(snapshotExceptAudit(bot.file)).toEqual(snapshot);
    expect(bot.rows(`SELECT count(*) AS n FROM orders WHERE strategy = 'killed'`)).toEqual([{ n: 0 }]);
    expect(integrityCheck(bot.file)).toBe("ok");

    // The dead process's lock died with it: the console acts at once, and so does the bot.
    const r = await act(source.writeConnection(), acknowledgeDriftSpec({ ackTtlMs: 600_000 }), ana, form, bot.sim.now());
    expect(r.ok).toBe(true);
    bot.writer.heartbeat();
    expect(integrityCheck(bot.file)).toBe("ok");
  });
});

describe("the console killed in the middle of an action", () => {
  /** Either the acknowledgement and its audit entry, or neither: never one without the other. Returns how many there are. */
  function expectAllOrNothing(file: string): number {
    const db = new Database(file, { readonly: true });
    try {
      const acks = db.prepare(`SELECT note, acknowledged_at AS at FROM drift_acknowledgements ORDER BY id`).all() as { note: string; at: string }[];
      const audited = auditRows(file).filter((r) => r.action === "acknowledge_drift" && r.outcome === "applied");
      expect(audited).toHaveLength(acks.length);
      acks.forEach((a, i) => expect(JSON.parse(audited[i]!.detail)).toMatchObject({ note: a.note }));
      expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true });
      return acks.length;
    } finally {
      db.close();
    }
  }

  it.each([
    ["before its transaction", "before-begin", "absent"],
    ["after writing its effect", "after-effect", "absent"],
    ["after writing its audit entry", "after-audit", "absent"],
    ["just before COMMIT", "before-commit", "absent"],
    ["after COMMIT, before answering", "after-commit", "applied"],
  ] as const)("killed %s: the action happened with its audit entry, or not at all", async (_, point, expected) => {
    const { bot, form } = await driftingBot();
    cleanup.push(() => bot.close());
    const child = startFault(["action", bot.file, point, bot.sim.now().toISOString(), JSON.stringify(form)]);
    cleanup.push(() => child.kill());
    await child.waitFor(`at ${point}`);
    await child.kill();
    expect(integrityCheck(bot.file)).toBe("ok");
    expect(expectAllOrNothing(bot.file)).toBe(expected === "applied" ? 1 : 0);
    // Nothing is left locked: the next action goes through.
    const source = new JournalSource(bot.file, { migrationsDir, log: () => {} });
    cleanup.push(() => source.close());
    expect((await act(source.writeConnection(), acknowledgeDriftSpec({ ackTtlMs: 600_000 }), ana, form, bot.sim.now())).ok).toBe(true);
  });

  it("killed at arbitrary moments while acting in a loop: every acknowledgement has its audit entry", async () => {
    const { bot, form } = await driftingBot();
    cleanup.push(() => bot.close());
    let total = 0;
    for (const delayMs of [37, 113, 260]) {
      const child = startFault(["action", bot.file, "loop", bot.sim.now().toISOString(), JSON.stringify(form)]);
      cleanup.push(() => child.kill());
      await child.waitFor("acting");
      await new Promise((r) => setTimeout(r, delayMs));
      await child.kill();
      expect(integrityCheck(bot.file)).toBe("ok");
      const n = expectAllOrNothing(bot.file);
      expect(n).toBeGreaterThanOrEqual(total);
      total = n;
    }
    // The kills landed while it was acting, not before it started.
    expect(total).toBeGreaterThan(0);
  });
});
