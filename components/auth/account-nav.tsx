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
    <div className="flex items-center gap-2 text-sm sm:gap-3">
      <span data-testid="signed-in-as" className="flex flex-col items-end leading-tight sm:block sm:leading-normal">
        <span className="sr-only">Signed in as </span>
        {/* On a phone the header keeps to one row: a long name is cut (in full on hover and for a
            screen reader) and the role is set small under it (a viewer must see at 3 a.m. why the
            buttons are not there); from sm up, both on one line. */}
        <span title={actor.name} className="inline-block max-w-[7rem] truncate align-bottom font-semibold sm:inline sm:max-w-none">
          {actor.name}
        </span>{" "}
        <span className="text-xs text-slate-600 sm:text-sm dark:text-slate-300" data-testid="signed-in-role">
          <span className="hidden sm:inline">(</span>
          {actor.role}
          {actor.via === "sso" ? ", SSO" : ""}
          <span className="hidden sm:inline">)</span>
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
