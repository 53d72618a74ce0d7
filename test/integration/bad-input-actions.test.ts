/**
 * Bad input to every operator action, drawn by fast-check and sent through the same guard the
 * server actions run, as a real operator, on a real migrated journal. Whatever arrives (wrong
 * types, huge or odd strings, NaN, SQL, other bots' ids, prototype keys), the answer is a refusal
 * with a plain message, nothing in the journal changes but one audit entry per operator's attempt
 * (none at all for no session or a viewer: a bounded line in the server log instead), and the
 * audit chain still verifies.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec, acknowledgeEndedDriftSpec } from "@/lib/actions/acknowledge-drift";
import { approveClearSpec, clearHaltSpec, type ClearDeps } from "@/lib/actions/clear-halt";
import { formDataToObject, type ActingUser, type ActionSpec } from "@/lib/actions/guard";
import { resolveByLookupSpec, resolveManuallySpec } from "@/lib/actions/resolve-order";
import type { ActionResult } from "@/lib/actions/result";
import { verifyAuditLog } from "@/lib/audit/log";
import type { OrderLookup } from "@/lib/exchange/venue-gateway";
import { act, ana, auditRows, consoleWriter, refusalLines, snapshotExceptAudit, vic } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { journalDbOf } from "../helpers/console-db";
import type { z } from "zod";
import { consoleAuditKey } from "@/lib/audit/key";

const symbols = SYMBOLS.map((s) => s.symbol);
const GRACE = 30_000;
const RUNS = 40;
const clearDeps: ClearDeps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: GRACE, twoPersonClear: false, twoPersonWindowMs: 600_000 };

// ---- what hostile or mistaken input looks like -------------------------------------------------

const SQL = ["'; DROP TABLE orders; --", "1 OR 1=1", '" OR ""="', "1; DELETE FROM audit_log", "x' UNION SELECT hash FROM audit_log --", "%' --"];
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty"];
const HUGE = ["x".repeat(70_000), "é".repeat(300_000), "🧨".repeat(5_000), "\u0000".repeat(2_000)];

/** Any value a caller could hand over, of any type. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.constantFrom(...SQL, ...HUGE, "../../etc/passwd", "%00", "\u202e", "NaN", "Infinity", "-0", ""),
  fc.double(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_VALUE, 2 ** 53 + 1),
  fc.bigInt(),
  fc.boolean(),
  fc.constantFrom(null, undefined),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
  fc.constant(Object.create(null) as unknown),
  fc.constant({
    toString: () => {
      throw new Error("hostile toString");
    },
  } as unknown),
  fc.constant(Symbol("s") as unknown),
);

/** Keys no action reads, including ones that try to reach Object.prototype. */
const extraKeys = fc.dictionary(fc.oneof(fc.constantFrom(...PROTO_KEYS, ...SQL), fc.string({ maxLength: 10 })), anyValue, { maxKeys: 4 });

/** A string after trim() longer than `max`: fails a `.max(max)` however it is padded. */
const tooLong = (max: number) =>
  fc.tuple(fc.constantFrom("x", "é", "🧨", "'", "\u0000"), fc.string({ unit: "grapheme", maxLength: 20 })).map(([c, s]) => `${c.repeat(max + 1)}${s}`);
const blank = fc.constantFrom("", " ", "\t\n", "\u00a0\u2003");
const nonString = fc.oneof(fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 0 }), fc.bigInt());
/** Never a non-empty string of at most `max` characters. */
const badId = (max: number) => fc.oneof(blank, tooLong(max), nonString);
/** Never a positive safe integer, even after Number(). */
const badPositiveInt = fc.oneof(
  fc.constantFrom("", "0", "-1", "1.5", "NaN", "Infinity", "-Infinity", "1e400", "9007199254740993", "abc", "1,000", ...SQL),
  fc.integer({ max: 0 }),
  fc.double({ noDefaultInfinity: false }).filter((n) => !Number.isSafeInteger(n) || n <= 0),
  fc.constantFrom(NaN, Infinity, -Infinity, null, {}, [1, 2], Symbol("v") as unknown),
);
const notIn = (allowed: readonly string[]) =>
  fc.oneof(fc.string({ maxLength: 30 }), nonString, fc.constantFrom(...SQL)).filter((v) => typeof v !== "string" || !allowed.includes(v));
