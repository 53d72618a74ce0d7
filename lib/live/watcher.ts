import "server-only";
/**
 * One watcher per journal in the server process: it notices a commit cheaply and re-reads each
 * live view somebody subscribes to at most once per change, whatever the number of subscribers,
 * then sends the view to every subscriber only when what it shows changed.
 *
 * Noticing: every TICK_MS the watcher takes the journal's read connection through JournalSource.get()
 * (the stat that tells a deleted or replaced file, and the one pragma that meets a lock, exactly as
 * every page and JSON route does) and reads `PRAGMA data_version`, which changes when any other
 * connection commits. A new connection (the file was replaced), a new data_version, or the end of
 * a failure means a re-read. While nobody subscribes the timer is stopped and nothing is read.
 *
 * Time: the screens judge staleness against the clock (a heartbeat older than the limit is an
 * alarm even if nothing is written), so subscribed views are also re-read every RECHECK_MS. A view
 * words no age (it carries times, and ages measured at the read, which the browser keeps counting
 * from the arrival with its own clock), and ages and `readAt` are left out of the comparison, so
 * that re-read sends nothing unless a verdict changed: a quiet journal sends heartbeat comments
 * only. The re-read still refreshes the frame a stream that joins later is sent, so its ages start
 * at most RECHECK_MS old.
 *
 * Resuming: each event's id is `<epoch>-<n>`, n counting changes in this watcher (epoch: this
 * process's watcher, so ids of a restarted console never match). A stream opened with the id of the
 * last event it got (Last-Event-ID) is sent only the views that changed after it; a view read anew
 * since (nobody watched it for a while) keeps its old id while it shows the same.
 *
 * Failing: a journal that cannot be read (missing, gone, replaced by a bad file, locked, damaged)
 * is sent on every subscribed view as the error its JSON route answers, masked for the reader.
 *
 * PostgreSQL: a PostgreSQL source has no data_version. Its change signal is the server's WAL
 * insert position (`pg_current_wal_insert_lsn()`, one round trip with the per-request check; the
 * write position lags behind it under asynchronous commit): it moves on every commit that writes, the bots' included, so a change is noticed within a tick; it also moves on the
 * server's own writes (autovacuum, other databases of the cluster), which costs a re-read that
 * then sends nothing. No trigger and no LISTEN/NOTIFY: the journal's contract is unchanged.
 *
 * Reads are asynchronous (a PostgreSQL source answers over the network): a tick that finds the
 * previous one still reading is skipped, and a new stream's first frames follow its first read.
 *
 * Several journals: the watcher of a console that reads several looks at each of them on every
 * tick (its stat, pragma and data_version), and re-reads the views when any of them changed, came
 * back or failed; the views themselves merge the journals (lib/queries/fleet.ts), so one journal's
 * failure is its banner and its bots UNKNOWN on the merged views, while the others stay live.
 */
import type { JournalError } from "../db/journal-file";
import { consoleSources, SourceSet, type JournalSource } from "../db/console";
import type { PgJournalSource } from "../db/pg-source";
import { journalProblemFor } from "../http/journal-problem";
import { readLiveView } from "./read-view";
import type { LiveView } from "./view-names";

export const TICK_MS = 150;
/** A heartbeat comment at least this often; the browser treats 3 s of silence as a failed poll. */
export const PING_MS = 750;
const RECHECK_MS = 1_000;
/** Views nobody watches any more whose last event id is kept, for a stream that resumes. */
const REMEMBERED_VIEWS = 1_000;
/**
 * The distinct views (each kind of reader apart) a console re-reads on a change, and the streams it
 * holds. Every watched view is read on every change, so the views, not the streams, are what a
 * change costs: a stranger asking for 1,000 streams of 100 made-up views each (a `before` per
 * stream) had the console re-read 100,000 views on each of the bot's commits, and froze it for
 * every operator. Past either limit a new stream is refused (503, `refusal`) and its page polls,
 * as it does whenever the stream is down. A desk's tabs watch a few dozen views; the benchmark holds 1,000 streams.
 */
export const MAX_WATCHED_VIEWS = 200;
export const MAX_STREAMS = 2_000;

/** One open stream: gets whole SSE frames. */
export interface LiveSubscriber {
  send(frame: string): void;
}

/** What a view event carries: the JSON route's data, or its error and HTTP status. */
type ViewPayload =
  | { view: string; ok: true; data: unknown }
  | { view: string; ok: false; status: number; error: { code: string; message: string; file?: string; fix?: string } };

