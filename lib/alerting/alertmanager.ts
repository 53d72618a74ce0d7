import "server-only";
/**
 * A small client of Alertmanager's API v2 (0.25): create, expire and list silences. Every call
 * gives up after a few seconds, so an action's follow-up never hangs on an Alertmanager that is
 * down; failures are typed, never bare fetch errors: `unreachable` (no answer: refused connection,
 * DNS, timeout) or `refused` (an answer that is not a success, with its status and the start of
 * its body).
 */

const TIMEOUT_MS = 3_000;
const BODY_EXCERPT_CHARS = 300;

export interface SilenceMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

export interface SilenceInput {
  matchers: SilenceMatcher[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
}

export interface Silence extends SilenceInput {
  id: string;
  status: { state: "active" | "pending" | "expired" };
  updatedAt: string;
}

export class AlertmanagerError extends Error {
  override name = "AlertmanagerError";
  constructor(
    readonly code: "unreachable" | "refused",
    message: string,
    readonly status: number | null = null,
    readonly body: string | null = null,
  ) {
    super(message);
  }
}

export class AlertmanagerClient {
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {}

  private async call(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        cache: "no-store",
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === "TimeoutError" ? `no answer within ${this.timeoutMs / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
      throw new AlertmanagerError("unreachable", `Alertmanager at ${this.baseUrl} could not be reached (${why})`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new AlertmanagerError("unreachable", `Alertmanager at ${this.baseUrl} stopped answering (${(error as Error).message})`);
    }
    if (!response.ok) {
      const excerpt = text.trim().slice(0, BODY_EXCERPT_CHARS);
      throw new AlertmanagerError(
        "refused",
        `Alertmanager at ${this.baseUrl} refused ${method} ${path} with ${response.status}${excerpt ? `: ${excerpt}` : ""}`,
        response.status,
        excerpt,
      );
    }
    if (text.trim() === "") return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AlertmanagerError(
        "refused",
        `Alertmanager at ${this.baseUrl} answered ${method} ${path} with something that is not JSON`,
        response.status,
        text.slice(0, BODY_EXCERPT_CHARS),
      );
    }
  }

  /** POST /api/v2/silences; the new silence's id. */
  async createSilence(silence: SilenceInput): Promise<string> {
    const answer = (await this.call("POST", "/api/v2/silences", silence)) as { silenceID?: unknown } | null;
    if (typeof answer?.silenceID !== "string") throw new AlertmanagerError("refused", `Alertmanager at ${this.baseUrl} created a silence but named no id`);
    return answer.silenceID;
  }

  /**
   * DELETE /api/v2/silence/{id}. A silence that is already expired (0.25 answers 200) or unknown to
   * this Alertmanager (its data folder was lost; 0.25 answers 500 "silence not found") silences
   * nothing: that counts as done.
   */
  async expireSilence(id: string): Promise<void> {
    try {
      await this.call("DELETE", `/api/v2/silence/${encodeURIComponent(id)}`);
    } catch (error) {
      if (
        error instanceof AlertmanagerError &&
        error.code === "refused" &&
        (error.status === 404 || /already expired|silence not found/i.test(error.body ?? ""))
      )
        return;
      throw error;
    }
  }

  /** GET /api/v2/silences, optionally filtered by label matchers (`bot="b1"`). */
  async listSilences(filter: string[] = []): Promise<Silence[]> {
    const query = filter.map((f) => `filter=${encodeURIComponent(f)}`).join("&");
    return (await this.call("GET", `/api/v2/silences${query ? `?${query}` : ""}`)) as Silence[];
  }
}
