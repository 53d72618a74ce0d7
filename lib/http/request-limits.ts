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
  status: 400 | 411 | 413;
  message: string;
}

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
      return { status: 413, message: `the form is larger than the console accepts (${ACTION_BODY_LIMIT_BYTES / 1024} KB); notes and reasons are at most 1000 characters. Nothing was changed` };
    }
  }
  return null;
}
