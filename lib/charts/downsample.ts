/**
 * Downsampling of one symbol's two books over time, for a chart that must stay small (a poll, a
 * phone) whatever the window, without ever hiding a drift.
 *
 * Points: up to `maxPoints` samples are kept as they are. Beyond that the window is cut into equal
 * time buckets, and each bucket keeps at most seven of its own samples: the first, the last, the
 * lowest and highest of ours, the lowest and highest of theirs, and the one where the books are
 * furthest apart. Extremes survive, so a one-cycle dip of either book still draws.
 *
 * Drift episodes are computed from every sample, not from the kept points: a run of cycles with the
 * same drift class, from its first drifting cycle to the next cycle that is not in that class. They
 * are merged only when there are too many to draw, and then only across gaps narrower than a bucket,
 * so an episode is never dropped: at worst it shares its shaded area with a neighbour.
 *
 * Plain TypeScript, fed one sample at a time so a query can stream rows without holding them.
 */
import type { DriftClass } from "../reconcile/diff";

export type EpisodeKind = Exclude<DriftClass, "none">;

export interface ChartSample {
  /** Epoch milliseconds. Samples arrive in time order. */
  t: number;
  ours: number;
  theirs: number;
  drift: DriftClass;
}

export interface DriftEpisode {
  kind: EpisodeKind;
  /** First drifting cycle. */
  from: number;
  /** The next cycle out of this drift; the last sample's time when the drift is still going. */
  to: number;
  /** True when the last sample of the window is still in this drift. */
  ongoing: boolean;
  /** Drifting cycles inside this episode. */
  samples: number;
  /** How many separate drifts were merged into this one to keep the chart drawable (1: none). */
  merged: number;
}

/**
 * A run of consecutive cycles already summarised (a five-minute rollup of the journal): the samples
 * a bucket could keep from it (its first and last, and the line at each extreme), in time order, and
 * how many of its cycles drifted. Drift runs inside one group are counted as one episode.
 */
export interface SampleGroup {
  cycles: number;
  /** First sample first, last sample last; the extremes in between, duplicates allowed. */
  samples: ChartSample[];
  driftCycles: number;
  /** The worst class among its drifting cycles ("none" when none drifted). */
  worst: DriftClass;
  firstDriftT: number | null;
}

export interface DownsampleOptions {
  /** The window the chart shows; samples outside it are clamped to its edges. */
  from: number;
  to: number;
  /** Most points returned. Default 2000. At least 14. */
  maxPoints?: number;
  /** Most episodes returned before merging starts. Default maxPoints / 4. */
  maxEpisodes?: number;
}

export interface Downsampled {
  points: ChartSample[];
  episodes: DriftEpisode[];
  /** Samples seen. */
  samples: number;
  /** Bucket width when the samples were bucketed; null when every sample was kept. */
  bucketMs: number | null;
}

const PER_BUCKET = 7;
const severity: Record<DriftClass, number> = { none: 0, size_drift: 1, unknown_position: 2 };

/** A sample and its arrival number, so kept samples go out in the order they came in. */
interface Seen {
  s: ChartSample;
  n: number;
}

interface Bucket {
  index: number;
  first: Seen;
  last: Seen;
  minOurs: Seen;
  maxOurs: Seen;
  minTheirs: Seen;
  maxTheirs: Seen;
  widest: Seen;
}

function openBucket(index: number, x: Seen): Bucket {
  return { index, first: x, last: x, minOurs: x, maxOurs: x, minTheirs: x, maxTheirs: x, widest: x };
}

const gap = (s: ChartSample) => Math.abs(s.ours - s.theirs);

function addToBucket(b: Bucket, x: Seen): void {
  const s = x.s;
  b.last = x;
  if (s.ours < b.minOurs.s.ours) b.minOurs = x;
  if (s.ours > b.maxOurs.s.ours) b.maxOurs = x;
  if (s.theirs < b.minTheirs.s.theirs) b.minTheirs = x;
  if (s.theirs > b.maxTheirs.s.theirs) b.maxTheirs = x;
  if (gap(s) > gap(b.widest.s)) b.widest = x;
}

