import { describe, expect, it } from "vitest";
import { incidentExportFilename } from "@/lib/incidents/export";
import { INCIDENT_KINDS, MAX_WINDOW_MS, kindsFilter, incidentHref, incidentWindowAround, parseIncidentQuery, shiftWindow } from "@/lib/url-state/incidents";

const q = (s: string) => parseIncidentQuery(new URLSearchParams(s));

describe("parseIncidentQuery", () => {
  it("accepts a window in UTC or with an offset, and normalises it to UTC with milliseconds", () => {
    expect(q("from=2026-08-10T15:30:00Z&to=2026-08-10T18:30:00.5%2B02:00")).toEqual({
      ok: true,
      from: "2026-08-10T15:30:00.000Z",
      to: "2026-08-10T16:30:00.500Z",
      bot: null,
      kinds: ["order", "reconciliation", "breaker", "operator"],
    });
  });

  it("refuses a reversed or empty window with a sentence that names `to`", () => {
    const r = q("from=2026-08-10T16:00:00Z&to=2026-08-10T15:00:00Z");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^to must be after from \(2026-08-10T16:00:00.000Z\)/);
    expect(r.fieldErrors.to).toHaveLength(1);
    expect(q("from=2026-08-10T16:00:00Z&to=2026-08-10T16:00:00Z").ok).toBe(false);
  });

  it("refuses a window wider than seven days, and says how wide it was", () => {
    const r = q("from=2026-08-01T00:00:00Z&to=2026-08-10T00:00:00Z");
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/window of 9 d 0 h; the widest allowed is 7 d 0 h/) });
    expect(q(`from=2026-08-01T00:00:00Z&to=${new Date(Date.parse("2026-08-01T00:00:00Z") + MAX_WINDOW_MS).toISOString()}`).ok).toBe(true);
  });

  it("reads a time typed as on the symbol page, with a space and no zone, as UTC", () => {
    expect(q("from=2026-08-10+15:30:00&to=2026-08-10T16:30")).toMatchObject({ ok: true, from: "2026-08-10T15:30:00.000Z", to: "2026-08-10T16:30:00.000Z" });
  });

  it("refuses a time it cannot read, a date without a time and an impossible date, without throwing", () => {
    for (const bad of [
      "yesterday",
      "2026-08-10",
      "2026-08-10T15",
      "2026-02-30T10:00:00Z",
      "2026-08-10T25:30:00Z",
      "2026-08-10T15:30:00Z'; DROP TABLE orders",
    ]) {
      const r = q(`from=${encodeURIComponent(bad)}`);
      expect(r, bad).toMatchObject({ ok: false, message: expect.stringMatching(/^from must be a UTC time such as/) });
    }
  });

  it("keeps what was typed for the form when refusing", () => {
    const r = q("from=nope&to=2026-08-10T15:00:00Z&bot=bot-a&kind=breaker");
    expect(r).toMatchObject({ ok: false, raw: { from: "nope", to: "2026-08-10T15:00:00Z", bot: "bot-a", kinds: ["breaker"] } });
  });

  it("refuses a parameter given twice and an unknown kind", () => {
    expect(q("from=2026-08-10T15:00:00Z&from=2026-08-10T16:00:00Z")).toMatchObject({ ok: false, message: expect.stringMatching(/from give from once/) });
    expect(q("kind=order&kind=trades")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^kind must be one of order, reconciliation, breaker, operator/),
    });
  });

  it("completes a window given by one end to an hour, and leaves an absent one to the journal", () => {
    expect(q("from=2026-08-10T15:00:00Z")).toMatchObject({ ok: true, from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" });
    expect(q("to=2026-08-10T15:00:00Z")).toMatchObject({ ok: true, from: "2026-08-10T14:00:00.000Z", to: "2026-08-10T15:00:00.000Z" });
    expect(q("")).toMatchObject({ ok: true, from: null, to: null });
    expect(q("from=&to=")).toMatchObject({ ok: true, from: null, to: null });
  });

  it("reads kinds repeated or comma-separated, in a fixed order", () => {
    expect(q("kind=operator&kind=order")).toMatchObject({ ok: true, kinds: ["order", "operator"] });
    expect(q("kind=breaker,reconciliation")).toMatchObject({ ok: true, kinds: ["reconciliation", "breaker"] });
  });

  it("reads Next's searchParams object as well as URLSearchParams", () => {
    expect(parseIncidentQuery({ from: "2026-08-10T15:00:00Z", bot: "bot-a", kind: ["order"] })).toMatchObject({ ok: true, bot: "bot-a", kinds: ["order"] });
  });
});