interface Entry {
  name: string;
  view: LiveView;
  /** Whether its readers see operators' names (lib/auth/reader.ts): a view is read once per kind of reader. */
  names: boolean;
  subscribers: Set<LiveSubscriber>;
  /** What the view shows, ages aside: the last one sent. */
  shown: string | null;
  /** The number of the event that sent `shown`. */
  id: number;
  /** The latest read: what a stream that joins now is sent (under `id`), with its ages. */
  payload: ViewPayload | null;
  /** `payload` as an event, written when first needed: most reads change nothing and are never sent. */
  frame: string | null;
}

export interface WatcherOptions {
  tickMs?: number;
  pingMs?: number;
  recheckMs?: number;
  now?: () => number;
  maxViews?: number;
  maxStreams?: number;
}

/** Ages and read times: they move with the clock alone, so they are no change (see the module's comment). */
const TIMELY = /^(readAt|ageMs|driftForMs|durationMs)$|(AgeMs|AgoMs)$/;
const timeless = (key: string, value: unknown) => (TIMELY.test(key) ? undefined : value);

export const PING_FRAME = ": ping\n\n";

const entryKey = (names: boolean, name: string) => `${names ? "named" : "roles"} ${name}`;

export class JournalWatcher {
  private readonly entries = new Map<string, Entry>();
  private readonly subscribers = new Set<LiveSubscriber>();
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Per journal: the read connection seen at the last read (null: none), and its data_version or failure. */
  private connections: unknown[] = [];
  private version: string | null = null;
  private failing = true;
  private readAt = 0;
  private pingedAt = 0;
  private lastId = 0;
  private readonly epoch = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  /** Views whose entry went with their last stream: key → what they showed and under which id. */
  private readonly remembered = new Map<string, { shown: string; id: number }>();
  /** How many times a view was read from the journal, for tests and the bench. */
  reads = 0;
  private readonly opts: Required<WatcherOptions>;

  /** The journals it watches: the one given, or the console's set. */
  readonly sources: SourceSet;

  constructor(source: JournalSource | SourceSet, opts: WatcherOptions = {}) {
    // Not instanceof: Next bundles route modules apart, so the console's set (on globalThis) may
    // come from another bundle's copy of the class.
    this.sources = "sources" in source ? source : SourceSet.of(source);
    this.opts = {
      tickMs: TICK_MS,
      pingMs: PING_MS,
      recheckMs: RECHECK_MS,
      now: () => Date.now(),
      maxViews: MAX_WATCHED_VIEWS,
      maxStreams: MAX_STREAMS,
      ...opts,
    };
  }

  /**
   * Why a stream for these views, as this kind of reader, would be one too many (the route answers
   * 503 with it before the stream starts), or null. Views already watched cost nothing more: a
   * stream of the same overview as a thousand others is always let in while streams are left.
   */
  refusal(views: { name: string }[], names: boolean): string | null {
    if (this.subscribers.size >= this.opts.maxStreams)
      return `the console already holds ${this.subscribers.size.toLocaleString("en-US")} live streams, its limit: this page asks every second instead`;
    const added = views.filter((v) => !this.entries.has(entryKey(names, v.name))).length;
    if (added > 0 && this.entries.size + added > this.opts.maxViews)
      return `the console already watches ${this.entries.size} live views, and these would add ${added} past its limit of ${this.opts.maxViews}: this page asks every second instead`;
    return null;
  }

