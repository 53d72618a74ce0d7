/**
 * Halt now, in Chromium against the production build: only an operator is offered the button (on the
 * overview's card and on the bot page); a refused halt keeps its reason; an applied one turns the
 * card HALTED with the hand-made reason and the tab's halt signal on, and the bot, writing the same
 * journal, refuses its next entry while it may still reduce.
 */
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { BreakerHaltedError } from "@/lib/bot/journal-writer";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { tempDir } from "../helpers/journal";

const SECRET = "halt-now-spec-session-secret-longer-than-32";
const ana = { name: "ana", password: "ana's long password here" };
const vic = { name: "vic", password: "vic's long password here" };
const REASON = "venue announced maintenance, stop entries";

test.describe.configure({ mode: "serial" });

test.describe("Halt now", () => {
  let server: ConsoleServer;
  let bot: ReturnType<typeof botOnSim>;

  /** The bot reconciles clean and beats after the halt, then the operator clears it on the bot page they are on. */
  async function clearFromBotPage(page: Page, reason: string) {
    bot.sim.advance(Math.max(1, Date.now() - bot.sim.now().getTime()));
    await bot.writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
    bot.writer.heartbeat();
    const main = page.locator("main");
    await main.getByLabel("Why it is safe to resume").fill(reason);
    await main.getByLabel("Type the bot id to confirm").fill("bot-a");
    await expect(main.getByRole("button", { name: "Clear halt" })).toBeEnabled();
    await main.getByRole("button", { name: "Clear halt" }).click();
    await expect(main.getByTestId("action-ok").filter({ hasText: "Cleared." })).toBeVisible();
    await expect(main.getByTestId("breaker-state")).toHaveText("not halted");
  }

  test.beforeAll(async () => {
    // A running bot: a position, then clean cycles up to the wall clock.
    bot = botOnSim({ startAt: new Date(Date.now() - 2 * 60_000) });
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: bot.sim.now().toISOString() });
    while (bot.sim.now().getTime() < Date.now() - 1_000) {
      await bot.writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
      bot.writer.heartbeat();
      bot.sim.advance(Math.min(15_000, Math.max(1, Date.now() - 1_000 - bot.sim.now().getTime())));
    }
    await bot.writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
    bot.writer.heartbeat();
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    addAccountWithCli(accountsDb, { name: vic.name, role: "viewer", password: vic.password });
    server = await startConsole({
      journal: bot.file,
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
    bot?.close();
  });

  test("visitors and viewers are offered nothing to click", async ({ page }) => {
    await page.goto(server.url);
    const card = page.locator('main [data-testid="bot-card"][data-bot="bot-a"]');
    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");
    await expect(card.getByTestId("halt-now")).toHaveCount(0);
    await signIn(page, server.url, vic);
    for (const p of ["/", "/bots/bot-a"]) {
      await page.goto(server.url + p);
      await expect(page.locator("main").getByTestId("breaker-state")).toHaveText("not halted");
      await expect(page.locator("main").getByTestId("halt-now")).toHaveCount(0);
    }
  });

  test("an operator halts a running bot from its card; the bot refuses its next entry, and may still reduce", async ({ page }) => {
    await signIn(page, server.url, ana);
    // Offered on the bot page too.
    await page.goto(`${server.url}/bots/bot-a`);
    await expect(page.locator("main").getByTestId("halt-now")).toBeVisible();

    await page.goto(server.url);
    const card = page.locator('main [data-testid="bot-card"][data-bot="bot-a"]');
    const form = card.getByTestId("halt-now");
    await form.getByText("Halt now").click();
    await expect(form).toContainText("The bot stops opening new positions on its next cycle, until someone clears the halt.");
    // The open form fits a phone and passes axe.
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
    // Too short: refused, and what was typed stays.
    await form.getByLabel("Why halt it").fill("no");
    await form.getByRole("button", { name: "Halt bot-a" }).click();
    await expect(form.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(form.getByLabel("Why halt it")).toHaveValue("no");
    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");

    await form.getByLabel("Why halt it").fill(REASON);
    await form.getByRole("button", { name: "Halt bot-a" }).click();
    await expect(card.getByTestId("action-ok")).toContainText("Halted.");
    await expect(card.getByTestId("breaker-state")).toHaveText("halted");
    await expect(card.locator("[data-status]").first()).toHaveText("HALTED");
    await expect(card.getByTestId("halt-reason")).toContainText(new RegExp(`Halted: halted by hand by operator:ana at \\d\\d:\\d\\d:\\d\\d UTC: ${REASON}`));
    await expect(card.getByTestId("halt-reason")).not.toContainText("in sync since");
    await expect(card.getByTestId("halt-now")).toBeHidden();
    await expect(card.getByTestId("review-and-clear")).toHaveText("Review and clear");
    await page.screenshot({ path: "test-results/screenshots/halt-now-phone.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    // The tab's halt signal, from the same breakers the bot reads.
    await expect(page).toHaveTitle(/^HALTED · /);
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");

    // The bot, cycling against the same journal, honours it on its next entry.
    bot.sim.advance(Math.max(0, Date.now() - bot.sim.now().getTime()));
    await bot.writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
    bot.writer.heartbeat();
    await expect(bot.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 1, bar: bot.sim.now().toISOString() })).rejects.toThrow(
      BreakerHaltedError,
    );
    const close = await bot.writer.sendOnce(
      { strategy: "trend", symbol: "AAPL", side: "sell", qty: 10, bar: bot.sim.now().toISOString() },
      { reduceOnly: true },
    );
    expect(close.order).toMatchObject({ symbol: "AAPL", side: "sell", state: "filled" });

    // The bot page reads it the same way, and offers the usual clear checklist for it.
    await page.goto(`${server.url}/bots/bot-a`);
    await expect(page.locator("main").getByTestId("halt-reason")).toContainText(`halted by hand by operator:ana at`);
    await expect(page.locator("main").getByTestId("checklist")).toBeVisible();
    await page.screenshot({ path: "test-results/screenshots/halt-now-bot-page.png", fullPage: true });
    // A halt by hand is an incident like a trip: the bot page links to its story, by the trip's bare id with one journal.
    const story = page.locator("main").getByTestId("halt-story");
    await expect(story).toHaveAttribute("href", /^\/incidents\/\d+$/);
    await expect(story).toHaveText(/^The story of this halt \(incident \d+\)$/);
    await story.click();
    await expect(page).toHaveURL(/\/incidents\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("bot-a");
    await expect(page.locator("main").getByTestId("incident-status")).toHaveText("OPEN");
    // The story names the operator as the card did: one spelling for a person on every screen.
    await expect(page.locator("main").getByTestId("incident-cause")).toHaveText(`halted by hand by operator:ana: ${REASON}`);

    // One bot, one open incident: the weekly chart still has both its scales, each titled and with its ticks.
    await page.goto(`${server.url}/incidents`);
    const chart = page.getByTestId("incidents-per-week");
    await expect(chart.locator(".recharts-bar-rectangle")).toHaveCount(1);
    await expect(chart.locator(".recharts-label")).toHaveText(["incidents", "median to clear"]);
    const ticks = (side: "left" | "right") => chart.locator(`.recharts-cartesian-axis-tick-value[orientation="${side}"]`);
    await expect(ticks("left")).toHaveText(["0", "1"]);
    // No incident cleared yet, so no median: the minutes axis keeps a scale all the same.
    await expect(ticks("right").first()).toHaveText("0 min");
    expect(await ticks("right").count()).toBeGreaterThanOrEqual(2);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: test.info().outputPath(`incidents-one-bot-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // On the breakers page: the trip names the operator and says it was made by hand.
    await page.goto(`${server.url}/breakers`);
    const trip = page.locator('main [data-testid="breaker-event"][data-kind="trip"]');
    await expect(trip).toContainText("by operator:ana");
    await expect(trip.getByTestId("breaker-cause")).toContainText("Halted by hand (Halt now)");
  });

  test("a visitor sees the hand-made halt without names, and is told to sign in to clear rather than offered a clear", async ({ page }) => {
    await page.goto(server.url);
    const card = page.locator('main [data-testid="bot-card"][data-bot="bot-a"]');
    await expect(card.getByTestId("halt-reason")).toContainText(`halted by hand by operator at`);
    await expect(card.getByTestId("halt-reason")).not.toContainText("ana");
    await expect(card.getByTestId("sign-in-to-clear")).toContainText("sign in as an operator to clear");
    await expect(card.getByTestId("review-and-clear")).toHaveText("Review");
    await expect(card.getByTestId("review-and-clear")).toHaveAttribute("href", "/bots/bot-a");
    await page.goto(`${server.url}/breakers`);
    await expect(page.locator("main").getByTestId("sign-in-to-clear")).toContainText("sign in as an operator to clear");
  });

  test("halting from the bot page, then clearing there: the operator's own halt is the one they saw, no 'reload before clearing'", async ({ page }) => {
    await signIn(page, server.url, ana);
    const main = page.locator("main");
    // Clear the halt of the test before (the bot reconciles clean after it), so bot-a runs again.
    await page.goto(`${server.url}/bots/bot-a`);
    await clearFromBotPage(page, "drill over");
    await expect(main.getByTestId("halt-now")).toBeVisible();
    // Where the clear box is: above the book when the page loaded on a halted bot, below it when it
    // loaded on a running one, and it stays there whatever happens while the page is open.
    const clearBox = main.getByRole("heading", { name: "Clear the halt" });
    const book = main.getByRole("heading", { name: "The bot's book" });
    const clearAboveBook = async () => (await clearBox.boundingBox())!.y < (await book.boundingBox())!.y;
    await expect.poll(clearAboveBook).toBe(true);
    await page.reload();
    await expect(main.getByTestId("not-halted")).toBeVisible();
    await expect.poll(clearAboveBook).toBe(false);

    // This page loaded on a running bot; the operator halts it here.
    await main.getByTestId("halt-now").getByText("Halt now").click();
    await main.getByTestId("halt-now").getByLabel("Why halt it").fill(REASON);
    await main.getByTestId("halt-now").getByRole("button", { name: "Halt bot-a" }).click();
    await expect(main.getByTestId("breaker-state")).toHaveText("halted");
    await expect(main.getByText("The breaker changed since this page was loaded")).toHaveCount(0);
    expect(await clearAboveBook()).toBe(false);
    // The page loaded on a running bot; the story of the halt made here comes with the halt.
    await expect(main.getByTestId("halt-story")).toHaveAttribute("href", /^\/incidents\/\d+$/);
    await clearFromBotPage(page, "halted by mistake");
    expect(await clearAboveBook()).toBe(false);
    await page.reload();
    await expect(main.getByTestId("not-halted")).toBeVisible();
    expect(await clearAboveBook()).toBe(false);
  });

  test("a reason typed while someone else halts and clears the bot is still there when Halt now is offered again", async ({ page, context }) => {
    await signIn(page, server.url, ana);
    await page.goto(server.url);
    const card = page.locator('main [data-testid="bot-card"][data-bot="bot-a"]');
    const form = card.getByTestId("halt-now");
    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");
    await form.getByText("Halt now").click();
    await form.getByLabel("Why halt it").fill("typed before the other halt");

    // Another tab halts the bot and clears it; the overview follows, hiding the form meanwhile.
    const other = await context.newPage();
    await other.goto(`${server.url}/bots/bot-a`);
    const main = other.locator("main");
    await main.getByTestId("halt-now").getByText("Halt now").click();
    await main.getByTestId("halt-now").getByLabel("Why halt it").fill(REASON);
    await main.getByTestId("halt-now").getByRole("button", { name: "Halt bot-a" }).click();
    await expect(main.getByTestId("breaker-state")).toHaveText("halted");
    await expect(card.getByTestId("breaker-state")).toHaveText("halted");
    await expect(form).toBeHidden();
    await clearFromBotPage(other, "drill over, again");
    await other.close();

    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");
    await expect(form).toBeVisible();
    await expect(form.getByLabel("Why halt it")).toHaveValue("typed before the other halt");
  });
});
