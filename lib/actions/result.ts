/** What every operator action returns: never a thrown error, always something the form can show. */
export type ActionCode = "unauthorized" | "invalid" | "refused" | "conflict" | "internal";

export type ActionResult<T = void> =
  { ok: true; data: T } | { ok: false; code: ActionCode; message: string; fieldErrors?: Record<string, string[]>; reasons?: string[] };
