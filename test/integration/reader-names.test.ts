/**
 * What a reader who is not signed in gets from the queries: roles instead of operators' names, in
 * the audit log (and its actor filter) and in the incident timeline with its summaries. And notes
 * with invisible direction or control characters are refused at the door.
 */
import { afterEach, describe, expect, it } from "vitest";
import { forReader } from "@/lib/auth/actor-names";
import { resolveManuallySpec } from "@/lib/actions/resolve-order";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { consoleAuditKey } from "@/lib/audit/key";
import { appendAudit } from "@/lib/audit/log";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { listAudit } from "@/lib/queries/audit";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { act, ana, auditRows, consoleWriter, snapshotExceptAudit } from "../helpers/actions";
import { botOnSim } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";
import { writeIncidentScenario } from "../helpers/incident-journal";
import { migratedJournal } from "../helpers/journal";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

function auditJournal() {
  const file = migratedJournal("reader-names");
  const w = consoleWriter(file);
  const entries = [
    ["operator:ana", "clear_halt", "bot-a"],
    ["operator:ben", "acknowledge_drift", "bot-a/AAPL"],
    ["viewer:vic", "clear_halt", "bot-a"],
    ["anonymous", "clear_halt", "bot-a"],
  ] as const;
  for (const [i, [actor, action, target]] of entries.entries()) {
    w.transaction(() =>
      appendAudit(
        w,
        { at: `2026-08-10T15:0${i}:00.000Z`, actor, action, target, outcome: "applied", detail: { reason: `after operator:ana looked (${i})` } },
        consoleAuditKey(),
      ),
    ).immediate();
  }
  w.close();
  const c = consoleDb(file);
  cleanup.push(c.close);
  return c.db;
}

describe("the audit log for a reader who is not signed in", () => {
  it("shows roles in entries, details and the actor list; signed-in readers see names", async () => {
    const db = auditJournal();
    const named = await listAudit({ db });
    expect(named.entries.map((e) => e.actor)).toEqual(["anonymous", "viewer:vic", "operator:ben", "operator:ana"]);
    const masked = forReader(await listAudit({ db }), false);
    expect(masked.entries.map((e) => e.actor)).toEqual(["anonymous", "viewer", "operator", "operator"]);
    expect(JSON.stringify(masked)).not.toMatch(/(operator|viewer):\w/);
    expect(JSON.parse(masked.entries[0]!.detail)).toEqual({ reason: "after operator looked (3)" });
    expect(new Set(masked.actors)).toEqual(new Set(["anonymous", "operator", "viewer"]));
  });

  it("filters by role: `operator` matches every operator and nothing else", async () => {
    const db = auditJournal();
    expect((await listAudit({ db, actor: "operator" })).entries.map((e) => e.actor)).toEqual(["operator:ben", "operator:ana"]);
    expect((await listAudit({ db, actor: "viewer" })).entries.map((e) => e.actor)).toEqual(["viewer:vic"]);
    expect((await listAudit({ db, actor: "operator:ana" })).entries.map((e) => e.actor)).toEqual(["operator:ana"]);
  });
});

describe("the incident timeline for a reader who is not signed in", () => {
  it("words operator actions by role, in actors, summaries and reasons", async () => {
    const s = await writeIncidentScenario();
    const c = consoleDb(s.file);
    cleanup.push(c.close, s.close);
    const w = botOnSim({ file: s.file, botId: "bot-b", prefix: "b700" });
    cleanup.push(w.close);
    w.db
      .prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, '2026-08-10T15:33:00.000Z', 'operator', 'operator:bob', ?)`)
      .run(s.botB.clientOrderId, JSON.stringify({ action: "note" }));
    const window = { from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" };
    const filters = { bot: null, kinds: [...INCIDENT_KINDS] };
    const named = getIncidentTimeline({ db: c.db, window, filters });
    expect(JSON.stringify(named.events)).toContain("operator:ana");
    expect(named.events.map((e) => e.summary)).toContain("operator:bob acted on buy 2 ETHUSDT: note");
    const masked = getIncidentTimeline({ db: c.db, window, filters, names: false });
    expect(masked.events).toHaveLength(named.events.length);
    expect(JSON.stringify(masked.events)).not.toMatch(/(operator|viewer):\w|operator bob/);
    expect(masked.events.map((e) => e.summary)).toContain("an operator acted on buy 2 ETHUSDT: note");
    expect(masked.events.filter((e) => e.operator).map((e) => e.actor)).toEqual(named.events.filter((e) => e.operator).map((e) => e.actor.replace(/:.*/, "")));
  });
});

describe("notes and reasons with invisible direction or control characters", () => {
  async function lostReply() {
    const bot = botOnSim();
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
    const out = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
    const db = consoleWriter(bot.file);
    cleanup.push(() => db.close(), bot.close);
    return { bot, db, order: out.order };
  }

  it("refuses a note with a right-to-left override, saying which character, and changes nothing", async () => {
    const { bot, db, order } = await lostReply();
    const before = snapshotExceptAudit(bot.file);
    const r = await act(
      db,
      resolveManuallySpec({ graceMs: 30_000 }),
      ana,
      { clientOrderId: order.clientOrderId, version: String(order.version), status: "filled", note: "seen \u202Edellif on the venue" },
      bot.sim.now(),
    );
    expect(r).toMatchObject({
      ok: false,
      code: "invalid",
      fieldErrors: { note: ["The note contains an invisible direction or control character (U+202E); remove it."] },
    });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
  });

  it("refuses an isolate or a control character in any action's note or reason, and keeps line breaks allowed", async () => {
    const { bot, db, order } = await lostReply();
    const ack = await act(
      db,
      acknowledgeDriftSpec({ ackTtlMs: 600_000 }),
      ana,
      { botId: "bot-a", symbol: "AAPL", version: "1", note: "checked \u2066this\u2069 one" },
      bot.sim.now(),
    );
    expect(ack.ok ? null : ack.fieldErrors?.note).toEqual(["The note contains an invisible direction or control character (U+2066); remove it."]);
    const clear = await act(
      db,
      clearHaltSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 }),
      ana,
      { botId: "bot-a", breakerVersion: "1", reason: "bell\u0007 rang", confirmBotId: "bot-a" },
      bot.sim.now(),
    );
    expect(clear.ok ? null : clear.fieldErrors?.reason).toEqual(["The reason contains an invisible direction or control character (U+0007); remove it."]);
    const multiline = await act(
      db,
      resolveManuallySpec({ graceMs: 30_000 }),
      ana,
      { clientOrderId: order.clientOrderId, version: String(order.version), status: "filled", note: "venue says filled\r\nat 92, ticket 7\tok" },
      bot.sim.now(),
    );
    expect(multiline).toMatchObject({ ok: true });
    expect(auditRows(bot.file).at(-1)).toMatchObject({ outcome: "applied" });
  });
});
