/**
 * The shipped Alertmanager config (deploy/alertmanager/alertmanager.yml) is one Alertmanager 0.25
 * accepts, and routes as docs/alerting.md says: every alert to the webhook, pages to PagerDuty and
 * Slack, tickets to Slack. Checked with Debian's amtool, the one that comes with the binary.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/journal";

const config = path.join(repoRoot, "deploy/alertmanager/alertmanager.yml");
const amtool = (...args: string[]) => execFileSync("amtool", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const receivers = (...labels: string[]) => amtool("config", "routes", "test", `--config.file=${config}`, ...labels);

describe("the shipped Alertmanager config", () => {
  it("passes amtool check-config", () => {
    expect(amtool("check-config", config)).toMatch(/SUCCESS/);
  });

  it("pages through PagerDuty and Slack, files tickets in Slack, and sends everything to the webhook", () => {
    expect(receivers("alertname=DriftwatchBotHalted", "bot=bot-a", "severity=page")).toBe("team-webhook,on-call-page,team-slack");
    expect(receivers("alertname=DriftwatchSizeDrift", "bot=bot-a", "symbol=AAPL", "severity=ticket")).toBe("team-webhook,team-slack");
    expect(receivers("alertname=Watchdog")).toBe("team-webhook");
  });
});
