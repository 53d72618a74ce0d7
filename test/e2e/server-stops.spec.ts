import { expect, test, type Locator } from "@playwright/test";
import { healthyJournal } from "../helpers/e2e/journals";
import { startConsole } from "@/tools/lib/console-server";

/** The seconds in "12 s ago" or "1 min 3 s ago"; null for anything else ("?", "unknown"). */
async function ageSeconds(cell: Locator): Promise<number | null> {
  const text = (await cell.textContent()) ?? "";
  const m = /^(?:(\d+) min )?(\d+) s ago/.exec(text.trim());
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : null;
}

/** Whether any process of the group led by `pid` is still alive. */
function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
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
      // UNKNOWN: the page cannot tell, which is not STALE (the bot may have stopped).
      await expect(card.locator("[data-status]")).toHaveText("UNKNOWN");

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

  test("SIGTERM ends the open live streams, so the console's process group exits with a tab open", async () => {
    const j = await healthyJournal();
    const server = await startConsole({ journal: j.file });
    const groupAlive = () => processGroupAlive(server.pid);
    try {
      // A tab's stream, open and delivering: `next start` waits for open responses when it stops,
      // and a stream never ends by itself (app/api/live/route.ts ends them on SIGTERM/SIGINT).
      const res = await fetch(`${server.url}/api/live?views=overview`, { headers: { accept: "text/event-stream" } });
      expect(res.status).toBe(200);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("event: view")) {
        const { done, value } = await reader.read();
        expect(done).toBe(false);
        text += value;
      }
      const ended = (async () => {
        try {
          for (;;) if ((await reader.read()).done) return "ended";
        } catch {
          return "ended";
        }
      })();

      const sentAt = Date.now();
      process.kill(-server.pid, "SIGTERM");
      await expect.poll(groupAlive, { timeout: 8_000, intervals: [100] }).toBe(false);
      const exitedAfterMs = Date.now() - sentAt;
      expect(await Promise.race([ended, new Promise((r) => setTimeout(() => r("still open"), 2_000))])).toBe("ended");
      test.info().annotations.push({ type: "exited after", description: `${exitedAfterMs} ms` });
    } finally {
      await server.stop();
      j.close();
    }
  });

  test("SIGTERM with a tab open: the tab turns to not updating within 5 s, and the console exits though the tab reconnects", async ({ page }) => {
    const j = await healthyJournal();
    const server = await startConsole({ journal: j.file });
    const groupAlive = () => processGroupAlive(server.pid);
    try {
      await page.goto(`${server.url}/breakers`);
      await expect(page.getByTestId("live-status")).toContainText(/^live · updated \d+ s ago$/);
      // A tab reconnects its ended stream at once, over the same kept-alive connection: a stopping
      // `next start` no longer listens but still answered there, so the tab read "live · updated 0 s
      // ago" and held the console up until it was killed (a try-out: 8 s of "live", then SIGKILL).
      const sentAt = Date.now();
      process.kill(-server.pid, "SIGTERM");
      await expect(page.getByTestId("live-status")).toContainText("not updating", { timeout: 5_000 });
      // Each breaker as last read, said in its own words (as the overview's card says it), not
      // "not halted" beside an UNKNOWN badge.
      await expect(page.getByTestId("breaker-now")).toHaveText(["unknown: not halted when last read"]);
      // In UNKNOWN's dashed amber, never a quiet grey.
      await expect(page.getByTestId("breaker-now")).toHaveClass(/border-dashed/);
      await expect(page.getByTestId("bot-now")).toHaveCount(0);
      await expect.poll(groupAlive, { timeout: 5_000, intervals: [100] }).toBe(false);
      test.info().annotations.push({ type: "exited after", description: `${Date.now() - sentAt} ms` });
    } finally {
      await server.stop();
      j.close();
    }
  });
});
