/**
 * The whole paging path, with Debian's real binaries: Prometheus scrapes the production console,
 * evaluates the shipped rules and sends what fires to a real Alertmanager, which delivers it to a
 * webhook served here. alpha's unknown position pages the on-call person with a link to the page
 * that settles it; the operator's acknowledgement in the browser silences exactly that page, while
 * alpha's halt keeps paging.
 */
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { eventually, startAlertmanager, type TestAlertmanager } from "../helpers/alertmanager";
import { addAccountWithCli } from "../helpers/e2e/accounts";
import { incidentJournal } from "../helpers/e2e/journals";
import { tempDir } from "../helpers/journal";
import { startPrometheus, type Prometheus } from "../helpers/prometheus";

const ana = { name: "ana", role: "operator" as const, password: "ana's long password here" };
const unknownPosition = { alertname: "DriftwatchUnknownPosition", bot: "alpha", symbol: "ETHUSDT" };
const halted = { alertname: "DriftwatchBotHalted", bot: "alpha" };

test.describe.configure({ mode: "serial" });

test.describe("a trip pages through Prometheus and Alertmanager, and an acknowledgement quiets that page", () => {
  let server: ConsoleServer;
  let am: TestAlertmanager;
  let prometheus: Prometheus;
  let journal: Awaited<ReturnType<typeof incidentJournal>>;

  test.beforeAll(async () => {
    // alpha: halted on 3 ETHUSDT on its account that it never opened, the drift still there.
    journal = await incidentJournal();
    am = await startAlertmanager({ repeatInterval: "1s" });
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, ana);
    const port = await freePort();
    server = await startConsole({
      journal: journal.file,
      port,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: "paging-spec-session-secret-longer-than-32",
        DRIFTWATCH_ALERTMANAGER_URL: am.url,
        DRIFTWATCH_PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
    });
    prometheus = await startPrometheus({
      config: () => ({
        global: {
          scrape_interval: "1s",
          evaluation_interval: "1s",
          external_labels: { driftwatch_url: server.url, driftwatch_runbook: "https://runbook.example" },
        },
        rule_files: ["driftwatch.rules.yml"],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(am.url).host] }] }] },
        scrape_configs: [{ job_name: "driftwatch", metrics_path: "/api/metrics", static_configs: [{ targets: [new URL(server.url).host] }] }],
      }),
    });
  });
  test.afterAll(async () => {
    await prometheus?.stop();
    await server?.stop();
    await am?.stop();
    journal?.close();
  });

  test("the unknown position reaches the webhook with a link that opens its page; the acknowledgement silences it while the halt keeps paging", async ({
    page,
  }) => {
    const delivered = await eventually(
      "the unknown position delivered by Alertmanager",
      () =>
        am
          .deliveriesOf(unknownPosition)
          .flatMap((d) => d.alerts)
          .find((a) => a.labels.symbol === "ETHUSDT" && a.status === "firing"),
      60_000,
    );
    const link = delivered.annotations?.console_url ?? "";
    expect(link).toBe(`${server.url}/bots/alpha/symbols/ETHUSDT`);
    await eventually("the halt delivered too", () => am.deliveriesOf(halted).length > 0, 30_000);
    // Prometheus's own page of the alerts as they fire (docs/alerting.md shows a copy).
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${prometheus.url}/classic/alerts`);
    await expect(page.getByText("DriftwatchUnknownPosition").first()).toBeVisible();
    await page.getByText("DriftwatchUnknownPosition").first().click();
    await page.screenshot({ path: "test-results/screenshots/prometheus-alerts-firing.png", fullPage: true });

    // The on-call person follows the link, signs in, and acknowledges on the overview.
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(ana.name);
    await page.getByLabel("Password").fill(ana.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText(ana.name);
    const opened = await page.goto(link);
    expect(opened?.status()).toBe(200);
    await expect(page.locator("main")).toContainText("ETHUSDT");
    await page.goto(server.url);
    const row = page.locator('main [data-testid="symbol-row"][data-bot="alpha"][data-symbol="ETHUSDT"]');
    await row
      .locator("summary")
      .filter({ hasText: /^Acknowledge/ })
      .click();
    await row.getByLabel("What you checked").fill("3 ETH on the venue are the desk's manual hedge");
    await row.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    const note = row.getByTestId("silence-note");
    await expect(note).toContainText("Alertmanager silence");
    const silenceId = (await note.getAttribute("data-silence-id")) ?? "";
    expect(silenceId).not.toBe("");

    // Alertmanager holds the page Prometheus keeps sending as silenced by that very silence...
    await eventually("the page suppressed by the acknowledgement's silence", async () =>
      (await am.alerts()).find(
        (a) => a.labels.alertname === unknownPosition.alertname && a.labels.symbol === "ETHUSDT" && a.status.silencedBy.includes(silenceId),
      ),
    );
    // ...and delivers nothing more of it, while the halt (not silenced) goes on paging every second.
    const unknownBefore = am.deliveriesOf(unknownPosition).length;
    const haltBefore = am.deliveriesOf(halted).length;
    await eventually("three more deliveries of the halt", () => am.deliveriesOf(halted).length >= haltBefore + 3, 30_000);
    expect(am.deliveriesOf(unknownPosition).length).toBe(unknownBefore);
  });
});
