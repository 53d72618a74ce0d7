/**
 * A bot's page whose answers stop coming without failing (a poll that hangs, no live stream): past
 * the limit every live page keeps (5 s, lib/live/not-current.ts) it says it is not current, as the
 * overview does, and once answers come again it is live again, by itself.
 */
import path from "node:path";
import { expect, test, type Page, type Route } from "@playwright/test";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { tempDir } from "../helpers/journal";

const SECRET = "bot-page-not-current-spec-secret-longer-than-32";
const ana = { name: "ana", password: "ana's long password here" };
const symbols = SYMBOLS.map((s) => s.symbol);

/** One bot on the journal, trading on its simulator up to the wall clock. */
async function tradingBot(opts: { botId: string; prefix: string; seed: number; file?: string }) {
  const bot = botOnSim({ ...opts, startAt: new Date(Date.now() - 5 * 60_000) });
  /** One cycle at the wall clock's now: heartbeat and reconciliation. */
  const cycle = async () => {
    bot.sim.advance(Math.max(1, Date.now() - bot.sim.now().getTime()));
    bot.writer.heartbeat();
    return bot.writer.reconcile({ symbols });
  };
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: bot.sim.now().toISOString() });
  await bot.writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.5, bar: bot.sim.now().toISOString() });
  while (bot.sim.now().getTime() < Date.now() - 60_000) {
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    bot.sim.advance(15_000);
  }
  return { ...bot, cycle };
}

/**
 * Holds every answer to `url` until `release()`: the requests stay open, so no poll fails; the
 * page's data only grows old. Released, the held requests go through to the console.
 */
async function holdAnswers(page: Page, url: string) {
  const held: Route[] = [];
  let holding = true;
  await page.route(url, (route) => {
    if (holding) held.push(route);
    else void route.continue();
  });
  return {
    release: async () => {
      holding = false;
      await Promise.all(held.map((r) => r.continue()));
      await page.unroute(url);
    },
  };
}

test.describe("a bot's page whose data grows old", () => {
  let server: ConsoleServer;
  let close: () => void;

  test.beforeAll(async () => {
    // gamma: halted by hand, then a clean cycle and a fresh heartbeat: nothing stands in the way of a clear.
    const gamma = await tradingBot({ botId: "gamma", prefix: "ga1", seed: 9 });
    const haltAt = new Date().toISOString();
    gamma.db.transaction(() => {
      gamma.db
        .prepare(
          `UPDATE breakers SET halted = 1, reason = 'halted by hand: drill', changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'gamma'`,
        )
        .run(haltAt);
      gamma.db
        .prepare(
          `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('gamma', ?, 'trip', 'halted by hand: drill', 'operator:ana', NULL)`,
        )
        .run(haltAt);
    }).immediate();
    await new Promise((r) => setTimeout(r, 5));
    await gamma.cycle();
    close = gamma.close;
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    server = await startConsole({
      journal: gamma.file,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: SECRET,
        DRIFTWATCH_HEARTBEAT_STALE_MS: "600000",
        DRIFTWATCH_RECONCILIATION_STALE_MS: "600000",
      },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    close?.();
  });

  test("says it is not current once its data is older than 5 s with no poll failed, and is live again by itself when answers come", async ({ page }) => {
    await signIn(page, server.url, ana);
    // Without the live stream (refused from the start), so the page polls, and the poll is what hangs.
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/bots/gamma`);
    const main = page.locator("main");
    const card = main.locator('[data-testid="bot-card"][data-bot="gamma"]');
    await expect(main.getByTestId("live-status")).toContainText(/^live · updated/);
    await expect(card.getByTestId("breaker-state")).toHaveText("halted");

    const hold = await holdAnswers(page, "**/api/bots/gamma/clear");
    await expect(main.getByTestId("live-status")).toContainText(/^not updating · updated \d+ s ago$/, { timeout: 10_000 });
    const banner = main.getByTestId("alarm-banner");
    await expect(banner).toContainText("Not updating");
    await expect(banner).toContainText(/the page has not been updated for \d+ s/);
    await expect(card.getByTestId("breaker-state")).toHaveText(/^halted when last read, at \d\d:\d\d:\d\d UTC \(not current\)$/);

    await hold.release();
    await expect(main.getByTestId("live-status")).toContainText(/^live · updated/, { timeout: 10_000 });
    await expect(banner).toHaveCount(0);
    await expect(card.getByTestId("breaker-state")).toHaveText("halted");
  });
});
