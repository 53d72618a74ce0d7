/**
 * The incident review of a busy hour: two bots filling about a thousand orders an hour each, as in
 * the benchmark's reference journal, with trips, acknowledgements, a clear and doubtful orders.
 * Busy minutes show what went wrong and what people did, count the routine rest on one line, and
 * open whole on request; nothing of the hour is left out.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { writeReferenceJournal } from "@/tools/bench/reference-journal";
import type { IncidentEvent } from "@/lib/incidents/events";
import { isRoutine, unchangedDrifts } from "@/lib/incidents/fold";
import { migrationsDir, tempDir } from "../helpers/journal";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const minuteOf = (at: string) => Math.floor(Date.parse(at) / 60_000);

test.describe("the incident review of a busy hour", () => {
  let server: ConsoleServer;
  let file: string;
  /** The try-out's minute: one lookup failing every 2.5 s, 23 times in one minute. */
  let lookupMinute: string;
  const LOOKUP_ERRORS = 23;

  test.beforeAll(async () => {
    ({ file } = writeReferenceJournal({
      file: `${tempDir("e2e-busy")}/journal.db`,
      days: 0.05,
      symbolsPerBot: 10,
      ordersPerDay: 24_000,
      driftsPerDay: 400,
      seed: 7,
      migrationsDir,
    }));
    const w = new Database(file);
    const latest = (w.prepare(`SELECT max(at) AS at FROM order_events`).get() as { at: string }).at;
    // A minute of the last hour with no other notable event, which would end the run (the reference
    // journal's drifts, timeouts and trips land wherever its clock puts them): from 5 min before its end, back.
    const quiet = w.prepare(
      `SELECT (SELECT count(*) FROM order_events e JOIN orders o USING (client_order_id)
                WHERE e.at >= ? AND e.at < ? AND (e.kind NOT IN ('intent', 'send', 'status') OR o.strategy = 'reconcile'
                      OR instr(e.detail, 'unknown') > 0 OR instr(e.detail, 'rejected') > 0))
            + (SELECT count(*) FROM reconciliations WHERE at >= ? AND at < ? AND outcome NOT IN ('clean', 'skipped'))
            + (SELECT count(*) FROM breaker_events WHERE at >= ? AND at < ?) AS n`,
    );
    let start = Math.floor(Date.parse(latest) / 60_000) * 60_000 - 5 * 60_000;
    const busy = (t: number) => {
      const [a, b] = [new Date(t).toISOString(), new Date(t + 60_000).toISOString()];
      return (quiet.get(a, b, a, b, a, b) as { n: number }).n > 0;
    };
    for (let tries = 0; busy(start) && tries < 40; tries++) start -= 60_000;
    expect(busy(start), "no quiet minute in the reference journal's last hour").toBe(false);
    lookupMinute = new Date(start).toISOString().slice(0, 16);
    const at = (i: number) => new Date(start + 500 + i * 2_500).toISOString();
    w.prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) VALUES ('lookup-98', 'alpha', 'trend', 'SOLUSDT', 'buy', 98, ?, 'sent', ?, ?)`,
    ).run(at(0), at(0), at(0));
    const error = w.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES ('lookup-98', ?, 'error', 'bot', ?)`);
    for (let i = 0; i < LOOKUP_ERRORS; i++) error.run(at(i), JSON.stringify({ during: "lookup", error: "lookup failed: venue answered 503" }));
    w.close();
    server = await startConsole({ journal: file });
  });
  test.afterAll(async () => server?.stop());

  /** The page's own JSON export of its window: every event, in the page's order. */
  async function exported(page: import("@playwright/test").Page, request: import("@playwright/test").APIRequestContext): Promise<IncidentEvent[]> {
    const href = await page.getByTestId("export-json").getAttribute("href");
    const res = await request.get(server.url + href);
    expect(res.status()).toBe(200);
    return ((await res.json()) as { events: IncidentEvent[] }).events;
  }

  /** Opens every run of quiet minutes, so each minute's own line and button is on show. */
  async function openQuietRuns(page: import("@playwright/test").Page) {
    for (const summary of await page.getByTestId("quiet-run-minutes").locator(":scope > summary").all()) await summary.click();
  }

  test("busy minutes in a row with nothing notable are one block, counted together, each of its minutes a click away", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    const all = await exported(page, request);
    const run = page.getByTestId("quiet-run").first();
    const minutes = run.getByTestId("incident-minute");
    const n = await minutes.count();
    expect(n).toBeGreaterThanOrEqual(2);
    await expect(minutes.first()).toBeHidden();
    // Its counts are its minutes' share of the export, every one of them routine.
    const names = (await minutes.locator("h3").allTextContents()).map((t) => /^(\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(t)![1]);
    const inRun = all.filter((e) => names.includes(e.at.slice(0, 16).replace("T", " ")));
    expect(inRun.every((e) => isRoutine(e) || unchangedDrifts(all).has(e.id))).toBe(true);
    const heading = run.locator(":scope > h3");
    await expect(heading).toHaveText(
      `${names[0]}–${names.at(-1)!.slice(names[0]!.slice(0, 10) === names.at(-1)!.slice(0, 10) ? 11 : 0)} UTC${n} minutes, ${inRun.length.toLocaleString("en-US")} events, none notable`,
    );
    await expect(run.getByTestId("quiet-run-routine")).toHaveText(new RegExp(`^${inRun.length.toLocaleString("en-US")} routine events folded: \\d`));
    // Its JSON is exactly its events.
    const href = await run.getByTestId("quiet-run-routine").getByRole("link", { name: "as JSON" }).getAttribute("href");
    const runFile = (await (await request.get(server.url + href)).json()) as { events: IncidentEvent[] };
    expect(runFile.events.map((e) => e.id)).toEqual(inRun.map((e) => e.id));
    // Opened, each minute is there with its own line, and opens whole.
    await run.getByTestId("quiet-run-minutes").locator(":scope > summary").click();
    await expect(minutes.first()).toBeVisible();
    await minutes
      .first()
      .getByRole("button", { name: /^Show all [\d,]+ events of this minute$/ })
      .click();
    await expect(minutes.first().getByTestId("minute-all-events").getByTestId("incident-event").first()).toBeVisible({ timeout: 15_000 });
  });

  test("busy minutes show every notable event and count the rest; every event of the hour is accounted for", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    await expect(page.getByTestId("window-summary")).toContainText("showing the last hour");
    const all = await exported(page, request);
    const unchanged = unchangedDrifts(all);
    const notable = all.filter((e) => !isRoutine(e) && !unchanged.has(e.id));
    expect(all.length).toBeGreaterThan(3_000);
    expect(notable.some((e) => e.source === "breaker" && e.kind === "trip")).toBe(true);
    expect(notable.some((e) => e.source === "audit")).toBe(true);

    await expect(page.getByTestId("window-counts")).toContainText(`${all.length.toLocaleString("en-US")} events`);
    await expect(page.getByTestId("fold-note")).toBeVisible();
    // Every trip, drift, timeout, unknown order and operator action is on the page, by its anchor:
    // shown, or one of a line of events that say the same thing, a click away.
    for (const e of notable) {
      const row = page.locator(`[id="${e.id}"]`);
      if (await row.isVisible()) continue;
      await expect(page.getByTestId("repeat-events").filter({ has: row }), `${e.id}: ${e.summary}`).toHaveCount(1);
    }

    // Each minute's header count is its share of the export; the folded line counts the rest.
    const perMinute = new Map<number, IncidentEvent[]>();
    for (const e of all) perMinute.set(minuteOf(e.at), [...(perMinute.get(minuteOf(e.at)) ?? []), e]);
    const headers = await page.getByTestId("incident-minute").locator("h3").allTextContents();
    expect(headers).toHaveLength(perMinute.size);
    // A console's halt or clear is one row: its audit entry is told on its breaker event's row.
    const shownRows = (await page.getByTestId("incident-event").count()) + (await page.getByTestId("incident-event-audit").count());
    const folded = await page.getByTestId("folded-routine").allTextContents();
    const foldedCount = folded.reduce((n, t) => n + Number(/^([\d,]+) routine events folded/.exec(t)?.[1]?.replaceAll(",", "") ?? NaN), 0);
    expect(shownRows + foldedCount).toBe(all.length);
    // …and one operator action of the window's.
    const told = await page.getByTestId("incident-event-audit").count();
    await expect(page.getByTestId("window-counts")).toContainText(`${all.filter((e) => e.operator).length - told} operator action`);
    expect(shownRows).toBeLessThan(all.length / 10);
  });

  test("a lookup failing 23 times in a minute is one line, ×23 with its first and last time, each of the 23 a click away", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    const errors = (await exported(page, request)).filter((e) => e.clientOrderId === "lookup-98");
    expect(errors).toHaveLength(LOOKUP_ERRORS);
    const minute = page.getByTestId("incident-minute").filter({ has: page.locator("h3", { hasText: lookupMinute.replace("T", " ") }) });
    const line = minute.locator(`[id="${errors[0]!.id}"]`);
    await expect(line).toBeVisible();
    await expect(line).toHaveAttribute("data-count", String(LOOKUP_ERRORS));
    await expect(line.getByTestId("repeat-count")).toHaveText(`×${LOOKUP_ERRORS}`);
    await expect(line.getByTestId("repeat-last")).toHaveText(`–${errors.at(-1)!.at.slice(11, 23)}`);
    await expect(line).toContainText("error on buy 98 SOLUSDT during lookup: lookup failed: venue answered 503");
    // One line tall, not 23.
    for (const e of errors.slice(1)) await expect(minute.locator(`[id="${e.id}"]`)).toBeHidden();
    const repeats = minute.getByTestId("repeat-events");
    await repeats.locator(":scope > summary").click();
    const rows = repeats.getByTestId("incident-event");
    await expect(rows).toHaveCount(LOOKUP_ERRORS - 1);
    expect(await rows.evaluateAll((els) => els.map((e) => e.id))).toEqual(errors.slice(1).map((e) => e.id));
    await expect(rows.last()).toBeVisible();

    // A link to one of them opens its line.
    await page.goto(`${server.url}/incidents?view=window#${errors[10]!.id}`);
    await expect(page.locator(`[id="${errors[10]!.id}"]`)).toBeVisible();
  });

  test("opening a folded minute shows all its events in time order, as the export has them, and folds back", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    await openQuietRuns(page);
    const all = await exported(page, request);
    // By its heading: once open, the minute no longer holds a folded line.
    const heading = page
      .getByTestId("incident-minute")
      .filter({ has: page.getByTestId("folded-routine") })
      .first()
      .locator("h3");
    const minute = page.locator(`section[aria-labelledby="${await heading.getAttribute("id")}"]`);
    const title = (await minute.locator("h3").textContent()) ?? "";
    const [, hhmm] = /(\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(title) ?? [];
    const expected = all.filter((e) => e.at.slice(0, 16).replace("T", " ") === hhmm);
    expect(expected.length).toBeGreaterThan(20);

    const open = minute.getByRole("button", { name: `Show all ${expected.length.toLocaleString("en-US")} events of this minute` });
    await expect(open).toHaveAttribute("aria-expanded", "false");
    await open.click();
    const rows = minute.getByTestId("minute-all-events").getByTestId("incident-event");
    await expect(rows).toHaveCount(expected.length);
    expect(await rows.evaluateAll((els) => els.map((e) => e.id))).toEqual(expected.map((e) => e.id));

    const close = minute.getByRole("button", { name: /^Fold the [\d,]+ routine events again$/ });
    await expect(close).toHaveAttribute("aria-expanded", "true");
    await close.click();
    await expect(minute.getByTestId("folded-routine")).toBeVisible();
    await expect(minute.getByTestId("minute-all-events")).toHaveCount(0);
  });

  test("a minute that cannot be loaded says why, changes nothing, and loads on a retry", async ({ page }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    await openQuietRuns(page);
    const heading = page
      .getByTestId("incident-minute")
      .filter({ has: page.getByTestId("folded-routine") })
      .first()
      .locator("h3");
    const minute = page.locator(`section[aria-labelledby="${await heading.getAttribute("id")}"]`);
    const open = minute.getByRole("button", { name: /^Show all [\d,]+ events of this minute$/ });
    // The journal moved away after the page was drawn: the export of the minute answers 503.
    const away = path.join(tempDir("e2e-busy-away"), "journal.db");
    fs.renameSync(file, away);
    try {
      await open.click();
      const alert = minute.getByRole("alert");
      await expect(alert).toContainText("Could not load this minute's events: journal");
      await expect(alert).toContainText("deleted or moved away");
      await expect(alert).not.toContainText(/\n\s*at |node_modules/);
      await expect(minute.getByTestId("folded-routine")).toBeVisible();
    } finally {
      fs.renameSync(away, file);
    }
    await open.click();
    await expect(minute.getByTestId("minute-all-events").getByTestId("incident-event").first()).toBeVisible({ timeout: 15_000 });
    await expect(minute.getByRole("alert")).toHaveCount(0);
  });

  test("the folded page fits a 390 px phone and has no serious axe violation", async ({ browser }) => {
    test.setTimeout(120_000);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/incidents?view=window`);
      await expect(page.getByTestId("fold-note")).toBeVisible();
      await noHorizontalScroll(page);
      await noSeriousAxeViolations(page);
      // Opened, a run's heading does not pin itself under its minutes' pinned headings (the two piled
      // up, a try-out), and each control of a minute is a finger's 24 px.
      await openQuietRuns(page);
      await expect(page.getByTestId("quiet-run").first().locator(":scope > h3")).toHaveCSS("position", "static");
      await expect(page.getByTestId("incident-minute").first().locator("h3")).toHaveCSS("position", "sticky");
      const minute = page
        .getByTestId("incident-minute")
        .filter({ has: page.getByTestId("folded-routine") })
        .first();
      await expect(minute.locator("h3")).toContainText(/ events, (none|\d+) notable$/);
      for (const control of [
        minute.getByRole("link", { name: "as JSON" }),
        minute.getByRole("button", { name: /^Show all/ }),
        page.getByTestId("quiet-run-minutes").first().locator(":scope > summary"),
      ])
        expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(24);
      await expect(
        page
          .getByTestId("incident-minute")
          .locator("h3")
          .filter({ hasText: /, 0 notable$/ }),
      ).toHaveCount(0);
    } finally {
      await context.close();
    }
  });
});
