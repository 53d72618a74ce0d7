import { readerSeesNames } from "@/lib/auth/reader";
import { NextResponse, type NextRequest } from "next/server";
import { badRequest, journalResponse } from "@/lib/http/journal-route";
import { incidentPostmortem, postmortemFilename } from "@/lib/incidents/postmortem";
import { loadIncidentStory } from "@/lib/queries/screens";
import { parseIncidentId } from "@/lib/url-state/incidents";

const noStore = { "Cache-Control": "no-store" };

/**
 * GET: one incident as a Markdown post-mortem, from the incident page's own loader, so names are
 * masked for a reader who is not signed in exactly as the page masks them. 404 for no such incident.
 */
export async function GET(_request: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  const id = parseIncidentId((await params).id);
  if (id === null) return badRequest("The incident id is the number of its trip (as in /incidents/12): a positive whole number.");
  const names = await readerSeesNames();
  return journalResponse((ctx) => {
    const view = loadIncidentStory({ ...ctx, names, id });
    if (!view) {
      return NextResponse.json(
        { ok: false, error: { code: "not_found", message: `No incident ${id}: no trip of any bot has that id. The list is at /incidents.` } },
        { status: 404, headers: noStore },
      );
    }
    return new NextResponse(incidentPostmortem(view), {
      headers: {
        ...noStore,
        "Content-Type": "text/markdown; charset=utf-8",
        "Content-Disposition": `attachment; filename="${postmortemFilename(view.story)}"`,
      },
    });
  }, "incident post-mortem");
}
