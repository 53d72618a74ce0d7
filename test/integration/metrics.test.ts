/**
 * GET /api/metrics's values on the journals the named demo scenarios write, checked against the
 * journal itself with plain SQL: a halt, a size drift before and after an acknowledgement, an
 * unknown order nobody can settle, the audit chain; and the scrape of a journal that cannot be read.
 */
import { queryOf } from "@/lib/db/query";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { parseEnv } from "@/lib/env";
import { headPrefix, metricsText } from "@/lib/http/metrics";
import { getMetrics } from "@/lib/queries/metrics";
import { SCENARIOS, type ScenarioName, type ScenarioResult } from "@/tools/demo/scenarios";
import { ana, act, consoleWriter } from "../helpers/actions";
import { consoleDb } from "../helpers/console-db";
import { botOnSim } from "../helpers/bot";
import { migratedJournal, migrationsDir, tempDir } from "../helpers/journal";

// The acknowledgement's audit entry is keyed: keep the generated key in a folder of this test's own.
const accounts = path.join(tempDir("metrics-accounts"), "accounts.db");
const config = parseEnv({ DRIFTWATCH_ACCOUNTS_DB: accounts });
process.env.DRIFTWATCH_ACCOUNTS_DB = accounts;

const closers: (() => void)[] = [];
afterAll(() => closers.forEach((c) => c()));

/** The scrape parsed back: `name{labels}` → value, labels in the order prom-client writes them. */
type Scrape = Map<string, number>;

function parse(text: string): Scrape {
  const out: Scrape = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    const value = line.slice(at + 1);
    out.set(line.slice(0, at), value === "+Inf" ? Infinity : Number(value));
  }
  return out;
}

async function scrapeOf(file: string, now: Date): Promise<{ text: string; values: Scrape }> {
  const c = consoleDb(file);
  try {
    const data = await getMetrics({ q: queryOf(c.db), config, now });
    const { body } = await metricsText({ ok: true, data });
    return { text: body, values: parse(body) };
  } finally {
    c.close();
  }
}

async function played(name: ScenarioName): Promise<{ result: ScenarioResult; raw: Database.Database; now: Date }> {
  const result = await SCENARIOS[name].run({ file: migratedJournal(`metrics-${name}`), migrationsDir });
  const raw = new Database(result.file, { readonly: true });
  closers.push(() => raw.close());
  return { result, raw, now: new Date(Date.parse(result.to) + 1_000) };
}

