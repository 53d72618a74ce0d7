import Link from "next/link";
import { logoutAction } from "@/lib/auth/actions";
import { getActor } from "@/lib/auth/session";

/** The header's corner: who is signed in and as what, with the way out; or the way in. */
export async function AccountNav() {
  const actor = await getActor();
  if (!actor) {
    return (
      <Link href="/login" className="inline-block py-1 text-sm underline-offset-4 hover:underline">
        Sign in
      </Link>
    );
  }
  return (
    <div className="flex items-center gap-3 text-sm">
      <span data-testid="signed-in-as">
        <span className="sr-only">Signed in as </span>
        <span className="font-semibold">{actor.name}</span>{" "}
        <span className="text-slate-600 dark:text-slate-300">
          ({actor.role}
          {actor.via === "sso" ? ", SSO" : ""})
        </span>
      </span>
      {actor.via === "session" && (
        <form action={logoutAction}>
          <button type="submit" className="py-1 underline-offset-4 hover:underline">
            Sign out
          </button>
        </form>
      )}
    </div>
  );
}
