/**
 * The demo world honours a halt made by hand through the console's own action: the demo bot, which
 * reads its breaker from the journal before every entry, makes no new entry on the cycles after it
 * (only its reduction goes out), and trades again once the halt is cleared through the usual
 * checklist.
 */
import { afterEach, describe, expect, it } from "vitest";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import type { Activity } from "@/tools/demo/bot";
import { SimulatedOnCall } from "@/tools/demo/operator";
import { seededRng } from "@/tools/demo/random";
import { DemoWorld } from "@/tools/demo/world";
import { act, ana, consoleWriter } from "../helpers/actions";
import { JournalView } from "../helpers/demo-journal";
import { openScriptedAlpha } from "../helpers/demo-world";
import { migratedJournal } from "../helpers/journal";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function openAlpha(file: string, activity: Activity[] = []) {
  const { world: w, script } = await openScriptedAlpha({ file, onActivity: (a) => activity.push(a) });
  const consoleDb = consoleWriter(w.file);
  cleanups.push(
    () => w.close(),
    () => consoleDb.close(),
  );
  return { w, script, consoleDb };
}

async function cycles(w: DemoWorld, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    w.advance(w.cycleMs);
    await w.cycle();
  }
}

async function untilNextBar(w: DemoWorld): Promise<void> {
  const next = Math.floor(w.now().getTime() / w.barMs) * w.barMs + w.barMs;
  while (w.now().getTime() < next) await cycles(w, 1);
}

describe("the demo bot after Halt now", () => {
  it("makes no new entry on its next cycles, still reduces, and trades again after the clear", async () => {
    const activity: Activity[] = [];
    const { w, script, consoleDb } = await openAlpha(migratedJournal("demo-hand-halt"), activity);

    script.set("BTCUSDT", 1);
    await w.cycle(); // an entry while running
    await cycles(w, 1);
    const version = consoleDb.prepare(`SELECT version FROM breakers WHERE bot_id = 'alpha'`).pluck().get() as number;
    const halted = await act(
      consoleDb,
      haltBotSpec(),
      ana,
      { botId: "alpha", reason: "exchange status page reports degraded fills", breakerVersion: String(version) },
      w.now(),
    );
    expect(halted).toMatchObject({ ok: true });
    const haltedAt = w.now().toISOString();

    // Next bar: the strategy wants a new ETHUSDT entry and the BTCUSDT exit.
    script.set("ETHUSDT", 1);
    script.set("BTCUSDT", 0);
    await untilNextBar(w);
    await cycles(w, 3);

    let view = new JournalView(w.file);
    cleanups.push(() => view.close());
    const sinceHalt = view.orders("alpha", `created_at > '${haltedAt}'`);
    expect(sinceHalt.map((o) => [o.symbol, o.side])).toEqual([["BTCUSDT", "sell"]]);
    expect(activity.filter((a) => a.kind === "blocked").map((a) => a.message)).toEqual([
      expect.stringMatching(/^no new buy of [\d.]+ ETHUSDT \(sma_cross\): halted, halted by hand: exchange status page reports degraded fills$/),
    ]);
    expect(w.bot("alpha").writer.breaker().halted).toBe(true);

    // Cleared through the usual checklist (clean cycles since the halt, nothing in doubt).
    const clear = clearHaltSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 });
    const cleared = await act(
      consoleDb,
      clear,
      ana,
      { botId: "alpha", breakerVersion: String(version + 1), reason: "fills normal again on the venue", confirmBotId: "alpha" },
      w.now(),
    );
    expect(cleared).toEqual({ ok: true, data: { cleared: true } });
    const clearedAt = w.now().toISOString();
    await untilNextBar(w);

    view.close();
    view = new JournalView(w.file);
    expect(view.orders("alpha", `created_at > '${clearedAt}'`).map((o) => [o.symbol, o.side])).toEqual([["ETHUSDT", "buy"]]);
    expect(view.breakerEvents("alpha").map((e) => [e.kind, e.actor])).toEqual([
      ["trip", "operator:ana"],
      ["clear", "operator:ana"],
    ]);
  });

  it("is left to the person who made it by the simulated on-call of --on-call, who clears only the bot's own trips", async () => {
    const { w, consoleDb } = await openAlpha(migratedJournal("demo-hand-halt-on-call"));
    await w.cycle();
    const onCall = new SimulatedOnCall({ world: w, rng: seededRng(5), respondAfterMs: [10_000, 20_000] });
    const version = consoleDb.prepare(`SELECT version FROM breakers WHERE bot_id = 'alpha'`).pluck().get() as number;
    await act(consoleDb, haltBotSpec(), ana, { botId: "alpha", reason: "holding it for the venue's maintenance", breakerVersion: String(version) }, w.now());
    const done: string[] = [];
    for (let i = 0; i < 12; i++) {
      await cycles(w, 1);
      done.push(...onCall.tick());
    }
    expect(done).toEqual([]);
    expect(w.bot("alpha").writer.breaker()).toMatchObject({ halted: true, reason: "halted by hand: holding it for the venue's maintenance" });
  });
});