describe("metrics of the size-drift scenario (beta trips on a manual partial close of AAPL)", () => {
  let s: Awaited<ReturnType<typeof played>>;
  beforeAll(async () => {
    s = await played("size-drift");
  });

  it("says beta is halted since its breaker changed, and alpha is not", async () => {
    const { values } = await scrapeOf(s.result.file, s.now);
    const changedAt = s.raw.prepare(`SELECT changed_at FROM breakers WHERE bot_id = 'beta' AND halted = 1`).pluck().get() as string;
    expect(values.get('driftwatch_bot_halted{bot="beta"}')).toBe(1);
    expect(values.get('driftwatch_bot_halted_since_timestamp_seconds{bot="beta"}')).toBe(Date.parse(changedAt) / 1000);
    expect(values.get('driftwatch_bot_halted{bot="alpha"}')).toBe(0);
    expect(values.has('driftwatch_bot_halted_since_timestamp_seconds{bot="alpha"}')).toBe(false);
  });

  it("gives each bot's heartbeat and reconciliation age, and only its last outcome as 1", async () => {
    const { values } = await scrapeOf(s.result.file, s.now);
    for (const bot of ["alpha", "beta"]) {
      const heartbeat = s.raw.prepare(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`).pluck().get(bot) as string;
      const last = s.raw.prepare(`SELECT at, outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`).get(bot) as {
        at: string;
        outcome: string;
      };
      expect(values.get(`driftwatch_bot_heartbeat_age_seconds{bot="${bot}"}`)).toBe((s.now.getTime() - Date.parse(heartbeat)) / 1000);
      expect(values.get(`driftwatch_bot_reconciliation_age_seconds{bot="${bot}"}`)).toBe((s.now.getTime() - Date.parse(last.at)) / 1000);
      const compared = s.raw
        .prepare(`SELECT at FROM reconciliations WHERE bot_id = ? AND outcome IN ('clean', 'drift') ORDER BY at DESC, id DESC LIMIT 1`)
        .pluck()
        .get(bot) as string;
      expect(values.get(`driftwatch_bot_compared_age_seconds{bot="${bot}"}`)).toBe((s.now.getTime() - Date.parse(compared)) / 1000);
      for (const outcome of ["clean", "drift", "skipped", "error"])
        expect(values.get(`driftwatch_bot_last_reconciliation{bot="${bot}",outcome="${outcome}"}`)).toBe(outcome === last.outcome ? 1 : 0);
    }
  });

  it("names AAPL as beta's one unacknowledged size drift, with its notional at the mark", async () => {
    const { values } = await scrapeOf(s.result.file, s.now);
    const aapl = s.raw.prepare(`SELECT ours, theirs, mark_price AS mark FROM latest_positions WHERE bot_id = 'beta' AND symbol = 'AAPL'`).get() as {
      ours: number;
      theirs: number;
      mark: number;
    };
    expect(aapl.theirs).not.toBe(aapl.ours);
    expect(values.get('driftwatch_drift{bot="beta",symbol="AAPL",class="size_drift"}')).toBe(1);
    expect(values.get('driftwatch_drift_acknowledged{bot="beta",symbol="AAPL",class="size_drift"}')).toBe(0);
    expect([...values.keys()].filter((k) => k.startsWith("driftwatch_drift{"))).toEqual(['driftwatch_drift{bot="beta",symbol="AAPL",class="size_drift"}']);
    expect(values.get('driftwatch_bot_drifting_symbols{bot="beta",class="size_drift"}')).toBe(1);
    expect(values.get('driftwatch_bot_drifting_symbols{bot="beta",class="unknown_position"}')).toBe(0);
    expect(values.get('driftwatch_bot_largest_drift_notional{bot="beta"}')).toBeCloseTo(Math.abs(aapl.theirs - aapl.ours) * aapl.mark, 6);
    expect(values.get('driftwatch_bot_unacknowledged_drifts{bot="beta"}')).toBe(1);
    expect(values.get('driftwatch_bot_acknowledgements_in_force{bot="beta"}')).toBe(0);
    expect(values.get('driftwatch_bot_largest_drift_notional{bot="alpha"}')).toBe(0);
    expect(values.get("driftwatch_audit_chain_entries")).toBe(0);
    expect(values.get('driftwatch_audit_chain_head_info{head="genesis"}')).toBe(1);
  });

  it("counts the acknowledgement in force once an operator acknowledges, with the audit chain and action count that recorded it", async () => {
    const line = s.raw.prepare(`SELECT ours, theirs, drift_since AS driftSince FROM latest_positions WHERE bot_id = 'beta' AND symbol = 'AAPL'`).get() as {
      ours: number;
      theirs: number;
      driftSince: string;
    };
    const writer = consoleWriter(s.result.file);
    const r = await act(
      writer,
      acknowledgeDriftSpec({ ackTtlMs: 30 * 60_000 }),
      ana,
      {
        botId: "beta",
        symbol: "AAPL",
        drift: "size_drift",
        ours: String(line.ours),
        theirs: String(line.theirs),
        driftSince: line.driftSince,
        note: "closed by hand on purpose",
      },
      s.now,
    );
    writer.close();
    expect(r.ok).toBe(true);
    const { text, values } = await scrapeOf(s.result.file, s.now);
    expect(values.get('driftwatch_drift_acknowledged{bot="beta",symbol="AAPL",class="size_drift"}')).toBe(1);
    expect(values.get('driftwatch_bot_unacknowledged_drifts{bot="beta"}')).toBe(0);
    expect(values.get('driftwatch_bot_acknowledgements_in_force{bot="beta"}')).toBe(1);
    const head = s.raw.prepare(`SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1`).get() as { id: number; hash: string };
    expect(values.get("driftwatch_audit_chain_entries")).toBe(head.id);
    expect(head.hash.startsWith("hmac-sha256:")).toBe(true);
    expect(values.get(`driftwatch_audit_chain_head_info{head="${head.hash.slice("hmac-sha256:".length, "hmac-sha256:".length + 16)}"}`)).toBe(1);
    expect(values.get('driftwatch_actions{action="acknowledge_drift",outcome="applied"}')).toBe(1);
    // Who acknowledged and why stay in the console: no operator name, no note, no hash beyond its prefix.
    expect(text).not.toContain("ana");
    expect(text).not.toContain("closed by hand");
    expect(text).not.toContain(head.hash);

    // Past its expiry the acknowledgement no longer counts.
    const later = await scrapeOf(s.result.file, new Date(s.now.getTime() + 31 * 60_000));
    expect(later.values.get('driftwatch_drift_acknowledged{bot="beta",symbol="AAPL",class="size_drift"}')).toBe(0);
    expect(later.values.get('driftwatch_bot_unacknowledged_drifts{bot="beta"}')).toBe(1);
  });
});

describe("metrics of the lost-reply-unknown scenario (alpha's order stays unknown)", () => {
  it("counts alpha's doubtful order and its age since it was written, and none for beta", async () => {
    const s = await played("lost-reply-unknown");
    const { values } = await scrapeOf(s.result.file, s.now);
    const unknown = s.raw.prepare(`SELECT created_at FROM orders WHERE bot_id = 'alpha' AND state = 'unknown' ORDER BY created_at`).pluck().all() as string[];
    expect(unknown.length).toBeGreaterThan(0);
    expect(values.get('driftwatch_bot_doubtful_orders{bot="alpha"}')).toBe(unknown.length);
    expect(values.get('driftwatch_bot_oldest_doubtful_age_seconds{bot="alpha"}')).toBe((s.now.getTime() - Date.parse(unknown[0]!)) / 1000);
    expect(values.get('driftwatch_bot_doubtful_orders{bot="beta"}')).toBe(0);
    expect(values.get('driftwatch_bot_oldest_doubtful_age_seconds{bot="beta"}')).toBe(0);
    expect(values.get('driftwatch_bot_halted{bot="alpha"}')).toBe(1);
  });
});

describe("metrics of the unknown-position scenario (someone trades SOLUSDT on alpha's account by hand)", () => {
  it("says alpha is halted and, once the bot has closed SOLUSDT reduce-only, counts no unknown position", async () => {
    const s = await played("unknown-position");
    const { values } = await scrapeOf(s.result.file, s.now);
    expect(values.get('driftwatch_bot_halted{bot="alpha"}')).toBe(1);
    const sol = s.raw.prepare(`SELECT ours, theirs FROM latest_positions WHERE bot_id = 'alpha' AND symbol = 'SOLUSDT'`).get() as {
      ours: number;
      theirs: number;
    };
    expect(sol).toEqual({ ours: 0, theirs: 0 });
    expect(values.get('driftwatch_bot_drifting_symbols{bot="alpha",class="unknown_position"}')).toBe(0);
    expect([...values.keys()].filter((k) => k.startsWith("driftwatch_drift{"))).toEqual([]);
  });
});

describe("metrics of the scenarios where nothing goes wrong: no alert may fire on them", () => {
  for (const name of ["double-buy-avoided", "in-flight", "quiet-day"] as const) {
    it(`${name}: both bots running, nothing doubtful, nothing drifting, the last outcome clean, ages from the journal`, async () => {
      const s = await played(name);
      const { values } = await scrapeOf(s.result.file, s.now);
      for (const bot of ["alpha", "beta"]) {
        const last = s.raw.prepare(`SELECT at, outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`).get(bot) as {
          at: string;
          outcome: string;
        };
        const beat = s.raw.prepare(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`).pluck().get(bot) as string;
        expect(values.get(`driftwatch_bot_halted{bot="${bot}"}`), bot).toBe(0);
        expect(values.get(`driftwatch_bot_doubtful_orders{bot="${bot}"}`), bot).toBe(0);
        expect(values.get(`driftwatch_bot_unacknowledged_drifts{bot="${bot}"}`), bot).toBe(0);
        expect(values.get(`driftwatch_bot_drifting_symbols{bot="${bot}",class="size_drift"}`), bot).toBe(0);
        expect(values.get(`driftwatch_bot_drifting_symbols{bot="${bot}",class="unknown_position"}`), bot).toBe(0);
        expect(last.outcome, bot).toBe("clean");
        expect(values.get(`driftwatch_bot_last_reconciliation{bot="${bot}",outcome="clean"}`), bot).toBe(1);
        expect(values.get(`driftwatch_bot_reconciliation_age_seconds{bot="${bot}"}`), bot).toBe((s.now.getTime() - Date.parse(last.at)) / 1000);
        expect(values.get(`driftwatch_bot_heartbeat_age_seconds{bot="${bot}"}`), bot).toBe((s.now.getTime() - Date.parse(beat)) / 1000);
      }
      expect([...values.keys()].filter((k) => k.startsWith("driftwatch_drift{"))).toEqual([]);
      expect(values.get('driftwatch_journal_readable{reason=""}')).toBe(1);
    });
  }
});