/** Short (under 5 after trim) or over 1000 characters, or not a string at all. */
const badText = fc.oneof(blank, fc.constantFrom("ok", "  ab  ", "abcd"), tooLong(1000), nonString, fc.constantFrom(...HUGE));

/**
 * An input invalid by construction: a valid base, at least one field replaced by a value the schema
 * must refuse, other fields possibly replaced by anything, and unknown keys added.
 */
function invalidInput(base: Record<string, unknown>, bad: Record<string, fc.Arbitrary<unknown>>) {
  const fields = Object.keys(bad);
  return fc
    .record({
      broken: fc.subarray(fields, { minLength: 1 }),
      badValues: fc.record(bad),
      extra: extraKeys,
    })
    .map(({ broken, badValues, extra }) => {
      const out: Record<string, unknown> = Object.fromEntries(Object.entries(extra)); // own __proto__ keys, like a hostile form
      for (const [k, v] of Object.entries(base)) out[k] = v;
      for (const k of broken) out[k] = badValues[k];
      // Dropping a required field is bad input too.
      if (broken.length > 1) delete out[broken[0]!];
      return out;
    });
}

// ---- what must hold after every attempt --------------------------------------------------------

function auditCount(file: string) {
  const db = new Database(file, { readonly: true });
  const n = db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
  db.close();
  return n;
}

/**
 * Refused, plainly, with nothing but one refused audit entry changed; for no session or a viewer
 * ("unauthorized"), nothing in the journal at all, and one server-log line of at most 400
 * characters.
 */
async function expectRefusedAlone(file: string, attempt: () => Promise<ActionResult<unknown>>, opts: { action: string; codes: readonly string[] }) {
  const before = snapshotExceptAudit(file);
  const auditBefore = auditCount(file);
  const linesBefore = refusalLines.length;
  const r = await attempt();
  expect(r.ok, JSON.stringify(r).slice(0, 300)).toBe(false);
  if (r.ok) return;
  expect(opts.codes).toContain(r.code);
  expect(r.message.length).toBeGreaterThan(10);
  expect(r.message.length).toBeLessThan(2_000);
  expect(r.message).not.toMatch(/\n\s+at |node_modules|\.ts:\d|could not be written to the audit log/);
  // Field errors come with "invalid", and only with it.
  expect(Object.keys(r.fieldErrors ?? {}).length > 0, r.code).toBe(r.code === "invalid");
  expect(snapshotExceptAudit(file)).toEqual(before);
  if (r.code === "unauthorized") {
    expect(auditCount(file)).toBe(auditBefore);
    const lines = refusalLines.slice(linesBefore);
    expect(lines).toHaveLength(1);
    expect(lines[0]!).toContain(`posted ${opts.action} [`);
    expect(lines[0]!.length).toBeLessThanOrEqual(400);
    return;
  }
  expect(auditCount(file)).toBe(auditBefore + 1);
  const last = auditRows(file).at(-1)!;
  expect(last).toMatchObject({ outcome: "refused", code: r.code, action: opts.action });
  expect(last.detail.length).toBeLessThanOrEqual(16_384);
}

function expectChainVerifies(file: string) {
  const db = new Database(file, { readonly: true });
  expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true });
  db.close();
}

const noPollution = () => {
  const probe: Record<string, unknown> = {};
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(probe.polluted).toBeUndefined();
  expect(typeof probe.toString).toBe("function");
};

type AnySpec = ActionSpec<z.ZodType, unknown, unknown>;
const run = (db: Database.Database, spec: AnySpec, user: ActingUser | null, input: Record<string, unknown>, now: Date) => act(db, spec, user, input, now);

// ---- journals -----------------------------------------------------------------------------------

/** bot-a with an order whose reply was lost (doubtful), bot-b on the same file with a settled one. */
async function doubtfulJournal() {
  const bot = botOnSim();
  bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
  const lost = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  const other = botOnSim({ file: bot.file, botId: "bot-b", prefix: "b500", seed: 9 });
  const settled = await other.writer.sendOnce({ strategy: "s", symbol: "ETHUSDT", side: "sell", qty: 2, bar: "2026-08-10T15:30:00Z" });
  const db = consoleWriter(bot.file);
  return { bot, db, lost: lost.order, settled: settled.order, close: () => (db.close(), other.close(), bot.close()) };
}

