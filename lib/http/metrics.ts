import "server-only";
/**
 * GET /api/metrics in Prometheus's text format. A fresh prom-client Registry per scrape: the
 * values are the journal's as of this request, never a process-wide gauge a previous scrape left
 * behind (a bot or a symbol gone from the journal must vanish from the scrape too). No default
 * process metrics: node_exporter's job, not the console's.
 *
 * An unreadable journal still answers 200, with driftwatch_journal_readable 0 and its reason, and
 * no per-bot series: the scrape itself succeeds, so DriftwatchJournalUnreadable can fire (a 503 would
 * only turn `up` to 0 and hide why).
 *
 * With several journals (DRIFTWATCH_JOURNAL=a.db,b.db) every journal is scraped on its own: the
 * journal-wide series (readable, the audit chain, the action counts) carry a `source` label, one
 * series per journal, so one unreadable journal fires its own alert while the others' bots are
 * still scraped. Bot series need no source label: bot ids are unique across the console's journals.
 * With one journal the scrape is what it always was, without the label.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { Counter, Gauge, Registry } from "prom-client";
import { KEYED_PREFIX } from "../audit/chain";
import { env } from "../env";
import { getMetrics, type MetricsView } from "../queries/metrics";
import { consoleSources, type SourceSet } from "../db/console";
import { readScreen } from "../queries/read";
import { exportThreadCounts } from "../incidents/export-thread";

/** What the scrape reads: the journal's metrics, or why the journal could not be read. */
export type MetricsRead = { ok: true; data: MetricsView } | { ok: false; reason: string };

/** One journal's read, named by its source when the console reads several (null: the one journal). */
export interface SourceMetrics {
  source: string | null;
  read: MetricsRead;
}

/** The head hash's first 16 hex digits: enough to notice the chain move or fork, short as a label. */
export function headPrefix(hash: string): string {
  return hash.startsWith(KEYED_PREFIX) ? hash.slice(KEYED_PREFIX.length, KEYED_PREFIX.length + 16) : hash.slice(0, 16);
}

/** Does the Authorization header carry the token? Compared as digests in constant time, so neither length nor content leaks. */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const given = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * The whole route: the token when one is configured (401 with WWW-Authenticate otherwise, the
 * answer Prometheus logs as the scrape's error), then the journal read through the overview's
 * queries. A journal problem is a label; anything else (a bug) is logged and the label says
 * read_failed, never a stack.
 */
export async function metricsResponse(authorization: string | null): Promise<Response> {
  const token = env().metricsToken;
  if (token !== null && !bearerMatches(authorization, token))
    return new Response("GET /api/metrics needs the bearer token DRIFTWATCH_METRICS_TOKEN holds (Prometheus: authorization: { credentials_file: … }).\n", {
      status: 401,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "WWW-Authenticate": 'Bearer realm="driftwatch metrics"' },
    });
  const { contentType, body } = await metricsText(await readMetrics());
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}

/** Every journal's metrics, each read on its own: one that cannot be read is its reason, beside the others. */
export function readMetrics(set: SourceSet = consoleSources()): Promise<SourceMetrics[]> {
  return Promise.all(
    set.sources.map(async (source) => {
      let read: MetricsRead;
      try {
        const screen = await readScreen(getMetrics, source.journal);
        read = screen.ok ? { ok: true, data: screen.data } : { ok: false, reason: screen.error.code };
      } catch (error) {
        console.error(`driftwatch: metrics read failed (${source.name}):`, error);
        read = { ok: false, reason: "read_failed" };
      }
      return { source: set.several ? source.name : null, read };
    }),
  );
}

