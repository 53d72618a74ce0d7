/**
 * The production console with DRIFTWATCH_ALERTMANAGER_URL set, and a real Alertmanager paging a
 * webhook served here: an operator's acknowledgement in the browser silences the drift's page and
 * the form says so; once the bot's next cycle shows a bigger drift, the console's own watch ends
 * the silence and the page fires again. With Alertmanager gone, the acknowledgement still applies
 * and the form says the page keeps firing.
 */
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { freePort, startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { eventually, startAlertmanager, type TestAlertmanager } from "../helpers/alertmanager";
import { addAccountWithCli } from "../helpers/e2e/accounts";
import { incidentJournal } from "../helpers/e2e/journals";
import { tempDir } from "../helpers/journal";

const ana = { name: "ana", role: "operator" as const, password: "ana's long password here" };
const page_ = { alertname: "DriftwatchUnknownPosition", bot: "alpha", symbol: "ETHUSDT" };

test.describe.configure({ mode: "serial" });

test.describe("an acknowledgement silences the page", () => {
  let server: ConsoleServer;
  let am: TestAlertmanager;
  let journal: Awaited<ReturnType<typeof incidentJournal>>;

  test.beforeAll(async () => {
    journal = await incidentJournal();
    am = await startAlertmanager();
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, ana);
    const port = await freePort();
    server = await startConsole({
      journal: journal.file,
      port,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: "alert-silence-session-secret-longer-than-32",
        DRIFTWATCH_ALERTMANAGER_URL: am.url,
        DRIFTWATCH_PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    await am?.stop();
    journal?.close();
  });

  async function acknowledge(page: Page, note: string) {
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(ana.name);
    await page.getByLabel("Password").fill(ana.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText(ana.name);
    await page.goto(server.url);
    const row = page.locator('main [data-testid="symbol-row"][data-bot="alpha"][data-symbol="ETHUSDT"]');
    await expect(row).toHaveAttribute("data-drift", "unknown_position");
    await row
      .locator("summary")
      .filter({ hasText: /^Acknowledge/ })
      .click();
    await row.getByLabel("What you checked").fill(note);
    await row.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    return row;
  }

  test("the acknowledgement silences the drift's page until the drift grows, and the form names the silence", async ({ page }) => {
    await am.postAlert(page_);
    await eventually("the page's first notification", () => am.deliveriesOf(page_).length > 0);

    const row = await acknowledge(page, "3 ETH on the venue are a manual hedge by the desk");
    await expect(row.getByTestId("action-ok")).toContainText("Acknowledged until");
    const note = row.getByTestId("silence-note");
    await expect(note).toContainText("Alertmanager silence");
    const silenceId = (await note.getAttribute("data-silence-id")) ?? "";
    expect(silenceId).not.toBe("");
    const silence = (await am.silences()).find((s) => s.id === silenceId);
    expect(silence).toMatchObject({ createdBy: "ana", status: { state: "active" } });
    expect(silence?.comment).toContain(`${server.url}/bots/alpha`);
    await eventually("the page suppressed", async () =>
      (await am.alerts()).find((a) => a.labels.symbol === "ETHUSDT" && a.status.state === "suppressed" && a.status.silencedBy.includes(silenceId)),
    );

    // alpha's next cycle: the venue now holds 5 ETH the bot never bought. The console ends the silence by itself.
    const alpha = journal.bots.alpha;
    alpha.sim.setPositionBehindBot("ETHUSDT", 5);
    alpha.sim.advance(Math.max(0, Date.now() - alpha.sim.now().getTime()));
    await alpha.writer.reconcile({ symbols: ["BTCUSDT", "ETHUSDT", "AAPL"] });
    alpha.writer.heartbeat();
    await eventually(
      "the silence expired by the console",
      async () => (await am.silences()).find((s) => s.id === silenceId && s.status.state === "expired"),
      40_000,
    );
    const after = am.deliveriesOf(page_).length;
    await eventually("the page notified again", () => am.deliveriesOf(page_).length > after);
  });

  test("with Alertmanager gone the acknowledgement still applies, and the form says the page keeps firing", async ({ page }) => {
    await am.stop();
    const row = await acknowledge(page, "5 ETH now; the desk confirms the hedge grew");
    await expect(row.getByTestId("action-ok")).toContainText("Acknowledged until");
    await expect(row.getByTestId("silence-note")).toContainText(
      "Alertmanager could not be reached: the page keeps firing — silence it in Alertmanager by hand",
    );
    await expect(row.getByTestId("ack-cell")).toContainText("yes, by operator:ana");
  });
});
