import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { tempDir } from "../helpers/journal";
import { incidentJournal } from "../helpers/e2e/journals";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { addAccountWithCli } from "../helpers/e2e/accounts";

const LINKS = [
  ["Overview", "/"],
  ["Doubtful orders", "/doubtful"],
  ["Breakers", "/breakers"],
  ["Incidents", "/incidents"],
  ["Audit log", "/audit"],
] as const;

const SECRET = "phone-nav-spec-session-secret-longer-than-32";
const operator = { name: "ana-on-call", password: "ana's long password here" };

async function allTall(page: Page, targets: Locator, what: string) {
  await expect(targets.first()).toBeVisible();
  const heights = await targets.evaluateAll((els) =>
    els.filter((e) => e.getClientRects().length > 0).map((e) => [e.textContent, e.getBoundingClientRect().height] as const),
  );
  expect(heights.length, what).toBeGreaterThan(0);
  for (const [text, h] of heights) expect(h, `${what}: ${text}`).toBeGreaterThanOrEqual(24);
}

test.describe("the main navigation on a phone (390 × 844)", () => {
  let server: ConsoleServer;
  let close: () => void;

  test.beforeAll(async () => {
    const j = await incidentJournal();
    close = j.close;
    const accountsDb = path.join(tempDir("e2e-phone-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: operator.name, role: "operator", password: operator.password });
    server = await startConsole({ journal: j.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
  });
  test.afterAll(async () => {
    await server?.stop();
    close?.();
  });

  test.beforeEach(async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
  });

  test("keeps the header to one row of at most 80 px, with the name, a Menu button and Sign in", async ({ page }) => {
    await page.goto(server.url);
    const header = page.locator("header").first();
    const box = await header.boundingBox();
    expect(box?.height).toBeLessThanOrEqual(80);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "driftwatch" })).toBeVisible();
    await expect(nav.getByText("Menu", { exact: true })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Sign in" })).toBeVisible();
    // The links wait behind the menu, so the halted card stays in the first screen.
    await expect(nav.getByRole("link", { name: "Audit log" })).toBeHidden();
    await noHorizontalScroll(page);
  });

  test("reaches every main link through the menu, and the menu closes after each", async ({ page }) => {
    await page.goto(server.url + "/login");
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const [name, path] of LINKS) {
      await nav.getByText("Menu", { exact: true }).click();
      await nav.getByRole("link", { name, exact: true }).click();
      await expect(page).toHaveURL(server.url + path);
      await expect(nav.getByRole("link", { name, exact: true })).toBeHidden();
      await noHorizontalScroll(page);
      // Opened again, the menu says where the reader is: that link alone is current, and reads bold.
      await nav.getByText("Menu", { exact: true }).click();
      const here = nav.getByRole("link", { name, exact: true });
      await expect(here).toHaveAttribute("aria-current", "page");
      expect(await here.evaluate((a) => getComputedStyle(a).fontWeight)).toBe("600");
      await expect(nav.locator("[aria-current]:visible")).toHaveCount(1);
      await nav.getByText("Menu", { exact: true }).click();
    }
    // A bot's page is under the Overview, where it is reached from; an incident's under Incidents.
    await page.goto(server.url + "/bots/alpha");
    await nav.getByText("Menu", { exact: true }).click();
    await expect(nav.getByRole("link", { name: "Overview", exact: true })).toHaveAttribute("aria-current", "true");
    await expect(nav.locator("[aria-current]:visible")).toHaveCount(1);
  });

  test("with the menu open, axe finds no serious violation and nothing scrolls sideways", async ({ page }) => {
    await page.goto(server.url);
    await page.getByRole("navigation", { name: "Main" }).getByText("Menu", { exact: true }).click();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" })).toBeVisible();
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
  });

  test("signed in, the header still fits in 80 px with the account and Sign out", async ({ page }) => {
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(operator.name);
    await page.getByLabel("Password").fill(operator.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText(operator.name);
    await page.goto(server.url);
    const box = await page.locator("header").first().boundingBox();
    expect(box?.height).toBeLessThanOrEqual(80);
    await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
    // The role is shown, not only read out: a viewer must see why there is nothing to press.
    await expect(page.getByTestId("signed-in-role")).toBeVisible();
    await expect(page.getByTestId("signed-in-role")).toHaveText("operator", { useInnerText: true });
    await noHorizontalScroll(page);
    await page.screenshot({ path: test.info().outputPath("phone-header-signed-in.png"), clip: { x: 0, y: 0, width: 390, height: 90 } });
  });

  test("links that stand alone are at least 24 px tall (WCAG 2.2 target size; components/ui/tap-target.ts)", async ({ page }) => {
    await page.goto(server.url);
    await allTall(page, page.getByTestId("bot-card").locator("h2 a"), "bot card name");
    await allTall(page, page.locator('td[data-label="Symbol"] a'), "overview symbol link");

    await page.goto(`${server.url}/bots/alpha/symbols/ETHUSDT`);
    await allTall(page, page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link"), "breadcrumb");

    await page.goto(`${server.url}/bots/alpha/symbols/BTCUSDT`);
    await allTall(page, page.locator('[data-testid="order-events"] > summary'), "an order's Events");

    await page.goto(`${server.url}/doubtful`);
    await allTall(page, page.getByTestId("viewer-sign-in"), "Sign in as an operator");

    await page.goto(`${server.url}/breakers`);
    await allTall(page, page.getByTestId("review-incident"), "Review this incident");
    await allTall(page, page.getByTestId("review-minutes"), "minute by minute");
    await allTall(page, page.getByTestId("breaker-cause-link"), "the trip's cause, reconciliation #n");

    await page.goto(`${server.url}/incidents`);
    await allTall(page, page.getByTestId("incident-link"), "incident link");
    await page.getByTestId("incident-link").first().click();
    await allTall(page, page.getByTestId("postmortem"), "Post-mortem (Markdown)");
    await allTall(page, page.locator("main header a").first(), "All incidents");
  });

  test("opens the menu and follows Audit log by keyboard alone", async ({ page }) => {
    await page.goto(server.url);
    const summary = page.getByRole("navigation", { name: "Main" }).locator("summary");
    await summary.focus();
    await page.keyboard.press("Enter");
    const audit = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" });
    await expect(audit).toBeVisible();
    for (let i = 0; i < 5 && !(await audit.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(audit).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(server.url + "/audit");
  });
});

test.describe("the main navigation on a wide screen", () => {
  test("shows every link in the row, with no Menu button", async ({ page }) => {
    const j = await incidentJournal();
    const server = await startConsole({ journal: j.file });
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(server.url);
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const [name] of LINKS) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
      await expect(nav.getByText("Menu", { exact: true })).toBeHidden();
    } finally {
      await server.stop();
      j.close();
    }
  });
});
