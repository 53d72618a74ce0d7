/**
 * The live watcher (lib/live/watcher.ts) on real journal files, written by a second process (the
 * sqlite3 command-line tool, or a process holding a lock): one read per watched view per change
 * whatever the number of streams, nothing read for views nobody watches, nothing sent for a write
 * nobody could see, and a journal that cannot be read reaches every stream as its JSON route's error.
 * The watcher's own timer is set far off; each test drives its looks (tick) itself.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { JournalSource } from "@/lib/db/console";
import { journalProblemFor } from "@/lib/http/journal-problem";
import { readScreen } from "@/lib/queries/read";
import { loadOverview } from "@/lib/queries/screens";
import { parseLiveViewList } from "@/lib/live/view-names";
import { JournalWatcher, PING_FRAME } from "@/lib/live/watcher";
import { startFault, type FaultProcess } from "../helpers/faults";
import { migratedJournal, migrationsDir, sqliteCli } from "../helpers/journal";

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

interface Event {
  id: string;
  view: string;
  ok: boolean;
  data?: unknown;
  status?: number;
  error?: { code: string; message: string; file?: string; fix?: string };
}

/** A stream as the route holds it: every frame it was sent, parsed. */
function stream() {
  const events: Event[] = [];
  let pings = 0;
  return {
    events,
    pings: () => pings,
    send(frame: string) {
      if (frame === PING_FRAME) return void pings++;
      const id = /^id: ([a-z0-9]+-\d+)\n/.exec(frame)?.[1];
      const data = /\ndata: (.*)\n\n$/.exec(frame)?.[1];
      expect(frame).toMatch(/^id: [a-z0-9]+-\d+\nevent: view\ndata: .*\n\n$/);
      events.push({ id: id!, ...(JSON.parse(data!) as Omit<Event, "id">) });
    },
  };
}

