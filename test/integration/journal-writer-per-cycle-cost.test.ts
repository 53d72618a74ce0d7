import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { PER_CYCLE_SQL } from "@/lib/bot/journal-writer";
import { migratedJournal } from "../helpers/journal";

let db: Database.Database | undefined;
afterEach(() => db?.close());

const plan = (sql: string) => (db!.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("alpha") as { detail: string }[]).map((r) => r.detail).join("\n");

describe("what a bot reads every cycle", () => {
  // A bot reconciles every few seconds for months: a per-cycle read that walks all of its orders
  // gets slower every day. These read the partial index of unsettled orders instead.
  it.each(Object.entries(PER_CYCLE_SQL))("%s reads only the index of unsettled orders", (_name, sql) => {
    db = new Database(migratedJournal("plan"));
    expect(plan(sql)).toMatch(/USING (COVERING )?INDEX orders_unsettled_idx/);
  });
});
