/**
 * Halt now: an operator trips a bot's breaker by hand through the one guard. Applied, it writes what
 * docs/journal.md says (the breakers row with the operator as changed_by, a trip event with no
 * reconciliation, the audit entry); every refusal changes nothing but the audit log, and no
 * operator means nothing written at all. The TypeScript writer honours it on its next entry, lets
 * a reduce-only close through, and the halt clears through the usual checklist.
 */
import { afterEach, describe, expect, it } from "vitest";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { BreakerHaltedError } from "@/lib/bot/journal-writer";
import { getCauseInSyncSince } from "@/lib/queries/halt-cause";
import { listBots } from "@/lib/queries/bots";
import { verifyAuditLog } from "@/lib/audit/log";
import { consoleAuditKey } from "@/lib/audit/key";
import { act, ana, auditCount, auditRows, consoleWriter, refusalLines, snapshotExceptAudit, vic } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { journalDbOf } from "../helpers/console-db";

const symbols = SYMBOLS.map((s) => s.symbol);
const spec = haltBotSpec();
let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

/** A running bot with a clean first cycle, and the console's write connection on its journal. */
async function runningBot() {
  const bot = botOnSim();
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
  await bot.writer.reconcile({ symbols });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  const version = db.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;
  return { bot, db, version };
}

const input = (version: number, over: Record<string, unknown> = {}) => ({
  botId: "bot-a",
  reason: "venue announced maintenance at 06:00",
  breakerVersion: String(version),
  ...over,
});

describe("halt a bot by hand", () => {
  it("trips the breaker as the contract says: operator as changed_by, a trip with no reconciliation, audited", async () => {
    const { bot, db, version } = await runningBot();
    const at = bot.sim.now();
    const r = await act(db, spec, ana, input(version), at);
    expect(r).toEqual({ ok: true, data: { version: version + 1 } });

    expect(bot.rows(`SELECT halted, reason, changed_at AS changedAt, changed_by AS changedBy, version FROM breakers WHERE bot_id = 'bot-a'`)).toEqual([
      {
        halted: 1,
        reason: "halted by hand: venue announced maintenance at 06:00",
        changedAt: at.toISOString(),
        changedBy: "operator:ana",
        version: version + 1,
      },
    ]);
    expect(bot.rows(`SELECT kind, at, reason, actor, reconciliation_id AS reconciliationId FROM breaker_events WHERE bot_id = 'bot-a'`)).toEqual([
      { kind: "trip", at: at.toISOString(), reason: "halted by hand: venue announced maintenance at 06:00", actor: "operator:ana", reconciliationId: null },
    ]);
    expect(auditRows(bot.file)).toEqual([
      expect.objectContaining({ actor: "operator:ana", action: "halt_bot", target: "bot-a", outcome: "applied", code: null }),
    ]);
    expect(JSON.parse(auditRows(bot.file)[0]!.detail)).toMatchObject({ reason: "venue announced maintenance at 06:00", breakerVersion: version });
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true, entries: 1 });
  });

  it("reads on the card as halted by hand, by whom, when and why, and never as a cause gone, even with every symbol in sync", async () => {
    const { bot, db, version } = await runningBot();
    const at = bot.sim.now();
    await act(db, spec, ana, input(version), at);
    bot.sim.advance(10_000);
    await bot.writer.reconcile({ symbols }); // clean: the books agree after the halt
    const journal = journalDbOf(db);
    expect(await getCauseInSyncSince({ db: journal, botId: "bot-a" })).toBeNull();
    const [card] = await listBots({ db: journal, now: bot.sim.now(), heartbeatStaleMs: 60_000, reconciliationStaleMs: 60_000 });
    expect(card).toMatchObject({ status: "halted", breaker: { halted: true, changedBy: "operator:ana" } });
    expect(haltCauseText({ ...card!.breaker!, inSyncSince: card!.breaker!.causeInSyncSince, now: at })).toBe(
      `halted by hand by operator:ana at ${at.toISOString().slice(11, 19)} UTC: venue announced maintenance at 06:00`,
    );
  });

  it.each([
    ["no session", null],
    ["a viewer", vic],
  ] as const)("refuses %s without writing to the journal, and logs the attempt without its input", async (_, user) => {
    const { bot, db, version } = await runningBot();
    const before = snapshotExceptAudit(bot.file);
    const lines = refusalLines.length;
    const r = await act(db, spec, user, input(version), bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "unauthorized", message: expect.stringMatching(/Nothing was changed/) });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditCount(bot.file)).toBe(0);
    expect(refusalLines.slice(lines)).toEqual([expect.stringContaining(`${user === null ? "anonymous" : "viewer:vic"} from 192.0.2.7 posted halt_bot [`)]);
    expect(refusalLines.at(-1)).not.toContain("maintenance");
  });

  it("refuses a bot that is already halted, saying since when and by whom, and changes nothing but the audit log", async () => {
    const { bot, db, version } = await runningBot();
    const first = bot.sim.now();
    await act(db, spec, ana, input(version, { reason: "venue announced maintenance at 06:00." }), first);
    const before = snapshotExceptAudit(bot.file);
    bot.sim.advance(5_000);
    const r = await act(db, spec, ana, input(version + 1, { reason: "second click, same halt" }), bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "refused" });
    expect(r.ok ? "" : r.message).toMatch(
      new RegExp(`^bot-a is already halted since ${first.toISOString().slice(11, 19)} UTC by operator:ana: nothing to do\\.`),
    );
    // A reason that ends its own sentence is not given a second full stop.
    expect(r.ok ? "" : r.message).toMatch(/Its reason: halted by hand: venue announced maintenance at 06:00\.$/);
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditRows(bot.file).at(-1)).toMatchObject({ action: "halt_bot", outcome: "refused", code: "refused", actor: "operator:ana" });
  });

  it("refuses a stale breaker version as a conflict that shows what changed, and changes nothing but the audit log", async () => {
    const { bot, db, version } = await runningBot();
    // Someone halted and cleared it meanwhile: not halted now, but not what the operator saw.
    db.prepare(`UPDATE breakers SET version = version + 2, changed_by = 'operator:ben', changed_at = '2026-08-10T15:30:05.000Z' WHERE bot_id = 'bot-a'`).run();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, input(version), bot.sim.now());
    expect(r).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringContaining(`(version ${version}, now ${version + 2}): last changed at 15:30:05 UTC by operator:ben`),
      reasons: [`breaker version ${version} seen, ${version + 2} now`, "last changed 15:30:05 UTC by operator:ben"],
    });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditRows(bot.file).at(-1)).toMatchObject({ action: "halt_bot", outcome: "refused", code: "conflict" });
  });

  it("refuses an unknown bot, and a wrong-case id by naming the bot that exists", async () => {
    const { bot, db, version } = await runningBot();
    const before = snapshotExceptAudit(bot.file);
    const unknown = await act(db, spec, ana, input(version, { botId: "bot-z" }), bot.sim.now());
    expect(unknown).toMatchObject({ ok: false, code: "refused", message: "No bot named bot-z in this journal. Pick the bot from the overview." });
    const wrongCase = await act(db, spec, ana, input(version, { botId: "BOT-A" }), bot.sim.now());
    expect(wrongCase).toMatchObject({
      ok: false,
      code: "refused",
      message: "No bot named BOT-A: bot ids are exact, and this journal has bot-a. Halt bot-a instead.",
    });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditRows(bot.file).map((a) => [a.action, a.target, a.outcome, a.code])).toEqual([
      ["halt_bot", "bot-z", "refused", "refused"],
      ["halt_bot", "BOT-A", "refused", "refused"],
    ]);
  });

  it.each([
    ["a reason too short", { reason: "no" }, "reason", /at least 5 characters/],
    ["no reason at all", { reason: undefined }, "reason", /./],
    ["an invisible character in the reason", { reason: "stop \u202e now please" }, "reason", /invisible/],
    ["no breaker version", { breakerVersion: "" }, "breakerVersion", /Missing breaker version/],
    ["no bot", { botId: "" }, "botId", /Missing bot/],
  ] as const)("refuses %s with a field error, and changes nothing but the audit log", async (_, over, field, message) => {
    const { bot, db, version } = await runningBot();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, input(version, over), bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "invalid" });
    expect(r.ok ? [] : r.fieldErrors?.[field]).toEqual([expect.stringMatching(message)]);
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditRows(bot.file)).toEqual([expect.objectContaining({ action: "halt_bot", outcome: "refused", code: "invalid" })]);
  });
});