describe("metrics of a bot on the simulator that finds 0.5 BTCUSDT it never opened", () => {
  it("name BTCUSDT as its unknown position, unacknowledged, with its notional at the mark, and the bot halted", async () => {
    const bot = botOnSim({ botId: "bot-a" });
    closers.push(bot.close);
    bot.writer.heartbeat();
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    bot.sim.advance(1_000);
    bot.sim.setPositionBehindBot("BTCUSDT", 0.5);
    bot.writer.heartbeat();
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    const [btc] = bot.rows<{ ours: number; theirs: number; mark: number }>(
      `SELECT ours, theirs, mark_price AS mark FROM latest_positions WHERE bot_id = 'bot-a' AND symbol = 'BTCUSDT'`,
    );
    expect(btc).toMatchObject({ ours: 0, theirs: 0.5 });
    const { values } = await scrapeOf(bot.file, new Date(bot.sim.now().getTime() + 1_000));
    expect(values.get('driftwatch_drift{bot="bot-a",symbol="BTCUSDT",class="unknown_position"}')).toBe(1);
    expect(values.get('driftwatch_drift_acknowledged{bot="bot-a",symbol="BTCUSDT",class="unknown_position"}')).toBe(0);
    expect(values.get('driftwatch_bot_drifting_symbols{bot="bot-a",class="unknown_position"}')).toBe(1);
    expect(values.get('driftwatch_bot_drifting_symbols{bot="bot-a",class="size_drift"}')).toBe(0);
    expect(values.get('driftwatch_bot_unacknowledged_drifts{bot="bot-a"}')).toBe(1);
    expect(values.get('driftwatch_bot_largest_drift_notional{bot="bot-a"}')).toBeCloseTo(0.5 * btc!.mark, 6);
    expect(values.get('driftwatch_bot_halted{bot="bot-a"}')).toBe(1);
    expect(values.get('driftwatch_bot_heartbeat_age_seconds{bot="bot-a"}')).toBe(1);
  });
});

