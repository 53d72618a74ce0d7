/**
 * On a phone, a link or control that stands on its own is at least 24 px tall (WCAG 2.2's minimum
 * target size; components/ui/tap-target.ts): a try-out at 390 px measured 16 px symbol links,
 * breadcrumbs and review links. Words inside a sentence are exempt and not measured here.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { incidentJournal } from "../helpers/e2e/journals";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

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

async function allTall(page: Page, targets: Locator, what: string) {
  await expect(targets.first()).toBeVisible();
  const heights = await targets.evaluateAll((els) =>
    els.filter((e) => e.getClientRects().length > 0).map((e) => [e.textContent, e.getBoundingClientRect().height] as const),
  );
  expect(heights.length, what).toBeGreaterThan(0);
  for (const [text, h] of heights) expect(h, `${what}: ${text}`).toBeGreaterThanOrEqual(24);
}

test("links that stand alone are at least 24 px tall at 390 px", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(server.url);
  await allTall(page, page.getByTestId("bot-card").locator("h2 a"), "bot card name");
  await allTall(page, page.locator('td[data-label="Symbol"] a'), "overview symbol link");

  await page.goto(`${server.url}/bots/alpha/symbols/ETHUSDT`);
  await allTall(page, page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link"), "breadcrumb");

  await page.goto(`${server.url}/breakers`);
  await allTall(page, page.getByTestId("review-incident"), "Review this incident");
  await allTall(page, page.getByTestId("review-minutes"), "minute by minute");

  await page.goto(`${server.url}/incidents`);
  await allTall(page, page.getByTestId("incident-link"), "incident link");
});
