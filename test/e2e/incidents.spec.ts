import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { csvRecords } from "../helpers/csv";
import { OPERATOR_REASON, writeIncidentScenario, type IncidentScenario } from "../helpers/incident-journal";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

test.describe("breakers and the incident review, after an unknown position, a lost reply and an operator's clear", () => {
  let server: ConsoleServer;
  let scenario: IncidentScenario;

  test.beforeAll(async () => {
    // Twenty minutes ago, so the trips are recent and bot-b's halt is still open now.
    scenario = await writeIncidentScenario({ startAt: new Date(Date.now() - 20 * 60_000) });
    scenario.close();
    server = await startConsole({ journal: scenario.file });
  });
  test.afterAll(async () => server?.stop());

  test("the breakers page lists each trip with its cause, actor and duration; its review link opens the incident's story, and minute by minute its window", async ({
    page,
  }) => {
    await page.goto(`${server.url}/breakers`);
    await expect(page.getByRole("heading", { name: "Breakers", level: 1 })).toBeVisible();
    await expect(page.getByTestId("live-status")).toContainText("updated");

    const a = page.locator('[data-testid="bot-breakers"][data-bot="bot-a"]');
    await expect(a.getByTestId("breaker-now")).toHaveText("not halted");
    // The scenario's bots stopped writing twenty minutes ago: "not halted" is what bot-a last
    // wrote, and the card says nothing vouches for it now.
    await expect(a.getByTestId("bot-now")).toHaveText("STALE");
    await expect(a.getByTestId("bot-now-why")).toHaveText(
      "STALE: heartbeat is stale; last reconciliation is stale. This breaker is as the bot last wrote it: a bot that stopped, or tripped and could not write it, reads the same.",
    );
    const trip = a.locator('[data-testid="breaker-event"][data-kind="trip"]');
    await expect(trip.getByTestId("breaker-reason")).toHaveText("unknown position ETHUSDT +3");
    await expect(trip.getByTestId("breaker-cause")).toContainText(`reconciliation #${scenario.botA.reconciliationId}`);
    await expect(trip.locator('[data-testid="drift-line"][data-drift="unknown_position"]')).toContainText("ETHUSDT");
    // Not signed in: the operator's role, never their name.
    await expect(trip.getByTestId("breaker-duration")).toContainText(/Halted for 2 min 0 s; cleared .* by operator\.$/);
    const clear = a.locator('[data-testid="breaker-event"][data-kind="clear"]');
    await expect(clear).toContainText("by operator");
    await expect(clear).not.toContainText("operator:ana");
    await expect(clear).toContainText(`Ended a halt of 2 min 0 s: incident ${scenario.botA.tripId}.`);
    // Its number, as an export names it (breaker-<n>), and the incident it ended.
    await expect(clear.getByTestId("breaker-event-number")).toHaveText(`breaker event #${scenario.botA.clearId}`);
    await expect(clear.getByTestId("cleared-incident")).toHaveAttribute("href", `/incidents/${scenario.botA.tripId}`);
    await expect(trip.getByTestId("breaker-event-number")).toHaveText(`breaker event #${scenario.botA.tripId}`);

    const b = page.locator('[data-testid="bot-breakers"][data-bot="bot-b"]');
    await expect(b.getByTestId("breaker-now")).toHaveText("HALTED");
    await expect(b.getByTestId("halted-for")).toContainText(/Halted for \d+ min \d+ s/);
    // From the halt straight to where it is cleared; a bot that is not halted offers no such link.
    await expect(b.getByTestId("review-and-clear")).toHaveAttribute("href", "/bots/bot-b");
    await expect(a.getByTestId("review-and-clear")).toHaveCount(0);
    await expect(b.locator('[data-kind="trip"]')).toHaveAttribute("data-status", "halted");
    await expect(b.locator('[data-kind="trip"]').getByTestId("breaker-duration")).toContainText("Still halted");

    // Every bot's breaker at the top, each a link to its card: on a phone the second bot's card is
    // below the first one's history.
    const contents = page.getByTestId("breakers-contents");
    await expect(contents.getByRole("link")).toHaveText(["bot-a not halted STALE", "bot-b HALTED STALE"]);
    await page.setViewportSize({ width: 390, height: 844 });
    await contents.getByRole("link", { name: "bot-b HALTED STALE" }).click();
    await expect(b.getByRole("heading", { name: "bot-b" })).toBeInViewport();
    await expect(a.getByTestId("breaker-now")).not.toBeInViewport();
    // A clear's link to the incident it ended is a finger's target too (16 px in a try-out).
    expect((await clear.getByTestId("cleared-incident").boundingBox())!.height).toBeGreaterThanOrEqual(24);

    fs.mkdirSync("test-results/screenshots", { recursive: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: "test-results/screenshots/breakers.png", fullPage: true });

    // Reviewing a trip starts from its story, which links to the window minute by minute.
    await trip.getByTestId("review-incident").click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${scenario.botA.tripId}$`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`Incident ${scenario.botA.tripId}: bot-a`);
    // Back after the jump to bot-b's card: the breakers page again, not the story under its address.
    await page.goBack();
    await expect(page.getByRole("heading", { name: "Breakers", level: 1 })).toBeVisible();
    await trip.getByTestId("review-minutes").click();
    await expect(page).toHaveURL(new RegExp(`/incidents\\?from=.*&bot=bot-a#breaker-${scenario.botA.tripId}$`));
    const target = page.locator(`#breaker-${scenario.botA.tripId}`);
    await expect(target).toBeVisible();
    await expect(target).toContainText("BREAKER TRIPPED by bot: unknown position ETHUSDT +3");
    await expect(page.locator(`#breaker-${scenario.botA.clearId}`)).toContainText("breaker cleared by operator:");
    await expect(page.locator(`#breaker-${scenario.botA.clearId}`)).not.toContainText("operator:ana");
    // Filtered to bot-a: bot-b's lost order is not in this incident.
    await expect(page.locator('[data-testid="incident-event"]').filter({ hasText: "b700-" })).toHaveCount(0);
  });

  test("the incident review shows every event of the window in time order, minute by minute", async ({ page }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    await expect(page.getByRole("heading", { name: "Incident review" })).toBeVisible();
    await expect(page.getByTestId("window-summary")).toContainText("showing the last hour");
    const events = page.getByTestId("incident-event");
    const total = scenario.counts.orderEvents + scenario.counts.reconciliations + scenario.counts.breakerEvents;
    await expect(events).toHaveCount(total);
    const times = await events.evaluateAll((els) => els.map((e) => e.getAttribute("data-at") ?? ""));
    expect(times).toEqual([...times].sort());
    await expect(page.getByTestId("incident-minute").first().locator("h3")).toContainText(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    // Times to the millisecond, local time on hover.
    await expect(events.first().locator("time")).toHaveText(/^\d\d:\d\d:\d\d\.\d{3}$/);
    await expect(events.first().locator("time")).toHaveAttribute("title", /your local time/);

    const drift = page.locator(`#reconciliation-${scenario.botA.reconciliationId}`);
    await expect(drift).toHaveAttribute("data-severity", "emergency");
    await expect(drift.locator('[data-drift="unknown_position"]')).toContainText("ours 0 · theirs +3");
    await expect(page.locator('[data-source="order"][data-kind="status"][data-severity="emergency"]')).toContainText("is UNKNOWN");
    await expect(page.getByTestId("window-counts")).toContainText("2 trips");
    // Each position once, named, with the cycles that found it.
    await expect(page.getByTestId("window-counts")).toContainText(/1 unknown position \(bot-a ETHUSDT in \d+ cycles?\)/);

    // Filters live in the URL: trips and clears only.
    await page.goto(`${server.url}/incidents?kind=breaker`);
    await expect(events).toHaveCount(scenario.counts.breakerEvents);
    await expect(page.getByLabel("trips and clears")).toBeChecked();
    await expect(page.getByLabel("order events")).not.toBeChecked();
  });

  test("the exports of the window parse and hold the same events as the page", async ({ page, request }) => {
    await page.goto(`${server.url}/incidents?view=window`);
    const shown = await page.getByTestId("incident-event").count();
    expect(shown).toBeGreaterThan(0);
    // The last hour runs to the next minute: the page says it is a reading, not the whole window.
    await expect(page.getByTestId("window-open")).toContainText(/This window is not over yet: it shows the journal as read at \d\d:\d\d:\d\d/);

    const jsonHref = await page.getByTestId("export-json").getAttribute("href");
    const res = await request.get(server.url + jsonHref);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-disposition"]).toMatch(/^attachment; filename="driftwatch-incident-[A-Za-z0-9._-]+\.json"$/);
    const json = (await res.json()) as { window: { from: string; to: string }; events: { id: string; at: string; summary: string }[] };
    const url = new URL(server.url + jsonHref);
    expect(json.window).toEqual({ from: url.searchParams.get("from"), to: url.searchParams.get("to") });
    expect(json.events).toHaveLength(shown);
    expect(json.events.map((e) => e.at)).toEqual(json.events.map((e) => e.at).sort());

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    expect(download.suggestedFilename()).toMatch(/^driftwatch-incident-[A-Za-z0-9._-]+\.csv$/);
    const csv = fs.readFileSync(await download.path(), "utf8");
    const records = csvRecords(csv);
    expect(records).toHaveLength(shown);
    expect(records.map((r) => r.id)).toEqual(json.events.map((e) => e.id));
    expect(records.find((r) => r.kind === "clear")!.reason).toBe(OPERATOR_REASON);

    // The built console's export thread (the production bundle's worker) writes a second half once
    // it has loaded; the page started it, and an export meanwhile was written whole on the route's
    // thread rather than wait for it. Each export after that is the same file.
    const stretches = async (outcome: string) => {
      const scrape = await (await request.get(`${server.url}/api/metrics`)).text();
      return Number(new RegExp(`^driftwatch_export_thread_stretches_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(scrape)?.[1]);
    };
    await expect
      .poll(async () => {
        const again = await request.get(server.url + jsonHref);
        expect(((await again.json()) as { events: { id: string }[] }).events.map((e) => e.id)).toEqual(json.events.map((e) => e.id));
        return stretches("written");
      })
      .toBeGreaterThanOrEqual(1);
    expect(await stretches("refused")).toBe(0);
  });

  test("a window that is over says nothing of the kind", async ({ page }) => {
    await page.goto(`${server.url}/incidents?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z`);
    await expect(page.getByTestId("window-counts")).toBeVisible();
    await expect(page.getByTestId("window-open")).toHaveCount(0);
    // Filled as the symbol page fills its range, and as the hint spells times.
    await expect(page.getByRole("textbox", { name: "From (UTC)" })).toHaveValue("2026-01-01 00:00:00");
    await expect(page.getByRole("textbox", { name: "To (UTC, not included)" })).toHaveValue("2026-01-01 01:00:00");
    // A window to a trip's millisecond keeps it: sent back unchanged, it is the same window.
    await page.goto(`${server.url}/incidents?from=2026-01-01T00:00:00Z&to=2026-01-01T00:31:02.417Z`);
    await expect(page.getByRole("textbox", { name: "To (UTC, not included)" })).toHaveValue("2026-01-01 00:31:02.417");
    await page.getByRole("button", { name: "Show this window" }).click();
    await expect(page).toHaveURL(/to=2026-01-01\+00%3A31%3A02\.417/);
    await expect(page.getByRole("textbox", { name: "To (UTC, not included)" })).toHaveValue("2026-01-01 00:31:02.417");
  });

  test("a bad window says what is wrong, on the page and from the export route, never a 500", async ({ page, request }) => {
    const reversed = "from=2026-08-10T16:00:00Z&to=2026-08-10T15:00:00Z";
    const res = await page.goto(`${server.url}/incidents?${reversed}`);
    expect(res?.status()).toBe(200);
    await expect(page.getByTestId("window-error")).toContainText("to must be after from (2026-08-10T16:00:00.000Z)");
    await expect(page.getByRole("textbox", { name: "From (UTC)" })).toHaveValue("2026-08-10T16:00:00Z");

    await page.goto(`${server.url}/incidents?from=last%20tuesday`);
    await expect(page.getByTestId("window-error")).toContainText("from must be a UTC time such as 2026-08-10 15:30:00 or 2026-08-10T15:30:00Z");

    const wide = await request.get(`${server.url}/api/incidents/export?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&format=csv`);
    expect(wide.status()).toBe(400);
    expect(((await wide.json()) as { error: { message: string } }).error.message).toMatch(/the widest allowed is 7 d/);
    const back = await request.get(`${server.url}/api/incidents/export?${reversed}&format=json`);
    expect(back.status()).toBe(400);
  });

  for (const [name, path] of [
    ["breakers", "/breakers"],
    ["incidents", "/incidents?view=window"],
  ] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      test(`${name}, ${colorScheme}: no horizontal scroll at 390 px, no serious axe violation, screenshot saved`, async ({ browser }) => {
        // axe on a page that polls every second is slow on a busy machine; the check, not the clock, is the test.
        test.setTimeout(150_000);
        const context = await browser.newContext({ colorScheme, viewport: { width: 390, height: 844 } });
        try {
          const page = await context.newPage();
          await page.goto(server.url + path);
          await expect(page.locator("h1").first()).toBeVisible();
          await noHorizontalScroll(page);
          await noSeriousAxeViolations(page, { colorsOnly: colorScheme === "dark" });
          fs.mkdirSync("test-results/screenshots", { recursive: true });
          await page.screenshot({ path: `test-results/screenshots/${name}-390${colorScheme === "dark" ? "-dark" : ""}.png`, fullPage: true });
          if (name === "incidents" && colorScheme === "light") {
            await page.setViewportSize({ width: 1280, height: 900 });
            await page.screenshot({ path: "test-results/screenshots/incidents.png", fullPage: true });
          }
        } finally {
          await context.close();
        }
      });
    }
  }
});
