import Link from "next/link";
import { incidentListHref } from "@/lib/url-state/incidents";

/** An incident id that names no trip (or no journal): said as such, with the way to the list. */
export default function IncidentNotFound() {
  return (
    <section className="space-y-2" data-testid="no-such-incident">
      <h1 className="text-xl font-bold">No such incident</h1>
      <p>
        No incident has this id: no trip of any bot has that number. An incident&apos;s id is the number of its trip (as in <code>/incidents/12</code>); with
        several journals, the journal&apos;s name, a dash and the number (as in <code>/incidents/desk-a-12</code>).{" "}
        <Link href={incidentListHref(null)} className="font-semibold underline">
          The list of incidents
        </Link>{" "}
        has every one.
      </p>
    </section>
  );
}
