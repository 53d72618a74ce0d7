import fs from "node:fs";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { JournalSource, SourceSet } from "@/lib/db/console";
import { textStream } from "@/lib/http/text-stream";
import { incidentExportPieces, incidentExportText, incidentJson } from "@/lib/incidents/export";
import { exportThreadCounts, warmExportThread } from "@/lib/incidents/export-thread";
import { readIncidentExportRuns } from "@/lib/queries/incident-export";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { INCIDENT_KINDS, type IncidentFilters } from "@/lib/url-state/incidents";
import { writeReferenceJournal } from "@/tools/bench/reference-journal";
import { consoleDb } from "../helpers/console-db";
import { migrationsDir, tempDir } from "../helpers/journal";
import { readStream } from "../helpers/stream";

// The export of a window in two halves, the second written by the export thread (a real worker
// thread on its own connection), must be the file one read of the whole window gives, byte for
// byte: in both formats, with and without names, for one bot, and wherever the cap falls.
const end = new Date("2026-08-12T00:00:00.000Z");
const HOUR = { from: "2026-08-11T22:00:00.000Z", to: "2026-08-11T23:00:00.000Z" };
const MID = "2026-08-11T22:30:00.000Z";
const ALL: IncidentFilters = { bot: null, kinds: [...INCIDENT_KINDS] };

let file: string;
let c: ReturnType<typeof consoleDb>;
let set: SourceSet;

beforeAll(() => {
  file = `${tempDir("export-thread")}/busy.sqlite`;
  writeReferenceJournal({ file, days: 0.125, end, symbolsPerBot: 6, ordersPerDay: 60_000, driftsPerDay: 48, migrationsDir });
  c = consoleDb(file);
  set = SourceSet.of(new JournalSource(file, { migrationsDir, log: () => {} }));
});
afterAll(() => {
  c?.close();
  set?.close();
});

/** The file as one read of the whole window writes it. */
function oneRead(window: { from: string; to: string }, filters: IncidentFilters, limit: number, names: boolean, format: "json" | "csv") {
  const t = getIncidentTimeline({ db: c.db, window, filters, limit, names });
  return { text: [...incidentExportText(incidentJson(t), format)].join(""), count: t.events.length, capped: t.capped };
}

/** The file as the route writes it, in runs. */
async function inRuns(window: { from: string; to: string }, filters: IncidentFilters, limit: number, names: boolean, format: "json" | "csv") {
  const read = await readIncidentExportRuns({ ...window, filters, limit, names, set }, format);
  if (!read.ok) throw new Error(read.error.message);
  const { timeline, runs } = read.data;
  const { events: _, ...head } = incidentJson({ ...timeline, events: [] });
  return { text: (await readStream(textStream(incidentExportPieces(head, runs, format)))).text, count: timeline.count, capped: timeline.capped };
}

const halves = (filters: IncidentFilters) => {
  const before = getIncidentTimeline({ db: c.db, window: { from: HOUR.from, to: MID }, filters, limit: 50_000 }).events.length;
  const after = getIncidentTimeline({ db: c.db, window: { from: MID, to: HOUR.to }, filters, limit: 50_000 }).events.length;
  return { before, after };
};

