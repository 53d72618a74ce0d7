/**
 * Requests the console turns away before Next's router sees them, each because Next would
 * otherwise answer a client's mistake with a 500. Pure, so next.config.ts and proxy.ts share it.
 */

/**
 * The largest server-action body, in bytes. Every action posts a few short fields: ids of at most
 * 200 characters, a note or reason of at most 1000, a password of at most 1024 (each up to 4 bytes
 * a character), plus Next's own fields. 64 KB is ten times the largest honest form, and far below
 * Next's default of 1 MB.
 */
export const ACTION_BODY_LIMIT_BYTES = 64 * 1024;

export interface Rejection {
  status: 400 | 404 | 405 | 409 | 411 | 413;
  message: string;
  /** For a 405: the methods the path does take. */
  allow?: string;
}

/** The console's public files: GET and HEAD only. */
const PUBLIC_FILE = /^\/favicon(?:-[a-z]+)?\.svg$/;

/** True when every %-escape in the path decodes to UTF-8. */
function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export function rejectRequest(req: { method: string; pathname: string; headers: Headers }): Rejection | null {
  // A path Next cannot decode (`/bots/%A4`) reaches its router as a 500 in a production build.
  if (!decodable(req.pathname)) {
    return { status: 400, message: "the address has a %-escape that is not UTF-8 (such as %A4 or %E0%A4%A); encode ids with encodeURIComponent" };
  }
  // The console shows no images: Next's optimizer would fetch the url it is given from this very
  // server, and log a line for every one that fails, for whoever asks.
  if (req.pathname === "/_next/image") return { status: 404, message: "this console serves no images" };
  // A post to a JSON route, or to a public file, went on to Next's server-action handling (a 500
  // and a stack in the log for a made-up action id): they are read, never posted to.
  // The file's name as Next's file server reads it: `/%66avicon.svg` is the favicon too.
  if (req.method !== "GET" && req.method !== "HEAD" && (req.pathname.startsWith("/api/") || PUBLIC_FILE.test(decodeURIComponent(req.pathname)))) {
    return {
      status: 405,
      allow: "GET, HEAD",
      message: `${req.pathname.startsWith("/api/") ? "the console's JSON routes" : "this file"} can only be read (GET), never ${req.method}. Nothing was changed`,
    };
  }
  // Next checks bodySizeLimit while it parses the body, and then answers 500, not 413. Checking the
  // declared length here refuses the body before anything reads it. Every POST is checked, not only
  // those with a Next-Action header: a form posted without JavaScript carries its action id in the
  // body, and the JSON routes take no POST at all. Browsers always declare the length of a form
  // post, so a POST that does not is refused rather than read unbounded.
  if (req.method === "POST") {
    const declared = req.headers.get("content-length");
    if (declared === null) return { status: 411, message: "a POST must declare its Content-Length. Nothing was changed" };
    const bytes = Number(declared);
    if (!Number.isFinite(bytes) || bytes > ACTION_BODY_LIMIT_BYTES) {
      return {
        status: 413,
        message: `the form is larger than the console accepts (${ACTION_BODY_LIMIT_BYTES / 1024} KB); notes and reasons are at most 1000 characters. Nothing was changed`,
      };
    }
  }
  return null;
}

/**
 * A page post (a server action, the sign-in form) that another site's page sent: its Origin names
 * a host other than the one it was sent to (X-Forwarded-Host when a proxy set it, else Host), the
 * rule Next applies to server actions. Next refuses those too, but with a 500 and a stack's worth
 * of log; here it is a 403 that says why. A post without an Origin (no browser page sent it: curl,
 * a script) passes here as it does in Next: the action's own checks (a session, a role) still
 * apply, and a session cookie is SameSite=Strict, so no other site's page can carry one anyway.
 * The Origin is not echoed to the client.
 */
export function rejectCrossSitePost(headers: Headers): { status: 403; message: string; origin: string; host: string } | null {
  const origin = headers.get("origin");
  if (origin === null) return null;
  let originHost = origin;
  if (origin !== "null") {
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = "";
    }
  }
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host") || "";
  if (host !== "" && originHost === host) return null;
  return {
    status: 403,
    origin,
    host,
    message:
      "this form was sent from a page that is not this console's, so it is refused: the console takes actions only from its own pages. Nothing was changed. If you did open the console's own page, it was through a proxy that does not pass on the host name you used: have it keep the Host header or set X-Forwarded-Host",
  };
}

/**
 * A server-action post whose body Next cannot decode: Next answers each with a 500 (checked
 * against `next start`, Next 16.4). The console's forms post multipart/form-data, with or without
 * JavaScript; an action that reads no argument (sign-out) is posted as text/plain JSON. Anything
 * else is a client's mistake. Headers only: call it after rejectRequest, on POSTs.
 */
export function rejectActionHeaders(headers: Headers): { status: 400; message: string } | null {
  // As written, not lowercased: Next tells a multipart body by its exact lowercase prefix, and read
  // "MULTIPART/FORM-DATA" as JSON (a 500), while this check would have parsed it as a form.
  const type = headers.get("content-type") ?? "";
  const multipart = /^multipart\/form-data\s*;/.test(type) && /;\s*boundary=("?)[^";]{1,70}\1\s*(;|$)/i.test(type);
  if (multipart) return null;
  if (headers.has("next-action") && /^text\/plain\s*(;|$)/.test(type)) return null;
  // A plain form posted without JavaScript to a page that has no action: Next renders the page.
  if (!headers.has("next-action") && type.startsWith("application/x-www-form-urlencoded")) return null;
  return { status: 400, message: "an action's form must be sent as multipart/form-data with a boundary, as the console's pages send it. Nothing was changed" };
}

