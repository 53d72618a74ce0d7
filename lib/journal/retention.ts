/**
 * What a journal keeps when it is pruned (`npm run journal -- prune`, docs/journal.md "Retention"):
 * the rules, in one place, for the prune that deletes and for the screens that say what is gone.
 *
 * Per-cycle rows (reconciliations and reconciliation_positions) go before the horizon. The rollups
 * keep the shape of every drift, so every boundary here is a five-minute boundary: a stretch of
 * pruned history is always whole rollup buckets, and a chart can draw it from the rollups exactly.
 * Around every incident the per-cycle rows stay, from an hour before its trip to an hour after its
 * clear (to now while it is open), until the incident horizon (`--keep-incidents`) passes the
 * window's end. The second horizons bound the rest: settled orders after `--keep-orders`, and
 * five-minute rollups after `--keep-rollups`, folded into hourly ones (an hour boundary).
 */

/** Width of one row of position_rollups and cycle_rollups (migration 0003). */
export const ROLLUP_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Per-cycle rows kept before a trip and after its clear. */
export const INCIDENT_MARGIN_MS = HOUR_MS;
/** A horizon shorter than this would prune the cycles an operator is looking at right now. */
export const MIN_KEEP_MS = DAY_MS;

export interface Span {
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive; Infinity for an incident still open. */
  to: number;
}

const UNITS: Record<string, number> = { h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS };

/** `30d`, `12w`, `36h` as ms; a message (never a throw) for anything else or anything under a day. */
export function parseKeep(text: string, flag = "--keep"): { ok: true; ms: number } | { ok: false; message: string } {
  const m = /^(\d+)([hdw])$/.exec(text.trim());
  if (!m) return { ok: false, message: `${flag}: not a duration (${text}); use e.g. 30d, 12h or 2w` };
  const ms = Number(m[1]) * (UNITS[m[2] as string] as number);
  if (ms < MIN_KEEP_MS) return { ok: false, message: `${flag} ${text} is shorter than a day: the console shows the last day cycle by cycle` };
  return { ok: true, ms };
}

/** Width of a folded rollup row: before a prune's rollup horizon, one row per hour (keyed by its start). */
export const HOURLY_MS = HOUR_MS;
export const floorToHour = (t: number) => Math.floor(t / HOUR_MS) * HOUR_MS;

/**
 * The second horizons of a prune (issue 19): how long incident windows keep their per-cycle rows,
 * settled orders their rows and events, and rollups their five-minute detail (then folded into
 * hourly rows). Each is a duration like --keep, or `forever`; the defaults are a year for incidents
 * and orders and 90 days for five-minute rollups. The incident and rollup horizons may not be
 * shorter than --keep: both are about history older than the per-cycle horizon.
 */
export const DEFAULT_HORIZONS = { incidents: "365d", orders: "365d", rollups: "90d" } as const;

export function parseSecondHorizon(text: string, flag: string, keepMs: number): { ok: true; ms: number | null } | { ok: false; message: string } {
  if (text.trim() === "forever") return { ok: true, ms: null };
  const r = parseKeep(text, flag);
  if (!r.ok) return { ok: false, message: `${r.message} (or write forever)` };
  if (flag !== "--keep-orders" && r.ms < keepMs)
    return { ok: false, message: `${flag} ${text} is shorter than --keep: it is about history older than the per-cycle horizon` };
  return r;
}

/** The rollup horizon of a prune at `now`: before it, rollups are hourly. An hour boundary. */
export const rollupHorizon = (now: number, keepMs: number) => floorToHour(now - keepMs);

export const floorToRollup = (t: number) => Math.floor(t / ROLLUP_MS) * ROLLUP_MS;

/** The horizon of a prune at `now`: per-cycle rows before it may go. A five-minute boundary. */
export const pruneHorizon = (now: number, keepMs: number) => floorToRollup(now - keepMs);

export interface BreakerEventLite {
  at: string;
  kind: "trip" | "clear";
}

/**
 * The spans one bot's per-cycle rows are kept in whatever their age: every incident (a trip and the
 * first clear after it) widened by the margin on both sides and out to five-minute boundaries, merged
 * where they touch. `events` are the bot's trips and clears in time order. A second trip while
 * halted belongs to the incident already open.
 */
export function incidentSpans(events: readonly BreakerEventLite[], marginMs = INCIDENT_MARGIN_MS): Span[] {
  const spans: Span[] = [];
  let open: number | null = null;
  for (const e of events) {
    const t = Date.parse(e.at);
    if (e.kind === "trip" && open === null) open = t;
    else if (e.kind === "clear" && open !== null) {
      // The bucket holding clear + margin is kept whole: the cycle exactly an hour after stays.
      spans.push({ from: floorToRollup(open - marginMs), to: floorToRollup(t + marginMs) + ROLLUP_MS });
      open = null;
    }
  }
  if (open !== null) spans.push({ from: floorToRollup(open - marginMs), to: Infinity });
  return mergeSpans(spans);
}

export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}

/**
 * The incident windows whose per-cycle rows a prune with this incident horizon keeps: those that
 * end after it (an open one never ends). Null: every incident, however old.
 */
export const keptIncidentSpans = (events: readonly BreakerEventLite[], incidentHorizon: number | null, marginMs = INCIDENT_MARGIN_MS): Span[] =>
  incidentSpans(events, marginMs).filter((s) => incidentHorizon === null || s.to > incidentHorizon);

export const inSpans = (t: number, spans: readonly Span[]) => spans.some((s) => t >= s.from && t < s.to);

/**
 * The parts of [from, to) whose per-cycle rows a prune may have removed: before the horizon and
 * outside every kept span. Whole five-minute buckets, since the horizon and the spans are.
 */
export function prunedSpans(window: Span, horizon: number, kept: readonly Span[]): Span[] {
  const end = Math.min(window.to, horizon);
  if (end <= window.from) return [];
  const out: Span[] = [];
  let cursor = window.from;
  for (const k of mergeSpans(kept)) {
    if (k.to <= cursor) continue;
    if (k.from >= end) break;
    if (k.from > cursor) out.push({ from: cursor, to: k.from });
    cursor = Math.max(cursor, k.to);
    if (cursor >= end) break;
  }
  if (cursor < end) out.push({ from: cursor, to: end });
  return out;
}
