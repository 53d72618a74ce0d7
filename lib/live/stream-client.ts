/**
 * The browser's side of GET /api/live: one stream per origin, shared by every tab of the console,
 * carrying the union of the views the tabs show, and feeding each tab's TanStack Query cache under
 * the keys its screens already use (lib/query-options/live.ts).
 *
 * Sharing: browsers allow about six HTTP/1.1 connections per origin, so eight tabs each holding a
 * stream would leave none for their pages. The tabs elect one leader with a Web Lock (held until
 * the tab closes, then granted to the next tab waiting for it); the leader alone holds the stream,
 * and speaks to the others over a BroadcastChannel: they tell it their views, it passes on every
 * event and heartbeat. Without Web Locks (a page not served from a secure origin) each tab holds
 * its own stream.
 *
 * Truth: a view counts as carried only while heartbeats arrive (the route sends one at least every
 * second after looking at the journal). After STALL_MS without one, or when the stream drops or is
 * refused, every view falls back at once: its query is refetched from its JSON route, so the page
 * shows exactly what a failed poll shows, and polls again until the stream is back. The leader
 * reconnects by itself, with backoff.
 */
import type { QueryClient } from "@tanstack/react-query";
import { answerError } from "../query-options/fetch-api";
import { liveQueryKey } from "../query-options/live";
import { notePushed, setStreamCarried, type PushedView } from "./carried";
import { sseParser } from "./sse";
import { MAX_LIVE_VIEWS } from "./view-names";

/** A stream that says nothing for this long counts as a failed poll. */
export const STALL_MS = 3_000;
const CHECK_MS = 500;
const BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000];
const NAME = "driftwatch-live";

type ViewPayload = PushedView;

type Message =
  | { type: "views"; tab: string; views: string[] }
  | { type: "bye"; tab: string }
  | { type: "hello" }
  | { type: "view"; at: number; payload: ViewPayload }
  | { type: "beat"; at: number; views: string[] }
  | { type: "down" };

class TabStream {
  private readonly tab = Math.random().toString(36).slice(2);
  private client: QueryClient | null = null;
  private channel: BroadcastChannel | null = null;
  private started = false;
  private leader = false;
  /** This tab's views, with how many components ask for each. */
  private readonly wanted = new Map<string, number>();
  /** The last state each view was sent in: only an ok view is confirmed by heartbeats. */
  private readonly lastOk = new Map<string, boolean>();
  private beatAt = 0;
  private healthy = false;
  private carriedViews = new Set<string>();

  // The leader's stream.
  private readonly others = new Map<string, string[]>();
  private abort: AbortController | null = null;
  private url: string | null = null;
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private received = new Set<string>();
  private readonly cache = new Map<string, { at: number; payload: ViewPayload }>();
  /** The stream that dropped and the id of the last event it brought: a reconnect to it resumes there. */
  private resume: { url: string; id: string } | null = null;

  attach(client: QueryClient): void {
    this.client = client;
    if (this.started || typeof window === "undefined") return;
    this.started = true;
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(NAME) : null;
    if (this.channel) this.channel.onmessage = (e: MessageEvent<Message>) => this.receive(e.data);
    const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
    if (this.channel && locks) {
      // Held for the tab's life: the promise never settles, and the browser frees the lock when the tab goes.
      void locks.request(NAME, () => {
        this.becomeLeader();
        return new Promise<never>(() => {});
      });
      this.announce();
    } else {
      this.becomeLeader();
    }
    window.addEventListener("pagehide", () => this.post({ type: "bye", tab: this.tab }));
    setInterval(() => this.check(), CHECK_MS);
  }

  /** Asks the stream for a view while the caller shows it; returns the release. */
  watch(view: string): () => void {
    this.wanted.set(view, (this.wanted.get(view) ?? 0) + 1);
    if (this.wanted.get(view) === 1) this.viewsChanged();
    return () => {
      const n = (this.wanted.get(view) ?? 1) - 1;
      if (n > 0) return void this.wanted.set(view, n);
      this.wanted.delete(view);
      this.viewsChanged();
    };
  }

  private viewsChanged(): void {
    this.publishCarried();
    if (!this.started) return;
    if (this.leader) this.reconnectSoon();
    else this.announce();
  }

  private announce(): void {
    this.post({ type: "views", tab: this.tab, views: [...this.wanted.keys()] });
  }

  private post(message: Message): void {
    this.channel?.postMessage(message);
  }

  private receive(message: Message): void {
    switch (message.type) {
      case "views":
        if (!this.leader) return;
        this.others.set(message.tab, message.views);
        // A tab that joins a stream already carrying its views gets them from what was last sent.
        for (const view of message.views) {
          const last = this.cache.get(view);
          if (last) this.post({ type: "view", at: last.at, payload: last.payload });
        }
        this.reconnectSoon();
        return;
      case "bye":
        if (!this.leader) return;
        this.others.delete(message.tab);
        this.reconnectSoon();
        return;
      case "hello":
        if (!this.leader) this.announce();
        return;
      case "view":
        return this.apply(message.payload, message.at);
      case "beat":
        return this.beat(message.at, message.views);
      case "down":
        return this.down();
    }
  }

