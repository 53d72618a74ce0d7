/**
 * Resolving a doubtful order is checked against what the operator saw of it (its state and filled
 * quantity), not its version: the bot raises the version on every failed lookup, and a correct
 * resolution must not lose that race. A real change (a fill) is still refused, naming what changed.
 * Real journals, the real guard, the bot's own writer making the changes meanwhile.
 */
import { afterEach, describe, expect, it } from "vitest";
import { resolveByLookupSpec, resolveManuallySpec } from "@/lib/actions/resolve-order";
import type { OrderLookup } from "@/lib/exchange/venue-gateway";
import { act, ana, auditRows, consoleWriter, snapshotExceptAudit } from "../helpers/actions";
import { botOnSim } from "../helpers/bot";
import { journalDbOf } from "../helpers/console-db";

const GRACE = 30_000;
let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

/** One order whose reply was lost and whose lookups by the bot failed: unknown, version > 1. */
async function lostReply() {
  const bot = botOnSim();
  bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
  const out = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  const seen = bot.writer.order(out.order.clientOrderId)!;
  return { bot, db, seen };
}

/** What the card posts: the order as it was on screen. */
const seenFields = (o: { clientOrderId: string; version: number; state: string; filledQty: number }) => ({
  clientOrderId: o.clientOrderId,
  version: String(o.version),
  seenState: o.state,
  seenFilledQty: String(o.filledQty),
});

/** The bot tries once more and fails: version up, state and fills the same. */
async function lookupFailsMeanwhile(bot: ReturnType<typeof botOnSim>, id: string) {
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 1 });
  await bot.writer.refresh(id);
}

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

describe("resolve by hand, against what the operator saw", () => {
  const spec = resolveManuallySpec({ graceMs: GRACE });
  const form = (seen: Parameters<typeof seenFields>[0]) => ({ ...seenFields(seen), status: "filled", note: "venue screen shows it filled" });

  it("accepts the resolution when only a failed lookup moved the version meanwhile, and audits both versions", async () => {
    const { bot, db, seen } = await lostReply();
    await lookupFailsMeanwhile(bot, seen.clientOrderId);
    const now = bot.writer.order(seen.clientOrderId)!;
    expect(now).toMatchObject({ state: seen.state, filledQty: seen.filledQty });
    expect(now.version).toBeGreaterThan(seen.version);

    const r = await act(db, spec, ana, form(seen), bot.sim.now());
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: null } });
    expect(bot.writer.order(seen.clientOrderId)).toMatchObject({ state: "filled", filledQty: 500, version: now.version + 1 });
    const entry = auditRows(bot.file).at(-1)!;
    expect(entry).toMatchObject({ outcome: "applied", action: "resolve_order_manual" });
    expect(JSON.parse(entry.detail)).toMatchObject({
      seen: { version: seen.version, state: "unknown", filledQty: 0 },
      now: { version: now.version, state: "unknown", filledQty: 0 },
    });
  });

  it("refuses when a fill was recorded meanwhile, naming what changed, and changes nothing", async () => {
    const { bot, db, seen } = await lostReply();
    await bot.writer.refresh(seen.clientOrderId); // the exchange answers now: filled in full
    const now = bot.writer.order(seen.clientOrderId)!;
    const before = snapshotExceptAudit(bot.file);

    const r = await act(db, spec, ana, form(seen), bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "conflict", reasons: ["state unknown → filled", "filled 0 → 500"] });
    expect(r.ok ? "" : r.message).toContain("changed since you looked: state unknown → filled; filled 0 → 500");
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    const entry = auditRows(bot.file).at(-1)!;
    expect(entry).toMatchObject({ outcome: "refused", code: "conflict", action: "resolve_order_manual" });
    expect(JSON.parse(entry.detail)).toMatchObject({
      seen: { version: seen.version, state: "unknown", filledQty: 0 },
      now: { version: now.version, state: "filled", filledQty: 500 },
      reasons: ["state unknown → filled", "filled 0 → 500"],
    });
  });

  it("still refuses a moved version when the post does not say what was seen", async () => {
    const { bot, db, seen } = await lostReply();
    await lookupFailsMeanwhile(bot, seen.clientOrderId);
    const before = snapshotExceptAudit(bot.file);
    const r = await act(
      db,
      spec,
      ana,
      { clientOrderId: seen.clientOrderId, version: String(seen.version), status: "filled", note: "venue screen shows it filled" },
      bot.sim.now(),
    );
    expect(r).toMatchObject({ ok: false, code: "conflict" });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
  });
});

describe("check on exchange, against what the operator saw", () => {
  it("settles the order when only a failed lookup moved the version meanwhile", async () => {
    const { bot, db, seen } = await lostReply();
    await lookupFailsMeanwhile(bot, seen.clientOrderId);
    const spec = resolveByLookupSpec({ lookup: lookupVia(bot), graceMs: GRACE, reader: () => journalDbOf(db) });
    const r = await act(db, spec, ana, seenFields(seen), bot.sim.now());
    expect(r).toEqual({ ok: true, data: { state: "filled", avgPrice: expect.any(Number) } });
    expect(JSON.parse(auditRows(bot.file).at(-1)!.detail)).toMatchObject({ seen: { version: seen.version }, lookup: "found" });
  });
});
