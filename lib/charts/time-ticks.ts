/** Round UTC ticks for a time axis, and their labels: the team reads times in UTC. */
import { formatUtcDay } from "../text/format";

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

const STEPS = [S, 5 * S, 15 * S, 30 * S, M, 2 * M, 5 * M, 10 * M, 15 * M, 30 * M, H, 2 * H, 3 * H, 6 * H, 12 * H, D, 2 * D, 7 * D, 14 * D, 30 * D];

/** Ticks on round UTC instants inside [from, to], about `target` of them (never more than 2x). */
export function utcTicks(from: number, to: number, target = 6): number[] {
  if (!(to > from) || target < 1) return [];
  const step = STEPS.find((s) => (to - from) / s <= target) ?? STEPS[STEPS.length - 1]!;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** `15:31`, `15:31:05`, `Aug 10` or `Aug 10 15:00`, by what the window needs to tell ticks apart. */
export function formatUtcTick(t: number, spanMs: number): string {
  const iso = new Date(t).toISOString();
  if (spanMs > 2 * D) return formatUtcDay(t) + (t % D === 0 ? "" : ` ${iso.slice(11, 16)}`);
  if (spanMs > 20 * H) return t % D === 0 ? formatUtcDay(t) : iso.slice(11, 16);
  if (spanMs <= 5 * M) return iso.slice(11, 19);
  return iso.slice(11, 16);
}
