/**
 * With JavaScript off a page is what the server rendered and never changes, and no operator's form
 * can be sent: it says so, and the "live · updated 0 s ago" it would otherwise show forever is
 * hidden; the overview's sort and filters still work, as a plain form. With JavaScript on, none of
 * that shows.
 */
import { expect, test } from "@playwright/test";
import { healthyJournal } from "../helpers/e2e/journals";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

let server: ConsoleServer;
let journal: Awaited<ReturnType<typeof healthyJournal>>;
test.beforeAll(async () => {
  journal = await healthyJournal();
  server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_HEARTBEAT_STALE_MS: "600000", DRIFTWATCH_RECONCILIATION_STALE_MS: "600000" } });
});
test.afterAll(async () => {
  await server?.stop();
  journal?.close();
});

test("without JavaScript a page says it does not update, and does not claim to be live", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  for (const p of ["/", "/doubtful", "/breakers"]) {
    await page.goto(server.url + p);
    await expect(page.getByTestId("no-script")).toContainText("JavaScript is off: this page shows the journal as it was when the page loaded");
    await expect(page.getByTestId("live-status")).toBeHidden();
    // The doubtful list renders its "live · updated 0 s ago" on the server: there, it is hidden
    // rather than saying "live" for ever (the overview's is streamed, and never shown without a script).
    if (p === "/doubtful") await expect(page.getByTestId("live-status")).toHaveCount(1);
  }
  // The overview's HTML is the journal as the server read it, not "No data yet": the tab's halt
  // signal (in the layout, before the page) once made the overview's query first, and the page's
  // read was then put in the cache only after its first render.
  await page.goto(server.url);
  await expect(page.locator('[data-testid="symbol-row"][data-bot="gamma"][data-symbol="AAPL"]')).toBeVisible();
  await expect(page.getByText("No data yet")).toHaveCount(0);
  // Nothing offered that only a script could do.
  await expect(page.getByTestId("desk-notify")).toHaveCount(0);
  // The overview's view controls still work: their form is sent by an Apply button only a
  // script-less page shows, as a GET of the same parameters the URL keeps.
  const rows = page.locator('[data-testid="symbol-row"]');
  expect(await rows.count()).toBeGreaterThan(0);
  await page.getByLabel("Bot", { exact: true }).selectOption("gamma");
  await page.getByLabel("drifting only").check();
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]drift=1/);
  await expect(page).toHaveURL(/[?&]bot=gamma/);
  await expect(page.getByLabel("drifting only")).toBeChecked();
  await expect(rows).toHaveCount(0);
  await context.close();
});

test("with JavaScript the notice is not there and the page says it is live", async ({ page }) => {
  await page.goto(server.url);
  await expect(page.getByTestId("live-status")).toContainText("live");
  await expect(page.getByTestId("no-script")).toBeHidden();
  // The controls answer at once: no Apply button to press.
  await expect(page.getByRole("button", { name: "Apply" })).toHaveCount(0);
});
