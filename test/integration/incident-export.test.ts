import { afterEach, describe, expect, it } from "vitest";
import { INCIDENT_CSV_COLUMNS, incidentCsv, incidentJson } from "@/lib/incidents/export";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { consoleDb } from "../helpers/console-db";
import { csvRecords, parseCsv } from "../helpers/csv";
import { OPERATOR_REASON, writeIncidentScenario } from "../helpers/incident-journal";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const HOUR = { from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" };

async function timeline(filters = { bot: null as string | null, kinds: [...INCIDENT_KINDS] }) {
  const s = await writeIncidentScenario();
  const c = consoleDb(s.file);
  cleanup.push(c.close, s.close);
  return { s, t: getIncidentTimeline({ db: c.db, window: HOUR, filters }) };
}

describe("incident exports", () => {
  it("JSON holds the window and every event of it, in order, and survives a round trip", async () => {
    const { t } = await timeline();
    const parsed = JSON.parse(JSON.stringify(incidentJson(t))) as ReturnType<typeof incidentJson>;
    expect(parsed.window).toEqual(HOUR);
    expect(parsed.capped).toBe(false);
    expect(parsed.events).toEqual(t.events);
    expect(parsed.events.map((e) => e.at)).toEqual(t.events.map((e) => e.at).sort());
  });

  it("CSV has a header and one record per event, and parses back to the same fields, commas, quotes and newlines included", async () => {
    const { s, t } = await timeline();
    const csv = incidentCsv(t.events);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([...INCIDENT_CSV_COLUMNS]);
    const records = csvRecords(csv);
    expect(records).toHaveLength(t.events.length);
    records.forEach((r, i) => {
      const e = t.events[i]!;
      expect(r).toMatchObject({
        id: e.id,
        at: e.at,
        source: e.source,
        kind: e.kind,
        bot_id: e.botId ?? "",
        actor: e.actor,
        summary: e.summary,
        reason: e.reason ?? "",
      });
      expect(r.qty === "" ? null : Number(r.qty)).toBe(e.qty);
      expect(r.detail === "" ? null : JSON.parse(r.detail!)).toEqual(e.detail);
      expect(r.drifts === "" ? [] : JSON.parse(r.drifts!)).toEqual(e.drifts);
    });
    // The operator's reason really did need quoting: a comma, quotes and a newline, intact.
    const clear = records.find((r) => r.id === `breaker-${s.botA.clearId}`)!;
    expect(clear.reason).toBe(OPERATOR_REASON);
    expect(csv).toContain(`"${OPERATOR_REASON.replaceAll('"', '""')}"`);
    // Order details are JSON objects: full of commas and quotes.
    expect(records.filter((r) => r.source === "order").every((r) => r.detail!.startsWith("{"))).toBe(true);
  });

  it("exports only what the filters show", async () => {
    const { t } = await timeline({ bot: "bot-b", kinds: ["order", "breaker"] });
    const records = csvRecords(incidentCsv(t.events));
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.bot_id === "bot-b" && r.source !== "reconciliation")).toBe(true);
    expect(incidentJson(t).filters).toEqual({ bot: "bot-b", kinds: ["order", "breaker"] });
  });

  it("an empty window is a header-only CSV and a JSON with no events", () => {
    expect(parseCsv(incidentCsv([]))).toEqual([[...INCIDENT_CSV_COLUMNS]]);
    expect(incidentJson({ window: HOUR, filters: { bot: null, kinds: [...INCIDENT_KINDS] }, events: [], capped: false, limit: 10 }).events).toEqual([]);
  });
});