describe("the incident export written on two threads", () => {
  // First in this file: the thread is not started yet.
  it("does not wait for a thread still loading, nor for one busy with another export: the route writes the whole window, the same file", async () => {
    const want = oneRead(HOUR, ALL, 50_000, false, "json");
    const before = exportThreadCounts();
    const started = Date.now();
    const cold = await inRuns(HOUR, ALL, 50_000, false, "json");
    expect(cold.text === want.text).toBe(true);
    expect(exportThreadCounts()).toEqual({ ...before, unavailable: before.unavailable + 1 });
    // Started by that export, for the next one; it loads meanwhile.
    expect(await warmExportThread()).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);

    // Two at once: the first gets the thread, the second is written whole here.
    const both = exportThreadCounts();
    const [a, b] = await Promise.all([inRuns(HOUR, ALL, 50_000, false, "json"), inRuns(HOUR, ALL, 50_000, false, "json")]);
    expect(a.text === want.text && b.text === want.text).toBe(true);
    expect(exportThreadCounts()).toEqual({ ...both, written: both.written + 1, unavailable: both.unavailable + 1 });
  });

  it("is the file of one read, and its second half was written by the thread", async () => {
    const { before, after } = halves(ALL);
    expect(before).toBeGreaterThan(2_000);
    expect(after).toBeGreaterThan(2_000);
    for (const format of ["json", "csv"] as const)
      for (const names of [false, true]) {
        const written = exportThreadCounts().written;
        const got = await inRuns(HOUR, ALL, 50_000, names, format);
        expect(exportThreadCounts().written, `${format}, names ${names}: the thread wrote the second half`).toBe(written + 1);
        const want = oneRead(HOUR, ALL, 50_000, names, format);
        expect(got.count).toBe(before + after);
        expect(got.capped).toBe(false);
        expect(got.text.length).toBe(want.text.length);
        expect(got.text === want.text, `${format}, names ${names}: the same bytes`).toBe(true);
      }
    // Valid JSON, every event once, in order.
    const parsed = JSON.parse((await inRuns(HOUR, ALL, 50_000, false, "json")).text) as { events: { id: string; at: string }[] };
    expect(new Set(parsed.events.map((e) => e.id)).size).toBe(before + after);
    expect(parsed.events.every((e, i) => i === 0 || parsed.events[i - 1]!.at <= e.at)).toBe(true);
  });

  it("is the same for one bot's window", async () => {
    const raw = new Database(file, { readonly: true });
    const bot = raw.prepare(`SELECT min(bot_id) FROM bots`).pluck().get() as string;
    raw.close();
    const filters = { bot, kinds: [...INCIDENT_KINDS] };
    const got = await inRuns(HOUR, filters, 50_000, true, "json");
    const want = oneRead(HOUR, filters, 50_000, true, "json");
    expect(want.count).toBeGreaterThan(1_000);
    expect(got.text === want.text).toBe(true);
  });

  it("cuts at the whole window's cap, in either half", async () => {
    const { before } = halves(ALL);
    for (const limit of [before - 100, before, before + 1, before + 100, 0]) {
      const got = await inRuns(HOUR, ALL, limit, false, "json");
      const want = oneRead(HOUR, ALL, limit, false, "json");
      expect({ limit, count: got.count, capped: got.capped }).toEqual({ limit, count: want.count, capped: true });
      expect(got.text === want.text, `limit ${limit}: the same bytes`).toBe(true);
    }
  });

  it("writes a half with no events as nothing: no stray comma", async () => {
    // The window's second half after the journal's end; then its first half before the journal began.
    for (const window of [
      { from: "2026-08-11T23:30:00.000Z", to: "2026-08-12T00:30:00.000Z" },
      { from: "2026-08-11T20:30:00.000Z", to: "2026-08-11T21:30:00.000Z" },
      { from: "2026-08-13T00:00:00.000Z", to: "2026-08-13T01:00:00.000Z" },
    ])
      for (const format of ["json", "csv"] as const) {
        const got = await inRuns(window, ALL, 50_000, false, format);
        const want = oneRead(window, ALL, 50_000, false, format);
        expect(got.text === want.text, `${window.from}, ${format}`).toBe(true);
        if (format === "json") expect(() => JSON.parse(got.text) as unknown).not.toThrow();
      }
  });

  it("writes the thread's half itself when the thread cannot read the journal, and the file is the same", async () => {
    // The thread opens the journal by its path; the console reads it through its own handle. A path
    // the thread cannot open (the file moved away under the console) leaves the half to the route.
    const moved = `${file}.moved`;
    fs.copyFileSync(file, moved);
    const away = new SourceSet([
      { name: "journal", kind: "sqlite", file: `${file}.gone`, journal: new JournalSource(moved, { migrationsDir, log: () => {} }) },
    ]);
    try {
      const before = exportThreadCounts();
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      const read = await readIncidentExportRuns({ ...HOUR, filters: ALL, limit: 50_000, names: false, set: away }, "json");
      if (!read.ok) throw new Error(read.error.message);
      // The server log says why, once (a journal the thread cannot open would refuse every export).
      expect(logged.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(/could not write its half, so the console's thread did: ENOENT.*\.gone/),
      ]);
      logged.mockRestore();
      expect(exportThreadCounts().refused).toBe(before.refused + 1);
      expect(exportThreadCounts().written).toBe(before.written);
      const { events: _, ...head } = incidentJson({ ...read.data.timeline, events: [] });
      const got = (await readStream(textStream(incidentExportPieces(head, read.data.runs, "json")))).text;
      expect(got === oneRead(HOUR, ALL, 50_000, false, "json").text).toBe(true);
    } finally {
      away.close();
    }
  });
});
