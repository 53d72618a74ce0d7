/**
 * Who may read an operator's name. The journal records actors as `operator:<name>` and
 * `viewer:<name>`; a reader who is not signed in sees only the role (`operator`, `viewer`), so the
 * public pages do not hand a stranger the list of accounts to guess passwords for or lock out.
 * Pure: the page or route decides whether its reader sees names, and passes that down.
 *
 * Every screen spells a person one way, as the journal records them: `operator:ana` (a halt's
 * cause, the breakers page, an acknowledgement, a book correction, the audit log, an incident's
 * story), or the role alone for a reader who may not see names. Never `ana` on one screen and
 * `operator:ana` on the next.
 */

/** `operator:<name>` / `viewer:<name>` as they appear anywhere in text (a reason, a summary, JSON). */
// A name may hold dots (ana.b) but does not end in the sentence's punctuation.
const NAMED = /\b(operator|viewer):[^\s"'`<>,;:()[\]{}]*[^\s"'`<>,;:()[\]{}.!?]/g;

/** `operator:ana` → `operator`; `bot`, `anonymous` and other actors unchanged. */
export function actorRole(actor: string): string {
  return hideNames(actor);
}

/**
 * Whether a text could name anyone: a name needs its role and colon. Most strings (times, symbols,
 * words, numbers as text) have neither. JSON text can also spell one through an escape (`\u003a`):
 * ask `json` for such text, where a backslash counts as a possible name.
 */
export const mayName = (text: string, json = false): boolean => text.includes("operator:") || text.includes("viewer:") || (json && text.includes("\\"));

/** Every named actor in a text replaced by its role. */
export function hideNames(text: string): string {
  // The colons of a time made every event's time run the expression.
  return mayName(text) ? text.replace(NAMED, "$1") : text;
}

const isPlainObject = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Plain data (what queries return) with every named actor in every string replaced by its role,
 * the original left alone. Only what holds a name is copied: an array or object none of whose
 * strings names anyone is returned as it is, so hiding the names of a busy hour's 6,500 events
 * (nearly all a bot's) allocates almost nothing (it copied every one: 60 ms, docs/performance.md).
 */
export function withoutNames<T>(value: T): T {
  if (typeof value === "string") return hideNames(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const w = withoutNames(v);
      if (out === null && w !== v) out = value.slice(0, i);
      out?.push(w);
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === "object" && isPlainObject(value)) {
    let out: Record<string, unknown> | null = null;
    const source = value as Record<string, unknown>;
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = source[k];
      const w = withoutNames(v);
      if (out === null && w !== v) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]!] = source[keys[j]!];
      }
      if (out !== null) out[k] = w;
    }
    return (out ?? value) as T;
  }
  return value;
}

/** The view as this reader may see it: unchanged for a signed-in account, roles only otherwise. */
export function forReader<T>(value: T, seesNames: boolean): T {
  return seesNames ? value : withoutNames(value);
}