describe("incidentWindowAround", () => {
  const now = new Date("2026-08-10T18:00:00.000Z");

  it("runs from 15 min before the trip to 15 min after its clear, on minute edges", () => {
    expect(incidentWindowAround({ tripAt: "2026-08-10T15:30:30.250Z", endAt: "2026-08-10T15:32:30.000Z", now })).toEqual({
      from: "2026-08-10T15:15:00.000Z",
      to: "2026-08-10T15:48:00.000Z",
    });
  });

  it("runs to now while the halt is open, and at least 15 min past the trip", () => {
    expect(incidentWindowAround({ tripAt: "2026-08-10T17:00:00.000Z", endAt: null, now })).toEqual({
      from: "2026-08-10T16:45:00.000Z",
      to: "2026-08-10T18:00:00.000Z",
    });
    expect(incidentWindowAround({ tripAt: "2026-08-10T17:59:00.000Z", endAt: null, now }).to).toBe("2026-08-10T18:14:00.000Z");
  });

  it("reviews a halt longer than the widest window from its start, so the link is always accepted", () => {
    const w = incidentWindowAround({ tripAt: "2026-07-01T00:00:00.000Z", endAt: null, now });
    expect(Date.parse(w.to) - Date.parse(w.from)).toBe(MAX_WINDOW_MS);
    expect(parseIncidentQuery(new URLSearchParams(incidentHref(w).split("?")[1])).ok).toBe(true);
  });
});

describe("links and file names", () => {
  it("puts the window, the bot and a partial kind list in the URL, and leaves every-kind out", () => {
    const w = { from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" };
    expect(incidentHref(w, { bot: "bot a", kinds: ["order", "reconciliation", "breaker", "operator"] }, "breaker-1")).toBe(
      "/incidents?from=2026-08-10T15%3A00%3A00.000Z&to=2026-08-10T16%3A00%3A00.000Z&bot=bot+a#breaker-1",
    );
    expect(incidentHref(w, { kinds: ["breaker"] })).toContain("kind=breaker");
  });

  it("shifts a window by its own width", () => {
    const w = { from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" };
    expect(shiftWindow(w, -1)).toEqual({ from: "2026-08-10T14:00:00.000Z", to: "2026-08-10T15:00:00.000Z" });
    expect(shiftWindow(w, 1)).toEqual({ from: "2026-08-10T16:00:00.000Z", to: "2026-08-10T17:00:00.000Z" });
  });

  it("names an export driftwatch-incident-<from>-<to>.<ext> with nothing a path or a header could use", () => {
    expect(incidentExportFilename({ from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" }, "csv")).toBe(
      "driftwatch-incident-2026-08-10T15-00-00.000Z-2026-08-10T16-00-00.000Z.csv",
    );
    const evil = incidentExportFilename({ from: '../../etc/passwd"\r\nX-Evil: 1', to: "..\\..\\boot.ini" }, "json");
    expect(evil).toMatch(/^driftwatch-incident-[A-Za-z0-9._-]+\.json$/);
    expect(evil).not.toMatch(/\.\.|\/|\\|"|\r|\n/);
  });

  it("names a filtered export after its bot and kinds, so bot alpha's file and every bot's never share a name", () => {
    const w = { from: "2026-12-03T14:07:00.000Z", to: "2026-12-03T14:16:00.000Z" };
    const all = incidentExportFilename(w, "json", { filters: { bot: null, kinds: kindsFilter([...INCIDENT_KINDS]) } });
    expect(all).toBe("driftwatch-incident-2026-12-03T14-07-00.000Z-2026-12-03T14-16-00.000Z.json");
    expect(incidentExportFilename(w, "json", { filters: { bot: "alpha", kinds: kindsFilter([...INCIDENT_KINDS]) } })).toBe(
      "driftwatch-incident-2026-12-03T14-07-00.000Z-2026-12-03T14-16-00.000Z_bot-alpha.json",
    );
    expect(incidentExportFilename(w, "csv", { filters: { bot: "alpha", kinds: ["breaker", "operator"] }, incomplete: true })).toBe(
      "driftwatch-incident-2026-12-03T14-07-00.000Z-2026-12-03T14-16-00.000Z_bot-alpha_kind-breaker-operator-incomplete.csv",
    );
    expect(incidentExportFilename(w, "json", { filters: { bot: null, kinds: ["order"] } })).toBe(
      "driftwatch-incident-2026-12-03T14-07-00.000Z-2026-12-03T14-16-00.000Z_kind-order.json",
    );
    // A bot's own `_` cannot pose as the kinds' part; a path in a bot id stays out of the name.
    expect(incidentExportFilename(w, "json", { filters: { bot: "a_kind-order", kinds: [] } })).toMatch(/_bot-a-kind-order\.json$/);
    const evil = incidentExportFilename(w, "json", { filters: { bot: '../../x"\r\n', kinds: [] } });
    expect(evil).toMatch(/^driftwatch-incident-[A-Za-z0-9._-]+\.json$/);
    expect(evil).not.toMatch(/\.\.|\/|\\|"|\r|\n/);
  });
});
