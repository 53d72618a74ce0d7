/**
 * A bot whose clock is ahead of or behind the console's, read through the overview the console
 * serves: named in its alarms, never "running".
 */
import { afterEach, describe, expect, it } from "vitest";
import { JournalSource } from "@/lib/db/console";
import { getOverview } from "@/lib/queries/overview";
import { sqliteCli, sqliteCliJournal } from "../helpers/journal";
import { migrationsDir } from "../helpers/journal";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const now = new Date("2026-08-10T15:31:00.000Z");
const at = (offsetMs: number, base = now) => new Date(base.getTime() + offsetMs).toISOString();

function journalWith(bot: string, heartbeatOffsetMs: number, reconciliationOffsetMs: number) {
  const file = sqliteCliJournal("clock");
  sqliteCli(
    file,
    `INSERT INTO bots VALUES ('${bot}', 'sim', 'ck', '${at(heartbeatOffsetMs)}');
     INSERT INTO breakers VALUES ('${bot}', 0, NULL, '${at(-3_600_000)}', 'bot', 1);
     INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('${bot}', '${at(reconciliationOffsetMs)}', 'clean', 0);`,
  );
  const source = new JournalSource(file, { migrationsDir, log: () => {} });
  cleanup.push(() => source.close());
  const read = async (when: Date) => {
    const j = source.get();
    if (!j.ok) throw j.error;
    return await getOverview({ db: j.db, now: when, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 });
  };
  return { file, read };
}

describe("a bot clock ahead of the console's", () => {
  it("is unknown, with the clock named in the alarms", async () => {
    const { read } = journalWith("ahead", 600_000, 595_000);
    const o = await read(now);
    expect(o.bots[0]).toMatchObject({ botId: "ahead", status: "unknown" });
    expect(o.alarms).toEqual([
      "ahead: heartbeat is 600 s in the future: bot clock ahead of the console's, so its times cannot be trusted",
      "ahead: last reconciliation is 595 s in the future: bot clock ahead of the console's",
    ]);
  });
});

describe("a bot clock behind the console's", () => {
  it("looks stale at first sight, then, once its heartbeat is seen moving, is named as a clock behind", async () => {
    const { file, read } = journalWith("behind", -300_000, -301_000);
    const first = await read(now);
    expect(first.bots[0]!.status).toBe("stale");
    // The bot beats again a second later (by its own clock, still five minutes behind).
    const later = new Date(now.getTime() + 1_000);
    sqliteCli(file, `UPDATE bots SET heartbeat_at = '${at(-300_000, later)}';`);
    const second = await read(later);
    expect(second.bots[0]!.status).not.toBe("running");
    expect(second.alarms).toContain("behind: bot clock behind the console's: its heartbeat keeps moving but reads 300 s old, so its times cannot be trusted");
  });
});

describe("a bot that stopped while nobody read the journal", () => {
  it("is stale at the next read, not a clock behind: its last beat was written long before the console saw it", async () => {
    const { file, read } = journalWith("quiet", -1_000, -5_000);
    expect((await read(now)).bots[0]!.status).toBe("running");
    // One more beat a second later, then the process stops; nobody opens the console for 90 s.
    sqliteCli(file, `UPDATE bots SET heartbeat_at = '${at(1_000)}';`);
    const later = new Date(now.getTime() + 90_000);
    const o = await read(later);
    expect(o.bots[0]).toMatchObject({ status: "stale", haltedAlso: null });
    expect(o.alarms).toEqual(["quiet: heartbeat is stale"]);
    expect(o.alarms.join(" ")).not.toMatch(/clock/);
  });

  it("stays a clock behind for a bot that keeps beating old times while the console reads", async () => {
    const { file, read } = journalWith("behind", -300_000, -301_000);
    await read(now);
    for (let s = 1; s <= 3; s++) {
      const when = new Date(now.getTime() + s * 1_000);
      sqliteCli(file, `UPDATE bots SET heartbeat_at = '${at(-300_000, when)}';`);
      const o = await read(when);
      expect(
        o.alarms.some((a) => a.startsWith("behind: bot clock behind the console's")),
        `read ${s}`,
      ).toBe(true);
    }
  });
});
