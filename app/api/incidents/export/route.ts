import { readerSeesNames } from "@/lib/auth/reader";
import { NextResponse, type NextRequest } from "next/server";
import { screenResponse } from "@/lib/http/journal-route";
import { incidentExportFilename, incidentExportPieces, incidentJson } from "@/lib/incidents/export";
import { textStream } from "@/lib/http/text-stream";
import { kindsFilter, parseIncidentQuery } from "@/lib/url-state/incidents";
import { EXPORT_ROW_CAP } from "@/lib/queries/incidents";
import { readIncidentExportRuns } from "@/lib/queries/incident-export";

const noStore = { "Cache-Control": "no-store" };
const problem = (status: number, code: string, message: string, extra: Record<string, string> = {}) =>
  NextResponse.json({ ok: false, error: { code, message, ...extra } }, { status, headers: noStore });

/**
 * GET ?from&to[&bot][&kind]&format=json|csv: the incident window the page shows, as a download.
 * A bad window is a 400 with the same sentence the page shows; an unreadable journal a 503.
 */
export async function GET(request: NextRequest) {
  const params = request.nextUrl.searchParams;
  const format = params.get("format") ?? "json";
  if (format !== "json" && format !== "csv") return problem(400, "invalid", `format must be json or csv, not "${format.slice(0, 20)}".`);
  const query = parseIncidentQuery(params);
  if (!query.ok) return problem(400, "invalid", query.message);

  const names = await readerSeesNames();
  // The page's loader, with the export's larger cap: the file holds what the page shows. Its
  // second half written by the export thread meanwhile, where it can (lib/queries/incident-export.ts).
  const read = () =>
    readIncidentExportRuns({ names, from: query.from, to: query.to, filters: { bot: query.bot, kinds: query.kinds }, limit: EXPORT_ROW_CAP }, format);
  return screenResponse(
    read,
    ({ window, timeline, runs }) => {
      // Compact: a busy hour is 6,500 events, and indenting them made the file 45 % bigger and the
      // answer 10 to 40 ms slower (docs/performance.md). `jq .` indents it for a reader. Streamed:
      // the journal is read above; a window read whole here is worded and written as the socket
      // takes it, and let go. Beside the export thread, this thread's half is written while the
      // thread writes the other, and the thread's bytes follow.
      // With several journals, one that cannot be read is named in the file and its headers: a file
      // without its events must not read as a quiet hour there.
      const unreadJournals = (timeline.sources ?? []).flatMap((s) => (s.ok || !s.problem ? [] : [{ journal: s.name, problem: s.problem.problem }]));
      const { events: _, ...head } = incidentJson({ ...timeline, events: [], unreadJournals });
      const body = textStream(incidentExportPieces(head, runs, format));
      return new NextResponse(body, {
        headers: {
          ...noStore,
          "Content-Type": format === "json" ? "application/json; charset=utf-8" : "text/csv; charset=utf-8; header=present",
          // A file that lacks a journal's events says so in its own name, since a CSV has nowhere else to say it.
          "Content-Disposition": `attachment; filename="${incidentExportFilename(window, format, { incomplete: unreadJournals.length > 0, filters: { bot: query.bot, kinds: kindsFilter(query.kinds) } })}"`,
          "X-Driftwatch-Events": String(timeline.count),
          "X-Driftwatch-Capped": timeline.capped ? `true: the first ${timeline.limit} events of a larger window` : "false",
          ...(unreadJournals.length > 0 ? { "X-Driftwatch-Unread-Journals": unreadJournals.map((u) => u.journal).join(", ") } : {}),
        },
      });
    },
    "incident export",
  );
}
