/**
 * Every operator action through the one guard: for each, malformed input, a stale version, an
 * unmet precondition and a double submit are refused, audited, and change nothing else; no
 * session and a viewer are refused with nothing written to the journal at all (a line in the
 * server log instead); the happy path applies and audits.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec, acknowledgeEndedDriftSpec } from "@/lib/actions/acknowledge-drift";
import { approveClearSpec, clearHaltSpec, type ClearDeps } from "@/lib/actions/clear-halt";
import { resolveByLookupSpec, resolveManuallySpec } from "@/lib/actions/resolve-order";
import { roundedMark } from "@/lib/journal/price-sanity";
import { verifyAuditLog } from "@/lib/audit/log";
import { getClearFacts } from "@/lib/queries/clear-checklist";
import type { OrderLookup } from "@/lib/exchange/venue-gateway";
import type { ActingUser } from "@/lib/actions/guard";
import type { ActionResult } from "@/lib/actions/result";
import { act, ana, auditCount, auditRows, ben, consoleWriter, refusalLines, snapshotExceptAudit, vic } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { journalDbOf } from "../helpers/console-db";
import { repoRoot } from "../helpers/journal";
import { consoleAuditKey } from "@/lib/audit/key";

const symbols = SYMBOLS.map((s) => s.symbol);
const GRACE = 30_000;
const clearDeps: ClearDeps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: GRACE, twoPersonClear: false, twoPersonWindowMs: 600_000 };
let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

/** A bot whose order's reply was lost and whose lookups fail: one unknown order, breaker tripped. */
async function lostReply() {
  const bot = botOnSim();
  bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 }); // exactly the writer's lookups: the console's own works
  const out = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  return { bot, db, order: out.order };
}

/** A bot halted by a size drift that has since been repaired: clearable once the drift is acknowledged. */
async function repairedDrift() {
  const bot = botOnSim();
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  await bot.writer.reconcile({ symbols });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  return { bot, db };
}

const breakerVersion = (db: Database.Database, botId = "bot-a") => db.prepare(`SELECT version FROM breakers WHERE bot_id = ?`).pluck().get(botId) as number;

/**
 * No operator: refused, and the journal is not written at all (not even the audit log); the server
 * log has one line naming who, the action and the field names, never a field's value.
 */
async function expectTurnedAwayUnrecorded(
  file: string,
  before: Record<string, unknown[]>,
  attempt: () => Promise<ActionResult<unknown>>,
  action: string,
  user: ActingUser | null,
) {
  const audits = auditCount(file);
  const lines = refusalLines.length;
  const result = await attempt();
  expect(result).toMatchObject({ ok: false, code: "unauthorized", message: expect.stringMatching(/Nothing was changed/) });
  expect(snapshotExceptAudit(file)).toEqual(before);
  expect(auditCount(file)).toBe(audits);
  expect(refusalLines.slice(lines)).toEqual([
    expect.stringContaining(`${user === null ? "anonymous" : `viewer:${user.name}`} from 192.0.2.7 posted ${action} [`),
  ]);
}

function expectRefusedAndUnchanged(file: string, before: Record<string, unknown[]>, result: { ok: boolean; code?: string }, code: string, action: string) {
  expect(result).toMatchObject({ ok: false, code });
  expect(snapshotExceptAudit(file)).toEqual(before);
  const last = auditRows(file).at(-1)!;
  expect(last).toMatchObject({ outcome: "refused", code, action });
}

