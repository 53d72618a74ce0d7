"use client";
import { useActionState, useEffect, useState } from "react";
import { loginAction } from "@/lib/auth/actions";
import { secondsLeft, waitText, type LoginState } from "@/lib/auth/login-state";

const input =
  "w-full rounded border border-slate-400 bg-white px-2 py-1.5 text-base dark:bg-slate-900 aria-[invalid=true]:border-2 aria-[invalid=true]:border-red-700";

/**
 * Posts to loginAction; works before hydration too (a plain form POST). Errors are tied to their
 * fields with aria-invalid and aria-describedby; a failed sign-in marks the password, whichever of
 * the two was wrong, so the form never says which names exist.
 */
export function LoginForm({ next }: { next: string }) {
  const [state, action, pending] = useActionState<LoginState, FormData>(loginAction, null);
  const wait = useHeldBackSeconds(state);
  const nameErrors = state?.fieldErrors?.name;
  const passwordErrors = state?.fieldErrors?.password;
  const formError = state && !state.fieldErrors ? state.message : null;
  const passwordDescribedBy = [passwordErrors && "password-error", formError && "login-error"].filter(Boolean).join(" ") || undefined;
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="next" value={next} />
      {formError && (
        <p id="login-error" role="alert" className="rounded border border-red-700 bg-red-50 p-3 text-sm text-red-950 dark:bg-red-950 dark:text-red-50">
          {formError}
        </p>
      )}
      <div className="flex flex-col gap-1">
        <label htmlFor="login-name" className="text-sm font-semibold">
          Account name
        </label>
        <input
          id="login-name"
          name="name"
          defaultValue={state?.name}
          // A new failure re-mounts the field with the name as typed, and the password empty.
          key={`name-${state?.message ?? ""}`}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          aria-invalid={nameErrors ? true : undefined}
          aria-describedby={nameErrors ? "name-error" : undefined}
          className={input}
        />
        {nameErrors && (
          <p id="name-error" className="text-sm text-red-800 dark:text-red-300">
            {nameErrors.join(" ")}
          </p>
        )}
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="login-password" className="text-sm font-semibold">
          Password
        </label>
        <input
          id="login-password"
          name="password"
          type="password"
          key={`password-${state?.message ?? ""}`}
          autoComplete="current-password"
          required
          aria-invalid={passwordErrors || formError ? true : undefined}
          aria-describedby={passwordDescribedBy}
          className={input}
        />
        {passwordErrors && (
          <p id="password-error" className="text-sm text-red-800 dark:text-red-300">
            {passwordErrors.join(" ")}
          </p>
        )}
      </div>
      <button
        type="submit"
        disabled={pending || wait > 0}
        aria-describedby={wait > 0 ? "login-wait" : undefined}
        className="rounded bg-slate-800 px-4 py-2 text-sm font-semibold text-white hover:bg-slate-900 focus-visible:outline-2 disabled:opacity-60 dark:bg-slate-200 dark:text-slate-900"
      >
        {pending ? "Signing in…" : "Sign in"}
      </button>
      {wait > 0 && (
        <p id="login-wait" data-testid="login-wait" className="text-sm font-semibold">
          {waitText(wait)}
        </p>
      )}
    </form>
  );
}

/**
 * Seconds until a held-back sign-in may try again, counting down from the answer's arrival on this
 * browser's clock; 0 when nothing holds it back. Before the first tick it is the answer's own figure.
 */
function useHeldBackSeconds(state: LoginState): number {
  const [tick, setTick] = useState<{ state: LoginState; left: number } | null>(null);
  useEffect(() => {
    const ms = state?.retryAfterMs;
    if (!ms) return;
    const until = Date.now() + ms;
    const update = () => {
      const left = secondsLeft(until, Date.now());
      setTick({ state, left });
      if (left === 0) clearInterval(id);
    };
    const id = setInterval(update, 250);
    const first = setTimeout(update, 0);
    return () => {
      clearInterval(id);
      clearTimeout(first);
    };
  }, [state]);
  if (!state?.retryAfterMs) return 0;
  return tick?.state === state ? tick.left : secondsLeft(state.retryAfterMs, 0);
}
