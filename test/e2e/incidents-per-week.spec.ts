/**
 * The incidents-per-week chart on /incidents over eight weeks: on a phone (390 px) the first bar and
 * the last carry their week's label (recharts thinned the labels from the right and dropped the
 * first), and at 1280 px every week is labelled.
 */
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { weekStart } from "@/lib/incidents/story";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { migratedJournal } from "../helpers/journal";

const WEEKS = 8;
const WEEK_MS = 7 * 86_400_000;

test.describe("the incidents-per-week chart", () => {
  let server: ConsoleServer;
  /** Each week's label as the axis writes it (`MM-DD` of its Monday), oldest first. */
  const labels: string[] = [];

  test.beforeAll(async () => {
    // One bot, one to three trips on the Tuesday of each of the last eight weeks, each cleared by an operator minutes later.
    const file = migratedJournal("per-week");
    const db = new Database(file);
    const now = new Date().toISOString();
    db.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('alpha', 'sim', 'a1', ?)`).run(now);
    db.prepare(`INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('alpha', 0, ?, 'bot')`).run(now);
    const event = db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('alpha', ?, ?, ?, ?, NULL)`);
    const thisMonday = Date.parse(weekStart(now));
    for (let w = WEEKS; w >= 1; w--) {
      const monday = thisMonday - w * WEEK_MS;
      for (let k = 0; k <= w % 3; k++) {
        const at = monday + 86_400_000 + (10 + k) * 3_600_000;
        event.run(new Date(at).toISOString(), "trip", "size drift on BTCUSDT", "bot");
        event.run(new Date(at + (5 + w) * 60_000).toISOString(), "clear", "book corrected", "operator:ana");
      }
      // "Nov 30", not "11-30": a numeric day reads as day-month to half the world.
      labels.push(`${new Date(monday).toLocaleString("en-US", { month: "short", timeZone: "UTC" })} ${new Date(monday).getUTCDate()}`);
    }
    db.close();
    server = await startConsole({ journal: file });
  });
  test.afterAll(async () => server?.stop());

  const axisLabels = (page: import("@playwright/test").Page) =>
    page.getByTestId("incidents-per-week").locator('.recharts-cartesian-axis-tick-value[orientation="bottom"]').allTextContents();

  test("labels the first and the last week's bars on a phone, and every week's at 1280 px", async ({ page }) => {
    expect(new Set(labels).size).toBe(WEEKS);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/incidents`);
    const chart = page.getByTestId("incidents-per-week");
    await expect(chart.locator(".recharts-bar-rectangle")).toHaveCount(WEEKS);
    // Too narrow for eight labels: some are left out, never the first or the last.
    await expect.poll(() => axisLabels(page)).toEqual(expect.arrayContaining([labels[0], labels.at(-1)]));
    const phone = await axisLabels(page);
    expect(phone[0]).toBe(labels[0]);
    expect(phone.at(-1)).toBe(labels.at(-1));
    await chart.screenshot({ path: test.info().outputPath("incidents-per-week-390.png") });
    // The minutes axis says minutes ("2 min", never "2m", read as a million).
    const minutes = await chart.locator('.recharts-cartesian-axis-tick-value[orientation="right"]').allTextContents();
    expect(minutes.length).toBeGreaterThan(1);
    for (const t of minutes) expect(t).toMatch(/^\d+(\.\d+)? min$/);

    await page.setViewportSize({ width: 1280, height: 900 });
    await expect.poll(() => axisLabels(page)).toEqual(labels);
    await chart.screenshot({ path: test.info().outputPath("incidents-per-week-1280.png") });
  });
});
