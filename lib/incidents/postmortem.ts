/**
 * An incident as a Markdown post-mortem: the summary, who did what with their notes in full, and
 * the collapsed timeline. Pure, over the view the incident page shows (names already masked for a
 * reader who may not see them), so the file says what the page says.
 */
import { cycleWords, togetherSilences, type CycleSilence } from "./silences";
import { formatAge, formatNumber, formatUtc, signedQty } from "../text/format";
import { visibleText } from "../text/visible-text";
import type { CollapsedTimeline } from "./collapse";
import { lineSummary, repeatWords } from "./lines";
import type { IncidentStory } from "./story";

const driftClass = { size_drift: "size drift", unknown_position: "unknown position" } as const;

/** "ETHUSDT ours 0 · theirs +3 (unknown position)". */
export function driftLine(d: NonNullable<IncidentStory["cause"]["drift"]>): string {
  return `${d.symbol} ours ${signedQty(d.ours)} · theirs ${signedQty(d.theirs)} (${driftClass[d.drift]})`;
}

/** A duration from the trip, or what stands instead: "not yet (open for 5 min 2 s)", "none", "no order behind it". */
export function durationWords(ms: number | null, opts: { open: boolean; elapsedMs: number; missing: string }): string {
  if (ms !== null) return formatAge(ms);
  return opts.open ? `not yet (${formatAge(opts.elapsedMs)} so far)` : opts.missing;
}

/** What a prune took from the story (lib/queries/incident-story.ts StoryPruned): the dates to say instead of "none". */
export interface PrunedFacts {
  cyclesPrunedOn: string | null;
  /** `named`: the order the trip's reason names, gone with the settled orders of its time. */
  order: { before: string; on: string; named: string | null } | null;
}

/** An order behind the trip a prune may have taken: the one the trip names, pruned; or one of its time, maybe. */
export function orderPrunedWords(o: NonNullable<PrunedFacts["order"]>): string {
  const went = `settled orders last updated before ${formatUtc(o.before)} were pruned on ${formatUtc(o.on)}`;
  return o.named ? `${o.named}, named by the trip: pruned on ${formatUtc(o.on)} (${went})` : `not in the journal: ${went}, it may have been one`;
}

/** The three durations of the summary, worded the same on the page and in the file. */
export function summaryDurations(story: IncidentStory, now: Date, pruned?: PrunedFacts): { firstAction: string; settle: string; clear: string } {
  const open = story.status === "open";
  const elapsedMs = Math.max(0, now.getTime() - Date.parse(story.startedAt));
  return {
    firstAction: durationWords(story.durations.toFirstActionMs, { open, elapsedMs, missing: "nobody acted before the clear" }),
    settle:
      story.order === null
        ? pruned?.order
          ? `unknown: ${pruned.order.named ? "its order was" : "orders of that time were"} pruned on ${formatUtc(pruned.order.on).replace(/ \d\d:\d\d:\d\d UTC$/, "")}`
          : "no doubtful order behind it"
        : durationWords(story.durations.toSettleMs, { open: story.order.settledAt === null, elapsedMs, missing: "never settled" }),
    clear: durationWords(story.durations.toClearMs, { open, elapsedMs, missing: "not cleared" }),
  };
}

/** A step's time of day to the second (HH:MM:SS): the date is in the summary above. */
const clock = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(11, 19);
};

/**
 * The operators' refused attempts, worded the same on the page and in the file: "1 attempt refused,
 * at 21:07:41 UTC: …". Null when there was none. They changed nothing, so they are no step of "who
 * did what", but "nobody has acted" beside them in the timeline would be untrue.
 */
export function refusedLine(story: IncidentStory): string | null {
  const { count, firstAt } = story.refused;
  if (count === 0 || firstAt === null) return null;
  const which = count === 1 ? "1 attempt refused, at" : `${count} attempts refused, the first at`;
  return `${which} ${clock(firstAt)} UTC: ${count === 1 ? "it" : "they"} changed nothing; the timeline below says why.`;
}

/** Markdown that renders as the text it is: no raw HTML, no accidental headings or lists from a note. */
/** Characters of the breaker's reason the heading keeps: a ticket's title, not the whole reason (that is the Cause line). */
const HEADING_REASON_CHARS = 90;

