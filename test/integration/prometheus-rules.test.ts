/**
 * The shipped Prometheus files, checked by Debian's own promtool: the rules load, every rule's
 * cases in driftwatch.rules.test.yml pass (labels, annotations, links), every rule has a case,
 * and the example prometheus.yml is a valid config once its token file exists.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/journal";
import { prometheusBinary, RULES_DIR } from "../helpers/prometheus";

const ALERTS = [
  "DriftwatchBotHalted",
  "DriftwatchUnknownPosition",
  "DriftwatchSizeDrift",
  "DriftwatchDoubtfulOrderOld",
  "DriftwatchHeartbeatStale",
  "DriftwatchReconciliationStale",
  "DriftwatchBooksNotCompared",
  "DriftwatchJournalUnreadable",
  "DriftwatchConsoleDown",
];

function promtool(args: string[], cwd = RULES_DIR): { status: number | null; output: string } {
  const r = spawnSync(prometheusBinary("promtool"), args, { cwd, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const read = (name: string) => fs.readFileSync(path.join(RULES_DIR, name), "utf8");

describe("the shipped Prometheus rules", () => {
  it("are exactly the eight driftwatch alerts, each with a summary, a description, a console_url and a runbook_url", () => {
    const text = read("driftwatch.rules.yml");
    expect([...text.matchAll(/^\s*- alert: (\S+)$/gm)].map((m) => m[1])).toEqual(ALERTS);
    for (const block of text.split(/^\s*- alert: /m).slice(1)) {
      for (const key of ["summary", "description", "console_url", "runbook_url"]) expect(block, block.split("\n")[0]).toMatch(new RegExp(`^\\s+${key}: `, "m"));
      expect(block, block.split("\n")[0]).toMatch(/^\s+severity: (page|ticket)$/m);
    }
  });

  it("pass promtool check rules", () => {
    const r = promtool(["check", "rules", "driftwatch.rules.yml"]);
    expect(r.output).toContain(`SUCCESS: ${ALERTS.length} rules found`);
    expect(r.status).toBe(0);
  });

  it("pass promtool test rules, with a firing case for every alert", () => {
    const cases = read("driftwatch.rules.test.yml");
    for (const alert of ALERTS) expect(cases, alert).toMatch(new RegExp(`alertname: ${alert}\\n\\s+eval_time: \\S+\\n\\s+exp_alerts:\\n\\s+- exp_labels:`));
    const r = promtool(["test", "rules", "driftwatch.rules.test.yml"]);
    expect(r.output).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });

  it("fail promtool test rules when a link is wrong (the cases check the annotations)", () => {
    const dir = tempDir("rules-mutant");
    fs.copyFileSync(path.join(RULES_DIR, "driftwatch.rules.yml"), path.join(dir, "driftwatch.rules.yml"));
    fs.writeFileSync(
      path.join(dir, "t.yml"),
      read("driftwatch.rules.test.yml").replace("https://driftwatch.example/bots/alpha\n", "https://driftwatch.example/\n"),
    );
    const r = promtool(["test", "rules", "t.yml"], dir);
    expect(r.output).toContain("FAILED");
    expect(r.status).not.toBe(0);
  });
});

describe("the example prometheus.yml", () => {
  it("is a valid config that scrapes job driftwatch every 15 s with the bearer token file", () => {
    const dir = tempDir("prometheus-example");
    for (const f of ["prometheus.yml", "driftwatch.rules.yml"]) fs.copyFileSync(path.join(RULES_DIR, f), path.join(dir, f));
    const config = read("prometheus.yml");
    expect(config).toMatch(/job_name: driftwatch\b[\s\S]*scrape_interval: 15s[\s\S]*metrics_path: \/api\/metrics[\s\S]*credentials_file: /);
    const token = path.join(dir, "token");
    fs.writeFileSync(token, "a-token-of-at-least-16\n", { mode: 0o600 });
    fs.writeFileSync(path.join(dir, "prometheus.yml"), config.replace("/etc/prometheus/driftwatch-metrics.token", token));
    const r = promtool(["check", "config", "prometheus.yml"], dir);
    expect(r.output).toContain("is valid prometheus config file syntax");
    expect(r.output).toContain(`SUCCESS: ${ALERTS.length} rules found`);
    expect(r.status).toBe(0);
  });
});
