import fs from "node:fs";
import path from "node:path";
import { expect as baseExpect, test, type Page } from "@playwright/test";
import { BUY_500_ID, writeDriftScenario } from "../helpers/drift-scenario";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { markerLabelsApart } from "../helpers/e2e/chart";
import { healthyJournal } from "../helpers/e2e/journals";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

// A production server rendering per request, on machines shared with other test runs: give page
// loads and soft navigations room rather than fail on a busy moment.
const expect = baseExpect.configure({ timeout: 15_000 });
test.describe.configure({ timeout: 180_000 });

const shots = path.resolve(import.meta.dirname, "../../test-results/screenshots");
const AAPL = "/bots/bot-a/symbols/AAPL";

/** Opens a symbol page and waits until the browser drew its chart (the page is hydrated then). */
async function openChart(page: Page, url: string) {
  await page.goto(url);
  await expect(page.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
  return page.getByTestId("position-chart");
}

test.describe("the symbol page of a bot trading now", () => {
  let server: ConsoleServer;

  test.beforeAll(async () => {
    // Three minutes of cycles ending a few seconds ago, so the last 15 min hold all of them.
    const { file } = await writeDriftScenario({ startAt: new Date(Date.now() - 200_000) });
    server = await startConsole({ journal: file });
    fs.mkdirSync(shots, { recursive: true });
  });
  test.afterAll(async () => server?.stop());

  test("draws ours against theirs, shades the drifts, marks the trips and lists the orders", async ({ page }) => {
    const chart = await openChart(page, server.url + AAPL);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("AAPL");
    // The way back: to the overview, and to the bot's own page.
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    await expect(crumbs.getByRole("link", { name: "Overview" })).toHaveAttribute("href", "/");
    await expect(crumbs.getByRole("link", { name: "bot-a" })).toHaveAttribute("href", "/bots/bot-a");
    await expect(chart.locator("path.recharts-line-curve").first()).toHaveAttribute("d", /^M[\d.]+,[\d.]+.*L/);
    // Both AAPL drifts (ten cycles, and one cycle) are shaded.
    await expect(chart.locator(".recharts-reference-area:not(.no-cycle)")).toHaveCount(2);
    await expect(chart.locator(".recharts-reference-area.drift-size_drift")).toHaveCount(2);
    // Four trips and three clears of bot-a's breaker fall in the window, each a line; labels are
    // thinned where they would overlap.
    await expect(chart.locator(".recharts-reference-line")).toHaveCount(7);
    await expect(chart.locator(".recharts-reference-line.breaker-trip")).toHaveCount(4);
    await expect(chart.locator("text", { hasText: /^trip$/ }).first()).toBeVisible();
    expect(await markerLabelsApart(chart)).toBeGreaterThan(0);

    await expect(page.getByTestId("book-ours")).toHaveText("+400");
    await expect(page.getByTestId("book-theirs")).toHaveText("+400");
    await expect(page.getByTestId("halt-reason")).toContainText(/bot-a is halted: order q500-\w+ unknown/);
    // When it was halted is a sentence of its own, never a second "since" after the cause's own.
    await expect(page.getByTestId("halt-reason")).toHaveText(/\. Halted at .+ UTC by bot\.$/);
    await expect(page.getByTestId("halt-reason")).not.toContainText(", since");
    await expect(page.getByTestId("updated-ago")).toHaveText(/^\d+ s$/);

    const orders = page.getByTestId("order");
    await expect(orders).toHaveCount(2);
    await expect(orders.first()).toHaveAttribute("data-state", "filled");
    const buy = page.locator(`[data-testid=order][data-order-id="${BUY_500_ID}"]`);
    await expect(buy).toContainText("buy 500");
    await buy.getByText("Events (2)").click();
    await expect(buy.getByTestId("order-event")).toHaveText([/intent by bot/, /send by bot/]);

    await page.getByTestId("drift-log").locator("summary").click();
    await expect(page.getByTestId("drift-episode")).toHaveCount(2);
    await expect(page.getByTestId("breaker-marker").first()).toContainText("size drift AAPL: book +500 vs exchange +300");
    await page.screenshot({ path: path.join(shots, "symbol.png"), fullPage: true });
  });

  test("shades a position the bot never opened in red and highlights a doubtful order", async ({ page }) => {
    const chart = await openChart(page, server.url + "/bots/bot-a/symbols/BTCUSDT");
    await expect(chart.locator(".recharts-reference-area.drift-unknown_position")).toHaveCount(1);
    await expect(page.getByTestId("order")).toContainText(["reconcile"]);
    await page.goto(server.url + "/bots/bot-a/symbols/ETHUSDT");
    const doubtful = page.locator('[data-testid=order][data-class="doubtful"]');
    await expect(doubtful).toHaveCount(1);
    await expect(doubtful.getByTestId("order-error")).toContainText("lookup failed");
  });

  test("fits a 390 px phone without sideways scrolling", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const chart = await openChart(page, server.url + AAPL);
    await expect(chart.locator(".recharts-reference-area:not(.no-cycle)")).toHaveCount(2);
    await noHorizontalScroll(page);
    // Seven marks on a 300 px plot: fewer labels, none printed over another.
    expect(await markerLabelsApart(chart)).toBeGreaterThan(0);
    const box = await page.getByTestId("position-chart").boundingBox();
    expect(box?.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(shots, "symbol-phone.png"), fullPage: true });
    // A window to the millisecond (the offers around an order end on one) fits its fields whole.
    await page.goto(`${server.url}${AAPL}?range=custom&from=2026-08-10T15:31:02.417Z&to=2026-08-10T15:46:02.417Z`);
    for (const label of ["From (UTC)", "To (UTC)"]) {
      const field = page.getByLabel(label);
      await expect(field).toHaveValue(/^2026-08-10 15:(31|46):02\.417$/);
      expect(await field.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    }
    await noHorizontalScroll(page);
  });

  test("has no serious accessibility violations, light or dark", async ({ page }) => {
    await openChart(page, server.url + AAPL);
    await page.getByTestId("order").first().locator("summary").click();
    await page.getByTestId("drift-log").locator("summary").click();
    await noSeriousAxeViolations(page);
    await page.emulateMedia({ colorScheme: "dark" });
    await noSeriousAxeViolations(page, { colorsOnly: true });
    await page.screenshot({ path: path.join(shots, "symbol-dark.png"), fullPage: true });
  });

  test("changes range by keyboard, and keeps the range in the URL", async ({ page }) => {
    await openChart(page, server.url + AAPL);
    const hour = page.getByRole("link", { name: "1 h" });
    await hour.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\?range=1h$/);
    await expect(hour).toHaveAttribute("aria-current", "true");
    await expect(page.getByTestId("position-chart").locator(".recharts-reference-area:not(.no-cycle)")).toHaveCount(2);

    const from = new Date(Date.now() - 30 * 60_000).toISOString().slice(0, 19).replace("T", " ");
    const to = new Date(Date.now() + 60_000).toISOString().slice(0, 19).replace("T", " ");
    await page.getByLabel("From (UTC)").fill(from);
    await page.getByLabel("To (UTC)").fill(to);
    await page.getByLabel("To (UTC)").press("Enter");
    await expect(page).toHaveURL(/range=custom&from=[^&]+&to=/);
    // Times read "05:31:02 UTC" today and "Nov 30 05:31:02 UTC" another day: the instant is in dateTime.
    await expect(page.getByTestId("chart-window").locator("time").first()).toHaveAttribute("datetime", `${from.replace(" ", "T")}.000Z`);
    await expect(page.getByTestId("chart-window").locator("time").first()).toContainText(`${from.slice(11)} UTC`);
    await expect(page.getByTestId("position-chart").locator(".recharts-reference-area:not(.no-cycle)")).toHaveCount(2);
  });

  test("explains a bad range on the page instead of failing", async ({ page }) => {
    const res = await page.goto(server.url + AAPL + "?range=custom&from=yesterday&to=2026-08-10T15:30:00Z");
    expect(res?.status()).toBe(200);
    await expect(page.getByTestId("range-error")).toContainText('from "yesterday" is not a time');
    await expect(page.getByTestId("order")).toHaveCount(2);
    await page.goto(server.url + AAPL + "?range=2h");
    await expect(page.getByTestId("range-error")).toContainText('range "2h" is not one of 15m, 1h, day, custom');
    const api = await page.request.get(server.url + "/api" + AAPL + "/chart?range=custom&from=2026-08-10T15:30:00Z&to=2026-08-10T15:00:00Z");
    expect(api.status()).toBe(400);
    expect(await api.json()).toEqual({ ok: false, error: { code: "invalid", message: "to must be after from" } });
  });

  test("says which of bot or symbol it does not know, with a way back", async ({ page }) => {
    await page.goto(server.url + "/bots/bot-z/symbols/AAPL");
    await expect(page.getByTestId("not-found-message")).toHaveText("There is no bot bot-z in this journal.");
    await page.goto(server.url + "/bots/bot-a/symbols/DOGE");
    await expect(page.getByTestId("not-found-message")).toHaveText("Bot bot-a has never reconciled or ordered DOGE.");
    await expect(page.getByRole("link", { name: "BTCUSDT" })).toHaveAttribute("href", "/bots/bot-a/symbols/BTCUSDT");
    await page.getByRole("link", { name: "Back to the bots" }).click();
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  });
});

