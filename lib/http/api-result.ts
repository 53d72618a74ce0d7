/** The envelope of every JSON route: data, or the reason there is none. Shared with the client. */
export type ApiResult<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string; file?: string; fix?: string } };