describe("the TypeScript journal writer after a hand-made halt", () => {
  it("refuses its next new entry, still lets a reduce-only close through, and trades again once the halt is cleared", async () => {
    const { bot, db, version } = await runningBot();
    await act(db, spec, ana, input(version), bot.sim.now());

    await expect(bot.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 1, bar: "2026-08-10T15:31:00Z" })).rejects.toThrow(
      BreakerHaltedError,
    );
    const close = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "sell", qty: 10, bar: "2026-08-10T15:31:00Z" }, { reduceOnly: true });
    expect(close.order).toMatchObject({ symbol: "AAPL", side: "sell", state: "filled" });
    expect(bot.rows(`SELECT symbol, side FROM orders ORDER BY created_at, client_order_id`)).toEqual([
      { symbol: "AAPL", side: "buy" },
      { symbol: "AAPL", side: "sell" },
    ]);

    // The usual checklist clears it: a clean cycle newer than the trip, nothing in doubt.
    bot.sim.advance(10_000);
    await bot.writer.reconcile({ symbols });
    const clear = clearHaltSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 });
    const cleared = await act(
      db,
      clear,
      ana,
      { botId: "bot-a", breakerVersion: String(version + 1), reason: "maintenance over, venue answering", confirmBotId: "bot-a" },
      bot.sim.now(),
    );
    expect(cleared).toEqual({ ok: true, data: { cleared: true } });
    const entry = await bot.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 1, bar: "2026-08-10T15:32:00Z" });
    expect(entry.order).toMatchObject({ symbol: "ETHUSDT", side: "buy" });
  });
});