describe("resolve a doubtful order by hand", () => {
  const spec = resolveManuallySpec({ graceMs: GRACE });
  const input = (order: { clientOrderId: string; version: number }) => ({
    clientOrderId: order.clientOrderId,
    version: String(order.version),
    status: "filled",
    note: "exchange UI shows it filled at 92",
  });

  it("records what the operator saw, with an operator event, and audits it", async () => {
    const { bot, db, order } = await lostReply();
    const r = await act(db, spec, ana, input(order), bot.sim.now());
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: null } });
    expect(bot.writer.order(order.clientOrderId)).toMatchObject({ state: "filled", filledQty: 500, version: order.version + 1 });
    const events = bot.rows<{ kind: string; actor: string }>(
      `SELECT kind, actor FROM order_events WHERE client_order_id = ? ORDER BY id DESC LIMIT 1`,
      order.clientOrderId,
    );
    expect(events).toEqual([{ kind: "operator", actor: "operator:ana" }]);
    expect(auditRows(bot.file)).toEqual([
      expect.objectContaining({ actor: "operator:ana", action: "resolve_order_manual", outcome: "applied", target: order.clientOrderId }),
    ]);
  });

  it.each([
    ["no session", null],
    ["a viewer", vic],
  ] as const)("refuses %s without writing to the journal, and logs the attempt without its input", async (_, user) => {
    const { bot, db, order } = await lostReply();
    const before = snapshotExceptAudit(bot.file);
    await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, user, input(order), bot.sim.now()), "resolve_order_manual", user);
    // Field names and lengths only: the note and the order id are not in the server log either.
    const line = refusalLines.at(-1)!;
    expect(line).toContain("note(33)");
    expect(line).not.toContain("exchange UI");
    expect(line).not.toContain(order.clientOrderId);
  });

  it("refuses malformed input with field errors", async () => {
    const { bot, db, order } = await lostReply();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: "x", status: "teleported", note: "" }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "invalid", "resolve_order_manual");
    expect(r.ok ? null : Object.keys(r.fieldErrors ?? {}).sort()).toEqual(["note", "status", "version"]);
  });

  it("refuses a filled quantity above the order's in one sentence, changing nothing", async () => {
    const { bot, db, order } = await lostReply();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, { ...input(order), status: "partially_filled", filledQty: "501" }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "refused", "resolve_order_manual");
    expect(r).toMatchObject({ message: "Filled quantity 501 is more than the order's 500. Nothing was changed." });
    // No code-like reason under the sentence (a try-out read "• filled above quantity").
    expect(r.ok ? null : (r.reasons ?? [])).toEqual([]);
  });

  it("refuses a stale version, and a double submit is that same harmless refusal", async () => {
    const { bot, db, order } = await lostReply();
    expect((await act(db, spec, ana, input(order), bot.sim.now())).ok).toBe(true);
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, input(order), bot.sim.now()), "conflict", "resolve_order_manual");
  });

  it("refuses an order that is not doubtful", async () => {
    const bot = botOnSim();
    const out = await bot.writer.sendOnce({ strategy: "s", symbol: "AAPL", side: "buy", qty: 1, bar: "b" });
    const db = consoleWriter(bot.file);
    cleanup.push(() => db.close(), bot.close);
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, input(out.order), bot.sim.now()), "refused", "resolve_order_manual");
  });

  /** A lost reply on AAPL after a reconciled AAPL position: the latest line carries the mark (92). */
  async function lostReplyWithMark() {
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 100, bar: "2026-08-10T15:29:00Z" });
    await bot.writer.reconcile({ symbols });
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
    const out = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 5, bar: "2026-08-10T15:30:00Z" });
    const db = consoleWriter(bot.file);
    cleanup.push(() => db.close(), bot.close);
    const mark = bot.rows<{ mark: number }>(`SELECT mark_price AS mark FROM latest_positions WHERE symbol = 'AAPL'`)[0]!.mark;
    return { bot, db, order: out.order, mark };
  }

  it.each([
    ["ten times too high", 10.5, "×10.5"],
    ["a tenth too low", 0.095, "÷10.5"],
    // A one-place slip against a mark a little above the real price: 1530 typed for 153, mark 153.056.
    ["a decimal place too high, just under ten times", 9.996, "×10.0"],
    ["beyond three times", 3.2, "×3.2"],
    ["under a third", 0.3, "÷3.3"],
  ])("refuses an average price %s against the last mark, naming the mark and the ratio, and audits it", async (_, factor, ratio) => {
    const { bot, db, order, mark } = await lostReplyWithMark();
    expect(order.state).toBe("unknown");
    const price = Number((mark * factor).toFixed(4));
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, { ...input(order), avgPrice: String(price) }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "refused", "resolve_order_manual");
    expect(r.ok ? "" : r.message).toBe(
      `${price} is ${ratio} the last mark of AAPL (${roundedMark(mark)}); beyond ×3 or ÷3 reads as a slipped decimal point: check the decimal point, or tick "The price is right" to record it anyway.`,
    );
    expect(JSON.parse(auditRows(bot.file).at(-1)!.detail)).toMatchObject({ avgPrice: price, mark, ratio });
  });

  it("records a price near the mark, and a far one once the operator ticks that the price is right", async () => {
    const near = await lostReplyWithMark();
    expect(await act(near.db, spec, ana, { ...input(near.order), avgPrice: String(near.mark * 1.02) }, near.bot.sim.now())).toEqual({
      ok: true,
      data: { state: "filled", avgPrice: near.mark * 1.02 },
    });
    // The price recorded is in the audit entry's "after", beside the state and the quantity.
    expect(JSON.parse(auditRows(near.bot.file).at(-1)!.detail)).toMatchObject({ after: { state: "filled", filledQty: 5, avgPrice: near.mark * 1.02 } });
    const far = await lostReplyWithMark();
    const r = await act(far.db, spec, ana, { ...input(far.order), avgPrice: String(far.mark * 10.5), priceConfirmed: "on" }, far.bot.sim.now());
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: far.mark * 10.5 } });
    expect(far.bot.writer.order(far.order.clientOrderId)).toMatchObject({ state: "filled", avgPrice: far.mark * 10.5 });
    expect(JSON.parse(auditRows(far.bot.file).at(-1)!.detail)).toMatchObject({ priceConfirmed: true });
  });

  it("refuses a fill larger than the order", async () => {
    const { bot, db, order } = await lostReply();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, { ...input(order), status: "partially_filled", filledQty: "900" }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "refused", "resolve_order_manual");
  });
});