  /**
   * Adds a stream for these views, as a reader who does (not) see names; sends each view's current
   * state at once, or, given the id of the last event this stream's views were sent before
   * (Last-Event-ID), only the views that changed after it. Returns the unsubscribe, which stops the
   * watcher when it was the last stream.
   */
  subscribe(subscriber: LiveSubscriber, views: { name: string; view: LiveView }[], names: boolean, lastEventId: string | null = null): () => void {
    const mine: Entry[] = [];
    const fresh: Entry[] = [];
    for (const { name, view } of views) {
      const key = entryKey(names, name);
      let entry = this.entries.get(key);
      if (!entry) {
        const known = this.remembered.get(key);
        this.remembered.delete(key);
        entry = { name, view, names, subscribers: new Set(), shown: known?.shown ?? null, id: known?.id ?? 0, payload: null, frame: null };
        this.entries.set(key, entry);
        fresh.push(entry);
      }
      mine.push(entry);
    }
    this.subscribers.add(subscriber);
    let gone = false;
    // The stream holds its views from now on, though it is sent nothing of them until its first
    // frames: a stream that leaves meanwhile (the same tab's previous one, replaced because the tab
    // added a view) must not take them away. It did: the views were dropped from the watcher while
    // this stream still waited, so they were never read again, and the pings kept its page "live"
    // on data that no longer changed.
    let joined = false;
    const gate: LiveSubscriber = { send: (frame) => void (joined && subscriber.send(frame)) };
    for (const entry of mine) entry.subscribers.add(gate);
    // After the look in flight (or this stream's first one): its views' frames are then current.
    const ready = fresh.length > 0 ? this.serially(() => this.check(fresh)) : (this.busy ?? Promise.resolve());
    this.ready = ready
      .then(() => {
        if (gone) return;
        const seen = this.seenUpTo(lastEventId);
        joined = true;
        // What was held back meanwhile is in each view's latest frame.
        for (const entry of mine) if (entry.payload && entry.id > seen) subscriber.send(this.frameOf(entry));
      })
      .catch((error: unknown) => console.error("driftwatch: the live watcher failed:", error));
    this.timer ??= setInterval(() => void this.tick(), this.opts.tickMs);
    return () => {
      gone = true;
      this.subscribers.delete(subscriber);
      for (const entry of mine) {
        entry.subscribers.delete(gate);
        if (entry.subscribers.size > 0) continue;
        const key = entryKey(entry.names, entry.name);
        this.entries.delete(key);
        if (entry.shown === null) continue;
        this.remembered.set(key, { shown: entry.shown, id: entry.id });
        if (this.remembered.size > REMEMBERED_VIEWS) this.remembered.delete(this.remembered.keys().next().value!);
      }
      if (this.subscribers.size === 0) this.stop();
    };
  }

  /** The change number a Last-Event-ID names, when this watcher sent it; else nothing was seen (0). */
  private seenUpTo(lastEventId: string | null): number {
    const match = lastEventId === null ? null : /^([a-z0-9]+)-(\d{1,15})$/.exec(lastEventId.trim());
    if (!match || match[1] !== this.epoch) return 0;
    const n = Number(match[2]);
    return n <= this.lastId ? n : 0;
  }

