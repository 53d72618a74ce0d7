import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ExportJob, ExportReply } from "./export-worker";

/**
 * The incident export's second core. An hour's export is about 40 ms of work on one thread (a
 * third reading, the rest wording and writing JSON; docs/performance.md); the route reads and
 * writes the first half of the window itself while this thread does the second, so a download
 * takes a quarter to a third less time on two cores, and the console's own thread, which answers
 * every live view, is busy for about half as long.
 *
 * One thread, started at the first export (or when the incidents page is opened), and stopped
 * after IDLE_MS without one: it holds 20 to 40 MB while it runs. It is only ever a shortcut:
 * starting, busy, failed, slow or absent, the route writes that half itself, in the same words
 * (the reply is null). Nothing here decides what the file says. A thread still loading (about
 * 250 ms) is not waited for: the whole window on one thread takes less than that, and a tool that
 * exports once an hour met a stopped thread, and that wait, every time.
 */

/** Longer than any honest half (50,000 events take about 300 ms): past it the route writes the half itself. */
const REPLY_TIMEOUT_MS = 10_000;
/** After the thread failed, the route writes whole windows itself for this long before trying a new one. */
const RETRY_AFTER_MS = 60_000;

/** A review exports a few windows in a few minutes; a thread nobody used for this long is stopped. */
const IDLE_MS = 120_000;

interface Thread {
  worker: Worker;
  /** Its module loaded (it said so): until then, jobs are written by the route. */
  ready: boolean;
  /** Who waits for it to be ready (warmExportThread): true once it is, false if it failed first. */
  onReady: ((ready: boolean) => void)[];
  waiting: Map<number, (reply: ExportReply | null) => void>;
  idle: NodeJS.Timeout | null;
  /** Stopped for being idle, not failed. */
  stopped: boolean;
}

const counts = { written: 0, refused: 0, unavailable: 0 };
/** A refusal is logged at most this often: a journal the thread cannot open refuses every export. */
const REFUSAL_LOG_EVERY_MS = 60_000;
let refusalLoggedAt = -Infinity;
let thread: Thread | null = null;
let failedAt = -Infinity;
let nextId = 1;

/**
 * The worker of the bundle, or, run from the sources (the tests), the TypeScript module through
 * tsx. `new Worker(new URL(…, import.meta.url))` is the form the bundler follows and bundles.
 */
function newWorker(): Worker {
  if (import.meta.url.endsWith(".ts")) {
    const source = path.join(path.dirname(fileURLToPath(import.meta.url)), "export-worker.ts");
    return new Worker(`require("tsx/cjs"); require(${JSON.stringify(source)});`, { eval: true, execArgv: ["--conditions=react-server"] });
  }
  return new Worker(new URL("./export-worker.ts", import.meta.url));
}

function start(): Thread | null {
  let worker: Worker;
  try {
    worker = newWorker();
  } catch (error) {
    failed(null, error);
    return null;
  }
  // It never keeps the console running by itself.
  worker.unref();
  const t: Thread = { worker, ready: false, onReady: [], waiting: new Map(), idle: null, stopped: false };
  worker.on("message", (reply: ExportReply | { ready: true }) => {
    if ("ready" in reply) {
      t.ready = true;
      for (const f of t.onReady.splice(0)) f(true);
      return;
    }
    const done = t.waiting.get(reply.id);
    t.waiting.delete(reply.id);
    done?.(reply);
  });
  worker.on("error", (error) => failed(t, error));
  worker.on("exit", (code) => failed(t, new Error(`the export thread exited with code ${code}`)));
  idleFrom(t);
  return t;
}

/** (Re)starts the thread's idle clock: when it runs out with no job waiting, the thread is stopped. */
function idleFrom(t: Thread) {
  if (t.idle) clearTimeout(t.idle);
  t.idle = setTimeout(() => {
    if (t.waiting.size > 0) return idleFrom(t);
    t.stopped = true;
    if (thread === t) thread = null;
    void t.worker.terminate();
  }, IDLE_MS);
  t.idle.unref();
}

function failed(t: Thread | null, error: unknown) {
  if (t?.stopped) return;
  console.error("driftwatch: the incident export thread failed; for a minute, exports are written on the console's thread:", error);
  failedAt = Date.now();
  if (t === null) return;
  t.stopped = true;
  if (t.idle) clearTimeout(t.idle);
  for (const f of t.onReady.splice(0)) f(false);
  for (const done of t.waiting.values()) done(null);
  t.waiting.clear();
  if (thread === t) thread = null;
  void t.worker.terminate();
}

/**
 * Starts the thread if it is not running, so that the next export finds it loaded. Resolves true
 * once it is ready, false if it cannot be (failed lately, or failed while loading).
 */
export function warmExportThread(): Promise<boolean> {
  if (thread === null && Date.now() - failedAt >= RETRY_AFTER_MS) thread = start();
  const t = thread;
  if (t === null) return Promise.resolve(false);
  if (t.ready) return Promise.resolve(true);
  return new Promise((resolve) => t.onReady.push(resolve));
}

/**
 * One stretch of a window, written by the thread. Null at once when the thread cannot take it now
 * (still loading: it is started then, for the next export; busy with another export; failed): the
 * caller then writes the whole window itself, in one read. A reply of null when the thread failed
 * or did not answer in time: the caller writes that stretch itself.
 */
export function writeInThread(job: Omit<ExportJob, "id">): Promise<ExportReply | null> | null {
  void warmExportThread();
  const t = thread;
  if (t === null || !t.ready || t.waiting.size > 0) {
    counts.unavailable += 1;
    return null;
  }
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      t.waiting.delete(id);
      counts.unavailable += 1;
      resolve(null);
    }, REPLY_TIMEOUT_MS);
    timer.unref();
    t.waiting.set(id, (reply) => {
      clearTimeout(timer);
      if (!t.stopped) idleFrom(t);
      if (reply === null) counts.unavailable += 1;
      else if (reply.ok) counts.written += 1;
      else {
        counts.refused += 1;
        if (Date.now() - refusalLoggedAt >= REFUSAL_LOG_EVERY_MS) {
          refusalLoggedAt = Date.now();
          console.error(`driftwatch: the incident export thread could not write its half, so the console's thread did: ${reply.message}`);
        }
      }
      resolve(reply);
    });
    t.worker.postMessage({ ...job, id } satisfies ExportJob);
  });
}

/** How many stretches the thread wrote, could not read (`refused`), or were written on the console's thread instead (`unavailable`: starting, busy, failed or slow). */
export const exportThreadCounts = () => ({ ...counts });
