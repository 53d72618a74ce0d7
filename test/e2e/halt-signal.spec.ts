/**
 * The halt signal on every page: while any bot is halted, each page's tab says so (title and
 * favicon) and a slim banner names the halted bots with a link to each; with none halted, no page
 * does; and when the console cannot tell, the tab says "?" and the banner UNKNOWN, never healthy,
 * in a background tab too.
 */
import { expect, test, type Page } from "@playwright/test";
import { healthyJournal, incidentJournal } from "../helpers/e2e/journals";
import { migratedJournal, sqliteCli } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const PAGES = ["/bots/alpha", "/doubtful", "/incidents", "/audit"] as const;

async function signalSettled(page: Page, state: "halted" | "plain" | "unknown") {
  await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", state, { timeout: 15_000 });
}

test.describe("with halted bots", () => {
  let server: ConsoleServer;
  let close: () => void;
  test.beforeAll(async () => {
    const j = await incidentJournal();
    close = j.close;
    server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
  });
  test.afterAll(async () => {
    await server?.stop();
    close?.();
  });

  for (const path of PAGES) {
    test(`${path} shows the banner, the HALTED title and the halted favicon`, async ({ page }) => {
      await page.goto(server.url + path);
      await signalSettled(page, "halted");
      const banner = page.getByTestId("halt-banner");
      // One sentence per bot, its cause after a dash: never in brackets, which the cause may hold itself.
      await expect(banner).toHaveText(/^HALTED: alpha — unknown position ETHUSDT \+3\. beta — order be1-\w+ unknown: .+[^.]\.$/);
      expect(await banner.innerText()).not.toMatch(/\)\s*\(|\(\s*\(/);
      await expect(banner.getByRole("link", { name: "alpha" })).toHaveAttribute("href", "/bots/alpha");
      await expect(banner.getByRole("link", { name: "beta" })).toHaveAttribute("href", "/bots/beta");
      await expect(page).toHaveTitle(/^HALTED · .*driftwatch$/);
      await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
    });
  }

  test("the banner and the halted favicon are in the page's HTML: there without JavaScript, and no page moves when scripts start", async ({
    browser,
    page,
  }) => {
    // Rendered after hydration, the banner arrived 0.5-1 s after the page and pushed it ~100 px down (a try-out).
    const still = await browser.newContext({ javaScriptEnabled: false });
    try {
      const bare = await still.newPage();
      for (const path of PAGES) {
        await bare.goto(server.url + path);
        await expect(bare.getByTestId("halt-banner")).toHaveText(/^HALTED: alpha — unknown position ETHUSDT \+3\. beta — order be1-\w+ unknown: .+[^.]\.$/);
        await expect(bare.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
        // The title too: a tab opened in the background was named HALTED only once a script ran.
        await expect(bare).toHaveTitle(/^HALTED · .*driftwatch$/);
      }
      // The overview tells it at length in its own summary, without the banner.
      await bare.goto(server.url + "/");
      await expect(bare.getByTestId("halted-summary")).toBeVisible();
      await expect(bare.getByTestId("halt-banner")).toHaveCount(0);
      await expect(bare.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
      await expect(bare).toHaveTitle("HALTED · driftwatch");
      // The sign-in page shows no signal, and its title says none.
      await bare.goto(server.url + "/login");
      await expect(bare).toHaveTitle("Sign in · driftwatch");
    } finally {
      await still.close();
    }
    // With scripts: where the page's content starts when the HTML is parsed is where it stays.
    await page.addInitScript(() => {
      document.addEventListener("DOMContentLoaded", () => {
        (window as unknown as { mainTop: number }).mainTop = document.getElementById("main")!.getBoundingClientRect().top;
      });
    });
    for (const path of ["/bots/alpha", "/breakers"]) {
      await page.goto(server.url + path);
      await expect(page.getByTestId("halt-banner")).toBeVisible();
      const first = await page.evaluate(() => (window as unknown as { mainTop: number }).mainTop);
      await expect(page).toHaveTitle(/^HALTED · /);
      await signalSettled(page, "halted");
      expect(await page.locator("#main").evaluate((m) => m.getBoundingClientRect().top), path).toBe(first);
      expect(first, path).toBeGreaterThan(60);
    }
  });

  test("the banner's link leads to the halted bot's page, which keeps the signal", async ({ page }) => {
    await page.goto(`${server.url}/audit`);
    await page.getByTestId("halt-banner").getByRole("link", { name: "beta" }).click();
    await expect(page).toHaveURL(`${server.url}/bots/beta`);
    await expect(page).toHaveTitle("HALTED · beta · driftwatch");
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
    // The bot's own card counts what the overview's does: its doubtful order, its drifting symbol.
    const card = page.locator("main").getByTestId("bot-card");
    await expect(card.getByTestId("doubtful-count")).toHaveText("1 order");
    await expect(card.getByTestId("doubtful-count").getByRole("link")).toHaveAttribute("href", "/doubtful?bot=beta");
    await expect(card.getByTestId("drift-count")).toHaveText(/^\d+ symbols?(, \d+ unknown positions?)?$/);
  });

  test("a page with its own not-current box leaves that to the box: the banner keeps the halts, the tab keeps HALTED", async ({ page }) => {
    // /breakers and a bot's page showed the banner's "Not current" line over their own box saying
    // the same; the overview showed one (a try-out). Every answer held, none failed: the data only ages.
    await page.route("**/api/live*", (route) => route.abort());
    for (const path of ["/breakers", "/bots/alpha", "/doubtful"]) {
      await page.goto(server.url + path);
      await signalSettled(page, "halted");
      await page.route("**/api/**", () => undefined);
      const main = page.locator("main");
      await expect(main.getByTestId("alarm-banner")).toContainText(/the page has not been updated for \d+ s/, { timeout: 15_000 });
      await expect(page.getByTestId("halt-banner")).toHaveText(/^HALTED: alpha — /);
      await expect(page.getByTestId("halt-banner-not-current")).toHaveCount(0);
      await expect(page).toHaveTitle(/^HALTED · /);
      await page.unroute("**/api/**");
    }
    // A page without a box of its own still says it in the banner.
    await page.goto(`${server.url}/audit`);
    await signalSettled(page, "halted");
    await page.route("**/api/**", () => undefined);
    await expect(page.getByTestId("halt-banner-not-current")).toHaveText(/^Not current: no update for \d+ s$/, { timeout: 15_000 });
  });

  test("when the console cannot be reached, the banner keeps the last halt and says it is not current", async ({ page }) => {
    // Without the live stream (refused from the start), so the signal polls and the poll is what fails.
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/audit`);
    await signalSettled(page, "halted");
    await page.route("**/api/overview", (route) => route.abort());
    // The halt last seen stays on show, with why it may be out of date.
    // On a line of its own under the halts, not at the end of their causes.
    await expect(page.getByTestId("halt-banner-not-current")).toHaveText(
      "Not current: cannot read right now: the console server cannot be reached (check that driftwatch is still running and that this device can reach it)",
    );
    await expect(page).toHaveTitle(/^HALTED · /);
  });
});

/** A console on a journal of one healthy bot (gamma), whose staleness limits a slow machine never reaches, for `run`; stopped after. */
async function onHealthyConsole(run: (server: ConsoleServer) => Promise<void>) {
  const j = await healthyJournal();
  const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
  try {
    await run(server);
  } finally {
    await server.stop();
    j.close();
  }
}

test.describe("with no bot halted", () => {
  test("no page shows a banner, a HALTED title or the halted favicon; a halt in a background tab turns it", async ({ page }) => {
    const j = await healthyJournal();
    const server = await startConsole({ journal: j.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
    try {
      for (const path of ["/bots/gamma", "/doubtful", "/incidents", "/audit"]) {
        await page.goto(server.url + path);
        await signalSettled(page, "plain");
        await expect(page.getByTestId("halt-banner")).toHaveCount(0);
        await expect(page).not.toHaveTitle(/HALTED|\?/);
        await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon.svg");
      }

      // The tab goes to the background (the page's own polls pause there); the bot trips meanwhile.
      await page.evaluate(() => {
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
        Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
        document.dispatchEvent(new Event("visibilitychange"));
      });
      sqliteCli(
        j.file,
        `UPDATE breakers SET halted = 1, reason = 'halted by hand in a test', changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'gamma';`,
      );
      await expect(page).toHaveTitle("HALTED · Audit log · driftwatch");
      await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-halted.svg");
      // Changed by an operator: a hand-made halt, worded as who (a visitor sees only the role), when and why.
      await expect(page.getByTestId("halt-banner")).toHaveText(
        /^HALTED: gamma — halted by hand by operator at \d\d:\d\d:\d\d UTC: halted by hand in a test\.$/,
      );
    } finally {
      await server.stop();
      j.close();
    }
  });

  test("with nothing halted, a page whose own box says it is not updating shows no banner beside it, and the tab says ?", async ({ page }) => {
    await onHealthyConsole(async (server) => {
      await page.route("**/api/live*", (route) => route.abort());
      await page.goto(`${server.url}/breakers`);
      await signalSettled(page, "plain");
      await page.route("**/api/**", () => undefined);
      await expect(page.locator("main").getByTestId("alarm-banner")).toContainText("These breakers may be out of date", { timeout: 15_000 });
      await signalSettled(page, "unknown");
      await expect(page).toHaveTitle(/^\? · Breakers/);
      await expect(page.getByTestId("halt-banner")).toHaveCount(0);
    });
  });

  test("a poll that hangs turns the tab to ? when the page says it is not updating, not seconds later", async ({ page }) => {
    await onHealthyConsole(async (server) => {
      // Without the live stream, so the overview's poll feeds the page and the signal alike: one answer, one age.
      await page.route("**/api/live*", (route) => route.abort());
      await page.goto(server.url);
      await signalSettled(page, "plain");
      await expect(page.getByTestId("live-status")).toContainText("live");
      // Requests that never answer: no failure is ever reported, only the data's age tells.
      await page.route("**/api/overview", () => undefined);
      await expect(page.getByTestId("live-status")).toContainText("not updating", { timeout: 15_000 });
      // The same rule (lib/live/not-current.ts): within a tick of the page, where it used to lag 3 s behind.
      await expect(page.getByTestId("halt-signal")).toHaveAttribute("data-state", "unknown", { timeout: 1_500 });
      await expect(page).toHaveTitle(/^\? · /);
    });
  });

  test("when the journal cannot be read, the tab says ? with the unknown favicon and the banner UNKNOWN", async ({ page }) => {
    await onHealthyConsole(async (server) => {
      // Without the live stream (refused from the start), so the signal polls and the poll is what fails.
      await page.route("**/api/live*", (route) => route.abort());
      await page.goto(`${server.url}/incidents`);
      await signalSettled(page, "plain");
      await page.route("**/api/overview", (route) =>
        route.fulfill({ status: 503, json: { ok: false, error: { code: "unreadable", message: "the journal cannot be read", fix: "check the file" } } }),
      );
      await signalSettled(page, "unknown");
      await expect(page.getByTestId("halt-banner")).toContainText(
        "UNKNOWN: the console cannot tell whether any bot is halted: cannot read right now: the journal cannot be read",
      );
      await expect(page).toHaveTitle("? · Incidents · driftwatch");
      await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon-unknown.svg");
    });
  });
});

test("a page's banner shows the first three causes and counts the rest, linked to the overview where they stand at length", async ({ page }) => {
  // Four bots whose heartbeats and cycles stopped an hour ago: eight causes, none halted.
  const file = migratedJournal("banner-causes");
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  sqliteCli(
    file,
    ["north", "south", "east", "west"]
      .map(
        (b, i) =>
          `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('${b}', 'sim', 'c${i}', '${hourAgo}');
           INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('${b}', 0, '${hourAgo}', 'bot');
           INSERT INTO reconciliations (bot_id, at, outcome) VALUES ('${b}', '${hourAgo}', 'clean');`,
      )
      .join("\n"),
  );
  const server = await startConsole({ journal: file });
  try {
    await page.goto(`${server.url}/doubtful`);
    await signalSettled(page, "unknown");
    const banner = page.getByTestId("halt-banner");
    // The breakers are read; what nothing vouches for is the bots: not "cannot tell whether any bot is halted".
    await expect(banner).toHaveText(
      /^UNKNOWN: the console cannot vouch for these bots now: [^;]+; [^;]+; [^;]+; and \d+ more on the overview\. Check that each is running and can write its journal\.$/,
    );
    const more = banner.getByTestId("more-causes");
    await expect(more).toHaveAttribute("href", "/");
    await more.click();
    await expect(page).toHaveURL(`${server.url}/`);
    // The overview names every one of them.
    for (const bot of ["north", "south", "east", "west"]) await expect(page.getByText(`${bot}: heartbeat is stale`).first()).toBeVisible();
    // On a bot's own page, its causes come first: the last bot's were behind "more on the overview".
    await page.goto(`${server.url}/bots/west`);
    await signalSettled(page, "unknown");
    await expect(page.getByTestId("halt-banner")).toContainText(
      /^UNKNOWN: the console cannot vouch for these bots now: west: heartbeat is stale, and so is its last reconciliation; /,
    );
  } finally {
    await server.stop();
  }
});

test("a page's banner tells the first three halted bots with their causes, cut when long, and names the others alone; on a phone it leaves room for the page", async ({
  page,
}) => {
  const file = migratedJournal("banner-halted-many");
  const now = new Date().toISOString();
  const long = `size drift BTCUSDT: ${"the exchange reported a position the bot did not expect after a partial fill, see the runbook at https://wiki.example/desk/runbooks/drift ".repeat(3)}`;
  sqliteCli(
    file,
    ["north", "south", "east", "west", "zeta"]
      .map(
        (b, i) =>
          `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('${b}', 'sim', 'c${i}', '${now}');
           INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by) VALUES ('${b}', 1, '${i === 0 ? long : `halted ${b} in a test`}', '${now}', 'bot');
           INSERT INTO reconciliations (bot_id, at, outcome) VALUES ('${b}', '${now}', 'clean');`,
      )
      .join("\n"),
  );
  const server = await startConsole({ journal: file });
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/doubtful`);
    await signalSettled(page, "halted");
    const banner = page.getByTestId("halt-banner");
    // Every halted bot is named, each a link to its page.
    for (const bot of ["north", "south", "east", "west", "zeta"]) await expect(banner.getByRole("link", { name: bot, exact: true })).toBeVisible();
    await expect(banner.getByTestId("halted-more")).toHaveText(/^ ?Also halted: west, zeta \(their causes on their pages and the overview\)\.$/);
    await expect(banner).toContainText("(shortened; in full on its page).");
    await expect(banner).not.toContainText("runbooks/drift the exchange");
    // The page's own heading still shows on a phone's first screen.
    const box = await banner.boundingBox();
    expect(box!.height).toBeLessThan(260);
    await expect(page.getByRole("heading", { level: 1 })).toBeInViewport();
    // The overview's card keeps it to a few lines too, and says where it is whole.
    await page.goto(server.url);
    const card = page.locator('[data-testid="bot-card"][data-bot="north"]').getByTestId("halt-reason");
    await expect(card).toContainText("(shortened; in full on its page)");
    expect((await card.boundingBox())!.height).toBeLessThan(200);
    // On the bot's own page its whole reason is on the card below.
    await page.goto(`${server.url}/bots/north`);
    await expect(page.getByTestId("halt-banner")).toContainText("(shortened; in full below).");
    await expect(page.getByTestId("halt-reason")).toContainText("runbooks/drift the exchange");
    await expect(page.getByTestId("halt-reason")).not.toContainText("(cut;");
    // The last bot's own page tells its halt first, with its cause, and names the others after.
    await page.goto(`${server.url}/bots/zeta`);
    await signalSettled(page, "halted");
    await expect(page.getByTestId("halted-bot").first()).toHaveText(/^zeta.*— halted zeta in a test\.$/);
    await expect(page.getByTestId("halted-more")).toHaveText(/^ ?Also halted: \w+, \w+ \(/);
    await expect(page.getByTestId("halted-more")).not.toContainText("zeta");
  } finally {
    await server.stop();
  }
});