function views(list: string) {
  const parsed = parseLiveViewList(list);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

const NOW = () => new Date().toISOString();

/** A journal with two registered bots, each written by the sqlite3 tool: another process, as a bot is. */
function journal(mode: "wal" | "delete" = "wal", limits: { maxViews?: number; maxStreams?: number } = {}) {
  const file = migratedJournal("live");
  if (mode === "delete") {
    const db = new Database(file);
    db.pragma("journal_mode = DELETE");
    db.close();
  }
  const at = NOW();
  sqliteCli(
    file,
    `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('bot-a', 'sim', 'q500', '${at}'), ('bot-b', 'sim', 'q501', '${at}');
     INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('bot-a', 0, '${at}', 'bot'), ('bot-b', 0, '${at}', 'bot');`,
  );
  const source = new JournalSource(file, { migrationsDir, log: () => {} });
  // Far-off timers: the test looks at the journal itself, so every count below is exact.
  const watcher = new JournalWatcher(source, { tickMs: 3_600_000, recheckMs: 3_600_000, pingMs: 0, ...limits });
  cleanup.push(
    () => watcher.stop(),
    () => source.close(),
  );
  return { file, source, watcher };
}

const halt = (file: string, botId: string) =>
  sqliteCli(file, `UPDATE breakers SET halted = 1, reason = 'by hand', changed_at = '${NOW()}', changed_by = 'operator:ana' WHERE bot_id = '${botId}';`);

describe("the live watcher", () => {
  it("reads each watched view once per change, whatever the number of streams, and sends the change to every one", async () => {
    const { file, watcher } = journal();
    const streams = Array.from({ length: 25 }, () => stream());
    for (const s of streams) watcher.subscribe(s, views("overview,breakers"), true);
    await watcher.ready;
    // The first stream made both views be read; the other 24 got them as they were.
    expect(watcher.reads).toBe(2);
    for (const s of streams) expect(s.events.map((e) => e.view)).toEqual(["overview", "breakers"]);

    halt(file, "bot-a");
    await watcher.tick();
    expect(watcher.reads).toBe(4);
    for (const s of streams) {
      expect(s.events).toHaveLength(4);
      const overview = s.events[2]!;
      expect(overview).toMatchObject({ view: "overview", ok: true });
      expect((overview.data as { bots: { botId: string; breaker: { halted: boolean } | null }[] }).bots.find((b) => b.botId === "bot-a")?.breaker?.halted).toBe(
        true,
      );
      expect(s.events[3]).toMatchObject({ view: "breakers", ok: true });
      expect(s.pings()).toBeGreaterThan(0);
    }
    // Every stream got the same event, under the same id.
    expect(new Set(streams.map((s) => s.events[2]!.id)).size).toBe(1);

    // Nothing committed since: looking again reads nothing and sends nothing.
    await watcher.tick();
    await watcher.tick();
    expect(watcher.reads).toBe(4);
    for (const s of streams) expect(s.events).toHaveLength(4);
  });

  it("refuses a stream that would add views past its limit, or one stream too many; views already watched are let in", async () => {
    const { watcher } = journal("wal", { maxViews: 3, maxStreams: 3 });
    // Each stream of a stranger's made-up views (a `before` of its own) is views the console must re-read on every change.
    expect(watcher.refusal(views("breakers:bot-a:1,breakers:bot-a:2,breakers:bot-a:3,breakers:bot-a:4"), false)).toBe(
      "the console already watches 0 live views, and these would add 4 past its limit of 3: this page asks every second instead",
    );
    watcher.subscribe(stream(), views("overview,breakers"), false);
    await watcher.ready;
    expect(watcher.refusal(views("overview,doubtful"), false)).toBeNull();
    expect(watcher.refusal(views("doubtful,breakers:bot-a"), false)).toMatch(/already watches 2 live views, and these would add 2 past its limit of 3/);
    // A reader who sees names reads its own copy of a view: the same name is one more view.
    expect(watcher.refusal(views("overview,breakers"), true)).toMatch(/would add 2 past its limit/);
    watcher.subscribe(stream(), views("overview,doubtful"), false);
    const third = stream();
    watcher.subscribe(third, views("overview"), false);
    await watcher.ready;
    expect(watcher.watched).toBe(3);
    expect(third.events.map((e) => e.view)).toEqual(["overview"]);
    // Three streams held: a fourth, even of a watched view, is one too many.
    expect(watcher.refusal(views("overview"), false)).toBe("the console already holds 3 live streams, its limit: this page asks every second instead");
  });

  it("lets the server's other work run between two views' reads of one look", async () => {
    const { file, watcher } = journal();
    watcher.subscribe(stream(), views("overview,breakers,doubtful,bot-clear:bot-a"), true);
    await watcher.ready;
    const before = watcher.reads;
    halt(file, "bot-a");
    let readsWhenOtherWorkRan = -1;
    const look = watcher.tick();
    setImmediate(() => (readsWhenOtherWorkRan = watcher.reads));
    await look;
    expect(watcher.reads).toBe(before + 4);
    // Other work (a request, an action) ran before the last of the four reads, not after all of them.
    expect(readsWhenOtherWorkRan).toBeGreaterThanOrEqual(before);
    expect(readsWhenOtherWorkRan).toBeLessThan(before + 4);
  });

  it("never reads a view nobody watches, and stops reading when the last stream goes", async () => {
    const { file, watcher } = journal();
    const a = stream();
    const stopA = watcher.subscribe(a, views("bot-clear:bot-a"), true);
    await watcher.ready;
    expect(watcher.reads).toBe(1);
    halt(file, "bot-b");
    await watcher.tick();
    // Only bot-a's clear panel is watched: one read, and it shows nothing new (bot-b halted), so nothing is sent.
    expect(watcher.reads).toBe(2);
    expect(a.events.map((e) => e.view)).toEqual(["bot-clear:bot-a"]);

    const b = stream();
    const stopB = watcher.subscribe(b, views("bot-clear:bot-b"), true);
    await watcher.ready;
    expect(watcher.reads).toBe(3);
    halt(file, "bot-a");
    await watcher.tick();
    expect(watcher.reads).toBe(5);
    expect(a.events.map((e) => e.view)).toEqual(["bot-clear:bot-a", "bot-clear:bot-a"]);
    expect(b.events.map((e) => e.view)).toEqual(["bot-clear:bot-b"]);

    stopA();
    stopB();
    expect(watcher.watched).toBe(0);
    halt(file, "bot-b");
    await watcher.tick();
    expect(watcher.reads).toBe(5);
  });

  it("keeps the views of a stream that joins while the stream it replaces leaves, and sends it their changes", async () => {
    // A tab that opens another page replaces its stream with one carrying one more view: the new
    // stream waits for that view's first read while the old one leaves. The views both carry must
    // stay watched; they were dropped, and the new stream got pings over data that no longer changed.
    const { file, watcher } = journal();
    const old = stream();
    const stopOld = watcher.subscribe(old, views("overview"), true);
    await watcher.ready;
    const next = stream();
    watcher.subscribe(next, views("overview,breakers"), true);
    stopOld();
    await watcher.ready;
    expect(watcher.watched).toBe(2);
    expect(next.events.map((e) => e.view)).toEqual(["overview", "breakers"]);

    halt(file, "bot-a");
    await watcher.tick();
    const overview = next.events.filter((e) => e.view === "overview").at(-1)!;
    expect((overview.data as { bots: { botId: string; breaker: { halted: boolean } | null }[] }).bots.find((b) => b.botId === "bot-a")?.breaker?.halted).toBe(
      true,
    );
    expect(next.events.map((e) => e.view)).toEqual(["overview", "breakers", "overview", "breakers"]);
    expect(old.events.map((e) => e.view)).toEqual(["overview"]);
  });

  it("sends nothing for a commit that changes nothing a view shows, and a reader without names gets roles", async () => {
    const { file, watcher } = journal();
    const named = stream();
    const anonymous = stream();
    watcher.subscribe(named, views("overview"), true);
    await watcher.ready;
    watcher.subscribe(anonymous, views("overview"), false);
    await watcher.ready;
    expect(watcher.reads).toBe(2);
    // A commit the overview cannot see (an order that filled at once is in no count, line or alarm):
    // the journal changed, so the view is read (once per kind of reader), and nothing is sent.
    sqliteCli(
      file,
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, attempts, created_at, updated_at)
       VALUES ('q500-filled', 'bot-a', 'trend', 'AAPL', 'buy', 1, '${NOW()}', 'filled', 1, 1, '${NOW()}', '${NOW()}');`,
    );
    await watcher.tick();
    expect(watcher.reads).toBe(4);
    expect(named.events).toHaveLength(1);
    expect(anonymous.events).toHaveLength(1);

    halt(file, "bot-a");
    await watcher.tick();
    const breakerOf = (s: ReturnType<typeof stream>) =>
      (s.events.at(-1)!.data as { bots: { botId: string; breaker: { changedBy: string } | null }[] }).bots.find((b) => b.botId === "bot-a")!.breaker!.changedBy;
    expect(breakerOf(named)).toBe("operator:ana");
    expect(breakerOf(anonymous)).not.toContain("ana");
  });

  it("sends only heartbeats while nothing is written, though the clock re-reads every watched view each second", async () => {
    const { source } = journal();
    // The watcher's own timers, as the route runs it: a look every 150 ms, every view re-read each second.
    const watcher = new JournalWatcher(source);
    cleanup.push(() => watcher.stop());
    const s = stream();
    watcher.subscribe(s, views("overview,bot-clear:bot-a,breakers,doubtful,symbol:bot-a:AAPL:20"), true);
    await watcher.ready;
    expect(s.events).toHaveLength(5);
    const readsBefore = watcher.reads;
    await new Promise((r) => setTimeout(r, 4_000));
    // Re-read (the clock moved), yet nothing they show moved: the heartbeat's age is not worded.
    expect(watcher.reads).toBeGreaterThanOrEqual(readsBefore + 5 * 2);
    expect(s.events).toHaveLength(5);
    expect(s.pings()).toBeGreaterThanOrEqual(3);
    const clear = s.events.find((e) => e.view === "bot-clear:bot-a")!.data as {
      items: { key: string; detail: string; beat?: { ageMs: number; limitMs: number } }[];
    };
    const beat = clear.items.find((i) => i.key === "heartbeat")!;
    expect(beat.detail).toBe("");
    expect(beat.beat!.ageMs).toBeGreaterThanOrEqual(0);
  });

  it("resumes a stream from its Last-Event-ID: only the views that changed since, none when none did", async () => {
    const { file, watcher } = journal();
    const a = stream();
    const stopA = watcher.subscribe(a, views("overview,doubtful"), true);
    await watcher.ready;
    expect(a.events.map((e) => e.view)).toEqual(["overview", "doubtful"]);
    const seenByA = a.events.at(-1)!.id;
    stopA();

    // Nothing written: a reconnect with the last id gets nothing, one without it gets both.
    const b = stream();
    const stopB = watcher.subscribe(b, views("overview,doubtful"), true, seenByA);
    await watcher.ready;
    expect(b.events).toEqual([]);
    stopB();
    const fresh = stream();
    const stopFresh = watcher.subscribe(fresh, views("overview,doubtful"), true);
    await watcher.ready;
    stopFresh();
    expect(fresh.events.map((e) => e.view)).toEqual(["overview", "doubtful"]);

    // A halt shows on the overview, not on the doubtful list: only the overview is sent.
    halt(file, "bot-a");
    const c = stream();
    const stopC = watcher.subscribe(c, views("overview,doubtful"), true, seenByA);
    await watcher.ready;
    expect(c.events.map((e) => e.view)).toEqual(["overview"]);
    expect(
      (c.events[0]!.data as { bots: { botId: string; breaker: { halted: boolean } | null }[] }).bots.find((x) => x.botId === "bot-a")?.breaker?.halted,
    ).toBe(true);
    const seenByC = c.events[0]!.id;
    // While streams are open too: a second stream resuming from the newest id gets nothing.
    const d = stream();
    watcher.subscribe(d, views("overview,doubtful"), true, seenByC);
    await watcher.ready;
    expect(d.events).toEqual([]);
    stopC();

    // An id this watcher never sent (a restarted console's, or nonsense) gets every view again.
    for (const id of ["someotherepoch-1", `${seenByC.split("-")[0]}-999999`, "garbage"]) {
      const e = stream();
      watcher.subscribe(e, views("overview,doubtful"), true, id);
      await watcher.ready;
      expect(e.events.map((x) => x.view)).toEqual(["overview", "doubtful"]);
    }
  });

  /** What GET /api/overview answers now, for this reader: the error every stream must carry. */
  async function routeError(source: JournalSource, signedIn: boolean) {
    const read = await readScreen((ctx) => loadOverview({ ...ctx, names: signedIn }), source);
    expect(read.ok).toBe(false);
    if (read.ok) throw new Error("the journal was readable");
    const { code, message, file, fix } = journalProblemFor(read.error, { signedIn });
    return { code, message, file, fix };
  }

  it("sends a deleted journal to every stream as the error its pages show, and the data again once it is back", async () => {
    const { file, source, watcher } = journal();
    const streams = [stream(), stream(), stream()];
    streams.forEach((s, i) => watcher.subscribe(s, views(i === 2 ? "overview" : "overview,doubtful"), i !== 1));
    await watcher.ready;
    fs.renameSync(file, `${file}.away`);
    await watcher.tick();
    const named = await routeError(source, true);
    const anonymous = await routeError(source, false);
    expect(named.code).toBe("gone");
    expect(anonymous.file).not.toContain(path.dirname(file));
    for (const [i, s] of streams.entries()) {
      const errors = s.events.filter((e) => !e.ok);
      expect(errors.map((e) => e.view)).toEqual(i === 2 ? ["overview"] : ["overview", "doubtful"]);
      for (const e of errors) expect(e).toMatchObject({ status: 503, error: i === 1 ? anonymous : named });
    }
    fs.renameSync(`${file}.away`, file);
    await watcher.tick();
    for (const s of streams) expect(s.events.at(-1)).toMatchObject({ ok: true });
  });

  it("tells every open live view, once the journal is back, that it was away, as a reloaded page does, and stops after 10 min", async () => {
    const { file } = journal();
    let clock = Date.now();
    const source = new JournalSource(file, { migrationsDir, log: () => {}, now: () => new Date(clock) });
    const watcher = new JournalWatcher(source, { tickMs: 3_600_000, recheckMs: 3_600_000, pingMs: 0 });
    cleanup.push(
      () => watcher.stop(),
      () => source.close(),
    );
    const names = ["overview", "doubtful", "breakers", "bot-clear:bot-a", "doubtful:bot-a", "symbol:bot-a:BTCUSDT:20"];
    const s = stream();
    watcher.subscribe(s, views(names.join(",")), true);
    await watcher.ready;
    const notices = (e: Event | undefined) => (e?.data as { notices?: string[] } | null | undefined)?.notices;
    const last = (view: string) => s.events.filter((e) => e.view === view).at(-1);
    for (const view of names) expect(notices(last(view))).toEqual([]);

    fs.renameSync(file, `${file}.away`);
    clock += 1_000;
    await watcher.tick();
    for (const view of names) expect(last(view)).toMatchObject({ ok: false, status: 503 });
    fs.renameSync(`${file}.away`, file);
    clock += 1_000;
    await watcher.tick();
    for (const view of names) {
      expect(last(view)).toMatchObject({ ok: true });
      expect(notices(last(view))).toEqual([expect.stringMatching(/^the journal was away from .* to .*; it was deleted or moved, then put back/)]);
    }

    // The page stops saying it when a reloaded one would.
    clock += 10 * 60_000;
    sqliteCli(file, `UPDATE bots SET heartbeat_at = '${NOW()}' WHERE bot_id = 'bot-a';`);
    await watcher.tick();
    for (const view of names) expect(notices(last(view))).toEqual([]);
  });

  it("sends a journal replaced by a file that is not SQLite as the error its pages show, and a good replacement's data", async () => {
    const { file, source, watcher } = journal();
    const s = stream();
    watcher.subscribe(s, views("overview"), true);
    await watcher.ready;
    const good = path.join(path.dirname(file), "good.db");
    const db = new Database(file, { readonly: true });
    db.exec(`VACUUM INTO '${good}'`);
    db.close();
    const bad = path.join(path.dirname(file), "bad.db");
    fs.writeFileSync(bad, "not a journal at all, just text long enough to be read as a header".repeat(20));
    fs.renameSync(bad, file);
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
    await watcher.tick();
    expect(s.events.at(-1)).toMatchObject({ ok: false, status: 503, error: await routeError(source, true) });
    expect(s.events.at(-1)!.error!.code).toBe("not_sqlite");

    halt(good, "bot-b");
    fs.renameSync(good, file);
    await watcher.tick();
    const last = s.events.at(-1)!;
    expect(last).toMatchObject({ view: "overview", ok: true });
    expect((last.data as { bots: { botId: string; breaker: { halted: boolean } | null }[] }).bots.find((b) => b.botId === "bot-b")?.breaker?.halted).toBe(true);
  });

  it("sends a journal another process locks to every stream as the error its pages show, once, and the data once it is released", async () => {
    const { file, source, watcher } = journal("delete");
    const streams = [stream(), stream()];
    for (const s of streams) watcher.subscribe(s, views("overview,breakers"), true);
    await watcher.ready;
    const holder: FaultProcess = startFault(["lock", file, "rollback", "4000"]);
    cleanup.push(() => holder.kill());
    await holder.waitFor("locked");
    await watcher.tick();
    await watcher.tick();
    const locked = await routeError(source, true);
    expect(locked.code).toBe("locked");
    for (const s of streams) {
      // Two looks at a journal still locked: the error is sent once, not on every look.
      expect(s.events.slice(2)).toEqual([
        expect.objectContaining({ view: "overview", ok: false, status: 503, error: locked }),
        expect.objectContaining({ view: "breakers", ok: false, status: 503, error: locked }),
      ]);
    }
    await holder.waitFor("released", 30_000);
    await holder.exited;
    await watcher.tick();
    for (const s of streams)
      expect(s.events.slice(4).map((e) => [e.view, e.ok])).toEqual([
        ["overview", true],
        ["breakers", true],
      ]);
  });
});
