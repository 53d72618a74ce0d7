/**
 * A console tab in the background still learns of a trip: its title says HALTED within 5 s while
 * the tab is hidden. And, once the reader asked for them, a desktop notification tells the trip
 * once, with the bot and the cause, and its click opens the bot's page.
 */
import { expect, test, type Page } from "@playwright/test";
import { healthyJournal } from "../helpers/e2e/journals";
import { sqliteCli } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const TRIP_GAMMA = `UPDATE breakers SET halted = 1, reason = 'halted by hand in a test', changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'gamma';`;

let server: ConsoleServer;
let journal: Awaited<ReturnType<typeof healthyJournal>>;
test.beforeEach(async () => {
  journal = await healthyJournal();
  server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
});
test.afterEach(async () => {
  await server?.stop();
  journal?.close();
});

async function signalSettled(page: Page, state: "halted" | "plain") {
  await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", state, { timeout: 15_000 });
}

/**
 * Long enough for the halt signal to hear twice from the live stream (a heartbeat at least every
 * second) or, were the stream down, to poll twice (every 2 s): whatever it would do, it did.
 */
async function twoSignals(page: Page) {
  const since = await page.evaluate(() => performance.now());
  await expect.poll(() => page.evaluate(() => performance.now()), { timeout: 10_000 }).toBeGreaterThan(since + 4_000);
}

/**
 * Headless Chromium reports every page as visible whatever happens to it (checked with Chromium 156:
 * another page brought to the front, a second tab in the same window, the window minimized through
 * CDP, focus emulation off), so the page is told it is hidden the way the browser tells it: the
 * visibility state reads "hidden" and a visibilitychange event fires. TanStack Query and the poll's
 * rule (lib/query-options/poll.ts) read exactly that. What headless Chromium cannot show, its
 * throttling of hidden tabs' timers, is in the README.
 */
async function hideTab(page: Page) {
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  expect(await page.evaluate(() => document.visibilityState)).toBe("hidden");
}

test("a hidden tab shows HALTED in its title within 5 s of a trip written to the journal, and its page's own data keeps arriving", async ({ page }) => {
  await page.goto(`${server.url}/breakers`);
  await signalSettled(page, "plain");
  const now = page.locator("main").getByTestId("breaker-now");
  await expect(now).toHaveAttribute("data-halted", "false");

  await hideTab(page);
  // Hidden is not unknown: the tab keeps its plain title while the data stays fresh.
  await twoSignals(page);
  await expect(page).toHaveTitle(/^Breakers/);

  sqliteCli(journal.file, TRIP_GAMMA);
  await expect(page).toHaveTitle(/^HALTED · Breakers/, { timeout: 5_000 });
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
  // The breakers board's own data kept arriving in the background (on the stream), not paused.
  await expect(now).toHaveAttribute("data-halted", "true", { timeout: 10_000 });
  expect(await page.evaluate(() => document.visibilityState)).toBe("hidden");
});

test("a desktop notification, once asked for, tells a trip once with the bot and its cause, and its click opens the bot page", async ({ context, page }) => {
  await context.grantPermissions(["notifications"], { origin: server.url });
  // Record each notification the page makes, through the browser's own constructor.
  await page.addInitScript(() => {
    const Real = window.Notification;
    const told: { title: string; body: string | undefined; tag: string | undefined; note: Notification }[] = [];
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        told.push({ title, body: options?.body, tag: options?.tag, note: this });
      }
    }
    Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
    Object.defineProperty(Recorded, "requestPermission", { value: (...a: Parameters<typeof Real.requestPermission>) => Real.requestPermission(...a) });
    Object.defineProperty(window, "Notification", { configurable: true, writable: true, value: Recorded });
    Object.defineProperty(window, "__told", { value: told });
  });
  const told = () =>
    page.evaluate(() =>
      (window as unknown as { __told: { title: string; body?: string; tag?: string }[] }).__told.map(({ title, body, tag }) => ({ title, body, tag })),
    );

  await page.goto(`${server.url}/`);
  const main = page.locator("main");
  await main.getByRole("button", { name: "Notify me on this device" }).click();
  await expect(main.getByRole("button", { name: "Stop notifying me on this device" })).toHaveAttribute("aria-pressed", "true");
  await expect(main.getByTestId("desk-notify")).toContainText("while this tab is open");
  await page.goto(`${server.url}/incidents`);
  await signalSettled(page, "plain");
  await twoSignals(page);
  expect(await told()).toEqual([]);

  sqliteCli(journal.file, TRIP_GAMMA);
  await expect.poll(told).toHaveLength(1);
  const [note] = await told();
  expect(note?.title).toBe("HALTED · gamma");
  expect(note?.body).toMatch(/^gamma is halted: halted by hand by operator at \d\d:\d\d:\d\d UTC: halted by hand in a test\. Open its page to settle it\.$/);
  expect(note?.tag).toMatch(/^halt:gamma:\d+$/);
  // The next polls see the same halt: nothing is told twice.
  await twoSignals(page);
  expect(await told()).toHaveLength(1);

  await page.evaluate(() =>
    (window as unknown as { __told: { note: Notification }[] }).__told[0]!.note.dispatchEvent(new Event("click", { cancelable: true })),
  );
  await expect(page).toHaveURL(`${server.url}/bots/gamma`);

  // A reload remembers what this browser was told.
  await page.reload();
  await signalSettled(page, "halted");
  await twoSignals(page);
  expect(await told()).toEqual([]);
});

test("the notification control fits a 390 px phone and says it works while the tab is open", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${server.url}/`);
  const control = page.locator("main").getByTestId("desk-notify");
  await expect(control.getByRole("button", { name: "Notify me on this device" })).toBeVisible();
  await expect(control).toContainText("while this tab is open");
  const box = await control.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
