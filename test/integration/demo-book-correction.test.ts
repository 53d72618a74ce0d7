/**
 * The demo's size-drift halt, cleared from the console's side without the simulated on-call
 * person: the scenario plays out (beta's book +100 AAPL against the venue's +60, halted), an
 * operator corrects the book through the action, the demo bots cycle on and reconcile clean, the
 * clear is accepted through the checklist, and beta sends a new entry on its next bar.
 */
import { afterEach, describe, expect, it } from "vitest";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { correctBookSpec } from "@/lib/actions/correct-book";
import { getCurrentBookLine } from "@/lib/queries/book-line";
import { getClearChecklist } from "@/lib/queries/clear-checklist";
import { SCENARIOS } from "@/tools/demo/scenarios";
import { act, ana, consoleWriter } from "../helpers/actions";
import { outcomeOf } from "../helpers/demo-journal";
import { migratedJournal, migrationsDir } from "../helpers/journal";

const deps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 };
let close: (() => void) | undefined;
afterEach(() => close?.());

describe("demo size-drift, cleared through a book correction", () => {
  it("the correction makes the next reconciliation clean, the clear is accepted, and beta trades again", async () => {
    const seen: Record<string, unknown> = {};
    const result = await SCENARIOS["size-drift"].run({
      file: migratedJournal("size-drift-corrected"),
      migrationsDir,
      afterwards: async ({ world, cycle }) => {
        const db = consoleWriter(world.file);
        close = () => db.close();
        const checklist = () => getClearChecklist({ db, botId: "beta", now: world.now(), ...deps });
        expect(world.bot("beta").writer.breaker()).toMatchObject({ halted: true, reason: "size drift AAPL: book +100 vs exchange +60" });
        const before = (await checklist()).items.find((i) => i.key === "reconciliation")!;
        expect(before).toMatchObject({
          met: false,
          detail: expect.stringContaining("AAPL book +100 vs exchange +60"),
          fix: expect.stringContaining("Correct the book"),
        });

        const line = getCurrentBookLine({ db, botId: "beta", symbol: "AAPL" })!;
        const corrected = await act(
          db,
          correctBookSpec({ ackTtlMs: 600_000 }),
          ana,
          {
            botId: "beta",
            symbol: "AAPL",
            kind: "adopt_exchange",
            reconciliationId: String(line.reconciliationId),
            ours: String(line.ours),
            theirs: String(line.theirs),
            note: "40 AAPL closed by hand on the venue; the venue is right",
          },
          world.now(),
        );
        expect(corrected).toMatchObject({ ok: true, data: { before: 100, after: 60, delta: -40 } });

        await cycle();
        const latest = db.prepare(`SELECT outcome FROM reconciliations WHERE bot_id = 'beta' ORDER BY at DESC, id DESC LIMIT 1`).pluck().get();
        expect(latest).toBe("clean");
        expect((await checklist()).items.filter((i) => !i.met)).toEqual([]);

        const version = db.prepare(`SELECT version FROM breakers WHERE bot_id = 'beta'`).pluck().get() as number;
        const clearedAt = world.now().toISOString();
        const clear = await act(
          db,
          clearHaltSpec(deps),
          ana,
          { botId: "beta", breakerVersion: String(version), reason: "book corrected to the venue's 60 AAPL", confirmBotId: "beta" },
          world.now(),
        );
        expect(clear).toEqual({ ok: true, data: { cleared: true } });

        // The script still wants NVDA: on its next bar, beta opens it.
        await cycle(6);
        seen.entries = db
          .prepare(`SELECT symbol, side, state FROM orders WHERE bot_id = 'beta' AND created_at > ? AND symbol = 'NVDA'`)
          .all(clearedAt) as unknown[];
      },
    });
    expect(seen.entries).toEqual([{ symbol: "NVDA", side: "buy", state: "filled" }]);
    expect(outcomeOf(result, "beta")).toMatchObject({ halted: false, book: { AAPL: 0, NVDA: expect.any(Number) }, exchange: { AAPL: 0 } });
  });
});