describe("resolve a doubtful order by asking the exchange", () => {
  const lookupVia = (bot: ReturnType<typeof botOnSim>): OrderLookup => ({
    lookup: async (q) => {
      try {
        const found = await bot.sim.findOrder(q);
        return found ? { kind: "found", order: found } : { kind: "absent" };
      } catch (error) {
        return { kind: "failed", error: (error as Error).message };
      }
    },
  });

  it("copies the exchange's status and fills once the lookup works", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    const r = await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: order.version }, bot.sim.now());
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: expect.any(Number) } });
    expect(bot.writer.order(order.clientOrderId)).toMatchObject({ state: "filled", filledQty: 500 });
    expect(bot.sim.position("AAPL")).toBe(500); // asked, never resent
    expect(auditRows(bot.file).at(-1)).toMatchObject({ outcome: "applied", action: "resolve_order_lookup" });
  });

  it("marks it absent when the exchange proves it never got it", async () => {
    const bot = botOnSim();
    bot.sim.inject({ on: "create", fault: "timeout_not_received", times: 3 });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 10 });
    const out = await bot.writer.sendOnce({ strategy: "s", symbol: "AAPL", side: "buy", qty: 5, bar: "b" });
    bot.sim.clearFaults();
    const db = consoleWriter(bot.file);
    cleanup.push(() => db.close(), bot.close);
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    expect(await act(db, spec, ana, { clientOrderId: out.order.clientOrderId, version: out.order.version }, bot.sim.now())).toEqual({
      ok: true,
      data: { state: "absent", avgPrice: null },
    });
  });

  it("leaves it doubtful, shows the error and audits the refusal when the lookup fails", async () => {
    const { bot, db, order } = await lostReply();
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 1 });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 10 });
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: order.version }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "refused", "resolve_order_lookup");
    expect(r.ok ? "" : r.message).toMatch(/^Check on exchange failed: .*The order stays doubtful/);
    // What to do next, and the error said once: not repeated as a reason under the message.
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/try again, or resolve by hand with what the exchange's own page shows\.$/) });
    expect(r.ok ? [] : (r.reasons ?? [])).toEqual([]);
  });

  it("a double submit of a check is refused as a conflict once the first settled the order", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    const form = { clientOrderId: order.clientOrderId, version: order.version };
    expect((await act(db, spec, ana, form, bot.sim.now())).ok).toBe(true);
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, form, bot.sim.now()), "conflict", "resolve_order_lookup");
  });

  it("is refused without a venue gateway, pointing to resolving by hand", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveByLookupSpec({ lookup: null, graceMs: GRACE, reader: () => journalDbOf(db) });
    const r = await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: order.version }, bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "refused", message: expect.stringMatching(/Resolve by hand/) });
  });

  it("refuses no session, a viewer, bad input and a stale version; audits the operator's refusals only", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    const before = snapshotExceptAudit(bot.file);
    await expectTurnedAwayUnrecorded(
      bot.file,
      before,
      () => act(db, spec, null, { clientOrderId: order.clientOrderId, version: order.version }, bot.sim.now()),
      "resolve_order_lookup",
      null,
    );
    await expectTurnedAwayUnrecorded(
      bot.file,
      before,
      () => act(db, spec, vic, { clientOrderId: order.clientOrderId, version: order.version }, bot.sim.now()),
      "resolve_order_lookup",
      vic,
    );
    expectRefusedAndUnchanged(
      bot.file,
      before,
      await act(db, spec, ana, { clientOrderId: "", version: "-1" }, bot.sim.now()),
      "invalid",
      "resolve_order_lookup",
    );
    expectRefusedAndUnchanged(
      bot.file,
      before,
      await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: order.version - 1 }, bot.sim.now()),
      "conflict",
      "resolve_order_lookup",
    );
  });
});

