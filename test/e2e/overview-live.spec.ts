import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { healthyJournal, incidentJournal, lostReplyJournal } from "../helpers/e2e/journals";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { sqliteCli } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

test.describe("overview after an unknown position and a lost reply", () => {
  let server: ConsoleServer;
  let close: () => void;

  test.beforeAll(async () => {
    const j = await incidentJournal();
    close = j.close;
    server = await startConsole({ journal: j.file });
  });
  test.afterAll(async () => {
    await server?.stop();
    close?.();
  });

  test("shows the halt and the emergency row, and the tab says HALTED", async ({ page }) => {
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(server.url);
    const alpha = page.locator('[data-testid="bot-card"][data-bot="alpha"]');
    await expect(alpha.locator("[data-status]")).toHaveText("HALTED");
    await expect(alpha.getByTestId("halt-reason")).toContainText("unknown position ETHUSDT +3");
    await expect(alpha.getByTestId("drift-count")).toContainText("1 unknown position");

    const emergency = page.locator('[data-testid="symbol-row"][data-bot="alpha"][data-symbol="ETHUSDT"]');
    await expect(emergency).toHaveAttribute("data-drift", "unknown_position");
    await expect(emergency).toContainText("Unknown position");
    // The emergency sorts first.
    await expect(page.getByTestId("symbol-row").first()).toHaveAttribute("data-drift", "unknown_position");

    const beta = page.locator('[data-testid="bot-card"][data-bot="beta"]');
    await expect(beta.locator("[data-status]")).toHaveText("HALTED");
    await expect(beta.getByTestId("doubtful-count")).toHaveText("1 order");

    // Above everything, for a phone's first screen: which bots are halted, each a link to its clear.
    const summary = page.getByTestId("halted-summary");
    await expect(summary).toContainText(/^HALTED: alpha, beta\. No new entries until someone clears them; \d+ symbols? drifting\.$/);
    await expect(summary.getByRole("link", { name: "beta" })).toHaveAttribute("href", "/bots/beta");

    // One icon (a second, healthy one would win in some browsers), and a title that stays put.
    const icon = page.locator('link[rel="icon"]');
    await expect(page).toHaveTitle("HALTED · driftwatch");
    await expect(icon).toHaveAttribute("href", "/favicon-halted.svg");
    await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
    // Hydration must not fail (a mismatch makes React re-render the page and lose focus).
    expect(errors.filter((e) => /418|[Hh]ydrat/.test(e))).toEqual([]);

    // Every page carries the halt signal, the audit log too (issue 16: it used to read as healthy).
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Audit log" }).click();
    await expect(page).toHaveURL(`${server.url}/audit`);
    await expect(page).toHaveTitle("HALTED · Audit log · driftwatch");
    await expect(icon).toHaveAttribute("href", "/favicon-halted.svg");
    await nav.getByRole("link", { name: "Overview" }).click();
    await expect(page).toHaveTitle("HALTED · driftwatch");
    await expect(icon).toHaveAttribute("href", "/favicon-halted.svg");
  });

  test("a symbol in sync is one line on a phone, a drift keeps its labelled card", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(server.url);
    const inSync = page.locator('main [data-testid="symbol-row"][data-drift="none"]').first();
    // What a phone shows (innerText): the hidden cells (theirs, difference) say nothing new in sync.
    await expect(inSync).toHaveText(/^(alpha|beta)\s+\S+\s+book [+-]?[\d.,]+\s+in sync$/, { useInnerText: true });
    await expect(inSync.locator('[data-label="Theirs"]')).toBeHidden();
    const syncBox = (await inSync.boundingBox())!;
    const driftBox = (await page.locator('main [data-testid="symbol-row"][data-drift="unknown_position"]').first().boundingBox())!;
    // One line of text and its padding; the drift's card lists every field under its label.
    expect(syncBox.height).toBeLessThan(60);
    expect(driftBox.height).toBeGreaterThan(4 * syncBox.height);
    await expect(page.locator('main [data-testid="symbol-row"][data-drift="unknown_position"]').first().locator('[data-label="Theirs"]')).toBeVisible();
    // The drift's badge is as wide as its words, not stretched across the card by the cell's grid.
    const drift = page.locator('main [data-testid="symbol-row"][data-drift="unknown_position"]').first();
    const badge = (await drift.getByText("Unknown position", { exact: true }).boundingBox())!;
    expect(badge.width).toBeLessThan(0.5 * driftBox.width);
    await noHorizontalScroll(page);
  });

  // A bare `#…` link made a history entry Next's router does not know: Back from the page opened
  // next showed that page's content under the overview's address.
  test("in-page links: skip to content moves focus, the drifting symbols' link scrolls to them, and Back shows each page again", async ({ page }) => {
    await page.goto(server.url);
    await expect(page.getByTestId("halted-summary")).toBeVisible();
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    // Shown above the header, not under its "driftwatch" link.
    const box = (await skip.boundingBox())!;
    expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.textContent, [box.x + box.width / 2, box.y + box.height / 2])).toBe(
      "Skip to content",
    );
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();
    await expect(page).toHaveURL(server.url + "/");

    await page
      .getByTestId("halted-summary")
      .getByRole("link", { name: /symbols? drifting/ })
      .click();
    await expect(page).toHaveURL(server.url + "/#books");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Breakers" }).click();
    await expect(page.getByRole("heading", { name: "Breakers", level: 1 })).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(server.url + "/#books");
    await expect(page.getByTestId("halted-summary")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Breakers", level: 1 })).toHaveCount(0);
  });

  test("keeps sorting and filters in the URL", async ({ page }) => {
    await page.goto(server.url);
    await page.getByLabel("drifting only").check();
    await expect(page).toHaveURL(/drift=1/);
    // alpha's position it never opened, and beta's position that may be its own unknown order.
    await expect(page.getByTestId("symbol-row")).toHaveCount(2);
    await page.getByLabel("Bot", { exact: true }).selectOption("alpha");
    await expect(page).toHaveURL(/bot=alpha/);
    await page.reload();
    await expect(page.getByLabel("drifting only")).toBeChecked();
    await expect(page.getByTestId("symbol-row")).toHaveCount(1);
    await expect(page.getByTestId("symbol-row")).toHaveAttribute("data-symbol", "ETHUSDT");
    await page.getByLabel("Bot", { exact: true }).selectOption("");
    await page.getByLabel("drifting only").uncheck();
    await expect(page).toHaveURL(server.url + "/");
  });

  test("the doubtful order is listed with its history and a recomputing id", async ({ page }) => {
    await page.goto(`${server.url}/doubtful`);
    const order = page.getByTestId("doubtful-order");
    await expect(order).toHaveCount(1);
    await expect(order).toContainText("unknown");
    await expect(order).toContainText("the bot's own id (it recomputes from the decision)");
    await order.getByText(/^History \(\d+ events(, in \d+ lines?)?\)$/).click();
    await expect(order.getByTestId("order-event").first()).toContainText("intent");
  });

  for (const [name, path] of [
    ["overview", "/"],
    ["doubtful", "/doubtful"],
    ["bot", "/bots/alpha"],
    ["audit", "/audit"],
    ["login", "/login"],
  ] as const) {
    test(`${name}: no horizontal scroll at 390 px, no serious axe violation, screenshot saved`, async ({ page }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(server.url + path);
      await expect(page.locator("h1").first()).toBeVisible();
      await noHorizontalScroll(page);
      await noSeriousAxeViolations(page);
      await page.setViewportSize({ width: 1280, height: 900 });
      fs.mkdirSync("test-results/screenshots", { recursive: true });
      await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
    });
  }

  test("in the dark theme too, axe finds no serious violation", async ({ browser }) => {
    const context = await browser.newContext({ colorScheme: "dark" });
    const page = await context.newPage();
    await page.goto(server.url);
    await expect(page.getByTestId("bot-card").first()).toBeVisible();
    await noSeriousAxeViolations(page, { colorsOnly: true });
    await context.close();
  });
});

