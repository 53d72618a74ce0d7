import type { Metadata } from "next";
import { LoginForm } from "@/components/auth/login-form";
import { getActor } from "@/lib/auth/session";
import { safeNextPath } from "@/lib/auth/safe-next";
import { env } from "@/lib/env";

// Absolute: the root layout's template would put the halt signal's prefix on it, and this page shows no signal.
export const metadata: Metadata = { title: { absolute: "Sign in · driftwatch" } };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next } = await searchParams;
  const actor = await getActor();
  return (
    <section aria-labelledby="login-title" className="mx-auto max-w-sm space-y-4">
      <h1 id="login-title" className="text-2xl font-bold">
        Sign in
      </h1>
      {actor && (
        <p className="text-sm">
          You are signed in as <span className="font-semibold">{actor.name}</span> ({actor.role}). Signing in again replaces that session.
        </p>
      )}
      {!actor && env().requireSignIn && (
        <p className="text-sm font-semibold" data-testid="sign-in-required">
          This console shows nothing before you sign in: it runs with DRIFTWATCH_REQUIRE_SIGN_IN=1. Ask whoever runs it for an account if you have none.
        </p>
      )}
      <p className="text-sm text-slate-700 dark:text-slate-200">
        Viewers read; operators can also act. Accounts are made with <code className="font-mono">npm run accounts</code>.
      </p>
      <LoginForm next={safeNextPath(Array.isArray(next) ? next[0] : next)} />
    </section>
  );
}
