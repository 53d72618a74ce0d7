import Database from "better-sqlite3";
import { expect as baseExpect, test } from "@playwright/test";
import { NO_BOT_PACE, pruneJournal } from "@/lib/db/journal-prune";
import { pruneFixtureJournal, type PruneFixture } from "../helpers/prune-journal";
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
    await expect(notice).toContainText(/The per-cycle detail before .+ was pruned on .+ \(kept around every incident\)/);
    await expect(notice).toContainText("five-minute rollups");
    const chart = page.getByTestId("position-chart");
    await expect(chart.locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    // The drift the pruned cycles held is still shaded, drawn from the rollups.
    await expect(chart.locator(".recharts-reference-area.drift-size_drift")).toHaveCount(1);
    await expect(page.getByTestId("chart-empty")).toHaveCount(0);
  });
});