test.describe("when the heartbeat stops", () => {
  test("the running bot turns stale, a banner names the cause, and its symbols are dated by its last cycle, without a reload", async ({ page }) => {
    const j = await healthyJournal();
    // A threshold wide enough for a loaded machine to load the page before it passes.
    const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "12000" } });
    try {
      j.beat();
      await page.goto(server.url);
      const card = page.locator('[data-testid="bot-card"][data-bot="gamma"]');
      await expect(card.locator("[data-status]")).toHaveText("running");
      // The bot writes nothing more; the page keeps polling.
      await expect(page.getByTestId("alarm-banner")).toContainText("gamma: heartbeat is stale", { timeout: 30_000 });
      await expect(card.locator("[data-status]")).toHaveText("STALE");
      await expect(page.locator('[data-status="running"]')).toHaveCount(0);
      await expect(page).toHaveTitle("? · driftwatch");
      // The page is current, the bot is not: its symbols are in sync as of its last cycle, never now.
      await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
      await expect(page.locator('[data-testid="sync-state"][data-state="in-sync"]')).toHaveCount(0);
      await expect(page.locator('[data-testid="sync-state"][data-state="unknown"]').first()).toHaveText(/^unknown: in sync at \d\d:\d\d:\d\d UTC$/);
      // On a phone the row stays short: the banner says why, the row that it is unknown and since when.
      await page.setViewportSize({ width: 390, height: 844 });
      const row = page.locator('main [data-testid="symbol-row"][data-bot="gamma"][data-drift="none"]').first();
      await expect(row).toHaveText(/^gamma\s+\S+\s+book [+-]?[\d.,]+\s+unknown: in sync at \d\d:\d\d:\d\d UTC$/, { useInnerText: true });
      // Two lines at most, the symbol's and since when (the whole sentence made it three).
      expect((await row.boundingBox())!.height).toBeLessThan(70);
      await page.setViewportSize({ width: 1280, height: 900 });
      await expect(card.getByTestId("reconciled")).toHaveText(/^clean at \d\d:\d\d:\d\d UTC, \d+ s ago$/);
      // Its breaker is what it last wrote: a bot that stopped, or tripped and could not write it, reads the same.
      await expect(card.getByTestId("breaker-state")).toHaveText("unknown: not halted as the bot last wrote it");
      // Dated by the bot's last cycle, not "when last read": the page itself is current.
      await expect(card.getByTestId("drift-count")).toHaveText(/ \(at its last cycle\)$/);
      await page.goto(`${server.url}/bots/gamma`);
      await expect(page.locator("main").getByTestId("not-halted")).toHaveText(
        /^Unknown: the breaker says not halted, as the bot last wrote it, but nothing vouches for the bot now \(STALE: heartbeat is stale\): it may have stopped, or tripped without writing it\. Nothing to clear; check that the bot is running\.$/,
      );
      // Its book's agreement is its last cycle's, not now's (a try-out read it as today's under STALE).
      await expect(page.locator("main").getByTestId("book-in-sync")).toHaveText(
        /^Not known now: nothing vouches for the bot \(STALE: heartbeat is stale\)\. Every symbol agreed with the exchange in the last cycle it wrote, at \d\d:\d\d:\d\d UTC: nothing to correct from it\. Check that the bot is running\.$/,
      );
      await page.goto(`${server.url}/bots/gamma/symbols/AAPL`);
      const book = page.getByTestId("book-line");
      await expect(book.getByRole("heading")).toHaveText("Book at the bot's last cycle (not current)");
      await expect(book.getByTestId("sync-state")).toHaveText("unknown: in sync at its last cycle");

      // Beating again, it vouches for its book once more.
      j.beat();
      await expect(book.getByRole("heading")).toHaveText("Book now", { timeout: 15_000 });
      await page.goto(server.url);
      await expect(card.locator("[data-status]")).toHaveText("running");
      await expect(page.locator('[data-testid="sync-state"][data-state="unknown"]')).toHaveCount(0);
    } finally {
      await server.stop();
      j.close();
    }
  });

  test("a drift's age counts on while the bot is quiet, and is its last cycle's once the bot is stale", async ({ page }) => {
    const j = await lostReplyJournal();
    const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "12000" } });
    try {
      await page.goto(server.url);
      const age = page.locator('[data-testid="symbol-row"][data-bot="beta"][data-symbol="ETHUSDT"]').getByTestId("drifting-for");
      await expect(age).toHaveAttribute("data-as-of", "now");
      // Nothing is written, so no view is resent: the age still counts on this clock (it used to stand still until the next cycle).
      const first = await age.textContent();
      await expect(age).not.toHaveText(first ?? "", { timeout: 4_000 });
      // Stale (its heartbeat 12 s old): how long it had drifted at the bot's last cycle, said so, and it no longer counts.
      await expect(age).toHaveAttribute("data-as-of", "last-cycle", { timeout: 20_000 });
      // Halted and stopped: its card says both, side by side.
      const badges = page.locator('[data-testid="bot-card"][data-bot="beta"]');
      await expect(badges.locator("[data-status]")).toHaveText("HALTED");
      await expect(badges.locator("[data-also-status]")).toHaveText("STALE");
      await expect(age).toHaveText(/^\d+ (s|min \d+ s) at its last cycle$/);
      const atStale = await age.textContent();
      await page.waitForTimeout(2_000);
      await expect(age).toHaveText(atStale ?? "");
      // The symbol page says the same of its book.
      await page.goto(`${server.url}/bots/beta/symbols/ETHUSDT`);
      await expect(page.getByTestId("book-line").getByTestId("drifting-for")).toHaveText(atStale ?? "");
    } finally {
      await server.stop();
      j.close();
    }
  });
});

test("a bot with no breaker row: its page says nothing says whether it may trade, never that its breaker says not halted", async ({ page }) => {
  const j = await healthyJournal();
  j.close();
  sqliteCli(j.file, "DELETE FROM breakers WHERE bot_id = 'gamma';");
  const server = await startConsole({ journal: j.file });
  try {
    await page.goto(`${server.url}/bots/gamma`);
    const main = page.locator("main");
    await expect(main.getByTestId("breaker-state")).toHaveText("unknown (no breaker row)");
    await expect(main.getByTestId("not-halted")).toHaveText(
      /^Unknown: the bot has no breaker row, so nothing says whether it may trade, but nothing vouches for the bot now \(UNKNOWN: no breaker row for this bot\): /,
    );
  } finally {
    await server.stop();
  }
});
