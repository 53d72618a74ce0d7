/**
 * "The bot's latest compared cycle", the one SQL definition the overview, the actions' book line
 * and the symbol page share: the newest reconciliation that compared the books (clean or drift),
 * never a skipped or failed one, newest by time and then by id, for that bot only.
 */
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMPARED_OUTCOMES, latestComparedCycleSql } from "@/lib/reconcile/current-line";
import { migratedJournal } from "../helpers/journal";

let sqlite: Database.Database;
beforeEach(() => {
  sqlite = new Database(migratedJournal("latest-cycle"));
  for (const bot of ["bot-a", "bot-b"]) sqlite.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix) VALUES (?, 'sim', ?)`).run(bot, bot);
});
afterEach(() => sqlite.close());

const cycle = (id: number, bot: string, at: string, outcome: string) =>
  sqlite.prepare(`INSERT INTO reconciliations (id, bot_id, at, outcome) VALUES (?, ?, ?, ?)`).run(id, bot, at, outcome);
const latest = (bot: string) =>
  sqlite
    .prepare(`SELECT ${latestComparedCycleSql("b.bot_id")} FROM bots b WHERE b.bot_id = ?`)
    .pluck()
    .get(bot) as number | null;

describe("the latest compared cycle", () => {
  it("compares clean and drift cycles only", () => {
    expect([...COMPARED_OUTCOMES]).toEqual(["clean", "drift"]);
  });

  it("skips later skipped and failed cycles, and other bots' cycles", () => {
    cycle(1, "bot-a", "2026-08-10T15:00:00.000Z", "clean");
    cycle(2, "bot-a", "2026-08-10T15:00:15.000Z", "drift");
    cycle(3, "bot-a", "2026-08-10T15:00:30.000Z", "skipped");
    cycle(4, "bot-a", "2026-08-10T15:00:45.000Z", "error");
    cycle(5, "bot-b", "2026-08-10T15:01:00.000Z", "clean");
    expect(latest("bot-a")).toBe(2);
    expect(latest("bot-b")).toBe(5);
  });

  it("takes the newest by time, not by id, and the larger id of two at the same time", () => {
    cycle(7, "bot-a", "2026-08-10T15:00:30.000Z", "clean");
    cycle(6, "bot-a", "2026-08-10T15:00:00.000Z", "clean");
    expect(latest("bot-a")).toBe(7);
    cycle(8, "bot-a", "2026-08-10T15:00:30.000Z", "drift");
    expect(latest("bot-a")).toBe(8);
  });

  it("is null for a bot that never compared", () => {
    cycle(9, "bot-a", "2026-08-10T15:00:00.000Z", "error");
    expect(latest("bot-a")).toBeNull();
    expect(latest("bot-b")).toBeNull();
  });
});
