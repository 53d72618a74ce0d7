/**
 * The incident told as a story, on the journal of the demo run: bot-b loses the reply to a
 * buy, its lookups fail every 20 s for 39 minutes, an operator acknowledges the drift after 5
 * minutes, settles the order by hand and another clears the halt. The review fits two screens
 * with its summary first, and exports as a Markdown post-mortem.
 */
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { ACK_NOTE, CLEAR_NOTE, LONG_STORY, RESOLVE_NOTE, writeIncidentScenario, type IncidentScenario } from "../helpers/incident-journal";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { markerLabelsApart } from "../helpers/e2e/chart";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

test.describe("the incident as a story", () => {
  let server: ConsoleServer;
  let scenario: IncidentScenario;

  test.beforeAll(async () => {
    scenario = await writeIncidentScenario({ startAt: new Date(Date.now() - 60 * 60_000), longLostOrder: true });
    scenario.close();
    server = await startConsole({ journal: scenario.file });
  });
  test.afterAll(async () => server?.stop());

  const documentHeight = (page: import("@playwright/test").Page) => page.evaluate(() => document.documentElement.scrollHeight);

  test("the list shows each incident newest first with its durations, a chart per week, and filters by bot", async ({ page }) => {
    await page.goto(`${server.url}/incidents`);
    await expect(page.getByRole("heading", { name: "Incidents", level: 1 })).toBeVisible();
    const rows = page.locator("main").getByTestId("incident-row");
    await expect(rows).toHaveCount(2);
    // The numbers are the trips' breaker events: the list says why they skip.
    await expect(page.getByTestId("incident-numbering")).toContainText("so the numbers skip the clears");
    const ids = await rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-incident"))));
    expect(ids).toEqual([scenario.botA.tripId, scenario.botB.tripId].sort((a, b) => b - a));
    const b = page.locator(`[data-testid="incident-row"][data-incident="${scenario.botB.tripId}"]`);
    await expect(b).toHaveAttribute("data-status", "cleared");
    await expect(b.getByTestId("incident-row-cause")).toContainText(`order ${scenario.botB.clientOrderId} unknown`);
    await expect(b.getByTestId("row-first-action")).toHaveText("after 5 min 0 s");
    await expect(b.getByTestId("row-clear")).toHaveText("cleared after 40 min 30 s");
    const a = page.locator(`[data-testid="incident-row"][data-incident="${scenario.botA.tripId}"]`);
    await expect(a.getByTestId("row-clear")).toHaveText("cleared after 2 min 0 s");
    // On a phone a duration is never split over two lines ("cleared after 2 min / 45 s").
    await page.setViewportSize({ width: 390, height: 844 });
    const durations = await rows.locator("[data-duration]").evaluateAll((els) => els.map((e) => [getComputedStyle(e).whiteSpace, e.getClientRects().length]));
    expect(durations.length).toBeGreaterThanOrEqual(4);
    for (const d of durations) expect(d).toEqual(["nowrap", 1]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByTestId("incidents-per-week").locator(".recharts-bar-rectangle").first()).toBeVisible();
    fs.mkdirSync("test-results/screenshots", { recursive: true });
    await page.screenshot({ path: "test-results/screenshots/incident-list.png", fullPage: true });

    await page.goto(`${server.url}/incidents?bot=bot-a`);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-incident", String(scenario.botA.tripId));

    // The minute-by-minute window is one link away.
    await page.getByTestId("last-hour").click();
    await expect(page.getByTestId("window-summary")).toContainText("bot bot-a only");
  });

  test("at 1280×800 the incident page fits two screens, summary first, with its durations, notes in full, and 117 failed lookups on one row", async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/incidents`);
    await page.locator(`[data-testid="incident-row"][data-incident="${scenario.botB.tripId}"] a`).first().click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${scenario.botB.tripId}$`));
    const main = page.locator("main");
    await expect(main.getByTestId("incident-status")).toHaveText("CLEARED");
    await expect(main.getByTestId("incident-cause")).toContainText(`order ${scenario.botB.clientOrderId} unknown`);
    await expect(main.getByTestId("incident-order")).toContainText("settled as filled by operator");
    await expect(main.getByTestId("time-to-first-action")).toHaveText("5 min 0 s");
    await expect(main.getByTestId("time-to-settle")).toHaveText(`${Math.floor(LONG_STORY.resolveAfterS / 60)} min ${LONG_STORY.resolveAfterS % 60} s`);
    await expect(main.getByTestId("time-to-clear")).toHaveText("40 min 30 s");
    // Notes shown whole, line breaks kept, not behind a "detail".
    const notes = main.getByTestId("step-note");
    await expect(notes).toHaveCount(3);
    expect(await notes.allInnerTexts()).toEqual([ACK_NOTE, RESOLVE_NOTE, CLEAR_NOTE]);

    // The chart of ETHUSDT with the trip, the acknowledgement and the clear marked.
    const chart = main.getByTestId("position-chart");
    await expect(chart.locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    await expect(chart.locator(".recharts-reference-line.breaker-trip")).toHaveCount(1);
    await expect(chart.locator(".recharts-reference-line.mark-acknowledge")).toHaveCount(1);
    await expect(chart.locator(".recharts-reference-line.breaker-clear")).toHaveCount(1);
    await markerLabelsApart(chart);

    // The timeline: open on a wide screen, the failed lookups one row with a count and first–last time.
    const timeline = main.getByTestId("story-timeline");
    await expect(timeline).toHaveAttribute("open", "");
    const lookups = timeline.locator('[data-testid="story-event"][data-kind="error"]');
    await expect(lookups).toHaveCount(1);
    expect(Number(await lookups.getAttribute("data-count"))).toBeGreaterThanOrEqual(LONG_STORY.lookups);
    await expect(lookups).toContainText(/\d\d:\d\d:\d\d–\d\d:\d\d:\d\d/);
    await expect(lookups.getByTestId("repeat-count")).toHaveText(/^×\d+$/);
    // The drift's row counts every cycle that saw it (one every third lookup), not only the cycles
    // that were notable; none of them is left in the routine count.
    const drift = timeline.locator('[data-testid="story-event"][data-kind="drift"]');
    await expect(drift).toHaveCount(1);
    expect(Number(await drift.getAttribute("data-count"))).toBeGreaterThanOrEqual(LONG_STORY.lookups / 3);
    await expect(drift.getByTestId("repeat-count")).toHaveText(/^×\d+ cycles$/);
    await expect(timeline.getByTestId("routine-count")).not.toContainText("drift cycles unchanged");
    // Every line's words start at one edge, whether its time is one or a first–last pair.
    const wordsLeft = await timeline
      .getByTestId("story-event")
      .evaluateAll((rows) => rows.map((row) => Math.round((row.children[1] as HTMLElement).getBoundingClientRect().left)));
    expect(new Set(wordsLeft).size).toBe(1);

    // Summary first, then the chart, then the timeline; the whole page within two screens.
    const top = async (testId: string) => (await main.getByTestId(testId).boundingBox())!.y;
    const summaryTop = await top("incident-summary");
    expect(summaryTop).toBeLessThan(800);
    expect(summaryTop).toBeLessThan(await top("position-chart"));
    expect(await top("position-chart")).toBeLessThan(await top("story-timeline"));
    expect(await documentHeight(page)).toBeLessThanOrEqual(1600);
    fs.mkdirSync("test-results/screenshots", { recursive: true });
    await page.screenshot({ path: "test-results/screenshots/incident-story.png", fullPage: true });
  });

  test("at 390 px the page stays short: the timeline folds behind its summary line, nothing scrolls sideways, no serious axe violation", async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme, viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}/incidents/${scenario.botB.tripId}`);
        const main = page.locator("main");
        await expect(main.getByTestId("time-to-clear")).toHaveText("40 min 30 s");
        await expect(main.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
        await expect(main.getByTestId("story-timeline")).not.toHaveAttribute("open", "");
        expect(await documentHeight(page)).toBeLessThanOrEqual(3 * 844);
        await noHorizontalScroll(page);
        await noSeriousAxeViolations(page, { colorsOnly: colorScheme === "dark" });
        await page.screenshot({ path: `test-results/screenshots/incident-story-390${colorScheme === "dark" ? "-dark" : ""}.png`, fullPage: true });
        // Opened, it lists the same rows.
        await main.getByTestId("story-timeline").locator("summary").click();
        await expect(main.locator('[data-testid="story-event"][data-kind="error"]')).toBeVisible();

        await page.goto(`${server.url}/incidents`);
        await expect(main.getByTestId("incident-row")).toHaveCount(2);
        await noHorizontalScroll(page);
        await noSeriousAxeViolations(page, { colorsOnly: colorScheme === "dark" });
      } finally {
        await context.close();
      }
    }
  });

  test("the post-mortem downloads as Markdown: summary, notes, the collapsed timeline, and roles instead of names for a reader not signed in", async ({
    page,
    request,
  }) => {
    await page.goto(`${server.url}/incidents/${scenario.botB.tripId}`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("main").getByTestId("postmortem").click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^driftwatch-incident-\\d{4}-\\d\\d-\\d\\dT\\d{4}Z_${scenario.botB.tripId}_bot-b\\.md$`));
    const text = fs.readFileSync(await download.path(), "utf8");
    expect(text).toMatch(new RegExp(`^# Incident ${scenario.botB.tripId}: bot-b halted, order ${scenario.botB.clientOrderId} unknown`));
    expect(text).toContain("- **Time to first operator action:** 5 min 0 s (operator acknowledged the drift on ETHUSDT)");
    expect(text).toContain("- **Time to clear:** 40 min 30 s");
    expect(text).toContain(`   > ${RESOLVE_NOTE.split("\n")[0]}\n   > ${RESOLVE_NOTE.split("\n")[1]}`);
    expect(text).toMatch(/ ×\d{3}$/m);
    expect(text).not.toMatch(/operator:(ana|ben)/);

    const res = await request.get(`${server.url}/api/incidents/${scenario.botB.tripId}/postmortem`);
    expect(res.headers()["content-type"]).toBe("text/markdown; charset=utf-8");
    expect((await request.get(`${server.url}/api/incidents/999999/postmortem`)).status()).toBe(404);
    expect((await request.get(`${server.url}/api/incidents/abc/postmortem`)).status()).toBe(400);
  });

  test("a clear's number is no incident: the page says so and opens the incident that clear ended", async ({ page }) => {
    // An export names a clear `breaker-<n>`, as it names a trip; a reviewer who types that number means the incident it ended.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/incidents/${scenario.botA.clearId}`);
    const here = page.getByTestId("clear-not-incident");
    await expect(here.getByRole("heading", { level: 1 })).toHaveText(`No incident ${scenario.botA.clearId}: that number is a clear`);
    await expect(here).toContainText(`Breaker event ${scenario.botA.clearId} cleared bot-a at`);
    await noHorizontalScroll(page);
    fs.mkdirSync("test-results/screenshots", { recursive: true });
    await page.screenshot({ path: "test-results/screenshots/incident-clear-number-phone.png", fullPage: true });
    await here.getByTestId("cleared-incident").click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${scenario.botA.tripId}$`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`Incident ${scenario.botA.tripId}: bot-a`);
    // bot-a wrote no cycle from its trip to the clear: the story says so (its timeline holds nothing of that time).
    await expect(page.getByTestId("story-silences").getByTestId("cycle-silence")).toHaveText(
      /^bot-a wrote no reconciliation for 2\smin\s0\ss: from its cycle at \d\d:\d\d:\d\d UTC to the clear \(its cycles are 15\ss apart in this window\)\./,
    );
    await noHorizontalScroll(page);
  });

  test("an id that is no incident is a 404; the minute-by-minute link opens the window around the incident, whose trip links back", async ({ page }) => {
    expect((await page.goto(`${server.url}/incidents/999999`))?.status()).toBe(404);
    await expect(page).toHaveTitle(/(^|· )Incident 999999 · driftwatch$/);
    expect((await page.goto(`${server.url}/incidents/abc`))?.status()).toBe(404);
    // An id that cannot name an incident is not echoed as one.
    await expect(page).toHaveTitle(/(^|· )No such incident · driftwatch$/);
    await expect(page.getByTestId("no-such-incident")).toContainText("No incident has this id: no trip of any bot has that number");
    for (const bad of ["12abc", "-1", "0", "1e3", "%00", "9".repeat(40)]) {
      expect((await page.goto(`${server.url}/incidents/${bad}`))?.status(), bad).toBe(404);
      expect((await page.request.get(`${server.url}/api/incidents/${bad}/postmortem`)).status(), bad).toBe(400);
    }
    await page.goto(`${server.url}/incidents/${scenario.botA.tripId}`);
    await page.locator("main").getByTestId("minute-by-minute").click();
    // At the trip: on a phone the window's form alone fills the first screen.
    await expect(page).toHaveURL(new RegExp(`/incidents\\?from=.*&bot=bot-a#breaker-${scenario.botA.tripId}$`));
    await expect(page.locator(`#breaker-${scenario.botA.tripId}`)).toContainText("BREAKER TRIPPED by bot: unknown position ETHUSDT +3");
    await expect(page.locator(`#breaker-${scenario.botA.tripId}`)).toBeInViewport();
    // And back: the trip in the window links to its story.
    await page.locator(`#breaker-${scenario.botA.tripId}`).getByTestId("incident-story-link").click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${scenario.botA.tripId}$`));
    await expect(page.locator("main").getByTestId("time-to-clear")).toHaveText("2 min 0 s");
  });
});
