"use client";
import { useState } from "react";
import { setDeskSetting, useDeskSetting } from "./desk-setting";
import { useHydrated } from "./use-hydrated";

/** "Notify me on this device": asks the browser's permission only when clicked. */
export function DeskNotifyToggle() {
  const setting = useDeskSetting();
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState(false);
  // Only a script can ask for the permission and notify: without one, the button would do nothing.
  const hydrated = useHydrated();
  if (!hydrated) return null;
  const toggle = async () => {
    setBusy(true);
    const now = await setDeskSetting(setting !== "on");
    setRefused(setting !== "on" && now !== "on");
    setBusy(false);
  };
  return (
    <section data-testid="desk-notify" className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
      {setting === "unsupported" ? (
        <p>This browser cannot show desktop notifications.</p>
      ) : setting === "denied" ? (
        <p>Desktop notifications are blocked for this site in the browser&apos;s settings.</p>
      ) : (
        <>
          <button
            type="button"
            disabled={busy}
            aria-pressed={setting === "on"}
            onClick={() => void toggle()}
            className="min-h-11 rounded border border-slate-300 bg-white px-3 py-2 font-medium hover:bg-slate-100 disabled:opacity-60 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800"
          >
            {setting === "on" ? "Stop notifying me on this device" : "Notify me on this device"}
          </button>
          <p className="min-w-0 flex-1 basis-64">
            {setting === "on"
              ? "On: a desktop notification on a trip, an unknown position or a new doubtful order, while this tab is open."
              : "A desktop notification on a trip, an unknown position or a new doubtful order, while this tab is open."}
            {refused && " The browser did not allow it."}
          </p>
        </>
      )}
    </section>
  );
}
