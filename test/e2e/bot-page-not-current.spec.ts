/**
 * A bot's page whose answers stop coming without failing (a poll that hangs, no live stream): past
 * the limit every live page keeps (5 s, lib/live/not-current.ts) it says it is not current, as the
 * overview does, and its action forms (clear, approve, acknowledge, correct the book) wait, saying
 * why, with what was typed kept; once answers come again it is live again, forms and all, by itself.
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
    gamma.db
      .transaction(() => {
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
      })
      .immediate();
    await new Promise((r) => setTimeout(r, 5));
    await gamma.cycle();
    // A clear ben asked for (two-person rule) waits for a second operator's approval.
    const version = gamma.db.prepare(`SELECT version FROM breakers WHERE bot_id = 'gamma'`).pluck().get() as number;
    gamma.db
      .prepare(
        `INSERT INTO clear_requests (bot_id, breaker_version, reason, requested_by, requested_at, expires_at, status) VALUES ('gamma', ?, 'drill over', 'operator:ben', ?, ?, 'pending')`,
      )
      .run(version, new Date().toISOString(), new Date(Date.now() + 3_600_000).toISOString());

    // beta, on the same journal: tripped on a size drift of AAPL that still drifts (a book to
    // correct), and a drift of BTCUSDT that came and went since the trip (one to acknowledge).
    const beta = await tradingBot({ botId: "beta", prefix: "be1", seed: 5, file: gamma.file });
    beta.sim.setPositionBehindBot("AAPL", 6);
    const trip = await beta.cycle();
    expect(trip.outcome === "drift" && trip.tripped).toBe(true);
    beta.sim.setPositionBehindBot("BTCUSDT", 0.3);
    await beta.cycle();
    beta.sim.setPositionBehindBot("BTCUSDT", 0.5);
    await beta.cycle();
    close = () => {
      beta.close();
      gamma.close();
    };
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
    // The checklist does not blame the bot for a heartbeat only this page has not seen.
    const heartbeat = main.locator('[data-testid="checklist"] li[data-item="heartbeat"]');
    await expect(heartbeat).toContainText("unknown while this page is not updating");
    await expect(heartbeat).not.toContainText("The bot process is not running");
    // Nor does its book claim to agree now: when last read, it did.
    await expect(main.getByTestId("book-in-sync")).toHaveText(
      /^Not known now: this page is not updating\. When last read, every symbol agreed with the exchange in the bot.s latest cycle, at \d\d:\d\d:\d\d UTC: nothing to correct then\.$/,
    );

    await hold.release();
    await expect(main.getByTestId("live-status")).toContainText(/^live · updated/, { timeout: 10_000 });
    await expect(banner).toHaveCount(0);
    await expect(card.getByTestId("breaker-state")).toHaveText("halted");
    await expect(main.getByTestId("book-in-sync")).toHaveAttribute("data-state", "in-sync");
  });
  test("/breakers says a halt is as last read while it is not current, in the overview card's words, not HALTED beside UNKNOWN", async ({ page }) => {
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/breakers`);
    const section = page.locator('[data-testid="bot-breakers"][data-bot="gamma"]');
    await expect(page.getByTestId("live-status")).toContainText(/^live · updated/);
    await expect(section.getByTestId("breaker-now")).toHaveText("HALTED");

    const hold = await holdAnswers(page, "**/api/breakers*");
    await expect(page.getByTestId("live-status")).toContainText(/^not updating · updated \d+ s ago$/, { timeout: 10_000 });
    await expect(section.getByTestId("breaker-now")).toHaveText("HALTED when last read");
    await expect(section.getByTestId("bot-now")).toHaveCount(0);
    // Nor "Still halted" under it: a claim about now.
    await expect(section.getByTestId("halted-for")).toContainText(/^Halted when last read, for \d+/);
    await expect(section.getByTestId("breaker-duration").first()).toHaveText(/^Halted when last read: halted for .+ so far\.$/);

    await hold.release();
    await expect(page.getByTestId("live-status")).toContainText(/^live · updated/, { timeout: 10_000 });
    await expect(section.getByTestId("breaker-now")).toHaveText("HALTED");
    await expect(section.getByTestId("breaker-duration").first()).toHaveText(/^Still halted: halted for .+\.$/);
  });

  test("while not current, Clear and Approve wait and say why, keep what was typed, and come back by themselves", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/bots/gamma`);
    const main = page.locator("main");
    const clear = main.getByRole("button", { name: "Clear halt" });
    const approve = main.getByRole("button", { name: "Approve and clear" });
    await expect(clear).toBeEnabled();
    await expect(approve).toBeEnabled();
    await expect(main.getByTestId("not-current-note")).toHaveCount(0);
    await main.getByLabel("Why it is safe to resume").fill("drill over, venue answering");

    const hold = await holdAnswers(page, "**/api/bots/gamma/clear");
    await expect(clear).toBeDisabled({ timeout: 10_000 });
    await expect(approve).toBeDisabled();
    await expect(main.getByTestId("not-current-note")).toHaveText([
      "Not current: waiting for this page to update before you can clear.",
      "Not current: waiting for this page to update before you can approve.",
    ]);
    // Still typed into while it waits: nothing the operator wrote is lost.
    await main.getByLabel("Type the bot id to confirm").fill("gamma");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: test.info().outputPath(`bot-page-not-current-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    await hold.release();
    await expect(clear).toBeEnabled({ timeout: 10_000 });
    await expect(approve).toBeEnabled();
    await expect(main.getByTestId("not-current-note")).toHaveCount(0);
    await expect(main.getByLabel("Why it is safe to resume")).toHaveValue("drill over, venue answering");
    await expect(main.getByLabel("Type the bot id to confirm")).toHaveValue("gamma");
  });

  test("while not current, acknowledging a drift and correcting the book wait and say why, and come back by themselves", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/bots/beta`);
    const main = page.locator("main");
    const ended = main.locator('[data-testid="unacknowledged-drift"][data-symbol="BTCUSDT"]');
    const ongoing = main.locator('[data-testid="unacknowledged-drift"][data-symbol="AAPL"]');
    const line = main.locator('[data-testid="book-line"][data-symbol="AAPL"]');
    await expect(ongoing.locator("p").first()).toHaveText(/since the trip\), still drifting\.$/);
    const acknowledge = ended.getByRole("button", { name: "Acknowledge BTCUSDT" });
    const correct = line.getByRole("button", { name: "Correct the book of AAPL" });
    await expect(acknowledge).toBeEnabled();
    await expect(correct).toBeEnabled();
    await ended.getByLabel("What you checked").fill("a fill landed between two cycles");

    const hold = await holdAnswers(page, "**/api/bots/beta/clear");
    await expect(acknowledge).toBeDisabled({ timeout: 10_000 });
    await expect(correct).toBeDisabled();
    await expect(ended.getByTestId("not-current-note")).toHaveText("Not current: waiting for this page to update before you can acknowledge BTCUSDT.");
    await expect(line.getByTestId("not-current-note")).toHaveText("Not current: waiting for this page to update before you can correct the book of AAPL.");
    // "Still drifting" is a claim about now: the page knows only its last read.
    await expect(ongoing.locator("p").first()).toHaveText(/since the trip\), still drifting when last read\.$/);

    await hold.release();
    await expect(acknowledge).toBeEnabled({ timeout: 10_000 });
    await expect(correct).toBeEnabled();
    await expect(main.getByTestId("not-current-note")).toHaveCount(0);
    await expect(ended.getByLabel("What you checked")).toHaveValue("a fill landed between two cycles");
  });
});