/** The reason cut to HEADING_REASON_CHARS at a word's end, with an ellipsis when anything was cut. */
function headingReason(reason: string): string {
  const flat = reason.replace(/\s+/g, " ").trim();
  if (flat.length <= HEADING_REASON_CHARS) return flat;
  const cut = flat.slice(0, HEADING_REASON_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space >= HEADING_REASON_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

/** Markdown's punctuation in a bot's or a person's text, escaped; `&` too, or `&lt;b&gt;` would render as a tag's text. */
const escaped = (text: string) => visibleText(text).replace(/[\\`*_[\]<>#|&~]/g, (c) => `\\${c}`);
const inline = (text: string) => escaped(text).replace(/\s*\n\s*/g, " ");
const quoted = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => `   > ${escaped(l)}`)
    .join("\n");
/**
 * An id as a code span, exactly as written (a code span shows backslashes as they are, so nothing
 * is escaped): fenced by one backtick more than its longest run of them, so a bot's id cannot end
 * the span and write Markdown of its own after it. Invisible characters as their markers, as on
 * the pages.
 */
function code(text: string): string {
  const t = visibleText(text).replace(/\s*\n\s*/g, " ");
  const fence = "`".repeat(Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = t.startsWith("`") || t.endsWith("`") ? " " : "";
  return `${fence}${pad}${t}${pad}${fence}`;
}

export function incidentPostmortem(view: {
  story: IncidentStory;
  timeline: CollapsedTimeline & { events: number; capped: boolean };
  readAt: string;
  pruned?: PrunedFacts;
  /** Where the bot wrote no reconciliation (lib/incidents/silences.ts). */
  silences?: readonly CycleSilence[];
  /** With several journals: the one that holds it, named in the title as in the incident's address. */
  journal?: string;
}): string {
  const { story, timeline, pruned } = view;
  const now = new Date(view.readAt);
  const d = summaryDurations(story, now, pruned);
  const out: string[] = [];
  out.push(
    `# Incident ${view.journal ? `${inline(view.journal)}-` : ""}${story.id}: ${inline(story.botId)} halted, ${inline(headingReason(story.cause.reason))}`,
    "",
  );
  if (view.journal) out.push(`- **Journal:** ${inline(view.journal)}`);
  out.push(
    story.status === "open" ? `- **Status:** OPEN, still halted (read ${formatUtc(view.readAt)})` : `- **Status:** cleared at ${formatUtc(story.clearedAt!)}`,
  );
  out.push(`- **Started:** ${formatUtc(story.startedAt)}`);
  const cause = story.cause.byHand
    ? `halted by hand by ${inline(story.cause.haltedBy)}: ${inline(story.cause.reason)}`
    : `${inline(story.cause.reason)}${story.cause.reconciliationId !== null ? ` (reconciliation #${story.cause.reconciliationId})` : ""}`;
  out.push(`- **Cause:** ${cause}`);
  if (story.cause.drift) out.push(`- **Drifting line:** ${inline(driftLine(story.cause.drift))}`);
  if (story.order) {
    const o = story.order;
    const settled = o.settledAt
      ? `settled as ${o.settledAs}${o.settledPrice !== null ? ` at ${formatNumber(o.settledPrice)}` : ""} by ${inline(o.settledBy ?? "?")} at ${formatUtc(o.settledAt)}`
      : `not settled (${o.state} now)`;
    out.push(`- **Order behind it:** ${code(o.clientOrderId)} ${inline(o.side)} ${formatNumber(o.qty)} ${inline(o.symbol)}, ${settled}`);
  } else if (pruned?.order) {
    out.push(`- **Order behind it:** ${inline(orderPrunedWords(pruned.order))}`);
  } else {
    out.push("- **Order behind it:** none found");
  }
  out.push(
    `- **Time to first operator action:** ${d.firstAction}${story.firstAction ? ` (${inline(story.firstAction.actor)} ${inline(story.firstAction.what)})` : ""}`,
  );
  out.push(`- **Time to settle the doubtful order:** ${d.settle}`);
  out.push(`- **Time to clear:** ${d.clear}`, "");

  out.push("## Who did what", "");
  const refused = refusedLine(story);
  if (story.steps.length === 0) out.push(refused ? `No action applied yet: ${refused}` : "Nobody has acted yet.");
  story.steps.forEach((s, i) => {
    out.push(`${i + 1}. ${clock(s.at)} UTC: ${inline(s.actor)} ${inline(s.what)}`);
    if (s.note) out.push(quoted(s.note));
  });
  if (story.steps.length > 0 && refused) out.push("", `Also ${refused}`);
  out.push("");

  out.push("## Timeline", "");
  out.push(
    `${timeline.events.toLocaleString("en-US")} events from the journal; each line below is one event, a run of identical ones, or a halt or clear with its audit entry.${timeline.capped ? " The timeline was cut at the console's row cap: read the rest minute by minute." : ""}`,
    "",
  );
  if (pruned?.cyclesPrunedOn) {
    out.push(
      `The reconciliation cycles of this window were pruned on ${formatUtc(pruned.cyclesPrunedOn)}: the timeline has its trip, clear, operator actions and kept orders, not its cycles.`,
      "",
    );
  }
  for (const s of togetherSilences(view.silences ?? [])) {
    const bots = s.bots.map(inline).join(s.bots.length === 2 ? " and " : ", ");
    out.push(
      `**${bots} wrote no reconciliation for ${formatAge(s.ms)}**, from ${clock(s.from)}${s.to ? ` to ${clock(s.to)}` : story.status === "open" ? " to now (still halted)" : " to the clear"} (cycles ${cycleWords(s.cycleMs)} apart): stopped, paused, or unable to write the journal; nothing of that time is in it.`,
      "",
    );
  }
  for (const r of timeline.rows) {
    const when = r.count === 1 || clock(r.lastAt) === clock(r.firstAt) ? `${clock(r.firstAt)}` : `${clock(r.firstAt)}–${clock(r.lastAt)}`;
    out.push(`- ${when} ${inline(lineSummary(r))}${r.count > 1 ? ` ${repeatWords(r)}` : ""}`);
    for (const a of r.audit) out.push(`  - audit log: ${inline(a.summary)}`);
  }
  if (timeline.routineTotal > 0) {
    out.push(
      "",
      `Routine events not listed (${timeline.routineTotal.toLocaleString("en-US")}): ${timeline.routine.map((r) => `${r.n} ${r.words}`).join(", ")}.`,
    );
  }
  out.push("");
  return out.join("\n");
}

/** Letters, digits, `-`, `.` and `_` only, no leading dot or dash: a piece of a file name on any system. */
const fileSafe = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[.-]+/, "");

/** The trip's minute in a file name, UTC: `2026-12-03T0531Z`; `undated` for a time that does not parse. */
function fileMinute(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "undated";
  const d = new Date(t).toISOString();
  return `${d.slice(0, 10)}T${d.slice(11, 13)}${d.slice(14, 16)}Z`;
}

/**
 * `driftwatch-incident-<trip minute>_<incident>_<bot>.md`: when it tripped (UTC, to the minute), the
 * incident as its address names it (`12`, or `desk-a-12` with several journals), then the bot.
 * The date comes first so a folder of post-mortems sorts by time, and because an incident's number
 * is only the journal's row id: a journal started afresh (a demo, a new desk) numbers from 1 again,
 * and two runs' incident 1 of one bot were the same file. Neither the date nor the bot's part holds
 * a `_`, so the first `_` ends the date and the last ends the address, whose trip number is its last
 * `-<digits>`: two incidents never share a name, however their journals and bots are named (journal
 * `a` with trip 1 of bot `2-b`, and journal `a-1` with trip 2 of bot `b`, were both
 * `driftwatch-incident-a-1-2-b.md`). A journal's name is kept whole (source names are already
 * letters, digits, `.`, `_` and `-`, at most 64); the bot's only tells the reader which bot, so it is
 * cut to 40 characters.
 */
export function postmortemFilename(story: Pick<IncidentStory, "id" | "botId" | "startedAt">, journal?: string): string {
  const bot =
    fileSafe(story.botId.replaceAll("_", "-"))
      .replace(/\.{2,}/g, ".")
      .slice(0, 40) || "bot";
  const source = journal ? `${fileSafe(journal).slice(0, 64) || "journal"}-` : "";
  return `driftwatch-incident-${fileMinute(story.startedAt)}_${source}${story.id}_${bot}.md`;
}