test.describe("the symbol page of a journal under review", () => {
  let server: ConsoleServer;
  test.beforeAll(async () => {
    const { file } = await writeDriftScenario({ startAt: new Date("2026-08-10T15:30:00.000Z") });
    server = await startConsole({ journal: file });
  });
  test.afterAll(async () => server?.stop());

  test("says the last 15 min are empty and offers the range around the latest data", async ({ page }) => {
    await page.goto(server.url + AAPL);
    await expect(page.getByTestId("live-status")).toBeVisible({ timeout: 20_000 });
    const notice = page.getByTestId("history-notice");
    await expect(notice).toContainText(/No data in the last 15 min: the bot's latest reconciliation is from Aug 10 (2026 )?15:33:0/);
    await expect(page.getByTestId("chart-empty")).toBeVisible();
    await notice.getByRole("link", { name: "its trading day" }).click();
    await expect(page).toHaveURL(/\?range=day$/);
    await expect(page.getByTestId("chart-window")).toContainText(/Aug 10 (2026 )?00:00:00 UTC to Aug 11 (2026 )?00:00:00 UTC/);
    await expect(page.getByTestId("chart-window")).toContainText("history, not polled");
    await expect(page.getByTestId("position-chart").locator(".recharts-reference-area:not(.no-cycle)")).toHaveCount(2);
    await notice.waitFor({ state: "detached" });
  });

  test("a drift already going at the window's first cycle says so, not that it began there", async ({ page, request }) => {
    const day = (await (await request.get(`${server.url}/api${AAPL}/chart?range=day`)).json()) as {
      data: { window: { to: string }; episodes: { from: number; samples: number }[] };
    };
    const episode = day.data.episodes.find((e) => e.samples >= 2)!;
    const from = new Date(episode.from + 1).toISOString();
    await page.goto(`${server.url}${AAPL}?range=custom&from=${encodeURIComponent(from)}&to=${encodeURIComponent(day.data.window.to)}`);
    await page.getByTestId("drift-log").locator("summary").click();
    await expect(page.getByTestId("drift-episode").first()).toContainText(
      /at the window's first cycle, (\w{3} \d+ )?\d\d:\d\d:\d\d UTC \(it may have begun before\)/,
    );
    // The whole day's window starts before it: there it begins where it began.
    await page.goto(`${server.url}${AAPL}?range=day`);
    await page.getByTestId("drift-log").locator("summary").click();
    await expect(page.getByTestId("drift-episode").first()).toContainText(/from (\w{3} \d+ )?\d\d:\d\d:\d\d UTC/);
    await expect(page.getByTestId("drift-episode").first()).not.toContainText("first cycle");
  });

  test("a chart of history is drawn once, not again at every tick of the page's clock", async ({ page }) => {
    // The page re-renders each second (its ages count); the chart redrew with it, and a 20-day
    // chart kept the main thread busy about a second in every second.
    await page.goto(`${server.url}${AAPL}?range=day`);
    await expect(page.getByTestId("chart-window")).toContainText("history, not polled");
    const chart = page.getByTestId("position-chart");
    await expect(chart.locator(".recharts-line").first()).toBeVisible();
    await page.waitForTimeout(500);
    const mutations = await chart.evaluate(
      (el) =>
        new Promise<number>((resolve) => {
          let n = 0;
          const seen = new MutationObserver((list) => (n += list.length));
          seen.observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
          // Three ticks of the clock, at which the page's ages change.
          setTimeout(() => {
            seen.disconnect();
            resolve(n);
          }, 3_200);
        }),
    );
    await expect(page.getByTestId("live-status")).toContainText(/updated \d+ s ago/);
    expect(mutations).toBe(0);
  });
});

test.describe("when the console stops answering", () => {
  test("raises the alarm banner and stops calling the page live", async ({ page }) => {
    const { file } = await writeDriftScenario({ startAt: new Date(Date.now() - 200_000) });
    const server = await startConsole({ journal: file });
    try {
      await openChart(page, server.url + AAPL);
      await expect(page.getByTestId("live-status")).toContainText("live");
      await server.stop();
      const banner = page.getByTestId("alarm-banner");
      // The book's read and the chart's fail alike, and say so once (the chart's may not have failed yet).
      await expect(banner).toContainText(/cannot read the book(, orders and chart| and orders) right now: the console server cannot be reached/, {
        timeout: 10_000,
      });
      await expect(banner).toContainText("cannot read the book, orders and chart right now: the console server cannot be reached", { timeout: 10_000 });
      await expect(page.getByTestId("live-status")).toContainText("not updating");
      // The book is the last one read, and says so: an in-sync line is not called in sync now.
      const book = page.getByTestId("book-line");
      await expect(book.getByRole("heading")).toHaveText("Book when last read (not current)");
      if ((await book.getAttribute("data-drift")) === "none") await expect(book.getByTestId("sync-state")).toHaveText("unknown: in sync when last read");
    } finally {
      await server.stop();
    }
  });
});

test("a stretch with no compared cycle is a grey band where both lines stop, not the last books carried across", async ({ page }) => {
  // Cycles every 15 s for five minutes, but none for two of them: the bot was stopped (a try-out saw
  // an incident's chart draw a 66 s stop as a quiet market).
  const j = await healthyJournal(undefined, { startMsAgo: 200_000, ms: 120_000 });
  const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
  try {
    const chart = await openChart(page, `${server.url}/bots/gamma/symbols/AAPL`);
    const band = chart.locator(".recharts-reference-area.no-cycle");
    await expect(band).toHaveCount(1);
    await expect(chart.locator("text", { hasText: "not compared" })).toHaveCount(1);
    // Each line is drawn in two pieces, one each side of the band.
    const pieces = await chart
      .locator(".recharts-line path.recharts-curve")
      .evaluateAll((paths) => paths.map((p) => (p.getAttribute("d") ?? "").split("M").length - 1));
    expect(pieces).toEqual([2, 2]);
    await expect(page.getByRole("list", { name: "Chart key" })).toContainText("not compared (no cycle compared the books)");
    fs.mkdirSync(shots, { recursive: true });
    await chart.screenshot({ path: path.join(shots, "symbol-gap.png") });

    // Minute by minute, the stop is said where it starts: the journal holds nothing of it, and its
    // minutes read as quiet ones with fewer events (a try-out).
    await page.goto(`${server.url}/incidents?view=window`);
    await expect(page.getByTestId("silence-note")).toContainText("Once in this window a bot wrote no reconciliation for longer than four of its cycles");
    const silence = page.getByTestId("cycle-silence");
    await expect(silence).toHaveCount(1);
    await expect(silence).toHaveText(
      /^gamma wrote no reconciliation for 2\smin\s\d+\ss: from its cycle at \d\d:\d\d:\d\d UTC to its next, at \d\d:\d\d:\d\d UTC \(its cycles are 15\ss apart in this window\)\. Stopped, paused, or unable to write its journal: what it saw then is not known\.$/,
    );
    // Under its minute's heading, and a link away from the line that counts them.
    await expect(silence.locator("xpath=preceding-sibling::*[1]")).toHaveJSProperty("tagName", "H3");
    await page
      .getByTestId("silence-note")
      .getByRole("link", { name: /^gamma at \d\d:\d\d:\d\d UTC, for 2\smin\s\d+\ss$/ })
      .click();
    await expect(silence).toBeInViewport();
  } finally {
    await server.stop();
    j.close();
  }
});