  /** A view event: the same data or error a poll of its JSON route would have brought. */
  private apply(payload: ViewPayload, at: number): void {
    if (!this.wanted.has(payload.view) || !this.client) return;
    const key = liveQueryKey(payload.view);
    if (!key) return;
    this.lastOk.set(payload.view, payload.ok);
    notePushed(payload);
    if (payload.ok) {
      // When the server read it, not when another tab passed it on: the pages age the data from here.
      this.client.setQueryData(key, payload.data, { updatedAt: at });
    } else {
      const query = this.client.getQueryCache().find({ queryKey: key, exact: true });
      if (query) {
        const error = answerError(payload.status ?? 503, payload);
        const s = query.state;
        query.setState({
          ...s,
          status: "error",
          error,
          errorUpdatedAt: at,
          errorUpdateCount: s.errorUpdateCount + 1,
          fetchFailureCount: s.fetchFailureCount + 1,
          fetchFailureReason: error,
        });
      }
    }
    this.publishCarried();
  }

  private beat(at: number, views: string[]): void {
    this.beatAt = at;
    this.healthy = true;
    this.carriedViews = new Set(views);
    this.publishCarried();
  }

  /** The stream is gone or silent: every view falls back to its poll, which shows what a failed poll shows. */
  private down(): void {
    const was = this.healthy;
    this.healthy = false;
    this.carriedViews = new Set();
    this.publishCarried();
    if (!was || !this.client) return;
    for (const view of this.wanted.keys()) {
      const key = liveQueryKey(view);
      if (key) void this.client.refetchQueries({ queryKey: key, exact: true, type: "active" });
    }
  }

  private publishCarried(): void {
    const next = new Map<string, number>();
    if (this.healthy) {
      for (const view of this.wanted.keys()) {
        if (!this.carriedViews.has(view) || !this.lastOk.has(view)) continue;
        // An error stays as it was sent: the heartbeat confirms the data, never a failure.
        next.set(view, this.lastOk.get(view) ? this.beatAt : 0);
      }
    }
    setStreamCarried(next);
  }

  private check(): void {
    if (!this.healthy || Date.now() - this.beatAt <= STALL_MS) return;
    if (this.leader) this.dropped();
    else this.down();
  }

  // --- the leader's stream ------------------------------------------------------------------

  private becomeLeader(): void {
    this.leader = true;
    this.post({ type: "hello" });
    this.reconnectSoon();
  }

  private union(): string[] {
    const all = new Set(this.wanted.keys());
    for (const views of this.others.values()) for (const v of views) all.add(v);
    // Past the route's limit the rest are not carried: their queries poll, as without a stream.
    return [...all].sort().slice(0, MAX_LIVE_VIEWS);
  }

  private reconnectSoon(): void {
    if (this.reconnectTimer) return;
    // Views change in bursts (a page mounting several widgets): one reconnect for the burst.
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, 30);
  }

  private connect(): void {
    const views = this.union();
    const url = views.length > 0 ? `/api/live?views=${encodeURIComponent(views.join(","))}` : null;
    if (url === this.url && (this.abort || url === null)) return;
    this.abort?.abort();
    this.abort = null;
    this.url = url;
    if (url) this.open(url);
  }

  private open(url: string): void {
    const abort = new AbortController();
    this.abort = abort;
    // The same views again after a drop: the server sends only those that changed since the last
    // event, and the rest are as this tab (or its poll meanwhile) last had them.
    const resume = this.resume?.url === url ? this.resume.id : null;
    this.resume = null;
    if (resume === null) {
      this.received = new Set();
      this.cache.clear();
    }
    let lastId = resume;
    const run = async () => {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (resume !== null) headers["last-event-id"] = resume;
      const res = await fetch(url, { signal: abort.signal, cache: "no-store", headers });
      if (!res.ok || !res.body) throw new Error(`GET /api/live answered ${res.status}`);
      const feed = sseParser((item) => {
        if (abort.signal.aborted) return;
        if (item.kind === "event" && item.event === "view") {
          if (item.id !== null) lastId = item.id;
          const payload = JSON.parse(item.data) as ViewPayload;
          const at = Date.now();
          this.received.add(payload.view);
          this.cache.set(payload.view, { at, payload });
          this.post({ type: "view", at, payload });
          this.apply(payload, at);
        }
        // Any frame, a ping or an event, says the server looked at the journal just now.
        const beat: Message = { type: "beat", at: Date.now(), views: [...this.received] };
        this.attempt = 0;
        this.post(beat);
        this.beat(beat.at, beat.views);
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) throw new Error("GET /api/live ended");
        feed(value);
      }
    };
    run().catch(() => {
      if (this.abort !== abort) return;
      if (lastId !== null) this.resume = { url, id: lastId };
      this.dropped();
    });
  }

  /** The stream failed, was refused or went silent: fall back, tell the other tabs, try again later. */
  private dropped(): void {
    this.abort?.abort();
    this.abort = null;
    this.url = null;
    this.post({ type: "down" });
    this.down();
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt++;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }
}

/** The tab's one stream (a module singleton: one per page load). */
export const tabStream = new TabStream();