/** The scrape of one journal (a MetricsRead) or of several (each SourceMetrics with its source's name). */
export async function metricsText(input: MetricsRead | SourceMetrics[]): Promise<{ contentType: string; body: string }> {
  const reads: SourceMetrics[] = Array.isArray(input) ? input : [{ source: null, read: input }];
  const several = reads.some((r) => r.source !== null);
  const registry = new Registry();
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  // The journal-wide series: labelled by source only when there are several journals.
  const journalLabels = several ? (["source"] as const) : ([] as const);
  const from = (r: SourceMetrics): Record<string, string> => (r.source === null ? {} : { source: r.source });

  const readable = gauge("driftwatch_journal_readable", "1 when the console could read the journal; reason says why not.", ["reason", ...journalLabels]);
  for (const r of reads) readable.set({ reason: r.read.ok ? "" : r.read.reason, ...from(r) }, r.read.ok ? 1 : 0);
  // The console's own: whether downloads still get their second core (lib/incidents/export-thread.ts).
  const stretches = new Counter({
    name: "driftwatch_export_thread_stretches_total",
    help: "Halves of incident exports, since the console started: written by the export thread, refused by it (it could not read the journal), or unavailable (starting, busy, failed or timed out), the last two written by the console's own thread instead.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  for (const [outcome, n] of Object.entries(exportThreadCounts())) stretches.inc({ outcome }, n);
  const ok = reads.filter((r): r is SourceMetrics & { read: { ok: true; data: MetricsView } } => r.read.ok);
  if (ok.length === 0) return { contentType: registry.contentType, body: await registry.metrics() };

  const halted = gauge("driftwatch_bot_halted", "1 while the bot's breaker is halted.", ["bot"]);
  const haltedSince = gauge("driftwatch_bot_halted_since_timestamp_seconds", "When the breaker tripped (only while halted).", ["bot"]);
  const heartbeat = gauge("driftwatch_bot_heartbeat_age_seconds", "Seconds since the bot's heartbeat (+Inf: none readable).", ["bot"]);
  const reconciliation = gauge("driftwatch_bot_reconciliation_age_seconds", "Seconds since the bot's last reconciliation (+Inf: none yet).", ["bot"]);
  const compared = gauge(
    "driftwatch_bot_compared_age_seconds",
    "Seconds since the bot's last cycle that compared the books, clean or drift (+Inf: none yet); skipped and failed cycles do not count.",
    ["bot"],
  );
  const outcome = gauge("driftwatch_bot_last_reconciliation", "1 for the outcome of the bot's last reconciliation, 0 for the others.", ["bot", "outcome"]);
  const doubtful = gauge("driftwatch_bot_doubtful_orders", "Orders nobody can vouch for (unknown, or created/sent past the grace).", ["bot"]);
  const oldest = gauge("driftwatch_bot_oldest_doubtful_age_seconds", "Seconds since the oldest doubtful order was written (0 when none).", ["bot"]);
  const driftingSymbols = gauge("driftwatch_bot_drifting_symbols", "Symbols whose book and exchange disagree now, by class.", ["bot", "class"]);
  const largest = gauge("driftwatch_bot_largest_drift_notional", "The largest drift at its mark price, in the symbol's quote currency (0 when none).", ["bot"]);
  const unacknowledged = gauge("driftwatch_bot_unacknowledged_drifts", "Drifting symbols no acknowledgement covers.", ["bot"]);
  const acks = gauge("driftwatch_bot_acknowledgements_in_force", "Drifting symbols an acknowledgement still covers.", ["bot"]);
  const drift = gauge("driftwatch_drift", "1 for each symbol that drifts now.", ["bot", "symbol", "class"]);
  const acknowledged = gauge("driftwatch_drift_acknowledged", "1 when an acknowledgement covers the symbol's drift, 0 when none does.", [
    "bot",
    "symbol",
    "class",
  ]);
  const views = ok.map((r) => r.read.data);
  for (const m of views) {
    for (const b of m.bots) {
      const bot = { bot: b.botId };
      halted.set(bot, b.halted ? 1 : 0);
      if (b.haltedSince !== null) haltedSince.set(bot, b.haltedSince);
      heartbeat.set(bot, b.heartbeatAgeSeconds);
      reconciliation.set(bot, b.reconciliationAgeSeconds);
      compared.set(bot, b.comparedAgeSeconds);
      for (const o of ["clean", "drift", "skipped", "error"] as const) outcome.set({ ...bot, outcome: o }, b.lastOutcome === o ? 1 : 0);
      doubtful.set(bot, b.doubtfulOrders);
      oldest.set(bot, b.oldestDoubtfulAgeSeconds);
      for (const [cls, n] of Object.entries(b.driftingSymbols)) driftingSymbols.set({ ...bot, class: cls }, n);
      largest.set(bot, b.largestDriftNotional);
      unacknowledged.set(bot, b.unacknowledgedDrifts);
      acks.set(bot, b.acknowledgementsInForce);
    }
  }

  for (const m of views)
    for (const d of m.drifts) {
      const labels = { bot: d.botId, symbol: d.symbol, class: d.drift };
      drift.set(labels, 1);
      acknowledged.set(labels, d.acknowledged ? 1 : 0);
    }

  const entries = gauge("driftwatch_audit_chain_entries", "Entries in the audit log's hash chain.", journalLabels);
  const head = gauge("driftwatch_audit_chain_head_info", "The chain's head hash, its first 16 hex digits.", ["head", ...journalLabels]);
  const actions = gauge("driftwatch_actions", "Operator actions in the audit log, by action and outcome.", ["action", "outcome", ...journalLabels]);
  for (const r of ok) {
    const m = r.read.data;
    entries.set(from(r), m.audit.entries);
    head.set({ head: headPrefix(m.audit.hash), ...from(r) }, 1);
    for (const a of m.actions) actions.set({ action: a.action, outcome: a.outcome, ...from(r) }, a.count);
  }

  return { contentType: registry.contentType, body: await registry.metrics() };
}