/** bot-a halted by a size drift on AAPL that nobody has acknowledged yet; bot-b healthy. */
async function driftJournal() {
  const bot = botOnSim();
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  await bot.writer.reconcile({ symbols });
  const other = botOnSim({ file: bot.file, botId: "bot-b", prefix: "b500", seed: 9 });
  await other.writer.reconcile({ symbols });
  const db = consoleWriter(bot.file);
  const since = db.prepare(`SELECT drift_since FROM latest_positions WHERE bot_id = 'bot-a' AND symbol = 'AAPL'`).pluck().get() as string;
  const version = db.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;
  return { bot, db, since, version, close: () => (db.close(), other.close(), bot.close()) };
}

// ---- the properties -----------------------------------------------------------------------------

describe("resolving a doubtful order, given bad input", () => {
  let j: Awaited<ReturnType<typeof doubtfulJournal>>;
  let lookups = 0;
  const lookup: OrderLookup = {
    lookup: async (q) => {
      lookups += 1;
      const found = await j.bot.sim.findOrder(q);
      return found ? { kind: "found", order: found } : { kind: "absent" };
    },
  };
  beforeAll(async () => {
    j = await doubtfulJournal();
  });
  afterAll(() => {
    expectChainVerifies(j.bot.file);
    noPollution();
    j.close();
  });
  const manual = () => resolveManuallySpec({ graceMs: GRACE }) as unknown as AnySpec;
  const byLookup = () => resolveByLookupSpec({ lookup, graceMs: GRACE, reader: () => journalDbOf(j.db) }) as unknown as AnySpec;
  const manualBase = () => ({
    clientOrderId: j.lost.clientOrderId,
    version: String(j.lost.version),
    status: "filled",
    note: "seen filled on the venue screen",
  });

  it("refuses a hand resolution whose fields are malformed, naming the fields, and changes nothing", async () => {
    const bad = {
      clientOrderId: badId(200),
      version: badPositiveInt,
      status: notIn(["filled", "partially_filled", "open", "canceled", "rejected", "absent"]),
      note: badText,
      filledQty: fc.constantFrom("-1", "abc", "NaN", -5, "Infinity", ...SQL),
      avgPrice: fc.constantFrom("0", "-3", "abc", "Infinity", 0, ...SQL),
    };
    await fc.assert(
      fc.asyncProperty(invalidInput(manualBase(), bad), async (input) => {
        await expectRefusedAlone(j.bot.file, () => run(j.db, manual(), ana, input, j.bot.sim.now()), { action: "resolve_order_manual", codes: ["invalid"] });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses a lookup whose fields are malformed, without asking the exchange", async () => {
    const asked = lookups;
    await fc.assert(
      fc.asyncProperty(
        invalidInput({ clientOrderId: j.lost.clientOrderId, version: String(j.lost.version) }, { clientOrderId: badId(200), version: badPositiveInt }),
        async (input) => {
          await expectRefusedAlone(j.bot.file, () => run(j.db, byLookup(), ana, input, j.bot.sim.now()), {
            action: "resolve_order_lookup",
            codes: ["invalid"],
          });
        },
      ),
      { numRuns: RUNS },
    );
    expect(lookups).toBe(asked);
  });

  it("refuses well-formed resolutions of an order that is not there, not doubtful, or not the version seen", async () => {
    const wrongTarget = fc.oneof(
      // Another bot's settled order, at its real version: well-formed, but not doubtful.
      fc.constant({ clientOrderId: j.settled.clientOrderId, version: j.settled.version }),
      // SQL, paths, unicode as ids: looked up as plain values, found nowhere.
      fc.record({
        clientOrderId: fc.oneof(
          fc.constantFrom(...SQL, "../../journal.db", `${j.lost.clientOrderId}' OR '1'='1`),
          fc.string({ unit: "grapheme", minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== "" && s.trim() !== j.lost.clientOrderId),
        ),
        version: fc.integer({ min: 1, max: 1_000_000 }),
      }),
      // The right order, a version it never had or no longer has.
      fc.record({ clientOrderId: fc.constant(j.lost.clientOrderId), version: fc.integer({ min: 1, max: 2 ** 40 }).filter((v) => v !== j.lost.version) }),
    );
    await fc.assert(
      fc.asyncProperty(wrongTarget, fc.boolean(), async (t, viaLookup) => {
        const input = { ...manualBase(), clientOrderId: t.clientOrderId, version: String(t.version) };
        const spec = viaLookup ? byLookup() : manual();
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec, ana, input, j.bot.sim.now()), {
          action: viaLookup ? "resolve_order_lookup" : "resolve_order_manual",
          codes: ["refused", "conflict"],
        });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses anything at all from no session or a viewer, before reading it", async () => {
    const anyInput = fc.dictionary(
      fc.oneof(fc.constantFrom("clientOrderId", "version", "status", "note", ...PROTO_KEYS), fc.string({ maxLength: 8 })),
      anyValue,
      { maxKeys: 6 },
    );
    await fc.assert(
      fc.asyncProperty(anyInput, fc.constantFrom<ActingUser | null>(null, vic), fc.boolean(), async (input, user, viaLookup) => {
        const spec = viaLookup ? byLookup() : manual();
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec, user, { ...input }, j.bot.sim.now()), {
          action: viaLookup ? "resolve_order_lookup" : "resolve_order_manual",
          codes: ["unauthorized"],
        });
      }),
      { numRuns: 20 },
    );
    // The one valid input, from a viewer: still refused.
    await expectRefusedAlone(j.bot.file, () => run(j.db, manual(), vic, manualBase(), j.bot.sim.now()), {
      action: "resolve_order_manual",
      codes: ["unauthorized"],
    });
  });

  it("refuses a fill the order cannot have had", async () => {
    const overfill = fc.record({
      status: fc.constantFrom("filled", "partially_filled"),
      filledQty: fc.oneof(fc.double({ min: 500.000001, max: 1e300, noNaN: true }), fc.constantFrom("1e308", "500.1", "1000000")),
    });
    await fc.assert(
      fc.asyncProperty(overfill, async ({ status, filledQty }) => {
        const input = { ...manualBase(), status, filledQty: String(filledQty) };
        await expectRefusedAlone(j.bot.file, () => run(j.db, manual(), ana, input, j.bot.sim.now()), { action: "resolve_order_manual", codes: ["refused"] });
      }),
      { numRuns: 20 },
    );
  });
});

describe("acknowledging a drift, given bad input", () => {
  let j: Awaited<ReturnType<typeof driftJournal>>;
  beforeAll(async () => {
    j = await driftJournal();
  });
  afterAll(() => {
    expectChainVerifies(j.bot.file);
    noPollution();
    j.close();
  });
  const spec = () => acknowledgeDriftSpec({ ackTtlMs: 30 * 60_000 }) as unknown as AnySpec;
  const base = () => ({
    botId: "bot-a",
    symbol: "AAPL",
    drift: "size_drift",
    ours: "500",
    theirs: "300",
    driftSince: j.since,
    note: "desk closed 200 by hand",
  });

  it("refuses malformed fields, naming them, and changes nothing", async () => {
    // A blank size is missing, not 0 (Number("") is 0).
    const badNumber = fc.constantFrom("abc", "NaN", "Infinity", "-Infinity", "1e400", "1,5", "", "   ", ...SQL, NaN, Infinity, {}, Symbol("n") as unknown);
    const bad = {
      botId: badId(200),
      symbol: badId(100),
      drift: notIn(["size_drift", "unknown_position"]),
      ours: badNumber,
      theirs: badNumber,
      driftSince: fc.oneof(tooLong(40), fc.double(), fc.object({ maxDepth: 0 })),
      note: badText,
    };
    await fc.assert(
      fc.asyncProperty(invalidInput(base(), bad), async (input) => {
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec(), ana, input, j.bot.sim.now()), { action: "acknowledge_drift", codes: ["invalid"] });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses any acknowledgement of an ended drift while the drift goes on, or of a cycle or symbol that is not it", async () => {
    const ended = () => acknowledgeEndedDriftSpec({ ackTtlMs: 30 * 60_000 }) as unknown as AnySpec;
    const rid = j.bot.rows<{ id: number }>(`SELECT max(id) AS id FROM reconciliations`)[0]!.id;
    const input = fc.record({
      botId: fc.constantFrom("bot-a", "bot-b", ...SQL),
      symbol: fc.constantFrom("AAPL", "ETHUSDT", "aapl", "AAPL' --"),
      reconciliationId: fc.oneof(fc.constant(String(rid)), fc.integer({ min: -5, max: rid + 5 }).map(String), fc.constantFrom("abc", "1e400", "", ...SQL)),
      note: fc.oneof(fc.constant("looked at it on the venue"), badText),
    });
    await fc.assert(
      fc.asyncProperty(input, async (form) => {
        await expectRefusedAlone(j.bot.file, () => run(j.db, ended(), ana, form, j.bot.sim.now()), {
          action: "acknowledge_drift",
          codes: ["invalid", "refused", "conflict"],
        });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses a well-formed acknowledgement of a line that is not there or not as seen", async () => {
    const wrong = fc.oneof(
      // Another bot, or a symbol nobody trades: no drifting line.
      fc.record({ botId: fc.constantFrom("bot-b", "bot-c", ...SQL), symbol: fc.constantFrom("AAPL", "ETHUSDT", "../AAPL", "AAPL%00") }),
      fc.record({ symbol: fc.constantFrom("BTCUSDT", "ETHUSDT", "aapl", " AAPL\u0000", "AAPL' --") }),
      // The right line, other sizes, class or episode than it has.
      fc.record({
        ours: fc
          .integer({ min: -1e6, max: 1e6 })
          .filter((n) => Math.abs(n - 500) >= 1)
          .map(String),
      }),
      fc.record({
        theirs: fc
          .double({ min: -1e9, max: 1e9, noNaN: true })
          .filter((n) => Math.abs(n - 300) >= 1)
          .map(String),
      }),
      fc.record({ drift: fc.constant("unknown_position") }),
      fc.record({ driftSince: fc.constantFrom("", "2026-01-01T00:00:00.000Z", "'; DROP TABLE drift_acknowledgements; --") }),
    );
    await fc.assert(
      fc.asyncProperty(wrong, async (change) => {
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec(), ana, { ...base(), ...change }, j.bot.sim.now()), {
          action: "acknowledge_drift",
          codes: ["refused", "conflict"],
        });
      }),
      { numRuns: RUNS },
    );
  });
});

describe("clearing a halt, given bad input", () => {
  let j: Awaited<ReturnType<typeof driftJournal>>;
  beforeAll(async () => {
    j = await driftJournal();
  });
  afterAll(() => {
    expectChainVerifies(j.bot.file);
    noPollution();
    j.close();
  });
  const base = () => ({ botId: "bot-a", breakerVersion: String(j.version), reason: "drift explained and repaired", confirmBotId: "bot-a" });

  it("refuses malformed fields and a confirmation that does not match, and changes nothing", async () => {
    const bad = {
      botId: badId(200),
      breakerVersion: badPositiveInt,
      reason: badText,
      confirmBotId: fc.oneof(nonString, fc.constantFrom("bot-b", "BOT-A", "bot-a'--", "bot-", ...SQL), tooLong(200)),
    };
    await fc.assert(
      fc.asyncProperty(invalidInput(base(), bad), fc.boolean(), async (input, twoPerson) => {
        const spec = clearHaltSpec({ ...clearDeps, twoPersonClear: twoPerson }) as unknown as AnySpec;
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec, ana, input, j.bot.sim.now()), {
          action: twoPerson ? "request_clear_halt" : "clear_halt",
          codes: ["invalid"],
        });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses a well-formed clear of another bot, a stale version, or while the checklist is unmet", async () => {
    const wrong = fc.oneof(
      fc.constantFrom("bot-b", "bot-zz", ...SQL, "../bot-a", "bot-a\u0000").map((botId) => ({ botId, confirmBotId: botId })),
      fc.integer({ min: 1, max: 2 ** 40 }).map((v) => ({ breakerVersion: String(v) })),
      fc.constant({}),
    );
    await fc.assert(
      fc.asyncProperty(wrong, fc.boolean(), async (change, twoPerson) => {
        const spec = clearHaltSpec({ ...clearDeps, twoPersonClear: twoPerson }) as unknown as AnySpec;
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec, ana, { ...base(), ...change }, j.bot.sim.now()), {
          action: twoPerson ? "request_clear_halt" : "clear_halt",
          codes: ["refused", "conflict"],
        });
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses to approve a request that is malformed or does not exist", async () => {
    const spec = approveClearSpec({ ...clearDeps, twoPersonClear: true }) as unknown as AnySpec;
    const approveBase = { requestId: "1", botId: "bot-a", breakerVersion: String(j.version) };
    const input = fc.oneof(
      invalidInput(approveBase, { requestId: badPositiveInt, botId: badId(200), breakerVersion: badPositiveInt }).map((i) => ({ i, codes: ["invalid"] })),
      fc
        .record({ requestId: fc.integer({ min: 1, max: 2 ** 40 }).map(String), botId: fc.constantFrom("bot-a", "bot-b", ...SQL) })
        .map((c) => ({ i: { ...approveBase, ...c }, codes: ["refused"] })),
    );
    await fc.assert(
      fc.asyncProperty(input, async ({ i, codes }) => {
        await expectRefusedAlone(j.bot.file, () => run(j.db, spec, ana, i, j.bot.sim.now()), { action: "approve_clear_halt", codes });
      }),
      { numRuns: RUNS },
    );
  });
});

describe("any action, given anything at all", () => {
  it("answers with a result, never a throw, and audits it, even for values that cannot be turned into text", async () => {
    const j = await doubtfulJournal();
    try {
      const specs: AnySpec[] = [
        resolveManuallySpec({ graceMs: GRACE }),
        resolveByLookupSpec({ lookup: null, graceMs: GRACE, reader: () => journalDbOf(j.db) }),
        acknowledgeDriftSpec({ ackTtlMs: 60_000 }),
        acknowledgeEndedDriftSpec({ ackTtlMs: 60_000 }),
        clearHaltSpec(clearDeps),
        approveClearSpec({ ...clearDeps, twoPersonClear: true }),
      ] as unknown as AnySpec[];
      const keyed = fc.dictionary(
        fc.constantFrom("clientOrderId", "botId", "symbol", "requestId", "reconciliationId", "version", "note", "reason", ...PROTO_KEYS),
        anyValue,
        { maxKeys: 6 },
      );
      await fc.assert(
        // An index, not the spec itself, so a counterexample prints short.
        fc.asyncProperty(
          fc.integer({ min: 0, max: specs.length - 1 }),
          keyed,
          fc.constantFrom<ActingUser | null>(ana, ana, vic, null),
          async (which, input, user) => {
            const spec = specs[which]!;
            await expectRefusedAlone(j.bot.file, () => run(j.db, spec, user, input, j.bot.sim.now()), {
              action: spec.action,
              codes: ["unauthorized", "invalid", "refused", "conflict"],
            });
          },
        ),
        { numRuns: 60 },
      );
      expectChainVerifies(j.bot.file);
      noPollution();
    } finally {
      j.close();
    }
  });
});

describe("a form with prototype-shaped field names", () => {
  it("keeps __proto__ and constructor as plain fields, refuses, and audits their names and lengths", async () => {
    const j = await doubtfulJournal();
    try {
      const form = new FormData();
      form.set("__proto__", '{"polluted":true}');
      form.set("constructor", "x");
      form.set("clientOrderId", j.lost.clientOrderId);
      form.set("$ACTION_ID_abc", "");
      const raw = formDataToObject(form);
      expect(Object.keys(raw).sort()).toEqual(["__proto__", "clientOrderId", "constructor"]);
      await expectRefusedAlone(j.bot.file, () => run(j.db, resolveManuallySpec({ graceMs: GRACE }) as unknown as AnySpec, ana, raw, j.bot.sim.now()), {
        action: "resolve_order_manual",
        codes: ["invalid"],
      });
      // A summary, never the raw form: lengths for every field, a prefix only for the ids and notes an auditor reads.
      const audited = JSON.parse(auditRows(j.bot.file).at(-1)!.detail).input.fields as Record<string, unknown>;
      expect(Object.entries(audited).sort()).toEqual([
        ["__proto__", { length: 17 }],
        ["clientOrderId", { length: j.lost.clientOrderId.length, prefix: j.lost.clientOrderId }],
        ["constructor", { length: 1 }],
      ]);
      noPollution();
    } finally {
      j.close();
    }
  });
});