describe("acknowledge a drift", () => {
  const spec = acknowledgeDriftSpec({ ackTtlMs: 30 * 60_000 });
  const seen = { botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: "500", theirs: "300", note: "manual close by desk, confirmed" };

  async function withDriftSince() {
    const { bot, db } = await repairedDrift();
    const since = db.prepare(`SELECT drift_since FROM latest_positions WHERE symbol = 'AAPL'`).pluck().get() as string;
    return { bot, db, input: { ...seen, driftSince: since } };
  }

  it("records who acknowledged what, until when", async () => {
    const { bot, db, input } = await withDriftSince();
    const r = await act(db, spec, ana, input, bot.sim.now());
    expect(r).toEqual({ ok: true, data: { expiresAt: new Date(bot.sim.now().getTime() + 30 * 60_000).toISOString() } });
    expect(bot.rows(`SELECT bot_id, symbol, drift, ours, theirs, acknowledged_by FROM drift_acknowledgements`)).toEqual([
      { bot_id: "bot-a", symbol: "AAPL", drift: "size_drift", ours: 500, theirs: 300, acknowledged_by: "operator:ana" },
    ]);
  });

  it("refuses when the drift changed since the operator looked", async () => {
    const { bot, db, input } = await withDriftSince();
    bot.sim.setPositionBehindBot("AAPL", 100);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, input, bot.sim.now()), "conflict", "acknowledge_drift");
  });

  it("refuses when there is no drift to acknowledge", async () => {
    const { bot, db, input } = await withDriftSince();
    bot.sim.setPositionBehindBot("AAPL", 500);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, input, bot.sim.now()), "refused", "acknowledge_drift");
  });

  it("refuses no session, a viewer and malformed input", async () => {
    const { bot, db, input } = await withDriftSince();
    const before = snapshotExceptAudit(bot.file);
    await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, null, input, bot.sim.now()), "acknowledge_drift", null);
    await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, vic, input, bot.sim.now()), "acknowledge_drift", vic);
    const bad = await act(db, spec, ana, { ...input, ours: "lots", note: "x" }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, bad, "invalid", "acknowledge_drift");
  });

  it("a double submit acknowledges once more, harmlessly: two rows, one drift, both audited", async () => {
    const { bot, db, input } = await withDriftSince();
    await act(db, spec, ana, input, bot.sim.now());
    await act(db, spec, ana, input, bot.sim.now());
    expect(bot.rows(`SELECT count(*) AS n FROM drift_acknowledgements`)).toEqual([{ n: 2 }]);
    expect(auditRows(bot.file).map((a) => a.outcome)).toEqual(["applied", "applied"]);
  });
});

