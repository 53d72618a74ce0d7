import { cycleWords, type ToldSilence } from "@/lib/incidents/silences";
import { formatAge } from "@/lib/text/format";
import { UtcTime } from "@/components/ui/utc-time";

/**
 * A bot's stop in an incident's time: it wrote no reconciliation for longer than four of its
 * cycles (lib/incidents/silences.ts). Said on the window's minute where it starts and in the story,
 * never left as a quiet stretch.
 */
export const silenceId = (s: ToldSilence) => `silence-${Date.parse(s.from)}-${s.bots[0]}`;
export const botsWords = (s: ToldSilence) =>
  `${s.bots.length === 1 ? s.bots[0] : `${s.bots.slice(0, -1).join(", ")} and ${s.bots.at(-1)}`}${s.journal ? ` (journal ${s.journal})` : ""}`;
/** "1 min 0 s", never broken across lines ("1 min 0" and a lone "s" on a phone, a try-out). */
export const duration = (ms: number) => formatAge(ms).replaceAll(" ", "\u00a0");

/** A bot's silence, in the minute it starts: how long, from when to when, against its usual cycle. */
export function Silence({ silence: s, until = "the end of this window" }: { silence: ToldSilence; until?: string }) {
  const one = s.bots.length === 1;
  return (
    <p id={silenceId(s)} data-testid="cycle-silence" className="mb-1.5 scroll-mt-10 rounded border-2 border-dashed border-slate-500 p-2 text-sm">
      <strong>
        <span className="font-mono">{botsWords(s)}</span> wrote no reconciliation for {duration(s.ms)}
      </strong>
      : from {one ? "its cycle" : "their cycles"} at <UtcTime iso={s.from} />{" "}
      {s.to === null ? (
        `to ${until}`
      ) : (
        <>
          to {one ? "its" : "their"} next, at <UtcTime iso={s.to} />
        </>
      )}{" "}
      ({one ? "its" : "their"} cycles are {cycleWords(s.cycleMs).replaceAll(" ", "\u00a0")} apart in this window). Stopped, paused, or unable to write{" "}
      {one ? "its journal" : "the journal"}: what {one ? "it" : "they"} saw then is not known.
    </p>
  );
}