  /** The number of views being watched (each kind of reader counted apart). */
  get watched(): number {
    return this.entries.size;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Resolves once the last subscribe's first frames are sent (tests wait on it). */
  ready: Promise<void> = Promise.resolve();
  private busy: Promise<void> | null = null;

  /** Runs one look after the one in flight, never two at once. */
  private serially(look: () => Promise<void>): Promise<void> {
    const run = (this.busy ?? Promise.resolve()).then(look);
    const mine = run.finally(() => {
      if (this.busy === mine) this.busy = null;
    });
    this.busy = mine;
    return mine;
  }

  /** One look at the journal: re-read the views if it changed, then the heartbeat comment. Resolves when done. */
  tick(): Promise<void> {
    if (this.entries.size === 0) return Promise.resolve();
    // The previous look still reads (a slow PostgreSQL server): this tick is skipped, not queued.
    if (this.busy) return this.busy;
    return this.serially(async () => {
      try {
        await this.check([...this.entries.values()]);
      } catch (error) {
        // A bug, not the journal: the streams stop hearing pings and their pages say so within 3 s.
        console.error("driftwatch: the live watcher failed:", error);
        return;
      }
      const now = this.opts.now();
      if (now - this.pingedAt >= this.opts.pingMs) {
        this.pingedAt = now;
        for (const s of this.subscribers) s.send(PING_FRAME);
      }
    });
  }

  /**
   * Reads `entries` when the journal changed (or the clock moved far enough), and all of them
   * regardless when `entries` are new. A failure to open the journal goes to each as its error.
   */
  private async check(entries: Entry[]): Promise<void> {
    const now = this.opts.now();
    const connections: unknown[] = [];
    const failures: JournalError[] = [];
    let version = "";
    // The PostgreSQL sources' looks all at once; the SQLite ones are a stat and two pragmas each.
    const pgLooks = await Promise.all(this.sources.sources.map((s) => (s.kind === "postgres" ? pgLook(s.journal) : null)));
    for (const [i, source] of this.sources.sources.entries()) {
      const look = pgLooks[i];
      if (look) {
        if (!look.ok) {
          failures.push(look.error);
          connections.push(null);
          version += `!${look.error.code};`;
        } else {
          connections.push(source.journal);
          version += `${look.version};`;
        }
        continue;
      }
      if (source.kind !== "sqlite") continue;
      const journal = source.journal;
      const handle = journal.get();
      if (!handle.ok) {
        failures.push(handle.error);
        connections.push(null);
        version += `!${handle.error.code};`;
        continue;
      }
      try {
        version += `${String(handle.db.$client.pragma("data_version", { simple: true }))};`;
        connections.push(handle.db);
      } catch (error) {
        const fault = journal.classify(error);
        if (!fault) throw error;
        failures.push(fault);
        // A failure on a connection that stays open: keep it, so its return is no new connection.
        connections.push(this.connections[i] ?? null);
        version += `!${fault.code};`;
      }
    }
    if (failures.length === this.sources.sources.length) {
      this.failing = true;
      this.connections = connections;
      for (const entry of entries) this.publish(entry, this.journalFailure(entry, failures[0]!));
      return;
    }
    const moved = connections.some((c, i) => c !== null && c !== this.connections[i]);
    const changed = this.failing || moved || version !== this.version || now - this.readAt >= this.opts.recheckMs;
    const fresh = entries.filter((e) => e.payload === null);
    const toRead = changed ? entries : fresh;
    if (toRead.length === 0) return;
    if (changed) {
      this.failing = false;
      this.connections = connections;
      this.version = version;
      this.readAt = now;
    }
    for (const [i, entry] of toRead.entries()) {
      // One view at a time, the server's other work in between: a SQLite read holds the event loop,
      // and a pass over many views read back to back held every page and action until it ended.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      this.publish(entry, await this.read(entry));
    }
  }

  private async read(entry: Entry): Promise<ViewPayload> {
    this.reads++;
    let read;
    try {
      read = await readLiveView(entry.view, entry.names, this.sources);
    } catch (error) {
      // The JSON route's 500 (lib/http/journal-route.ts), word for word.
      console.error(`driftwatch: live view ${entry.name} failed:`, error);
      return {
        view: entry.name,
        ok: false,
        status: 500,
        error: { code: "read_failed", message: `the journal could not be read: ${(error as Error).message}` },
      };
    }
    if (!read.ok) {
      this.failing = true;
      return this.journalFailure(entry, read.error);
    }
    return { view: entry.name, ok: true, data: read.data };
  }

  /** The JSON route's 503 for this reader (lib/http/journal-route.ts journalUnavailable). */
  private journalFailure(entry: Entry, error: JournalError): ViewPayload {
    const { code, message, file, fix } = journalProblemFor(error, { signedIn: entry.names });
    return { view: entry.name, ok: false, status: 503, error: { code, message, file, fix } };
  }

  private publish(entry: Entry, payload: ViewPayload): void {
    const shown = JSON.stringify(payload, timeless);
    const changed = shown !== entry.shown;
    if (changed) {
      entry.shown = shown;
      entry.id = ++this.lastId;
    }
    entry.payload = payload;
    entry.frame = null;
    if (changed && entry.subscribers.size > 0) {
      const frame = this.frameOf(entry);
      for (const s of entry.subscribers) s.send(frame);
    }
  }

  /**
   * The entry's latest read as an SSE event. Written once per read that is sent (to every stream of
   * the view at once) or asked for by a stream that joins: a journal written 50 times a second
   * re-reads the overview on every tick, and most of those reads show nothing new.
   */
  private frameOf(entry: Entry): string {
    entry.frame ??= `id: ${this.epoch}-${entry.id}\nevent: view\ndata: ${JSON.stringify(entry.payload)}\n\n`;
    return entry.frame;
  }
}

/** A PostgreSQL source's change signal: its per-request check, then the server's WAL position. */
async function pgLook(journal: PgJournalSource): Promise<{ ok: true; version: string } | { ok: false; error: JournalError }> {
  const handle = await journal.check();
  if (!handle.ok) return handle;
  try {
    const row = await handle.q.get<{ v: string }>("SELECT pg_current_wal_insert_lsn()::text AS v");
    return { ok: true, version: `pg:${row?.v ?? ""}` };
  } catch (error) {
    const fault = journal.classify(error);
    if (!fault) throw error;
    return { ok: false, error: fault };
  }
}

// One watcher per journal per server process; on globalThis so that Next's dev reloads and its
// separately bundled route modules share it rather than each starting its own.
const holder = globalThis as unknown as { __driftwatchWatchers?: Map<SourceSet, JournalWatcher> };

/** The watcher of the configured journals (lib/db/console.ts), made on first use. */
export function consoleWatcher(): JournalWatcher {
  const source = consoleSources();
  holder.__driftwatchWatchers ??= new Map();
  let watcher = holder.__driftwatchWatchers.get(source);
  if (!watcher) {
    for (const [old, w] of holder.__driftwatchWatchers) {
      // The configured journal changed (tests do this): the old one's watcher has no future.
      if (w.watched === 0) holder.__driftwatchWatchers.delete(old);
    }
    watcher = new JournalWatcher(source);
    holder.__driftwatchWatchers.set(source, watcher);
  }
  return watcher;
}
