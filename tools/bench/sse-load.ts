/**
 * Many viewers of GET /api/live in one process: each an EventSource-compatible client on a socket
 * of its own (tools/bench/sse-client.ts), as a browser tab would hold it. Shared by the benchmark's
 * stream rows (scripts/bench/streams.ts, in a process of its own) and the soak.
 *
 * Each view event is `{"view":..,"ok":true,"data":..}` or `{"view":..,"ok":false,"error":..}`. A
 * `marker` picks what a run is watching for out of a view (the probe line's size, a bot's
 * heartbeat); each client keeps the first time it saw each marker, so the run can tell when every
 * client saw every change, and how late.
 */
import { openStream, type StreamHandle } from "./sse-client";

export interface LiveView {
  view: string;
  ok: boolean;
  data?: unknown;
  error?: { code?: string; message?: string };
}

/** What the run watches for in a view; null when this view does not carry it. */
export type Marker = (view: LiveView) => string | null;

interface Viewer {
  handle: StreamHandle;
  /** Why the stream ended, while the run still wanted it. */
  ended: string | null;
  status: number;
  views: Set<string>;
  events: number;
  pings: number;
  failures: number;
  lastAt: number;
  maxGapMs: number;
  /** marker → first arrival (ms since the epoch, sub-millisecond). */
  seen: Map<string, number>;
  lastMarker: string | null;
}

export interface FleetSummary {
  clients: number;
  /** Clients that got a first event of every view they asked for. */
  live: number;
  /** Why streams ended early, counted ("status 503": 3). */
  ended: Record<string, number>;
  events: number;
  pings: number;
  /** `ok: false` events: a view the server could not read. */
  failures: number;
  /** The longest silence (no event, no comment) any client sat through, in ms. */
  maxGapMs: number;
  /** marker → every client's first arrival of it (ms since the epoch). */
  arrivals: Record<string, number[]>;
  /** How many clients hold each marker as the newest they saw. */
  latest: Record<string, number>;
}

const nowMs = () => performance.timeOrigin + performance.now();

export class ViewerFleet {
  private viewers: Viewer[] = [];
  /** The same view reaches every client as the same text: parse it once. */
  private parsed = new Map<string, { view: LiveView; marker: string | null } | null>();
  private closing = false;

  constructor(private readonly opts: { url: string; views: string[]; marker: Marker; headers?: Record<string, string> }) {}

  /** Opens `n` more clients, `batch` at a time (a thousand SYNs at once overflow the listen backlog). */
  async open(n: number, batch = 50): Promise<void> {
    for (let i = 0; i < n; i += batch) {
      const wave = Array.from({ length: Math.min(batch, n - i) }, () => this.openOne());
      await Promise.race([Promise.all(wave.map((v) => this.firstOf(v))), new Promise((r) => setTimeout(r, 5_000))]);
    }
  }

  private openOne(): Viewer {
    const v: Viewer = {
      handle: null as unknown as StreamHandle,
      ended: null,
      status: 0,
      views: new Set(),
      events: 0,
      pings: 0,
      failures: 0,
      lastAt: nowMs(),
      maxGapMs: 0,
      seen: new Map(),
      lastMarker: null,
    };
    const tick = () => {
      const t = nowMs();
      v.maxGapMs = Math.max(v.maxGapMs, t - v.lastAt);
      v.lastAt = t;
      return t;
    };
    v.handle = openStream(this.opts.url, {
      headers: this.opts.headers,
      onOpen: (status) => {
        v.status = status;
        v.lastAt = nowMs();
      },
      onComment: () => {
        tick();
        v.pings += 1;
      },
      onEvent: (e) => {
        const t = tick();
        v.events += 1;
        const got = this.read(e.data);
        if (!got) return void (v.failures += 1);
        v.views.add(got.view.view);
        if (!got.view.ok) v.failures += 1;
        if (got.marker !== null) {
          if (!v.seen.has(got.marker)) v.seen.set(got.marker, t);
          v.lastMarker = got.marker;
        }
      },
    });
    void v.handle.ended.then((why) => {
      if (!this.closing) v.ended = why;
    });
    this.viewers.push(v);
    return v;
  }

  private read(data: string) {
    let got = this.parsed.get(data);
    if (got === undefined) {
      try {
        const view = JSON.parse(data) as LiveView;
        got = typeof view?.view === "string" && typeof view.ok === "boolean" ? { view, marker: view.ok ? this.opts.marker(view) : null } : null;
      } catch {
        got = null;
      }
      if (this.parsed.size > 200) this.parsed.clear();
      this.parsed.set(data, got);
    }
    return got;
  }

  private async firstOf(v: Viewer): Promise<void> {
    while (v.ended === null && !this.opts.views.every((name) => v.views.has(name))) await new Promise((r) => setTimeout(r, 20));
  }

  /** Every client has its first event of every view, or has ended; false at the timeout. */
  async ready(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.viewers.every((v) => v.ended !== null || this.opts.views.every((name) => v.views.has(name)))) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  /** Every live client holds `marker` as its newest, or the timeout passed; how many hold it. */
  async allHold(marker: string, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const holding = () => this.viewers.filter((v) => v.lastMarker === marker).length;
    while (Date.now() < deadline && this.viewers.some((v) => v.ended === null && v.lastMarker !== marker)) await new Promise((r) => setTimeout(r, 20));
    return holding();
  }

  summary(): FleetSummary {
    const ended: Record<string, number> = {};
    const arrivals: Record<string, number[]> = {};
    const latest: Record<string, number> = {};
    const t = nowMs();
    for (const v of this.viewers) {
      if (v.ended !== null) ended[v.ended] = (ended[v.ended] ?? 0) + 1;
      for (const [m, at] of v.seen) (arrivals[m] ??= []).push(at);
      if (v.lastMarker !== null) latest[v.lastMarker] = (latest[v.lastMarker] ?? 0) + 1;
    }
    return {
      clients: this.viewers.length,
      live: this.viewers.filter((v) => v.ended === null && this.opts.views.every((name) => v.views.has(name))).length,
      ended,
      events: this.viewers.reduce((a, v) => a + v.events, 0),
      pings: this.viewers.reduce((a, v) => a + v.pings, 0),
      failures: this.viewers.reduce((a, v) => a + v.failures, 0),
      // A silence still running counts too: a stream that stopped talking is the case to catch.
      maxGapMs: this.viewers.reduce((a, v) => Math.max(a, v.maxGapMs, v.ended === null ? t - v.lastAt : 0), 0),
      arrivals,
      latest,
    };
  }

  close(): void {
    this.closing = true;
    for (const v of this.viewers) v.handle.close();
  }
}

/** The overview's line for one bot and symbol, as `theirs/drift`: what the benchmark's probe commits change. */
export function probeMarker(botId: string, symbol: string): Marker {
  return (view) => {
    if (view.view !== "overview") return null;
    const lines = (view.data as { lines?: { botId: string; symbol: string; theirs: number; drift: string }[] } | undefined)?.lines ?? [];
    const line = lines.find((l) => l.botId === botId && l.symbol === symbol);
    return line ? `${line.theirs}/${line.drift}` : null;
  };
}
