/**
 * Where a bot wrote no reconciliation in an incident window: the minute-by-minute review lists what
 * the journal holds, and a bot stopped for 45 s held nothing, so its minutes read as quiet ones
 * with a few events fewer (a try-out). Found as the charts find theirs (lib/charts/gaps.ts: four of
 * the bot's cycles in this window, and at least 10 s), over every reconciliation the window holds,
 * whatever its outcome; pure.
 */
import type { IncidentEvent } from "./events";
import { chartGaps, medianStep } from "../charts/gaps";
import { formatAge } from "../text/format";

export interface CycleSilence {
  botId: string;
  /** With several journals, the bot's. */
  journal?: string;
  /** The bot's last reconciliation before the silence. */
  from: string;
  /** Its next one; null when none came before the window's end (`ms` counts to that end). */
  to: string | null;
  ms: number;
  /** The interval between the bot's cycles in this window (their median). */
  cycleMs: number;
}

/**
 * `events` in time order, as the window view reads them (every reconciliation of the window, routine
 * or not). `end`: the window's end, or now if sooner; a silence from the bot's last cycle to it
 * counts too, unless the window was cut at its cap (its events then end early). Spans whose cycles
 * were pruned (`prunedSpans`, epoch ms) are not silences: the page says they were pruned.
 */
export function cycleSilences(
  events: readonly IncidentEvent[],
  opts: { end: number; capped: boolean; prunedSpans?: readonly { from: number; to: number }[] },
): CycleSilence[] {
  const byBot = new Map<string, { botId: string; journal?: string; times: number[]; at: string[] }>();
  for (const e of events) {
    if (e.source !== "reconciliation" || e.botId === null) continue;
    const t = Date.parse(e.at);
    if (Number.isNaN(t)) continue;
    const key = `${e.journal ?? ""}\u0000${e.botId}`;
    let bot = byBot.get(key);
    if (!bot) byBot.set(key, (bot = { botId: e.botId, ...(e.journal ? { journal: e.journal } : {}), times: [], at: [] }));
    // Two cycles written in the same millisecond by one bot are one point in time.
    if (bot.times.at(-1) === t) continue;
    bot.times.push(t);
    bot.at.push(e.at);
  }
  const out: CycleSilence[] = [];
  for (const bot of byBot.values()) {
    const gaps = chartGaps(bot.times, null, undefined, opts.capped ? undefined : opts.end, opts.prunedSpans);
    if (gaps.length === 0) continue;
    const cycleMs = medianStep(bot.times);
    for (const g of gaps) {
      const i = bot.times.indexOf(g.from);
      const next = bot.times[i + 1];
      out.push({
        botId: bot.botId,
        ...(bot.journal ? { journal: bot.journal } : {}),
        from: bot.at[i]!,
        to: next === g.to ? bot.at[i + 1]! : null,
        ms: g.to - g.from,
        cycleMs,
      });
    }
  }
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}

/** Silences of bots that stopped and came back together (one process, several bots), told as one. */
export interface ToldSilence {
  bots: string[];
  journal?: string;
  from: string;
  to: string | null;
  ms: number;
  cycleMs: number;
}

/** Within this of each other at both ends, with the same cycle, two bots' silences are one stop. */
const TOGETHER_MS = 5_000;

export function togetherSilences(silences: readonly CycleSilence[]): ToldSilence[] {
  const out: ToldSilence[] = [];
  for (const s of silences) {
    const same = out.find(
      (t) =>
        t.journal === s.journal &&
        Math.abs(Date.parse(t.from) - Date.parse(s.from)) <= TOGETHER_MS &&
        (t.to === null ? s.to === null : s.to !== null && Math.abs(Date.parse(t.to) - Date.parse(s.to)) <= TOGETHER_MS) &&
        Math.round(t.cycleMs / 100) === Math.round(s.cycleMs / 100),
    );
    if (same) same.bots.push(s.botId);
    else out.push({ bots: [s.botId], ...(s.journal ? { journal: s.journal } : {}), from: s.from, to: s.to, ms: s.ms, cycleMs: s.cycleMs });
  }
  return out;
}

/** A bot's cycle as a silence says it: "2.5 s" under 10 s (formatAge would say "2 s"), else as formatAge. */
export const cycleWords = (ms: number): string => (ms < 10_000 ? `${Math.round(ms / 100) / 10} s` : formatAge(ms));
