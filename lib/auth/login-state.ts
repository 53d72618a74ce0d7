/** What the sign-in action hands back to its form (it redirects on success, so only failures). */
export type LoginState = {
  ok: false;
  code: "invalid" | "unauthorized" | "refused" | "internal";
  message: string;
  fieldErrors?: { name?: string[]; password?: string[] };
  /** The name as typed, to fill the field again; the password never comes back. */
  name: string;
} | null;
