import { readerSeesNames } from "@/lib/auth/reader";
import { NextResponse, type NextRequest } from "next/server";
import { badRequest, screenResponse } from "@/lib/http/journal-route";
import { incidentPostmortem, postmortemFilename } from "@/lib/incidents/postmortem";
import { readIncidentStory } from "@/lib/queries/screens";
import { incidentIdText, parseIncidentId } from "@/lib/url-state/incidents";

const noStore = { "Cache-Control": "no-store" };

/**
 * GET: one incident as a Markdown post-mortem, from the incident page's own loader, so names are
 * masked for a reader who is not signed in exactly as the page masks them. 404 for no such incident.
 */
export async function GET(_request: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  const ref = parseIncidentId((await params).id);
  if (ref === null)
    return badRequest(
      "The incident id is the number of its trip (as in /incidents/12); with several journals, the journal's name, a dash and the number (as in /incidents/desk-a-12).",
    );
  const names = await readerSeesNames();
  const id = incidentIdText(ref.trip, ref.journal);
  return screenResponse(
    () => readIncidentStory({ names, ref }),
    ({ view, choices, unread }) => {
      if (choices.length > 0) {
        const ids = choices.map((c) => incidentIdText(ref.trip, c.journal));
        const message =
          choices.length > 1
            ? `Incident ${id} is in ${choices.length} journals: ask for one of ${ids.join(", ")}.`
            : `Incident ${id} is ${ids[0]} in the journals that could be read; ${unread.map((u) => u.name).join(", ")} cannot be read now and may hold an incident ${id} too: ask for ${ids[0]} by its name.`;
        return NextResponse.json({ ok: false, error: { code: "ambiguous", message, choices: ids } }, { status: 409, headers: noStore });
      }
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
          "Content-Disposition": `attachment; filename="${postmortemFilename(view.story, view.journal)}"`,
        },
      });
    },
    "incident post-mortem",
  );
}