/** Merges b into a: the worse kind wins, the span covers both. */
function merge(a: DriftEpisode, b: DriftEpisode): DriftEpisode {
  return {
    kind: severity[b.kind] > severity[a.kind] ? b.kind : a.kind,
    from: Math.min(a.from, b.from),
    to: Math.max(a.to, b.to),
    ongoing: b.ongoing,
    samples: a.samples + b.samples,
    merged: a.merged + b.merged,
  };
}

/**
 * Merges neighbours closer than `gapMs`: first those of the same kind; if that is not enough, any
 * two (the worse kind wins). After the second pass neighbours are at least `gapMs` apart, so at most
 * span / gapMs + 1 remain.
 */
export function compactEpisodes(episodes: readonly DriftEpisode[], gapMs: number, max: number): DriftEpisode[] {
  if (episodes.length <= max) return [...episodes];
  const pass = (list: readonly DriftEpisode[], sameKindOnly: boolean) => {
    const out: DriftEpisode[] = [];
    for (const e of list) {
      const prev = out[out.length - 1];
      if (prev && e.from - prev.to < gapMs && (!sameKindOnly || prev.kind === e.kind)) out[out.length - 1] = merge(prev, e);
      else out.push(e);
    }
    return out;
  };
  const sameKind = pass(episodes, true);
  return sameKind.length <= max ? sameKind : pass(sameKind, false);
}

export class Downsampler {
  private readonly from: number;
  private readonly to: number;
  private readonly maxPoints: number;
  private readonly maxEpisodes: number;
  private readonly buckets: number;
  private readonly bucketMs: number;

  private count = 0;
  /** Every sample, until there are more than maxPoints; then null and buckets take over. */
  private raw: ChartSample[] | null = [];
  private bucket: Bucket | null = null;
  private points: ChartSample[] = [];
  private lastT = -Infinity;

  private episodes: DriftEpisode[] = [];
  private open: DriftEpisode | null = null;
  private lastSampleT = NaN;

  constructor(opts: DownsampleOptions) {
    if (!(opts.to > opts.from)) throw new RangeError(`the window must end after it starts (${opts.from} .. ${opts.to})`);
    this.from = opts.from;
    this.to = opts.to;
    this.maxPoints = Math.max(PER_BUCKET * 2, Math.floor(opts.maxPoints ?? 2000));
    this.buckets = Math.floor(this.maxPoints / PER_BUCKET);
    this.bucketMs = (this.to - this.from) / this.buckets;
    this.maxEpisodes = Math.max(this.buckets + 1, Math.floor(opts.maxEpisodes ?? this.maxPoints / 4));
  }

  push(input: ChartSample): void {
    if (input.t < this.lastT) throw new RangeError(`samples must come in time order (${input.t} after ${this.lastT})`);
    this.lastT = input.t;
    const s = input.t < this.from || input.t > this.to ? { ...input, t: Math.min(this.to, Math.max(this.from, input.t)) } : input;
    this.count++;
    this.trackEpisode(s);
    if (this.raw) {
      this.raw.push(s);
      if (this.raw.length > this.maxPoints) {
        const replay = this.raw;
        this.raw = null;
        replay.forEach((r, n) => this.bucketSample({ s: r, n }));
      }
    } else {
      this.bucketSample({ s, n: this.count - 1 });
    }
  }

  /**
   * A summarised run of cycles. Its extremes are kept exactly as if every cycle had been pushed
   * (a bucket keeps extremes of extremes); its episodes are exact to the group's edges. Switches to
   * bucketing, so use it only for windows holding more cycles than maxPoints.
   */
  pushGroup(g: SampleGroup): void {
    const first = g.samples[0];
    const last = g.samples[g.samples.length - 1];
    if (!first || !last) return;
    if (first.t < this.lastT) throw new RangeError(`samples must come in time order (${first.t} after ${this.lastT})`);
    this.lastT = last.t;
    if (this.raw) {
      const replay = this.raw;
      this.raw = null;
      replay.forEach((r, n) => this.bucketSample({ s: r, n }));
    }
    const arrival = this.count;
    this.count += g.cycles;
    this.trackGroupEpisode(g, first, last);
    const distinct = [...new Map(g.samples.map((x) => [x.t, x])).values()].sort((a, b) => a.t - b.t);
    distinct.forEach((x, i) => this.bucketSample({ s: x, n: arrival + i }));
  }