describe("clear a halt", () => {
  async function clearable() {
    const { bot, db } = await repairedDrift();
    const since = db.prepare(`SELECT drift_since FROM latest_positions WHERE symbol = 'AAPL'`).pluck().get() as string;
    await act(
      db,
      acknowledgeDriftSpec({ ackTtlMs: 600_000 }),
      ana,
      { botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: 500, theirs: 300, driftSince: since, note: "desk closed 200 by hand" },
      bot.sim.now(),
    );
    bot.sim.setPositionBehindBot("AAPL", 500);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    return { bot, db };
  }
  const input = (db: Database.Database) => ({
    botId: "bot-a",
    breakerVersion: String(breakerVersion(db)),
    reason: "drift explained and repaired",
    confirmBotId: "bot-a",
  });

  it("clears when every checklist item holds, with a clear event by the operator", async () => {
    const { bot, db } = await clearable();
    const r = await act(db, clearHaltSpec(clearDeps), ana, input(db), bot.sim.now());
    expect(r).toEqual({ ok: true, data: { cleared: true } });
    expect(bot.writer.breaker()).toMatchObject({ halted: false });
    expect(bot.rows(`SELECT kind, actor, reason FROM breaker_events ORDER BY id`)).toEqual([
      { kind: "trip", actor: "bot", reason: "size drift AAPL: book +500 vs exchange +300" },
      { kind: "clear", actor: "operator:ana", reason: "drift explained and repaired" },
    ]);
  });

  it("refuses while the checklist is unmet, naming each unmet item", async () => {
    const { bot, db } = await repairedDrift();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(db, clearHaltSpec(clearDeps), ana, input(db), bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, r, "refused", "clear_halt");
    expect(r.ok ? [] : r.reasons).toEqual([
      expect.stringMatching(/^A reconciliation newer than the trip, and clean: /),
      expect.stringMatching(/^Every drift since the trip acknowledged: not acknowledged: AAPL/),
    ]);
  });

  it("refuses to clear a halt while an order is doubtful", async () => {
    const { bot, db } = await clearable();
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 10 });
    await bot.writer.sendOnce({ strategy: "s", symbol: "ETHUSDT", side: "sell", qty: 1, bar: "b" }, { reduceOnly: true });
    bot.writer.heartbeat();
    const r = await act(db, clearHaltSpec(clearDeps), ana, input(db), bot.sim.now());
    expect(r).toMatchObject({
      ok: false,
      code: "refused",
      reasons: expect.arrayContaining([expect.stringMatching(/^No doubtful orders for this bot: 1 doubtful order/)]),
    });
  });

  it("refuses a mistyped confirmation, a stale breaker version, no session and a viewer", async () => {
    const { bot, db } = await clearable();
    const before = snapshotExceptAudit(bot.file);
    const spec = clearHaltSpec(clearDeps);
    const typo = await act(db, spec, ana, { ...input(db), confirmBotId: "bot-b" }, bot.sim.now());
    expectRefusedAndUnchanged(bot.file, before, typo, "invalid", "clear_halt");
    expect(typo.ok ? null : typo.fieldErrors).toEqual({ confirmBotId: ["Type the bot id exactly to confirm"] });
    expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ana, { ...input(db), breakerVersion: "1" }, bot.sim.now()), "conflict", "clear_halt");
    await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, null, input(db), bot.sim.now()), "clear_halt", null);
    await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, vic, input(db), bot.sim.now()), "clear_halt", vic);
  });

  it("a double submit clears once and refuses the second as a conflict", async () => {
    const { bot, db } = await clearable();
    const form = input(db);
    expect((await act(db, clearHaltSpec(clearDeps), ana, form, bot.sim.now())).ok).toBe(true);
    const before = snapshotExceptAudit(bot.file);
    expectRefusedAndUnchanged(bot.file, before, await act(db, clearHaltSpec(clearDeps), ana, form, bot.sim.now()), "conflict", "clear_halt");
  });

  describe("a drift that came and went while the bot was halted", () => {
    /** Halted by AAPL; one more drifting cycle after the trip, then repaired and clean: nobody looked. */
    async function driftCameAndWent() {
      const { bot, db } = await repairedDrift();
      bot.sim.advance(15_000);
      await bot.writer.reconcile({ symbols });
      bot.sim.setPositionBehindBot("AAPL", 500);
      bot.sim.advance(15_000);
      await bot.writer.reconcile({ symbols });
      bot.writer.heartbeat();
      return { bot, db };
    }
    const facts = (db: Database.Database, now: Date) => getClearFacts({ db, botId: "bot-a", now, heartbeatStaleMs: 60_000, doubtfulGraceMs: GRACE });
    const ended = acknowledgeEndedDriftSpec({ ackTtlMs: 600_000 });

    it("is listed with its last drifting cycle, blocks the clear, and clears once acknowledged on that cycle", async () => {
      const { bot, db } = await driftCameAndWent();
      const [drift, ...others] = facts(db, bot.sim.now()).unacknowledgedDrifts;
      expect(others).toEqual([]);
      expect(drift).toMatchObject({ symbol: "AAPL", drift: "size_drift", ours: 500, theirs: 300, ongoing: false, cycles: expect.any(Number) });
      const refused = await act(db, clearHaltSpec(clearDeps), ana, input(db), bot.sim.now());
      expect(refused.ok ? [] : refused.reasons).toEqual([expect.stringMatching(/^Every drift since the trip acknowledged: not acknowledged: AAPL/)]);

      const r = await act(
        db,
        ended,
        ana,
        { botId: "bot-a", symbol: "AAPL", reconciliationId: String(drift!.reconciliationId), note: "fill arrived late; repaired by itself" },
        bot.sim.now(),
      );
      expect(r).toMatchObject({ ok: true });
      expect(
        bot.rows(`SELECT drift, ours, theirs, reconciliation_id AS rid, acknowledged_by AS by FROM drift_acknowledgements ORDER BY id DESC LIMIT 1`),
      ).toEqual([{ drift: "size_drift", ours: 500, theirs: 300, rid: drift!.reconciliationId, by: "operator:ana" }]);
      expect(auditRows(bot.file).at(-1)).toMatchObject({ action: "acknowledge_drift", outcome: "applied", target: "bot-a/AAPL" });
      expect(facts(db, bot.sim.now()).unacknowledgedDrifts).toEqual([]);
      expect(await act(db, clearHaltSpec(clearDeps), ana, input(db), bot.sim.now())).toEqual({ ok: true, data: { cleared: true } });
      expect(verifyAuditLog(db, consoleAuditKey()).ok).toBe(true);
    });

    it("refuses an older cycle, a symbol that did not drift, a drift still going on, and a bot not halted; each audited, nothing changed (a viewer's attempt not even audited)", async () => {
      const { bot, db } = await driftCameAndWent();
      const rid = facts(db, bot.sim.now()).unacknowledgedDrifts[0]!.reconciliationId;
      const form = (over: Record<string, string>) => ({ botId: "bot-a", symbol: "AAPL", reconciliationId: String(rid), note: "looked at it", ...over });
      const before = snapshotExceptAudit(bot.file);
      expectRefusedAndUnchanged(
        bot.file,
        before,
        await act(db, ended, ana, form({ reconciliationId: String(rid - 1) }), bot.sim.now()),
        "conflict",
        "acknowledge_drift",
      );
      expectRefusedAndUnchanged(bot.file, before, await act(db, ended, ana, form({ symbol: "ETHUSDT" }), bot.sim.now()), "refused", "acknowledge_drift");
      await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, ended, vic, form({}), bot.sim.now()), "acknowledge_drift", vic);

      // Drifting again: acknowledged on the overview, where the sizes are live.
      bot.sim.setPositionBehindBot("AAPL", 200);
      bot.sim.advance(15_000);
      await bot.writer.reconcile({ symbols });
      const again = facts(db, bot.sim.now()).unacknowledgedDrifts[0]!;
      expect(again).toMatchObject({ symbol: "AAPL", ongoing: true });
      const live = snapshotExceptAudit(bot.file);
      const r = await act(db, ended, ana, form({ reconciliationId: String(again.reconciliationId) }), bot.sim.now());
      expectRefusedAndUnchanged(bot.file, live, r, "refused", "acknowledge_drift");
      expect(r.ok ? "" : r.message).toMatch(/still drifting: acknowledge it on the overview/);
    });

    it("counts an acknowledgement by the bot's cycle it was made on, not by the console's clock", async () => {
      // The console's clock a minute behind the bot's: the acknowledgement is stamped before the trip.
      const { bot, db } = await repairedDrift();
      bot.sim.advance(15_000);
      await bot.writer.reconcile({ symbols });
      const line = db.prepare(`SELECT drift_since AS since FROM latest_positions WHERE bot_id = 'bot-a' AND symbol = 'AAPL'`).get() as { since: string };
      const behind = new Date(bot.sim.now().getTime() - 60_000);
      const ack = await act(
        db,
        acknowledgeDriftSpec({ ackTtlMs: 600_000 }),
        ana,
        { botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: 500, theirs: 300, driftSince: line.since, note: "desk closed 200 by hand" },
        behind,
      );
      expect(ack.ok).toBe(true);
      bot.sim.setPositionBehindBot("AAPL", 500);
      bot.sim.advance(15_000);
      await bot.writer.reconcile({ symbols });
      expect(facts(db, bot.sim.now()).unacknowledgedDrifts).toEqual([]);
    });
  });

  it("two operators clearing at once from two processes: exactly one wins", async () => {
    const { bot, db } = await clearable();
    const form = input(db);
    const at = Date.now() + 1_500;
    const run = (name: string) =>
      new Promise<{ ok: boolean; code?: string }>((resolve, reject) => {
        const child = spawn(
          path.join(repoRoot, "node_modules/.bin/tsx"),
          ["--conditions=react-server", "test/helpers/clear-race.ts", bot.file, name, JSON.stringify(form), bot.sim.now().toISOString(), String(at)],
          {
            cwd: repoRoot,
            stdio: ["ignore", "pipe", "inherit"],
          },
        );
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`race child exited ${code}: ${out}`))));
      });
    const results = await Promise.all([run("ana"), run("ben")]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([expect.objectContaining({ code: "conflict" })]);
    expect(bot.rows(`SELECT count(*) AS n FROM breaker_events WHERE kind = 'clear'`)).toEqual([{ n: 1 }]);
    const audits = auditRows(bot.file).filter((a) => a.action === "clear_halt");
    expect(audits.map((a) => a.outcome).sort()).toEqual(["applied", "refused"]);
    expect(verifyAuditLog(db, consoleAuditKey()).ok).toBe(true);
  });

  describe("with the two-person rule", () => {
    const deps = { ...clearDeps, twoPersonClear: true };

    it("a request waits for a second operator, who clears it", async () => {
      const { bot, db } = await clearable();
      const r = await act(db, clearHaltSpec(deps), ana, input(db), bot.sim.now());
      expect(r).toMatchObject({ ok: true, data: { cleared: false, requestId: 1 } });
      expect(bot.writer.breaker().halted).toBe(true);
      const approve = { requestId: "1", botId: "bot-a", breakerVersion: String(breakerVersion(db)) };
      expect(await act(db, approveClearSpec(deps), ben, approve, bot.sim.now())).toEqual({ ok: true, data: { cleared: true } });
      expect(bot.writer.breaker().halted).toBe(false);
    });

    it("the requester cannot approve their own request", async () => {
      const { bot, db } = await clearable();
      await act(db, clearHaltSpec(deps), ana, input(db), bot.sim.now());
      const before = snapshotExceptAudit(bot.file);
      const r = await act(db, approveClearSpec(deps), ana, { requestId: "1", botId: "bot-a", breakerVersion: String(breakerVersion(db)) }, bot.sim.now());
      expectRefusedAndUnchanged(bot.file, before, r, "refused", "approve_clear_halt");
    });

    it("approval refuses no session, a viewer, malformed input, a stale breaker and a second approval", async () => {
      const { bot, db } = await clearable();
      await act(db, clearHaltSpec(deps), ana, input(db), bot.sim.now());
      const approve = { requestId: "1", botId: "bot-a", breakerVersion: String(breakerVersion(db)) };
      const spec = approveClearSpec(deps);
      const before = snapshotExceptAudit(bot.file);
      await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, null, approve, bot.sim.now()), "approve_clear_halt", null);
      await expectTurnedAwayUnrecorded(bot.file, before, () => act(db, spec, vic, approve, bot.sim.now()), "approve_clear_halt", vic);
      expectRefusedAndUnchanged(bot.file, before, await act(db, spec, ben, { requestId: "one", botId: "" }, bot.sim.now()), "invalid", "approve_clear_halt");
      expectRefusedAndUnchanged(
        bot.file,
        before,
        await act(db, spec, ben, { ...approve, breakerVersion: "1" }, bot.sim.now()),
        "conflict",
        "approve_clear_halt",
      );
      expect((await act(db, spec, ben, approve, bot.sim.now())).ok).toBe(true);
      const after = snapshotExceptAudit(bot.file);
      // A double submit of the approval: the request is no longer pending.
      expectRefusedAndUnchanged(bot.file, after, await act(db, spec, ben, approve, bot.sim.now()), "conflict", "approve_clear_halt");
    });

    it("an approval after the window is refused", async () => {
      const { bot, db } = await clearable();
      await act(db, clearHaltSpec(deps), ana, input(db), bot.sim.now());
      const late = new Date(bot.sim.now().getTime() + deps.twoPersonWindowMs + 1);
      const r = await act(db, approveClearSpec(deps), ben, { requestId: "1", botId: "bot-a", breakerVersion: String(breakerVersion(db)) }, late);
      expect(r).toMatchObject({ ok: false, code: "refused", message: expect.stringMatching(/expired/) });
    });
  });
});

