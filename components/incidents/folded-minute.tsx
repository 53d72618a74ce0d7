"use client";
import { useState } from "react";
import type { IncidentEvent } from "@/lib/incidents/events";
import { IncidentEventRow } from "./incident-event-row";

type State = { kind: "folded" } | { kind: "loading" } | { kind: "open"; events: IncidentEvent[] } | { kind: "failed"; message: string };

/**
 * A busy minute: its notable events (server-rendered, `children`), one line counting the routine
 * rest, and a button that loads the whole minute from the JSON export, in time order. Without
 * JavaScript the line links to that export.
 */
export function FoldedMinute(props: { exportHref: string; total: number; routine: number; summary: string; listId: string; children: React.ReactNode }) {
  const [state, setState] = useState<State>({ kind: "folded" });

  // Never rejects: a failure becomes the "failed" state the page shows, so the click handler starts
  // it without waiting (void) and nothing is left unobserved.
  async function open() {
    setState({ kind: "loading" });
    try {
      const res = await fetch(props.exportHref, { cache: "no-store" });
      const body = (await res.json().catch(() => null)) as { events?: IncidentEvent[]; error?: { message?: string } } | null;
      if (!res.ok || !body?.events) throw new Error(body?.error?.message ?? `the console answered ${res.status}`);
      setState({ kind: "open", events: body.events });
    } catch (error) {
      setState({ kind: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  }

  const button = "rounded border border-slate-500 px-2 py-1 text-xs font-semibold hover:bg-slate-100 disabled:opacity-60 dark:hover:bg-slate-800";
  if (state.kind === "open") {
    return (
      <>
        <ol id={props.listId} className="space-y-1.5" data-testid="minute-all-events">
          {state.events.map((e) => (
            <li key={e.id}>
              <IncidentEventRow event={e} />
            </li>
          ))}
        </ol>
        <p className="mt-1.5 text-xs">
          <button type="button" className={button} aria-expanded="true" aria-controls={props.listId} onClick={() => setState({ kind: "folded" })}>
            Fold the {props.routine.toLocaleString("en-US")} routine events again
          </button>
        </p>
      </>
    );
  }
  return (
    <div id={props.listId}>
      {props.children}
      <p data-testid="folded-routine" className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 rounded border border-dashed border-slate-400 p-2 text-sm">
        <span>
          <strong>{props.routine.toLocaleString("en-US")}</strong> routine events folded: {props.summary}.
        </span>
        <button
          type="button"
          className={button}
          aria-expanded="false"
          aria-controls={props.listId}
          disabled={state.kind === "loading"}
          onClick={() => void open()}
        >
          {state.kind === "loading" ? "Loading…" : `Show all ${props.total.toLocaleString("en-US")} events of this minute`}
        </button>
        <a href={props.exportHref} className="inline-flex min-h-6 items-center text-xs underline">
          as JSON
        </a>
      </p>
      {state.kind === "failed" && (
        <p role="alert" className="mt-1 rounded border-2 border-amber-600 bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
          Could not load this minute&apos;s events: {state.message.replace(/\.?\s*$/, ".")} The rest of the page is unchanged; try again once that is fixed.
        </p>
      )}
    </div>
  );
}
