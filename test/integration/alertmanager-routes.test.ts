/**
 * The shipped Alertmanager routes (deploy/alertmanager/alertmanager.yml) in a real Alertmanager:
 * its routes as shipped, its intervals cut to test length, each receiver a webhook of this process.
 * A lost reply is three pages' worth of alerts for one bot (halted, a position it never opened, an
 * order nobody can vouch for): the person on call gets one page for that bot, every alert in it,
 * while the team's webhook and Slack still get one notification per alert, and an acknowledged
 * symbol (a silence on its alert, as the console writes it) drops out of its bot's page alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startAlertmanager, type Delivery, type TestAlertmanager } from "../helpers/alertmanager";

let am: TestAlertmanager;
beforeAll(async () => {
  am = await startAlertmanager({ routes: "shipped", repeatInterval: "1s" });
});
afterAll(async () => am?.stop());

const ALPHA_HALTED = { alertname: "DriftwatchBotHalted", bot: "alpha", severity: "page" };
const ALPHA_UNKNOWN = { alertname: "DriftwatchUnknownPosition", bot: "alpha", symbol: "BTCUSDT", class: "unknown_position", severity: "page" };
const ALPHA_DOUBTFUL = { alertname: "DriftwatchDoubtfulOrderOld", bot: "alpha", severity: "page" };
const ALPHA_DRIFT = { alertname: "DriftwatchSizeDrift", bot: "alpha", symbol: "ETHUSDT", class: "size_drift", severity: "ticket" };
const BETA_HALTED = { alertname: "DriftwatchBotHalted", bot: "beta", severity: "page" };

const to = (receiver: string) => am.deliveries.filter((d) => d.receiver === receiver);
const names = (d: Delivery) => d.alerts.map((a) => `${a.labels.alertname} ${a.labels.bot}${a.labels.symbol ? ` ${a.labels.symbol}` : ""}`).sort();

describe("the shipped Alertmanager routes", () => {
  it("page once per bot with every alert of that bot in it, and notify the team once per alert", async () => {
    for (const labels of [ALPHA_HALTED, ALPHA_UNKNOWN, ALPHA_DOUBTFUL, ALPHA_DRIFT, BETA_HALTED]) await am.postAlert(labels);

    const alphaPage = await eventually("alpha's page with its three alerts", () =>
      to("on-call-page").find((d) => d.groupLabels?.bot === "alpha" && d.alerts.length === 3),
    );
    expect(alphaPage.groupLabels).toEqual({ bot: "alpha" });
    expect(names(alphaPage)).toEqual(["DriftwatchBotHalted alpha", "DriftwatchDoubtfulOrderOld alpha", "DriftwatchUnknownPosition alpha BTCUSDT"]);
    const betaPage = await eventually("beta's page", () => to("on-call-page").find((d) => d.groupLabels?.bot === "beta"));
    expect(names(betaPage)).toEqual(["DriftwatchBotHalted beta"]);
    // A ticket never pages.
    expect(to("on-call-page").flatMap(names)).not.toContain("DriftwatchSizeDrift alpha ETHUSDT");

    // The team's webhook and Slack: a notification per alert (per alert name, bot and symbol), the ticket included.
    for (const receiver of ["team-webhook", "team-slack"]) {
      const groups = await eventually(`five groups at ${receiver}`, () => {
        const seen = new Set(to(receiver).map((d) => names(d).join(", ")));
        return seen.size >= 5 ? seen : undefined;
      });
      expect([...groups].sort()).toEqual([
        "DriftwatchBotHalted alpha",
        "DriftwatchBotHalted beta",
        "DriftwatchDoubtfulOrderOld alpha",
        "DriftwatchSizeDrift alpha ETHUSDT",
        "DriftwatchUnknownPosition alpha BTCUSDT",
      ]);
    }
  });

  it("drops an acknowledged symbol from its bot's page and keeps paging the rest", async () => {
    // The console's acknowledgement: a silence on the alert's name, bot and symbol (lib/alerting/silences.ts).
    const res = await fetch(`${am.url}/api/v2/silences`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        matchers: Object.entries({ alertname: ALPHA_UNKNOWN.alertname, bot: "alpha", symbol: "BTCUSDT" }).map(([name, value]) => ({
          name,
          value,
          isRegex: false,
          isEqual: true,
        })),
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
        createdBy: "operator:ana",
        comment: "acknowledged in driftwatch",
      }),
    });
    expect(res.ok).toBe(true);
    const since = am.deliveries.length;
    const repeated = await eventually("alpha's page repeated without the acknowledged symbol", () =>
      am.deliveries.slice(since).find((d) => d.receiver === "on-call-page" && d.groupLabels?.bot === "alpha" && d.alerts.length === 2),
    );
    expect(names(repeated)).toEqual(["DriftwatchBotHalted alpha", "DriftwatchDoubtfulOrderOld alpha"]);
  });
});
