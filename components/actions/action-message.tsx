import type { ActionResult } from "@/lib/actions/result";
import type { SignedInViewer } from "@/lib/auth/roles";
import { TAP_TARGET } from "@/components/ui/tap-target";

/** The outcome of an action, announced to screen readers; refusals say why and that nothing changed. */
export function ActionMessage({ result, success }: { result: ActionResult<unknown> | null; success: React.ReactNode }) {
  if (!result) return null;
  if (result.ok) {
    return (
      <p role="status" className="mt-2 rounded bg-emerald-50 p-2 text-sm text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50" data-testid="action-ok">
        {success}
      </p>
    );
  }
  return (
    <div
      role="alert"
      className="mt-2 rounded bg-red-50 p-2 text-sm text-red-950 dark:bg-red-950 dark:text-red-50"
      data-testid="action-refused"
      data-code={result.code}
    >
      <p>{result.message}</p>
      {result.reasons && result.reasons.length > 0 && (
        <ul className="mt-1 list-outside list-disc pl-5">
          {result.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function FieldError({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors || errors.length === 0) return null;
  return (
    <p id={id} className="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
      {errors.join(" ")}
    </p>
  );
}

export const fieldErrors = (result: ActionResult<unknown> | null, name: string) => (result && !result.ok ? result.fieldErrors?.[name] : undefined);

/**
 * For a visitor or a viewer: why there is nothing to press, and what to do about it. A visitor is
 * sent to sign in (coming back to `next`, this page); a signed-in viewer is told they are one, since
 * "sign in" alone reads as if the console had not noticed them.
 */
export function ViewerNote({ next, viewer }: { next: string; viewer?: SignedInViewer | null }) {
  const signIn = (
    <a href={`/login?next=${encodeURIComponent(next)}`} className={`font-semibold underline ${TAP_TARGET}`} data-testid="viewer-sign-in">
      Sign in as an operator
    </a>
  );
  return (
    <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="viewer-note">
      {!viewer ? (
        <>{signIn} to act. You can see everything; only an operator can act.</>
      ) : viewer.via === "session" ? (
        <>
          You are signed in as <span className="font-semibold">{viewer.name}</span>, a viewer: you can see everything; only an operator can act. {signIn} to
          act, or ask whoever runs the console for the operator role.
        </>
      ) : (
        <>
          Your sign-on names you <span className="font-semibold">{viewer.name}</span>, a viewer here: you can see everything; only an operator can act. Ask
          whoever runs the console for the operator role (<code>npm run accounts -- role {viewer.name} operator</code>).
        </>
      )}
    </p>
  );
}

export const buttonClass =
  "rounded px-3 py-1.5 text-sm font-semibold text-white focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-50";
export const inputClass = "mt-1 w-full rounded border border-slate-400 bg-white px-2 py-1 text-sm dark:bg-slate-900 aria-[invalid=true]:border-red-700";
