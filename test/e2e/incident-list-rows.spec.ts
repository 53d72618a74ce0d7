/**
 * /incidents with more incidents than it lists at once: the newest 50 rows, a link to all of them,
 * and the weekly chart counting every one either way. The reference journal's 500 rows were 671 KB
 * of HTML, a long page on a phone.
 */
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { INCIDENT_ROWS_SHOWN } from "@/lib/url-state/incidents";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { migratedJournal } from "../helpers/journal";

const INCIDENTS = INCIDENT_ROWS_SHOWN + 12;

test.describe("the list of incidents, longer than a page", () => {
  let server: ConsoleServer;
  /** Trip ids, newest first. */
  const trips: number[] = [];

  test.beforeAll(async () => {
    // One bot, a trip every three hours over the last week or so, each cleared by an operator.
    const file = migratedJournal("list-rows");
    const db = new Database(file);
    const now = Date.now();
    db.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('alpha', 'sim', 'a1', ?)`).run(new Date(now).toISOString());
    db.prepare(`INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('alpha', 0, ?, 'bot')`).run(new Date(now).toISOString());
    const event = db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('alpha', ?, ?, ?, ?, NULL)`);
    for (let i = INCIDENTS; i >= 1; i--) {
      const at = now - i * 3 * 3_600_000;
      trips.unshift(Number(event.run(new Date(at).toISOString(), "trip", `size drift on BTCUSDT, incident ${INCIDENTS - i + 1}`, "bot").lastInsertRowid));
      event.run(new Date(at + 10 * 60_000).toISOString(), "clear", "book corrected", "operator:ana");
    }
    db.close();
    server = await startConsole({ journal: file });
  });
  test.afterAll(async () => server?.stop());

  test("shows the newest 50, says how many there are, and shows every one from its link, the bot filter kept", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/incidents`);
    const rows = page.getByTestId("incident-row");
    await expect(rows).toHaveCount(INCIDENT_ROWS_SHOWN);
    await expect(rows.first()).toHaveAttribute("data-incident", String(trips[0]));
    await expect(rows.last()).toHaveAttribute("data-incident", String(trips[INCIDENT_ROWS_SHOWN - 1]));
    await expect(page.getByRole("heading", { name: `${INCIDENTS} incidents, newest first: the newest ${INCIDENT_ROWS_SHOWN} below` })).toBeVisible();
    // The chart counts every incident, not only the rows shown.
    const bars = page.getByTestId("incidents-per-week").locator(".recharts-bar-rectangle");
    await expect(bars.first()).toBeVisible();
    const perWeek = await page.getByTestId("incidents-per-week").getAttribute("aria-label");
    const counted = [...(perWeek ?? "").matchAll(/: (\d+) incidents/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(counted).toBe(INCIDENTS);

    const all = page.getByTestId("all-incident-rows");
    await expect(all).toHaveText(`Show all ${INCIDENTS} incidents`);
    const box = (await all.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(24);
    await all.click();
    await expect(page).toHaveURL(/\/incidents\?rows=all$/);
    await expect(rows).toHaveCount(INCIDENTS);
    await expect(page.getByTestId("all-incident-rows")).toHaveCount(0);
    await expect(page.getByRole("heading", { name: `${INCIDENTS} incidents, newest first`, exact: true })).toBeVisible();

    // One bot's list keeps its filter in the link.
    await page.goto(`${server.url}/incidents?bot=alpha`);
    await expect(rows).toHaveCount(INCIDENT_ROWS_SHOWN);
    await expect(page.getByTestId("all-incident-rows")).toHaveAttribute("href", "/incidents?bot=alpha&rows=all");
  });
});
