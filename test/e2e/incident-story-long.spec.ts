/**
 * Incidents a new user tried the story page on: a drift trip nobody cleared, open for months; a
 * halt an operator made by hand ("Halt now") and another cleared ten minutes later; and the first,
 * two-minute incident of the same bot. The long one's chart shows the trip and what led to it and
 * says so; the hand-made halt is its operator's first action; durations keep "114 d 23 h" whole at
 * phone width.
 */
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { appendAudit } from "@/lib/audit/log";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { noHorizontalScroll } from "../helpers/e2e/a11y";
import { writeIncidentScenario, type IncidentScenario } from "../helpers/incident-journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const AUDIT_KEY = "incident-story-long-spec-audit-key-0123456789";
const HALT_REASON = "venue maintenance, stop new entries";
const SHOTS = "test-results/screenshots";

test.describe("a long incident, a halt by hand, at desk and phone width", () => {
  let server: ConsoleServer;
  let scenario: IncidentScenario;
  let longTrip: { id: number; at: string };
  let handTrip: number;

  test.beforeAll(async () => {
    // Months ago: bot-b's lost order and bot-c's drift are open since.
    scenario = await writeIncidentScenario({ startAt: new Date(Date.now() - 115 * 86_400_000) });
    const c = botOnSim({ botId: "bot-c", prefix: "c900", seed: 9, startAt: scenario.startAt, file: scenario.file });
    try {
      const symbols = SYMBOLS.map((s) => s.symbol);
      await c.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: scenario.startAt.toISOString() });
      for (let i = 0; i < 6; i++) {
        await c.writer.reconcile({ symbols });
        c.sim.advance(15_000);
      }
      c.sim.setPositionBehindBot("ETHUSDT", 3);
      const drift = await c.writer.reconcile({ symbols });
      if (drift.outcome !== "drift" || !drift.tripped) throw new Error(`expected bot-c to trip, got ${JSON.stringify(drift)}`);
      longTrip = c.rows<{ id: number; at: string }>(`SELECT id, at FROM breaker_events WHERE bot_id = 'bot-c' AND kind = 'trip'`)[0]!;

      // bot-a, running again after its first incident: ana halts it by hand, ben clears it ten minutes later, each as the console writes it.
      const w = c.db;
      const haltAt = new Date(Date.parse(scenario.botA.endAt) + 60_000).toISOString();
      const clearAt = new Date(Date.parse(haltAt) + 600_000).toISOString();
      handTrip = w
        .transaction(() => {
          w.prepare(
            `UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`,
          ).run(`halted by hand: ${HALT_REASON}`, haltAt);
          const id = Number(
            w
              .prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'trip', ?, 'operator:ana', NULL)`)
              .run(haltAt, `halted by hand: ${HALT_REASON}`).lastInsertRowid,
          );
          appendAudit(
            w,
            { at: haltAt, actor: "operator:ana", action: "halt_bot", target: "bot-a", outcome: "applied", detail: { reason: HALT_REASON, breakerVersion: 3 } },
            AUDIT_KEY,
          );
          return id;
        })
        .immediate();
      w.transaction(() => {
        w.prepare(
          `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = 'operator:ben', version = version + 1 WHERE bot_id = 'bot-a'`,
        ).run(clearAt);
        w.prepare(
          `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'clear', 'maintenance over', 'operator:ben', NULL)`,
        ).run(clearAt);
        appendAudit(
          w,
          { at: clearAt, actor: "operator:ben", action: "clear_halt", target: "bot-a", outcome: "applied", detail: { reason: "maintenance over" } },
          AUDIT_KEY,
        );
      }).immediate();
    } finally {
      c.close();
      scenario.close();
    }
    server = await startConsole({ journal: scenario.file });
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  test.afterAll(async () => server?.stop());

  /** Where the trip's line sits across the plot, 0 at its left edge and 1 at its right. */
  const tripPosition = (page: Page) =>
    page
      .locator("main")
      .getByTestId("position-chart")
      .evaluate((chart) => {
        const trip = chart.querySelector(".recharts-reference-line.breaker-trip line")!.getBoundingClientRect();
        const grid = chart.querySelector(".recharts-cartesian-grid")!.getBoundingClientRect();
        return (trip.x - grid.x) / grid.width;
      });

  test("the chart of a halt open for months shows the trip and what led to it, says which span that is and that it is still open, and links to the whole", async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/incidents/${longTrip.id}`);
    const main = page.locator("main");
    await expect(main.getByTestId("incident-status")).toHaveText("OPEN");
    // Still being written: the story says when it was read.
    await expect(main).toContainText(/This story is a reading at \d\d:\d\d:\d\d UTC: what happened since is not in it until the page is read again\./);
    await expect(main.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    const note = main.getByTestId("chart-span");
    await expect(note).toContainText("The chart shows the trip and what led to it, not the whole incident");
    await expect(note).toContainText("from 10 min before the trip to 50 min after it");
    await expect(note.getByTestId("chart-span-open")).toHaveText(/^The incident is still open, 11\d d \d+ h so far\.$/);
    // The trip sits a sixth of the way in, not at the left edge of four months.
    const at = await tripPosition(page);
    expect(at).toBeGreaterThan(0.1);
    expect(at).toBeLessThan(0.3);
    await page.screenshot({ path: `${SHOTS}/incident-long-open.png`, fullPage: true });

    const whole = note.getByTestId("chart-whole");
    await expect(whole).toHaveText("Chart the whole incident");
    const href = new URL((await whole.getAttribute("href"))!, server.url);
    expect(href.pathname).toBe("/bots/bot-c/symbols/ETHUSDT");
    expect(href.searchParams.get("range")).toBe("custom");
    expect(Date.parse(href.searchParams.get("from")!)).toBeLessThan(Date.parse(longTrip.at));
    expect(Date.parse(href.searchParams.get("to")!)).toBeGreaterThanOrEqual(Date.now() - 60_000);
    await whole.click();
    await expect(page).toHaveURL(/\/bots\/bot-c\/symbols\/ETHUSDT\?range=custom/);
    await expect(page.locator("main").getByTestId("position-chart")).toBeVisible();
  });

  test("a short incident's chart stays whole, with nothing to say about its span", async ({ page }) => {
    await page.goto(`${server.url}/incidents/${scenario.botA.tripId}`);
    const main = page.locator("main");
    await expect(main.getByTestId("time-to-clear")).toHaveText("2 min 0 s");
    await expect(main.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    await expect(main.getByTestId("chart-span")).toHaveCount(0);
  });

  test("a halt made by hand lists the halt under who did what and counts it as the first action, on the page and in the post-mortem", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/incidents/${handTrip}`);
    const main = page.locator("main");
    await expect(main.getByTestId("incident-cause")).toHaveText(`halted by hand by operator: ${HALT_REASON}`);
    const steps = main.getByTestId("incident-step");
    await expect(steps).toHaveCount(2);
    await expect(steps.nth(0)).toHaveAttribute("data-mark", "halt");
    await expect(steps.nth(0)).toContainText("operator halted bot-a by hand");
    await expect(steps.nth(0).getByTestId("step-note")).toHaveText(HALT_REASON);
    await expect(steps.nth(1)).toContainText("operator cleared the halt");
    await expect(main.getByTestId("time-to-first-action")).toHaveText("0 s");
    await expect(main.getByTestId("time-to-clear")).toHaveText("10 min 0 s");
    // The timeline tells each of the two actions once: the breaker event, with its audit entry on the same line.
    const timeline = main.getByTestId("story-timeline");
    const operatorLines = timeline.getByTestId("story-event").filter({ hasText: /operator/ });
    await expect(operatorLines).toHaveCount(2);
    await expect(operatorLines.nth(0)).toHaveAttribute("data-kind", "trip");
    await expect(operatorLines.nth(0)).toContainText(`BREAKER TRIPPED by operator: halted by hand: ${HALT_REASON}`);
    await expect(operatorLines.nth(0).getByTestId("story-event-audit")).toHaveText("audit log: operator: Halt now on bot-a: applied");
    await expect(operatorLines.nth(1)).toHaveAttribute("data-kind", "clear");
    await expect(operatorLines.nth(1).getByTestId("story-event-audit")).toHaveText("audit log: operator: Clear a halt on bot-a: applied");
    await expect(timeline.locator('[data-testid="story-event"][data-source="audit"]')).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/incident-hand-halt.png`, fullPage: true });

    const [download] = await Promise.all([page.waitForEvent("download"), main.getByTestId("postmortem").click()]);
    const text = fs.readFileSync(await download.path(), "utf8");
    expect(text).toContain("- **Time to first operator action:** 0 s (operator halted bot-a by hand)");
    expect(text).toMatch(
      /^1\. \d\d:\d\d:\d\d UTC: operator halted bot-a by hand\n {3}> venue maintenance, stop new entries\n2\. \d\d:\d\d:\d\d UTC: operator cleared the halt$/m,
    );

    // The list counts it the same way.
    await page.goto(`${server.url}/incidents?bot=bot-a`);
    await expect(page.locator(`[data-testid="incident-row"][data-incident="${handTrip}"]`).getByTestId("row-first-action")).toHaveText("after 0 s");
  });

  test("at 390 px each duration keeps its numbers and units on one line, and the boxes fit the phone", async ({ browser }) => {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme, viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}/incidents/${scenario.botB.tripId}`);
        const main = page.locator("main");
        await expect(main.getByTestId("time-to-clear")).toHaveText(/^not yet \(11\d d \d+ h so far\)$/);
        // Each run of numbers and units ("114 d 23 h") sits on one line, wherever the words around it wrap.
        const lines = await main.locator("[data-testid^='time-to-']").evaluateAll((els) =>
          els.flatMap((el) => {
            const nodes: Text[] = [];
            const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            while (walk.nextNode()) nodes.push(walk.currentNode as Text);
            const text = nodes.map((n) => n.data).join("");
            const at = (i: number): [Text, number] => {
              for (const n of nodes) {
                if (i <= n.data.length) return [n, i];
                i -= n.data.length;
              }
              throw new Error("offset past the text");
            };
            return [...text.matchAll(/\d+ (?:d|h|min|s)\b(?: \d+ (?:d|h|min|s)\b)*/g)].map((m) => {
              const range = document.createRange();
              range.setStart(...at(m.index));
              range.setEnd(...at(m.index + m[0].length));
              return { run: m[0], lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
            });
          }),
        );
        expect(lines.length).toBeGreaterThanOrEqual(2);
        for (const l of lines) expect(l, l.run).toMatchObject({ lines: 1 });
        // Each box holds its label and its value within its own width.
        const boxes = main.getByTestId("incident-summary").locator("dl").nth(1).locator(":scope > div");
        expect(await boxes.evaluateAll((els) => els.every((e) => e.scrollWidth <= e.clientWidth && e.getBoundingClientRect().right <= 390))).toBe(true);
        await noHorizontalScroll(page);
        await main.getByTestId("incident-summary").screenshot({ path: `${SHOTS}/incident-durations-390${colorScheme === "dark" ? "-dark" : ""}.png` });

        await page.goto(`${server.url}/incidents/${longTrip.id}`);
        await expect(main.getByTestId("chart-span")).toBeVisible();
        await expect(main.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
        await noHorizontalScroll(page);
        await page.screenshot({ path: `${SHOTS}/incident-long-open-390${colorScheme === "dark" ? "-dark" : ""}.png`, fullPage: true });
      } finally {
        await context.close();
      }
    }
  });
});