describe("the audit log", () => {
  it("keeps a bounded summary of an operator's input, never the raw form: names, lengths, short prefixes of ids and notes", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveManuallySpec({ graceMs: GRACE });
    const huge = "A".repeat(40_000);
    const fields = { clientOrderId: order.clientOrderId, version: String(order.version), status: "filled", note: `seen filled ${"n".repeat(980)}`, junk: huge };
    for (const f of Array.from({ length: 25 }, (_, i) => `extra${i}`)) Object.assign(fields, { [f]: huge });
    expect(await act(db, spec, ana, fields, bot.sim.now())).toMatchObject({ ok: true });
    const applied = auditRows(bot.file).at(-1)!;
    expect(applied.detail.length).toBeLessThan(4_000);
    expect(applied.detail).not.toContain("A".repeat(100));
    const input = JSON.parse(applied.detail).input as { fields: Record<string, { length: number; prefix?: string }>; omittedFields: number };
    expect(input.fields.junk).toEqual({ length: 40_000 });
    expect(input.fields.note).toEqual({ length: 992, prefix: `seen filled ${"n".repeat(68)}` });
    expect(input.fields.clientOrderId).toEqual({ length: order.clientOrderId.length, prefix: order.clientOrderId });
    expect(Object.keys(input.fields)).toHaveLength(20);
    expect(input.omittedFields).toBe(10);
    // The note itself is kept whole in the action's own detail, after the schema bounded it.
    expect(JSON.parse(applied.detail).note).toBe(fields.note);

    const refused = await act(db, spec, ana, { ...fields, version: "x" }, bot.sim.now());
    expect(refused).toMatchObject({ ok: false, code: "invalid" });
    const entry = auditRows(bot.file).at(-1)!;
    expect(entry).toMatchObject({ outcome: "refused", code: "invalid", actor: "operator:ana" });
    expect(entry.detail.length).toBeLessThan(4_000);
    expect(entry.detail).not.toContain("A".repeat(100));
  });

  it("keeps a verifiable chain across applied and refused actions, and refuses edits", async () => {
    const { bot, db, order } = await lostReply();
    const spec = resolveManuallySpec({ graceMs: GRACE });
    await act(db, spec, null, {}, bot.sim.now()); // no operator: not in the journal at all
    await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: "x" }, bot.sim.now());
    await act(db, spec, ana, { clientOrderId: order.clientOrderId, version: order.version, status: "filled", note: "seen filled on the venue" }, bot.sim.now());
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true, entries: 2 });
    expect(auditRows(bot.file).map((r) => [r.actor, r.outcome])).toEqual([
      ["operator:ana", "refused"],
      ["operator:ana", "applied"],
    ]);
    expect(() => db.prepare(`UPDATE audit_log SET actor = 'operator:mallory'`).run()).toThrow(/append-only/);
    expect(() => db.prepare(`DELETE FROM audit_log`).run()).toThrow(/append-only/);
  });
});
