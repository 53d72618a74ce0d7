import Database from "better-sqlite3";
import { expect as baseExpect, test } from "@playwright/test";
import { NO_BOT_PACE, pruneJournal } from "@/lib/db/journal-prune";
import { pruneFixtureJournal, type PruneFixture } from "../helpers/prune-journal";
import { prunedIncidentJournal, type PrunedIncidents } from "../helpers/pruned-incident";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 180_000 });

const open = (file: string) => new Database(file, { timeout: 5000 });

test.describe("a chart of pruned history", () => {
  let server: ConsoleServer;
  let fx: PruneFixture;

  test.beforeAll(async () => {
    // 40 days of cycles written and pruned, then a server started, on a shared 2-core machine.
    test.setTimeout(240_000);
    fx = pruneFixtureJournal(open);
    const db = open(fx.file);
    await pruneJournal({ db, keepMs: 30 * 86_400_000, actor: "cli:e2e", ...NO_BOT_PACE });
    db.close();
    server = await startConsole({ journal: fx.file });
  });
  test.afterAll(async () => server?.stop());

  test("draws the rollups and says the per-cycle detail was pruned, and when", async ({ page }) => {
    const from = new Date(fx.quietDrift.from - 3_600_000).toISOString();
    const to = new Date(fx.quietDrift.to + 3_600_000).toISOString();
    await page.goto(`${server.url}/bots/alpha/symbols/S2?range=custom&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    const notice = page.getByTestId("pruned-notice");
    // The date is always said ("on 2 Dec 2026 at 02:35 UTC"), today's too.
    await expect(notice).toContainText(
      /^Per-cycle detail before \d+ \w{3} \d{4} at \d\d:\d\d UTC was pruned on \d+ \w{3} \d{4} at \d\d:\d\d UTC, except around incidents\. /,
    );
    await expect(notice).toContainText("The chart draws the five-minute rollups there, not every cycle.");
    await expect(notice).not.toContainText("hourly");
    const chart = page.getByTestId("position-chart");
    await expect(chart.locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    // The drift the pruned cycles held is still shaded, drawn from the rollups.
    await expect(chart.locator(".recharts-reference-area.drift-size_drift")).toHaveCount(1);
    await expect(page.getByTestId("chart-empty")).toHaveCount(0);
    // Rollups are five minutes apart: that is pruning, which the notice says, not a bot that stopped.
    await expect(chart.locator(".recharts-reference-area.no-cycle")).toHaveCount(0);
  });
});

test.describe("an incident older than --keep-incidents, in rollups older than --keep-rollups", () => {
  let server: ConsoleServer;
  let fx: PruneFixture;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    fx = pruneFixtureJournal(open);
    const db = open(fx.file);
    const day = 86_400_000;
    await pruneJournal({ db, keepMs: 30 * day, keepIncidentsMs: 34 * day, keepOrdersMs: 34 * day, keepRollupsMs: 34 * day, actor: "cli:e2e", ...NO_BOT_PACE });
    db.close();
    server = await startConsole({ journal: fx.file });
  });
  test.afterAll(async () => server?.stop());

  test("the chart says the incident's cycles and the five-minute detail were pruned, and still draws the drift", async ({ page }) => {
    const from = new Date(fx.alphaTrip - 30 * 60_000).toISOString();
    const to = new Date(fx.alphaClear + 30 * 60_000).toISOString();
    await page.goto(`${server.url}/bots/alpha/symbols/S1?range=custom&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    const notice = page.getByTestId("pruned-notice");
    await expect(notice).toContainText(/^Per-cycle detail before .+ was pruned on \d+ \w{3} \d{4} at \d\d:\d\d UTC; /);
    await expect(page.getByTestId("pruned-incident")).toContainText(
      /this window's incident ended before \d+ \w{3} \d{4} at \d\d:\d\d UTC, so its cycles went too/,
    );
    // The window is wholly before the rollup horizon: hourly rollups, and nothing about five-minute ones.
    await expect(page.getByTestId("pruned-hourly")).toHaveText("The chart draws hourly rollups there, not every cycle");
    await expect(notice).not.toContainText("five-minute");
    await expect(page.getByTestId("pruned-orders")).toContainText(/settled orders before \d+ \w{3} \d{4} at \d\d:\d\d UTC were pruned too/);
    const chart = page.getByTestId("position-chart");
    await expect(chart.locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    await expect(chart.locator(".recharts-reference-area.drift-size_drift")).toHaveCount(1);
  });

  test("the incident timeline of that hour says its cycles were pruned, not that it was quiet", async ({ page }) => {
    const from = new Date(fx.alphaTrip - 30 * 60_000).toISOString();
    const to = new Date(fx.alphaClear + 30 * 60_000).toISOString();
    await page.goto(`${server.url}/incidents?bot=alpha&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    await expect(page.getByTestId("pruned-incident")).toContainText(/ended before .+, so its cycles went too/);
  });
});

test.describe("an incident of a pruned journal", () => {
  let server: ConsoleServer;
  let fx: PrunedIncidents;

  test.beforeAll(async () => {
    fx = await prunedIncidentJournal();
    server = await startConsole({ journal: fx.file });
  });
  test.afterAll(async () => server?.stop());

  test("its page, its minutes and the list say what was pruned, and when, never none found or nothing recorded", async ({ page }) => {
    await page.goto(`${server.url}/incidents/${fx.drift}`);
    await expect(page.getByTestId("pruned-notice")).toContainText(/Per-cycle detail before .+ was pruned on/);
    await expect(page.getByTestId("incident-order")).toContainText(
      /not in the journal: settled orders last updated before .+ were pruned on .+, it may have been one/,
    );
    await expect(page.getByTestId("time-to-settle")).toContainText("pruned on");
    await expect(page.getByTestId("story-timeline-pruned")).toContainText("its reconciliation cycles were pruned on");

    await page.goto(`${server.url}/incidents/${fx.lostOrder}`);
    await expect(page.getByTestId("incident-order")).toContainText("alpha-4f979874d69871438130");
    await page.getByTestId("minute-by-minute").click();
    await expect(page.getByTestId("minute-gap").first()).toContainText(/49 minutes: reconciliation cycles pruned on/);
    await expect(page.getByText("nothing recorded")).toHaveCount(0);

    await page.goto(`${server.url}/incidents`);
    await expect(page.getByTestId("row-cycles-pruned")).toHaveCount(2);
    await expect(page.locator(`[data-incident="${fx.recent}"]`).getByTestId("row-cycles-pruned")).toHaveCount(0);
  });
});
