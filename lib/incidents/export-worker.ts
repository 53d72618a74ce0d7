/**
 * The export thread's module (lib/incidents/export-thread.ts starts it): one stretch of an
 * incident window, read on a connection of its own, worded and written as the export's text, and
 * sent back encoded. The route writes the other stretch meanwhile, on another core.
 */
import fs from "node:fs";
import { parentPort } from "node:worker_threads";
import type Database from "better-sqlite3";
import { openJournalReader } from "../db/journal-file";
import { readIncidentTimeline } from "../queries/incidents";
import type { IncidentFilters, IncidentWindow } from "../url-state/incidents";
import { encodedChunks } from "../http/text-stream";
import { exportEventText } from "./export";

export interface ExportJob {
  id: number;
  file: string;
  window: IncidentWindow;
  filters: IncidentFilters;
  limit: number;
  names: boolean;
  format: "json" | "csv";
}

/** `count` and `capped` as the timeline of the stretch says them; `chunks` its text, UTF-8, none empty. */
export type ExportReply = { id: number; ok: true; count: number; capped: boolean; chunks: Uint8Array[] } | { id: number; ok: false; message: string };

/**
 * The connection of the last job's file, kept: a new one starts with an empty page cache and
 * compiles every statement again, which made a half of a busy hour a third slower. Opened afresh
 * when the path names another file (a journal replaced under the same name) or a job failed.
 */
let kept: { file: string; dev: number; ino: number; version: number; db: Database.Database } | null = null;

function connection(file: string): Database.Database {
  const { dev, ino } = fs.statSync(file);
  // A journal migrated since is opened again, and its schema version checked again.
  if (kept && (kept.file !== file || kept.dev !== dev || kept.ino !== ino || kept.db.pragma("user_version", { simple: true }) !== kept.version)) forget();
  if (!kept) {
    const { db, info } = openJournalReader(file);
    kept = { file, dev, ino, version: info.schemaVersion, db };
  }
  return kept.db;
}

function forget() {
  kept?.db.close();
  kept = null;
}

export function writeStretch(job: ExportJob): ExportReply {
  const db = connection(job.file);
  // One transaction: the stretch is one snapshot of the journal, as the route's read is.
  const timeline = db.transaction(() => readIncidentTimeline({ db, window: job.window, filters: job.filters, limit: job.limit, names: job.names }))();
  const chunks = encodedChunks(exportEventText(timeline.events(), job.format));
  return { id: job.id, ok: true, count: timeline.count, capped: timeline.capped, chunks };
}

parentPort?.on("message", (job: ExportJob) => {
  let reply: ExportReply;
  try {
    reply = writeStretch(job);
  } catch (error) {
    forget();
    reply = { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  // The chunks' memory is handed over, not copied.
  parentPort!.postMessage(reply, reply.ok ? reply.chunks.map((c) => c.buffer as ArrayBuffer) : []);
});

// Loaded: jobs may come (until now the route wrote them itself rather than wait).
parentPort?.postMessage({ ready: true });