/**
 * A server-action post naming an action this build of the console does not have: a page loaded
 * before the console was updated (its forms carry the old build's ids), or a made-up id. Next
 * answers both with a 400 or 409 and a stack in the log, for anyone who asks; here it is a 409 that
 * tells the person with the old page what to do. `known`: the build's action ids, or null when
 * they cannot be read (then Next decides). The ids are the Next-Action header's, or, for a form
 * posted without JavaScript, those its fields name (formActionIds): Next logged a stack for those too.
 */
export function rejectUnknownAction(ids: string | readonly string[] | null, known: ReadonlySet<string> | null): { status: 409; message: string } | null {
  if (ids === null || known === null) return null;
  if ((typeof ids === "string" ? [ids] : ids).every((id) => known.has(id))) return null;
  return {
    status: 409,
    message: "this page is from an earlier version of the console, or the form was not one of its own: reload the page and do it again. Nothing was changed",
  };
}

const MALFORMED =
  "the action's form could not be read (cut short, a wrong boundary, or not what the console's pages send). Reload the page and try again. Nothing was changed";

/** The text/plain body of an action post with a Next-Action header: React's JSON of its arguments. */
export function rejectActionText(text: string): { status: 400; message: string } | null {
  try {
    return argumentsRoot(JSON.parse(text)) ? null : { status: 400, message: MALFORMED };
  } catch {
    return { status: 400, message: MALFORMED };
  }
}

/**
 * The body of a multipart action post, already parsed once by the caller: Next's own decoder
 * answers a body cut short, a wrong boundary or a root field that is not JSON with a 500. With a
 * Next-Action header, React's encoding puts the arguments' root in field "0" as JSON.
 */
export function rejectActionForm(form: FormData | null, hasActionHeader: boolean): { status: 400; message: string } | null {
  const malformed = { status: 400 as const, message: MALFORMED };
  if (form === null) return malformed;
  // Without JavaScript the form names its action in its fields; one that names none is no form of
  // the console's (Next logged "Invalid Server Actions request" for each).
  if (!hasActionHeader) return formActionIds(form) === null ? malformed : null;
  // One root, the arguments' array: a second field "0" or another root made Next throw (a 500).
  const roots = form.getAll("0");
  if (roots.length !== 1 || typeof roots[0] !== "string") return malformed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(roots[0]);
  } catch {
    return malformed;
  }
  return argumentsRoot(parsed) ? null : malformed;
}

/**
 * The action ids a multipart form posted without JavaScript names, as React's decodeAction reads
 * them: a `$ACTION_ID_<id>` field, or a `$ACTION_REF_<n>` field whose `$ACTION_<n>:0` holds
 * `{"id": …}`. Null when it names none, or names one in a way React cannot read.
 */
export function formActionIds(form: FormData): string[] | null {
  const ids: string[] = [];
  for (const key of new Set(form.keys())) {
    if (key.startsWith("$ACTION_ID_")) ids.push(key.slice("$ACTION_ID_".length));
    else if (key.startsWith("$ACTION_REF_")) {
      const descriptors = form.getAll(`$ACTION_${key.slice("$ACTION_REF_".length)}:0`);
      if (descriptors.length !== 1 || typeof descriptors[0] !== "string") return null;
      try {
        const id = (JSON.parse(descriptors[0]) as { id?: unknown } | null)?.id;
        if (typeof id !== "string") return null;
        ids.push(id);
      } catch {
        return null;
      }
    }
  }
  return ids.length > 0 ? ids : null;
}

/** React writes an action's arguments as one JSON array (sign-out's is `[]`); anything else made Next throw. */
const argumentsRoot = (parsed: unknown) => Array.isArray(parsed) && onlyInlineValues(parsed, 0);

/**
 * A root field string starting with "$" is a React reference. The console's forms send only a
 * FormData ("$K1") and inline values (undefined, dates, numbers React cannot write in JSON; a "$"
 * a user typed is escaped as "$$"). Any other reference (to a promise, a map, a blob, another
 * field) points at parts of the body, and one that points nowhere makes Next answer 500
 * ("Invalid forward reference").
 */
const INLINE_REFERENCE = /^\$(?:K[0-9a-f]{1,8}|undefined|\$[\s\S]*|-0|Infinity|-Infinity|NaN|D[0-9TZ:.+-]{0,40}|n-?[0-9]{1,300})$/;

function onlyInlineValues(v: unknown, depth: number): boolean {
  if (depth > 32) return false;
  if (typeof v === "string") return !v.startsWith("$") || INLINE_REFERENCE.test(v);
  if (Array.isArray(v)) return v.every((x) => onlyInlineValues(x, depth + 1));
  if (v !== null && typeof v === "object") return Object.values(v).every((x) => onlyInlineValues(x, depth + 1));
  return true;
}
