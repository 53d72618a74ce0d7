import "server-only";
import { consoleSources, type SourceSet } from "../db/console";
import { encodedChunks } from "../http/text-stream";
import { exportEventText } from "../incidents/export";
import { writeInThread } from "../incidents/export-thread";
import type { IncidentFilters } from "../url-state/incidents";
import type { ScreenRead } from "./read";
import { readIncidentExport } from "./screens";

/** A run of the file's events, in window order: worded as the stream asks, or bytes the export thread wrote. */
export type ExportRun = Iterable<string | Uint8Array>;

type ExportRead = Awaited<ReturnType<typeof readIncidentExport>>;
type ExportData = Extract<ExportRead, { ok: true }>["data"];

/** What the route writes: the window and its timeline's head, and the events in runs. */
export interface IncidentExportRuns {
  window: ExportData["window"];
  timeline: Omit<ExportData["timeline"], "events">;
  runs: ExportRun[];
}

/**
 * GET /api/incidents/export's read: readIncidentExport in runs. With one SQLite journal and a
 * window the URL gives, the window's second half is read, worded and written by the export thread
 * (lib/incidents/export-thread.ts) while this thread does the first: the same file, on two cores.
 * Otherwise, or when the thread cannot (loading, busy, failed), the whole window here, as one run.
 *
 * Each half is one read of the journal; the two are two snapshots, a few milliseconds apart. A
 * first half that lies in the past does not change between them; the bot's new rows land at its
 * present, in the second half, which is read at the same time or later.
 *
 * The cap is the whole window's: the first `limit` events in window order, `capped` when there
 * were more. Where the second half would cross it, that half is read here, cut to what is left.
 */
export async function readIncidentExportRuns(
  args: { from: string | null; to: string | null; filters: IncidentFilters; limit: number; names: boolean; set?: SourceSet },
  format: "json" | "csv",
): Promise<ScreenRead<IncidentExportRuns>> {
  const all = args.set ?? consoleSources();
  const source = all.several ? null : all.sources[0]!;
  const from = args.from === null ? NaN : Date.parse(args.from);
  const to = args.to === null ? NaN : Date.parse(args.to);
  // Whole here: several journals (merged event by event), PostgreSQL, a window the journal chooses,
  // one too narrow to halve, or the thread still loading or busy with another export.
  if (source?.kind !== "sqlite" || !(to - from >= 2)) return runsOf(await readIncidentExport(args), format);
  const mid = new Date(Math.floor((from + to) / 2)).toISOString();
  const second = writeInThread({ file: source.file, window: { from: mid, to: args.to! }, filters: args.filters, limit: args.limit, names: args.names, format });
  if (second === null) return runsOf(await readIncidentExport(args), format);

  const first = await readIncidentExport({ ...args, to: mid });
  if (!first.ok) return first;
  const { events, ...head } = first.data.timeline;
  const window = { ...first.data.window, from: args.from!, to: args.to! };
  const whole = (count: number, capped: boolean, runs: ExportRun[]): ScreenRead<IncidentExportRuns> => ({
    ...first,
    data: { window, timeline: { ...head, window, count, capped }, runs },
  });
  // Written now, while the thread writes the other half: left to the stream, it would only start
  // once the thread had answered.
  const firstRun = encodedChunks(exportEventText(events(), format));
  const reply = await second;
  // The first half alone reaches the cap: it is the file.
  if (head.capped) return whole(head.count, true, [firstRun]);
  const left = args.limit - head.count;
  if (reply?.ok && !reply.capped && reply.count <= left) return whole(head.count + reply.count, false, [firstRun, reply.chunks]);
  // The thread could not, or its half crosses the cap: that half here, cut to what is left.
  const rest = await readIncidentExport({ ...args, from: mid, limit: left });
  if (!rest.ok) return rest;
  const tail = rest.data.timeline;
  return whole(head.count + tail.count, tail.capped, [firstRun, exportEventText(tail.events(), format)]);
}

function runsOf(read: ExportRead, format: "json" | "csv"): ScreenRead<IncidentExportRuns> {
  if (!read.ok) return read;
  const { events, ...timeline } = read.data.timeline;
  return { ...read, data: { window: read.data.window, timeline, runs: [exportEventText(events(), format)] } };
}