  finish(): Downsampled {
    if (this.open) {
      this.episodes.push({ ...this.open, to: this.lastSampleT, ongoing: true });
      this.open = null;
    }
    const episodes = compactEpisodes(this.episodes, this.bucketMs, this.maxEpisodes);
    if (this.raw) return { points: this.raw, episodes, samples: this.count, bucketMs: null };
    this.flushBucket();
    return { points: this.points, episodes, samples: this.count, bucketMs: this.bucketMs };
  }

  private trackEpisode(s: ChartSample): void {
    this.lastSampleT = s.t;
    const open = this.open;
    if (open && open.kind === s.drift) {
      open.samples++;
      return;
    }
    if (open) {
      // Memory stays bounded on a long, flapping window; the result is the same as compacting once.
      this.closeEpisode({ ...open, to: s.t });
      this.open = null;
    }
    if (s.drift !== "none") this.open = { kind: s.drift, from: s.t, to: s.t, ongoing: false, samples: 1, merged: 1 };
  }

  private trackGroupEpisode(g: SampleGroup, first: ChartSample, last: ChartSample): void {
    this.lastSampleT = last.t;
    if (g.driftCycles === 0 || g.worst === "none" || g.firstDriftT === null) {
      this.trackEpisode(first);
      this.lastSampleT = last.t;
      return;
    }
    const kind = g.worst;
    const open = this.open;
    if (open && first.drift !== "none" && open.kind === kind) {
      open.samples += g.driftCycles;
    } else {
      if (open) this.closeEpisode({ ...open, to: first.drift === "none" ? first.t : g.firstDriftT });
      this.open = { kind, from: g.firstDriftT, to: g.firstDriftT, ongoing: false, samples: g.driftCycles, merged: 1 };
    }
    if (last.drift === "none" && this.open) {
      this.closeEpisode({ ...this.open, to: last.t });
      this.open = null;
    }
  }

  private closeEpisode(e: DriftEpisode): void {
    this.episodes.push(e);
    if (this.episodes.length > 2 * this.maxEpisodes) this.episodes = compactEpisodes(this.episodes, this.bucketMs, this.maxEpisodes);
  }

  private bucketSample(x: Seen): void {
    const index = Math.min(this.buckets - 1, Math.floor((x.s.t - this.from) / this.bucketMs));
    if (this.bucket && this.bucket.index === index) {
      addToBucket(this.bucket, x);
      return;
    }
    this.flushBucket();
    this.bucket = openBucket(index, x);
  }

  private flushBucket(): void {
    const b = this.bucket;
    if (!b) return;
    this.bucket = null;
    const kept = new Set([b.first, b.minOurs, b.maxOurs, b.minTheirs, b.maxTheirs, b.widest, b.last]);
    for (const x of [...kept].sort((p, q) => p.n - q.n)) this.points.push(x.s);
  }
}

/** All at once, for samples already in memory. */
export function downsample(samples: Iterable<ChartSample>, opts: DownsampleOptions): Downsampled {
  const d = new Downsampler(opts);
  for (const s of samples) d.push(s);
  return d.finish();
}

/**
 * The span to shade for an episode so that it is at least `minWidth` of the window wide (a drift of
 * one cycle in a 20-day window would otherwise be thinner than a pixel), kept inside the window.
 */
export function shadeSpan(episode: Pick<DriftEpisode, "from" | "to">, window: { from: number; to: number }, minWidth = 1 / 250): { x1: number; x2: number } {
  const span = window.to - window.from;
  const min = span * minWidth;
  let x1 = Math.max(window.from, episode.from);
  let x2 = Math.min(window.to, Math.max(episode.to, x1));
  if (x2 - x1 < min) {
    const centre = (x1 + x2) / 2;
    x1 = Math.max(window.from, centre - min / 2);
    x2 = Math.min(window.to, x1 + min);
    x1 = Math.max(window.from, x2 - min);
  }
  return { x1, x2 };
}
