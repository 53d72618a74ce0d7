/**
 * GET /api/metrics as Prometheus meets it: Debian's real Prometheus, started by the test on a free
 * loopback port with the shipped rules, scrapes the production console (`next start`) over the
 * size-drift demo scenario's journal, where beta tripped, and DriftwatchBotHalted fires with the
 * bot, its severity and a link to the bot's page. Around it: the bearer token on a console that
 * requires sign-in, the refusal when no token is set there, and a journal that cannot be read.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SCENARIOS } from "@/tools/demo/scenarios";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { migratedJournal, migrationsDir, tempDir } from "../helpers/journal";
import { startPrometheus, type Prometheus } from "../helpers/prometheus";

const TOKEN = randomBytes(24).toString("base64url");
const RUNBOOK = "https://git.example/ops/driftwatch/blob/main/README.md";
const accounts = () => path.join(tempDir("metrics-accounts"), "accounts.db");

test.describe("Prometheus scraping a console whose journal has a halted bot", () => {
  let console_: ConsoleServer;
  let prometheus: Prometheus;
  test.beforeAll(async () => {
    const scenario = await SCENARIOS["size-drift"].run({ file: migratedJournal("metrics-e2e"), migrationsDir });
    console_ = await startConsole({
      journal: scenario.file,
      env: { DRIFTWATCH_METRICS_TOKEN: TOKEN, DRIFTWATCH_REQUIRE_SIGN_IN: "1", DRIFTWATCH_ACCOUNTS_DB: accounts() },
    });
    prometheus = await startPrometheus({
      files: { token: TOKEN },
      config: (dir) => ({
        global: { scrape_interval: "1s", evaluation_interval: "1s", external_labels: { driftwatch_url: console_.url, driftwatch_runbook: RUNBOOK } },
        rule_files: ["driftwatch.rules.yml"],
        scrape_configs: [
          {
            job_name: "driftwatch",
            metrics_path: "/api/metrics",
            authorization: { type: "Bearer", credentials_file: path.join(dir, "token") },
            static_configs: [{ targets: [new URL(console_.url).host] }],
          },
        ],
      }),
    });
  });
  test.afterAll(async () => {
    await prometheus?.stop();
    await console_?.stop();
  });

  test("DriftwatchBotHalted fires for beta with severity page and a console_url to beta's page, and for no other bot", async () => {
    const halted = async () => (await prometheus.alerts()).filter((a) => a.labels.alertname === "DriftwatchBotHalted" && a.state === "firing");
    await expect.poll(async () => (await halted()).length, { timeout: 20_000 }).toBe(1);
    const [alert] = await halted();
    expect(alert!.labels).toEqual({
      alertname: "DriftwatchBotHalted",
      bot: "beta",
      severity: "page",
      job: "driftwatch",
      instance: new URL(console_.url).host,
    });
    expect(alert!.annotations).toMatchObject({
      summary: "beta is halted",
      console_url: `${console_.url}/bots/beta`,
      runbook_url: `${RUNBOOK}#operator-actions`,
    });
    // The scrape carried the token and no session: the sign-in gate let it through to the token check.
    const [target] = await prometheus.targets();
    expect(target).toMatchObject({ health: "up", lastError: "" });
  });

  test("the link in the alert opens beta's page once signed in (the console sends a visitor to sign in and back there)", async () => {
    const res = await fetch(`${console_.url}/bots/beta`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(new RegExp(`/login\\?next=${encodeURIComponent("/bots/beta")}$`));
  });

  test("the scrape needs the token: none or a wrong one gets 401 with WWW-Authenticate: Bearer, the right one the text format", async () => {
    for (const authorization of [null, "Bearer wrong-token-of-some-length", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await fetch(`${console_.url}/api/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await res.text()).not.toContain("driftwatch_");
    }
    const res = await fetch(`${console_.url}/api/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    expect(body).toContain('driftwatch_journal_readable{reason=""} 1');
    expect(body).toContain('driftwatch_bot_halted{bot="beta"} 1');
    expect(body).toContain('driftwatch_drift{bot="beta",symbol="AAPL",class="size_drift"} 1');
    expect(body).not.toContain(TOKEN);
  });
});

test.describe("a console that requires sign-in and has no metrics token", () => {
  let server: ConsoleServer;
  test.beforeAll(async () => {
    server = await startConsole({ journal: migratedJournal("metrics-no-token"), env: { DRIFTWATCH_REQUIRE_SIGN_IN: "1", DRIFTWATCH_ACCOUNTS_DB: accounts() } });
  });
  test.afterAll(async () => server?.stop());

  test("refuses the scrape with a 401 that says to set DRIFTWATCH_METRICS_TOKEN", async () => {
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { ok: boolean; error: { message: string } };
    expect(body.ok).toBe(false);
    expect(body.error.message).toContain("set DRIFTWATCH_METRICS_TOKEN");
  });
});

test.describe("a console whose journal cannot be read", () => {
  let server: ConsoleServer;
  test.beforeAll(async () => {
    server = await startConsole({ journal: path.join(tempDir("metrics-missing"), "journal.db"), env: { DRIFTWATCH_ACCOUNTS_DB: accounts() } });
  });
  test.afterAll(async () => server?.stop());

  test("still answers the scrape with 200, driftwatch_journal_readable 0 and the reason, and no per-bot series", async () => {
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('driftwatch_journal_readable{reason="missing"} 0');
    expect(body).not.toMatch(/^driftwatch_bot_/m);
    expect(body).not.toMatch(/^driftwatch_drift/m);
  });
});
