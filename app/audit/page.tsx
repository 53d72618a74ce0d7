import { actorRole } from "@/lib/auth/actor-names";
import { readerSeesNames } from "@/lib/auth/reader";
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { z } from "zod";
import { AuditDetailList } from "@/components/audit/audit-detail-list";
import { JournalProblem } from "@/components/journal/journal-problem";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { RetryWhenReadable } from "@/components/journal/retry-when-readable";
import { UtcTime } from "@/components/ui/utc-time";
import { readAudit } from "@/lib/queries/screens";
import { actionLabel } from "@/lib/text/audit-detail";
import { visibleText } from "@/lib/text/visible-text";

export const metadata: Metadata = { title: "Audit log · driftwatch" };

const params = z.object({
  actor: z.string().max(200).optional().catch(undefined),
  action: z.string().max(100).optional().catch(undefined),
  before: z.coerce.number().int().positive().optional().catch(undefined),
  source: z.string().max(64).optional().catch(undefined),
});

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const raw = await searchParams;
  const p = params.parse({
    actor: typeof raw.actor === "string" ? raw.actor : undefined,
    action: typeof raw.action === "string" ? raw.action : undefined,
    before: raw.before,
    source: typeof raw.source === "string" ? raw.source : undefined,
  });
  // A reader who is not signed in sees roles, and filters by role: a name in the URL must not
  // tell them whether that account acted.
  const names = await readerSeesNames();
  const actor = p.actor ? (names ? p.actor : actorRole(p.actor)) : null;
  const readAt = new Date().toISOString();
  const read = await readAudit({ names, actor, action: p.action || null, before: p.before ?? null, source: p.source || null });
  if (!read.ok)
    return (
      <>
        <JournalProblem error={read.error} />
        <RetryWhenReadable />
      </>
    );
  const view = { ...read.data, actors: [...new Set(read.data.actors)] };
  const next = new URLSearchParams();
  if (actor) next.set("actor", actor);
  if (p.action) next.set("action", p.action);
  if (p.source) next.set("source", p.source);
  const chains = "chains" in view ? view.chains : undefined;
  if (view.nextBefore) next.set("before", String(view.nextBefore));
  return (
    <div className="space-y-4">
      <JournalWarnings warnings={read.journal.warnings} />
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Audit log</h1>
        {/* Not a live page: it says when it was read, so an entry made since is not assumed absent. */}
        <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="audit-read-at">
          as of <UtcTime iso={readAt} />: reload for newer entries
        </p>
      </div>
      <p className="text-sm">
        Every operator action, applied or refused, newest first. Append-only and chained by a keyed hash
        {chains ? (
          // Several journals: no single head to show; each journal's chain is listed below.
          <>: each journal keeps its own chain, in the journal its actions changed</>
        ) : (
          <>
            : {entriesText(view.head.entries)}, head{" "}
            <code className="font-mono text-xs [overflow-wrap:anywhere]" data-testid="audit-head">
              {view.head.hash}
            </code>
          </>
        )}
        . Verify it against the heads the console published outside the journal with <code>npm run audit -- verify --expect-head</code>.
      </p>
      {chains && (
        <ul className="space-y-1 text-sm" aria-label="Audit chains, one per journal">
          {chains.map((c) => (
            <li key={c.name} data-testid="audit-chain" data-source={c.name}>
              <Link href={`/audit?source=${encodeURIComponent(c.name)}`} className="font-semibold underline">
                {c.name}
              </Link>
              :{" "}
              {c.head ? (
                <>
                  {entriesText(c.head.entries)}, head <code className="font-mono text-xs [overflow-wrap:anywhere]">{c.head.hash}</code>
                </>
              ) : (
                <span role="alert">cannot be read: {c.problem?.message}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="flex flex-wrap items-end gap-3 text-sm" method="get">
        <div className="flex flex-col">
          <label htmlFor="audit-actor">Actor</label>
          <select id="audit-actor" name="actor" defaultValue={actor ?? ""} className="rounded border border-slate-400 bg-white px-2 py-1 dark:bg-slate-900">
            <option value="">everyone</option>
            {view.actors.map((a) => (
              <option key={a} value={a}>
                {visibleText(a)}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col">
          <label htmlFor="audit-action">Action</label>
          <select
            id="audit-action"
            name="action"
            defaultValue={p.action ?? ""}
            className="rounded border border-slate-400 bg-white px-2 py-1 dark:bg-slate-900"
          >
            <option value="">all actions</option>
            {view.actions.map((a) => (
              <option key={a} value={a}>
                {visibleText(actionLabel(a))}
              </option>
            ))}
          </select>
        </div>
        {p.source && <input type="hidden" name="source" value={p.source} />}
        <button type="submit" className="rounded bg-slate-800 px-3 py-1.5 font-semibold text-white dark:bg-slate-600">
          Filter
        </button>
      </form>
      {view.entries.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 p-4 text-sm">
          No operator action recorded{actor || p.action ? " for these filters" : " yet"}.
        </p>
      ) : (
        <ol className="space-y-2" aria-label="Audit entries">
          {view.entries.map((e) => (
            <li
              key={`${"source" in e ? e.source : ""}#${e.id}`}
              data-testid="audit-entry"
              data-outcome={e.outcome}
              className={`rounded border p-3 text-sm ${e.outcome === "refused" ? "border-amber-600" : "border-slate-300 dark:border-slate-700"}`}
            >
              <p className="font-semibold" data-testid="audit-action-label">
                {visibleText(actionLabel(e.action))}:{" "}
                <span className={e.outcome === "refused" ? "text-amber-800 dark:text-amber-300" : undefined}>
                  {e.outcome}
                  {/* A refusal coded "refused" (a rule said no) would read "refused (refused)". */}
                  {e.code && e.code !== e.outcome ? ` (${e.code})` : ""}
                </span>
              </p>
              <p>
                {"source" in e && e.source && <span className="font-semibold">{e.source} </span>}
                <span className="font-mono">#{e.id}</span> · <UtcTime iso={e.at} /> · <strong>{visibleText(e.actor)}</strong> ·{" "}
                <code className="font-mono text-xs">{visibleText(e.action)}</code> ·{" "}
                {/* The outcome is on the line above, once: a try-out read it twice on every entry. */}
                <code className="font-mono [overflow-wrap:anywhere]">{visibleText(e.target)}</code>
              </p>
              <details className="mt-1">
                {/* A list item keeps the disclosure's ▶: as an inline block it read as a plain label (a try-out). */}
                <summary className="-my-1 cursor-pointer py-1 underline" data-testid="audit-detail-toggle">
                  Detail
                </summary>
                <AuditDetailList detail={e.detail} />
              </details>
            </li>
          ))}
        </ol>
      )}
      {view.nextBefore && (
        <Link href={`/audit?${next.toString()}`} className="underline">
          Older entries
        </Link>
      )}
    </div>
  );
}

const entriesText = (n: number) => `${n} ${n === 1 ? "entry" : "entries"}`;