describe("metrics of a journal that cannot be read", () => {
  it("answer with driftwatch_journal_readable 0 and the reason, and no per-bot series", async () => {
    const { body, contentType } = await metricsText({ ok: false, reason: "locked" });
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const series = parse(body);
    // The console's own series stay (the export thread's work is not the journal's).
    const own = [...series.keys()].filter((k) => k.startsWith("driftwatch_export_thread_"));
    expect(own.sort()).toEqual(["refused", "unavailable", "written"].map((o) => `driftwatch_export_thread_stretches_total{outcome="${o}"}`));
    for (const k of own) series.delete(k);
    expect(series).toEqual(new Map([['driftwatch_journal_readable{reason="locked"}', 0]]));
  });

  it("say readable 1 with an empty reason when it can be read", async () => {
    const { body } = await metricsText({ ok: true, data: { bots: [], drifts: [], audit: { entries: 0, hash: "genesis" }, actions: [] } });
    expect(parse(body).get('driftwatch_journal_readable{reason=""}')).toBe(1);
  });
});

describe("the audit head's label", () => {
  it("is the first 16 hex digits of a keyed or unkeyed hash, and genesis before the first entry", async () => {
    expect(headPrefix(`hmac-sha256:${"ab".repeat(32)}`)).toBe("abababababababab");
    expect(headPrefix("0123456789abcdef0123")).toBe("0123456789abcdef");
    expect(headPrefix("genesis")).toBe("genesis");
  });
});

describe("books not compared", () => {
  it("counts the compared age from the last clean or drift cycle, so skipped cycles do not hide books nobody has compared", async () => {
    const bot = botOnSim();
    closers.push(bot.close);
    expect((await bot.writer.reconcile()).outcome).toBe("clean");
    const cleanAt = bot.sim.now().getTime();
    // An order filled in part, the rest ten minutes later: every cycle meanwhile is skipped.
    bot.sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.4, completeAfterMs: 600_000 });
    await bot.writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.01, bar: "2026-08-10T15:31:00Z" });
    for (let i = 0; i < 9; i++) {
      bot.sim.advance(15_000);
      expect((await bot.writer.reconcile()).outcome).toBe("skipped");
    }
    const now = bot.sim.now();
    const { values } = await scrapeOf(bot.file, now);
    expect(values.get('driftwatch_bot_reconciliation_age_seconds{bot="bot-a"}')).toBe(0);
    expect(values.get('driftwatch_bot_compared_age_seconds{bot="bot-a"}')).toBe((now.getTime() - cleanAt) / 1000);
    expect(values.get('driftwatch_bot_last_reconciliation{bot="bot-a",outcome="skipped"}')).toBe(1);
  });
});
