/**
 * Who may read an operator's name. The journal records actors as `operator:<name>` and
 * `viewer:<name>`; a reader who is not signed in sees only the role (`operator`, `viewer`), so the
 * public pages do not hand a stranger the list of accounts to guess passwords for or lock out.
 * Pure: the page or route decides whether its reader sees names, and passes that down.
 */

/** `operator:<name>` / `viewer:<name>` as they appear anywhere in text (a reason, a summary, JSON). */
// A name may hold dots (ana.b) but does not end in the sentence's punctuation.
const NAMED = /\b(operator|viewer):[^\s"'`<>,;:()[\]{}]*[^\s"'`<>,;:()[\]{}.!?]/g;

/** `operator:ana` → `operator`; `bot`, `anonymous` and other actors unchanged. */
export function actorRole(actor: string): string {
  return actor.replace(NAMED, "$1");
}

/** Every named actor in a text replaced by its role. */
export function hideNames(text: string): string {
  return text.replace(NAMED, "$1");
}

const isPlainObject = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A copy of plain data (what queries return) with every named actor in every string replaced by its role. */
export function withoutNames<T>(value: T): T {
  if (typeof value === "string") return hideNames(value) as T;
  if (Array.isArray(value)) return value.map((v) => withoutNames(v)) as T;
  if (value !== null && typeof value === "object" && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withoutNames(v);
    return out as T;
  }
  return value;
}

/** The view as this reader may see it: unchanged for a signed-in account, roles only otherwise. */
export function forReader<T>(value: T, seesNames: boolean): T {
  return seesNames ? value : withoutNames(value);
}
