/**
 * The incident review of a busy hour: two bots filling about a thousand orders an hour each, as in
 * the benchmark's reference journal, with trips, acknowledgements, a clear and doubtful orders.
 * Busy minutes show what went wrong and what people did, count the routine rest on one line, and
 * open whole on request; nothing of the hour is left out.
 */
import fs from "node:fs";
import path from "node:path";
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
    // Every trip, drift, timeout, unknown order and operator action is on the page, by its anchor.
    for (const e of notable) await expect(page.locator(`[id="${e.id}"]`), `${e.id}: ${e.summary}`).toBeVisible();

    // Each minute's header count is its share of the export; the folded line counts the rest.
    const perMinute = new Map<number, IncidentEvent[]>();
    for (const e of all) perMinute.set(minuteOf(e.at), [...(perMinute.get(minuteOf(e.at)) ?? []), e]);
    const headers = await page.getByTestId("incident-minute").locator("h3").allTextContents();
    expect(headers).toHaveLength(perMinute.size);
    const shownRows = await page.getByTestId("incident-event").count();
    const folded = await page.getByTestId("folded-routine").allTextContents();
    const foldedCount = folded.reduce((n, t) => n + Number(/^([\d,]+) routine events folded/.exec(t)?.[1]?.replaceAll(",", "") ?? NaN), 0);
    expect(shownRows + foldedCount).toBe(all.length);
    expect(shownRows).toBeLessThan(all.length / 10);
  });

  test("opening a folded minute shows all its events in time order, as the export has them, and folds back", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
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
    } finally {
      await context.close();
    }
  });
});
