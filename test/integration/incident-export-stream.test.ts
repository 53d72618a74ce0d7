import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { incidentCsv, incidentExportText, incidentJson } from "@/lib/incidents/export";
import { textStream } from "@/lib/http/text-stream";
import { getIncidentTimeline, type IncidentTimeline } from "@/lib/queries/incidents";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { writeReferenceJournal } from "@/tools/bench/reference-journal";
import { consoleDb } from "../helpers/console-db";
import { migrationsDir, tempDir } from "../helpers/journal";
import { readStream } from "../helpers/stream";

// A busy journal: two bots trading about 2,500 orders an hour each, drifting and tripping often.
const end = new Date("2026-08-12T00:00:00.000Z");
const HOUR = { from: "2026-08-11T22:00:00.000Z", to: "2026-08-11T23:00:00.000Z" };
const ALL = { bot: null, kinds: [...INCIDENT_KINDS] };

let file: string;
let c: ReturnType<typeof consoleDb>;
let raw: Database.Database;

beforeAll(() => {
  file = `${tempDir("export-stream")}/busy.sqlite`;
  writeReferenceJournal({ file, days: 0.125, end, symbolsPerBot: 6, ordersPerDay: 60_000, driftsPerDay: 48, migrationsDir });
  c = consoleDb(file);
  raw = new Database(file, { readonly: true });
});
afterAll(() => {
  c?.close();
  raw?.close();
});

describe("the incident timeline over a busy hour", () => {
  it("gives every order event its order's bot, symbol, side, size and strategy, as a join per event would", () => {
    const t = getIncidentTimeline({ db: c.db, window: HOUR, filters: ALL, limit: 50_000 });
    const orders = t.events.filter((e) => e.source === "order");
    expect(orders.length).toBeGreaterThan(5_000);
    const byId = raw.prepare(`SELECT bot_id AS botId, symbol, side, qty, strategy FROM orders WHERE client_order_id = ?`);
    for (const e of orders) {
      const o = byId.get(e.clientOrderId) as { botId: string; symbol: string; side: string; qty: number; strategy: string };
      expect({ botId: e.botId, symbol: e.symbol, side: e.side, qty: e.qty, strategy: e.strategy }).toEqual(o);
    }
    // One bot's window: the same events of that bot, in the same order.
    const alone = getIncidentTimeline({ db: c.db, window: HOUR, filters: { bot: t.events[0]!.botId, kinds: [...INCIDENT_KINDS] }, limit: 50_000 });
    expect(alone.events.length).toBeGreaterThan(1_000);
    expect(alone.events).toEqual(t.events.filter((e) => e.botId === alone.filters.bot));
  });
});

describe("the incident export, streamed", () => {
  let t: IncidentTimeline;
  beforeAll(() => {
    t = getIncidentTimeline({ db: c.db, window: HOUR, filters: ALL, limit: 50_000 });
  });

  it("writes a large JSON export in many chunks that together are exactly the one-string export", async () => {
    const { chunks, text } = await readStream(textStream(incidentExportText(incidentJson(t), "json")));
    const whole = `${JSON.stringify(incidentJson(t))}\n`;
    expect(whole.length).toBeGreaterThan(2_000_000);
    expect(chunks.length).toBeGreaterThan(20);
    expect(text).toBe(whole);
    expect((JSON.parse(text) as { events: unknown[] }).events).toHaveLength(t.events.length);
  });

  it("writes the CSV the same way, record for record", async () => {
    const { chunks, text } = await readStream(textStream(incidentExportText(incidentJson(t), "csv")));
    expect(chunks.length).toBeGreaterThan(20);
    expect(text).toBe(incidentCsv(t.events));
  });

  it("writes only as far as the reader has read, and stops when the reader cancels", async () => {
    let written = 0;
    let finished = false;
    const pieces = (function* () {
      try {
        for (const piece of incidentExportText(incidentJson(t), "json")) {
          written += 1;
          yield piece;
        }
      } finally {
        finished = true;
      }
    })();
    const reader = textStream(pieces).getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(t.events.length / 4);
    await reader.cancel();
    expect(finished).toBe(true);
    expect(written).toBeLessThan(t.events.length / 4);
  });

  it("an empty window streams the empty export", async () => {
    const empty = getIncidentTimeline({ db: c.db, window: { from: "2020-01-01T00:00:00.000Z", to: "2020-01-01T01:00:00.000Z" }, filters: ALL });
    expect((await readStream(textStream(incidentExportText(incidentJson(empty), "json")))).text).toBe(`${JSON.stringify(incidentJson(empty))}\n`);
    expect((await readStream(textStream(incidentExportText(incidentJson(empty), "csv")))).text).toBe(incidentCsv([]));
  });
});
