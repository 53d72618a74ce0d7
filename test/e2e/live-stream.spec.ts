/**
 * Push, not poll (GET /api/live): an open page learns of a change another process commits without
 * asking for it; when the stream is cut (the server stopped) the page says "not updating" within
 * 5 s, and resumes by itself when the server is back; eight tabs share one stream and all stay live.
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { healthyJournal } from "../helpers/e2e/journals";
import { sqliteCli } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const QUIET = { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" };

/** One cycle of gamma's in which the exchange holds 3 AAPL more than the bot: a size drift, as a bot writes it. */
const DRIFT_AAPL = `
  INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('gamma', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'drift', 0);
  INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (last_insert_rowid(), 'AAPL', 10, 13, 1, 190);
  UPDATE bots SET heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE bot_id = 'gamma';`;

const TRIP_GAMMA = `UPDATE breakers SET halted = 1, reason = 'halted by hand in a test', changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'gamma';`;

/** Every request the pages of `context` make to `pathname`, counted from now. */
function countRequests(context: BrowserContext, pathname: string) {
  let n = 0;
  const on = (r: { url: () => string }) => {
    if (new URL(r.url()).pathname === pathname) n++;
  };
  context.on("request", on);
  return { count: () => n, reset: () => (n = 0), stop: () => context.off("request", on) };
}

/** The page shows live data whose stream has taken over: "live", and its first poll (on mount) long answered. */
async function streaming(page: Page) {
  await expect(page.getByRole("main").getByTestId("live-status")).toContainText("live · updated");
  await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", "plain");
}

let server: ConsoleServer;
let journal: Awaited<ReturnType<typeof healthyJournal>>;
test.beforeEach(async () => {
  journal = await healthyJournal();
  server = await startConsole({ journal: journal.file, env: QUIET });
});
test.afterEach(async () => {
  await server?.stop();
  journal?.close();
});

