import { expect, test, type Locator } from "@playwright/test";
import { healthyJournal } from "../helpers/e2e/journals";
import { startConsole } from "@/tools/lib/console-server";

/** The seconds in "12 s ago" or "1 min 3 s ago"; null for anything else ("?", "unknown"). */
async function ageSeconds(cell: Locator): Promise<number | null> {
  const text = (await cell.textContent()) ?? "";
  const m = /^(?:(\d+) min )?(\d+) s ago/.exec(text.trim());
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : null;
}

test.describe("when the console server stops answering", () => {
  test("the heartbeat age keeps counting and the banner says the server cannot be reached, not that the journal is unreadable", async ({ page }) => {
    const j = await healthyJournal();
    // A threshold wide enough that the bot still reads running when the server stops.
    const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "60000" } });
    try {
      j.beat();
      await page.goto(server.url);
      const card = page.locator('[data-testid="bot-card"][data-bot="gamma"]');
      await expect(card.locator("[data-status]")).toHaveText("running");
      const heartbeat = card.getByTestId("heartbeat-age");
      await expect(heartbeat).toContainText("s ago");

      await server.stop();
      const banner = page.getByTestId("alarm-banner");
      await expect(banner).toContainText("The console server cannot be reached", { timeout: 10_000 });
      await expect(banner).toContainText("the console server cannot be reached");
      await expect(banner).not.toContainText("journal");
      await expect(page.getByTestId("live-status")).toContainText("not updating");

      // No answer arrives any more; the age shown must keep growing, not freeze at its last value.
      const stoppedAt = await ageSeconds(heartbeat);
      expect(stoppedAt).not.toBeNull();
      await expect.poll(() => ageSeconds(heartbeat), { timeout: 30_000 }).toBeGreaterThanOrEqual(stoppedAt! + 10);
      await expect(banner).not.toContainText("journal");
    } finally {
      await server.stop();
      j.close();
    }
  });
});
