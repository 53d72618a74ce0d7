/**
 * A screen's first paint (its page) and its polls (its JSON route) must show the same thing: both
 * call one loader of lib/queries/screens.ts. Read from the source, so a page or route that builds
 * its own query again fails here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Each screen: its page, the routes that poll or download it, and the loader they share. */
const SCREENS: { loader: string; page: string; routes: string[] }[] = [
  // A screen over every journal is read through its fleet reader (readOverview…), which calls the loader per journal (checked below).
  { loader: "readOverview", page: "app/page.tsx", routes: ["app/api/overview/route.ts"] },
  { loader: "readBotClear", page: "app/bots/[botId]/page.tsx", routes: ["app/api/bots/[botId]/clear/route.ts"] },
  { loader: "readBreakerBoard", page: "app/breakers/page.tsx", routes: ["app/api/breakers/route.ts"] },
  { loader: "readDoubtfulOrders", page: "app/doubtful/page.tsx", routes: ["app/api/doubtful/route.ts"] },
  { loader: "loadSymbolState", page: "app/bots/[botId]/symbols/[symbol]/page.tsx", routes: ["app/api/bots/[botId]/symbols/[symbol]/route.ts"] },
  { loader: "loadSymbolChart", page: "app/bots/[botId]/symbols/[symbol]/page.tsx", routes: ["app/api/bots/[botId]/symbols/[symbol]/chart/route.ts"] },
  // Its export reads the same window through readIncidentExport, the events worded as they stream (checked below).
  { loader: "readIncidentWindow", page: "app/incidents/page.tsx", routes: [] },
  { loader: "readIncidentList", page: "app/incidents/page.tsx", routes: [] },
  { loader: "readIncidentStory", page: "app/incidents/[id]/page.tsx", routes: ["app/api/incidents/[id]/postmortem/route.ts"] },
];

/** JSON routes that are no screen's, and why. */
const NOT_SCREENS: Record<string, string> = {
  "app/api/metrics/route.ts": "Prometheus's scrape: lib/queries/metrics.ts reshapes the overview's own reads (getOverview) as metrics",
  "app/api/incidents/export/route.ts": "the incident page's download: readIncidentExport, the page reader's streaming twin (checked below)",
  "app/api/live/route.ts": "the live stream of the screens' views: lib/live/read-view.ts reads each through its screen's loader (checked below)",
};

/** The readers of the screens the live stream carries (lib/live/view-names.ts), and the loader each calls. */
const LIVE_READERS: Record<string, string> = {
  readOverview: "loadOverview",
  readBotClear: "loadBotClear",
  readBreakerBoard: "loadBreakerBoard",
  readDoubtfulOrders: "loadDoubtfulOrders",
  readSymbolState: "loadSymbolState",
};

const SCREENS_MODULE = /import\s*{([^}]*)}\s*from\s*"(?:@\/lib|\.\.)\/queries\/screens"/;
const callsLoader = (text: string, loader: string) => {
  const imported =
    SCREENS_MODULE.exec(text)?.[1]
      ?.split(",")
      .map((s) => s.trim()) ?? [];
  return imported.includes(loader) && new RegExp(`\\b${loader}\\(`).test(text);
};

const filesUnder = (dir: string, name: string): string[] =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true })
    .map((f) => `${dir}/${String(f).split(path.sep).join("/")}`)
    .filter((f) => path.basename(f) === name);

describe("one loader per screen, shared by its page and its route", () => {
  for (const { loader, page, routes } of SCREENS) {
    it(`${page} and ${routes.join(", ")} both read through ${loader}`, () => {
      for (const file of [page, ...routes]) expect(callsLoader(read(file), loader), `${file} does not call ${loader} from lib/queries/screens`).toBe(true);
    });
  }

  it("the incident export reads through readIncidentExport, which chooses the window as the page's reader does", () => {
    const route = read("app/api/incidents/export/route.ts");
    expect(route).toMatch(/import \{ readIncidentExportRuns \} from "@\/lib\/queries\/incident-export";/);
    expect(route).toMatch(/\breadIncidentExportRuns\(/);
    // Which reads the window, or each half of it, through readIncidentExport and no other loader
    // (the export thread's half is the same timeline read, lib/incidents/export-worker.ts).
    const runs = read("lib/queries/incident-export.ts");
    expect(runs.match(/readIncidentExport\(/g)?.length).toBeGreaterThanOrEqual(3);
    expect(runs).not.toMatch(/\bload[A-Z]\w*\(|\bquery[A-Z]\w*\(/);
    expect(read("lib/incidents/export-worker.ts")).toMatch(
      /readIncidentTimeline\(\{ db, window: job\.window, filters: job\.filters, limit: job\.limit, names: job\.names \}\)/,
    );
    // Both loaders are the one window reader over a different timeline read: the window cannot differ.
    const screens = read("lib/queries/screens.ts");
    // The page folds the same timeline (its routine order events counted in SQL on SQLite, lib/queries/incidents.ts).
    expect(screens).toMatch(/export const loadIncidentWindow = incidentWindowWith\(queryFoldedIncidentTimeline\);/);
    expect(screens).toMatch(/export const loadIncidentExport = incidentWindowWith\(queryIncidentTimeline\);/);
    expect(screens).toMatch(/const incidentWindowWith =[\s\S]*?queryIncidentWindow\(q, now, from, to\)/);
    // Over several journals both go through one reader, which chooses one window for all of them.
    expect(screens).toMatch(/export function readIncidentWindow\([\s\S]*?readIncidentWindowWith\(\s*args,\s*\(ctx\) => loadIncidentWindow\(/);
    expect(screens).toMatch(/export function readIncidentExport\([\s\S]*?readIncidentWindowWith\(\s*args,\s*\(ctx\) => loadIncidentExport\(/);
    // Each incident reader calls its loader.
    expect(screens).toMatch(/export async function readIncidentList\([\s\S]*?loadIncidentList\(/);
    expect(screens).toMatch(/export async function readIncidentStory\([\s\S]*?loadIncidentStory\(/);
  });

  it("the live stream reads each view through the reader its JSON route calls, and each reader through its screen's loader", () => {
    const screens = read("lib/queries/screens.ts");
    for (const [reader, loader] of Object.entries(LIVE_READERS)) {
      expect(callsLoader(read("lib/live/read-view.ts"), reader), reader).toBe(true);
      const body = new RegExp(`export function ${reader}\\([\\s\\S]*?\\n}\\n`).exec(screens)?.[0] ?? "";
      expect(body, `${reader} calls ${loader}`).toMatch(new RegExp(`\\b${loader}\\(`));
    }
  });

  it("every JSON route is one of those screens' routes", () => {
    const known = new Set([...SCREENS.flatMap((s) => s.routes), ...Object.keys(NOT_SCREENS)]);
    expect(filesUnder("app/api", "route.ts").filter((f) => !known.has(f))).toEqual([]);
  });

  it("no page or route opens the journal itself", () => {
    const direct = [...filesUnder("app", "page.tsx"), ...filesUnder("app", "route.ts")].filter((f) => /lib\/db\//.test(read(f)));
    expect(direct, "read through readScreen (lib/queries/read) in a page, botJson, screenJson or screenResponse (lib/http) in a route").toEqual([]);
  });
});