test("the stream answers a wrong view with a 400 before any stream, and a right one as server-sent events", async ({ page }) => {
  const bad = await page.request.get(`${server.url}/api/live?views=overview,nope`);
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ ok: false, error: { code: "invalid", message: expect.stringContaining('"nope"') } });
  // A stream's headers, read in the page (Playwright's request would wait for the end of a body that never ends).
  await page.goto(`${server.url}/audit`);
  const head = await page.evaluate(async () => {
    const abort = new AbortController();
    const res = await fetch("/api/live?views=overview,bot-clear:gamma", { signal: abort.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/: ping\n\n/.test(text) || (text.match(/event: view/g) ?? []).length < 2) text += (await reader.read()).value ?? "";
    abort.abort();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      cache: res.headers.get("cache-control"),
      accel: res.headers.get("x-accel-buffering"),
      text,
    };
  });
  expect(head).toMatchObject({ status: 200, type: "text/event-stream; charset=utf-8", cache: "no-cache, no-transform", accel: "no" });
  expect(head.text).toMatch(/id: [a-z0-9]+-\d+\nevent: view\ndata: \{"view":"overview","ok":true,"data":\{/);
  expect(head.text).toMatch(/data: \{"view":"bot-clear:gamma","ok":true,/);
});

test("an open overview shows a drift committed by another process without asking for it", async ({ context, page }) => {
  const polls = countRequests(context, "/api/overview");
  await page.goto(server.url);
  await streaming(page);
  const row = page.locator('[data-testid="symbol-row"][data-bot="gamma"][data-symbol="AAPL"]');
  await expect(row).toHaveAttribute("data-drift", "none");
  // Whatever the page asked while it started (its first poll, on mount), it asks nothing once the stream carries it.
  await expect.poll(() => page.evaluate(() => performance.now()), { timeout: 10_000 }).toBeGreaterThan(3_000);
  polls.reset();

  sqliteCli(journal.file, DRIFT_AAPL);
  await expect(row).toHaveAttribute("data-drift", "size_drift", { timeout: 3_000 });
  // Three seconds more of a page that is live and asks nothing.
  const since = await page.evaluate(() => performance.now());
  await expect.poll(() => page.evaluate(() => performance.now()), { timeout: 10_000 }).toBeGreaterThan(since + 3_000);
  await expect(page.getByRole("main").getByTestId("live-status")).toContainText("live · updated");
  expect(polls.count()).toBe(0);
  polls.stop();
});

test("with the server stopped the page says 'not updating' within 5 s, and resumes by itself when it is back", async ({ context, page }) => {
  await page.goto(server.url);
  await streaming(page);
  const status = page.getByRole("main").getByTestId("live-status");
  const port = new URL(server.url).port;

  await server.stop();
  await expect(status).toContainText("not updating", { timeout: 5_000 });
  await expect(page.getByTestId("alarm-banner")).toContainText("The console server cannot be reached");

  const streams = countRequests(context, "/api/live");
  server = await startConsole({ journal: journal.file, env: QUIET, port: Number(port) });
  await expect(status).toContainText("live · updated", { timeout: 15_000 });
  // Back on the stream, not merely polling again: a change arrives, and the polls stop.
  await expect.poll(streams.count, { timeout: 15_000 }).toBeGreaterThan(0);
  const row = page.locator('[data-testid="symbol-row"][data-bot="gamma"][data-symbol="AAPL"]');
  sqliteCli(journal.file, DRIFT_AAPL);
  await expect(row).toHaveAttribute("data-drift", "size_drift", { timeout: 5_000 });
  const polls = countRequests(context, "/api/overview");
  const since = await page.evaluate(() => performance.now());
  await expect.poll(() => page.evaluate(() => performance.now()), { timeout: 10_000 }).toBeGreaterThan(since + 3_000);
  expect(polls.count()).toBe(0);
  streams.stop();
  polls.stop();
});

test("eight tabs stay live at once on one shared stream, and each learns of a trip", async ({ context }) => {
  // Eight pages loaded one after another, each checked: 1 to 2.5 min on a 2-core machine.
  test.setTimeout(300_000);
  const streams = countRequests(context, "/api/live");
  // Streams open now: started, and neither ended nor cut.
  let open = 0;
  const isLive = (r: { url: () => string }) => new URL(r.url()).pathname === "/api/live";
  context.on("request", (r) => isLive(r) && open++);
  context.on("requestfinished", (r) => isLive(r) && open--);
  context.on("requestfailed", (r) => isLive(r) && open--);
  const held = () => open;
  const paths = ["/", "/breakers", "/doubtful", "/bots/gamma", "/", "/audit", "/incidents", "/breakers?bot=gamma"];
  const pages: Page[] = [];
  for (const path of paths) {
    const page = await context.newPage();
    await page.goto(server.url + path);
    // "off" until the page has hydrated: seconds for the eighth tab on a loaded machine.
    await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", "plain", { timeout: 20_000 });
    pages.push(page);
  }
  // Every tab's own page (and the halt signal of all) is live; with one stream per tab, six of
  // them would hold every connection the browser allows and the others' requests would wait.
  for (const [i, page] of pages.entries()) {
    const status = page.getByRole("main").getByTestId("live-status");
    if (await status.count()) await expect(status, paths[i]).toContainText("live · updated");
  }
  sqliteCli(journal.file, TRIP_GAMMA);
  for (const [i, page] of pages.entries()) await expect(page, paths[i]).toHaveTitle(/^HALTED · /, { timeout: 5_000 });

  // One tab holds the stream for all: each new tab's views reopen it once at most, never eight at once.
  const polls = countRequests(context, "/api/overview");
  const opened = streams.count();
  const since = await pages[0]!.evaluate(() => performance.now());
  await expect.poll(() => pages[0]!.evaluate(() => performance.now()), { timeout: 10_000 }).toBeGreaterThan(since + 3_000);
  expect(opened).toBeLessThanOrEqual(paths.length + 1);
  expect(streams.count()).toBe(opened);
  expect(polls.count()).toBe(0);
  expect(held()).toBe(1);

  // The tab holding the stream goes: another takes it over, and every tab left stays live.
  await pages[0]!.close();
  sqliteCli(journal.file, DRIFT_AAPL);
  const overview = pages[4]!;
  await expect(overview.locator('[data-testid="symbol-row"][data-bot="gamma"][data-symbol="AAPL"]')).toHaveAttribute("data-drift", "size_drift", {
    timeout: 5_000,
  });
  for (const page of pages.slice(1)) await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", "halted");
  streams.stop();
  polls.stop();
});

test("a stranger's streams of made-up views are refused past the console's limit, and the desk's page still learns of a drift", async ({ page }) => {
  const { default: http } = await import("node:http");
  // Two streams of 100 views each that nobody else watches (a `before` apiece): the 200 views the console re-reads on a change.
  const flood = (first: number) =>
    new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const views = Array.from({ length: 100 }, (_, i) => `breakers:gamma:${first + i}`).join(",");
      http.get(`${server.url}/api/live?views=${encodeURIComponent(views)}`, { agent: false }, resolve).on("error", reject);
    });
  const held = [await flood(1), await flood(101)];
  for (const res of held) {
    expect(res.statusCode).toBe(200);
    res.resume();
  }
  const refused = await page.request.get(`${server.url}/api/live?views=${encodeURIComponent("breakers:gamma:201")}`);
  expect(refused.status()).toBe(503);
  expect(refused.headers()["retry-after"]).toBe("5");
  expect(await refused.json()).toMatchObject({
    ok: false,
    error: {
      code: "busy",
      message: "Not streamed: the console already watches 200 live views, and these would add 1 past its limit of 200: this page asks every second instead.",
    },
  });

  // The overview's views are new too: its stream is refused, and the page polls, as when its stream is down.
  await page.goto(server.url);
  const row = page.locator('[data-testid="symbol-row"][data-bot="gamma"][data-symbol="AAPL"]');
  await expect(row).toHaveAttribute("data-drift", "none");
  sqliteCli(journal.file, DRIFT_AAPL);
  await expect(row).toHaveAttribute("data-drift", "size_drift", { timeout: 5_000 });
  await expect(page.getByRole("main").getByTestId("live-status")).toContainText("updated");

  // The stranger gone, the page's stream is let in at its next try.
  for (const res of held) res.destroy();
  await streaming(page);
  // The server learns that a socket closed when it next writes to it (a ping, at most a second
  // apart): under a loaded CI run the second stream's views were still counted at the first try.
  await expect
    .poll(
      () =>
        page.evaluate(async () => (await fetch("/api/live?views=breakers:gamma:201", { signal: AbortSignal.timeout(2_000) }).catch(() => null))?.status ?? 0),
      { timeout: 10_000 },
    )
    .toBe(200);
});
