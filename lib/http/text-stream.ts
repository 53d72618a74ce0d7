/**
 * Text produced piece by piece as a response body: the stream asks for the next pieces only when
 * the socket has taken the last ones (pull, not push), and sends them in chunks of about 64 KB
 * rather than one write per piece. A piece already encoded (bytes another thread wrote) is sent
 * as it is, after the text before it.
 */
const encoder = new TextEncoder();

export function textStream(pieces: Iterable<string | Uint8Array>, chunkChars = 64 * 1024): ReadableStream<Uint8Array> {
  let iterator: Iterator<string | Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      iterator ??= pieces[Symbol.iterator]();
      let text = "";
      while (text.length < chunkChars) {
        const next = iterator.next();
        if (next.done) {
          if (text) controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        if (typeof next.value === "string") text += next.value;
        else {
          if (text) controller.enqueue(encoder.encode(text));
          controller.enqueue(next.value);
          return;
        }
      }
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      iterator?.return?.();
    },
  });
}

/**
 * Text pieces as UTF-8 chunks of about `chunkChars` characters each, none empty: text written
 * ahead of its stream (by the export thread, or while it works), to be sent as it is.
 */
export function encodedChunks(pieces: Iterable<string>, chunkChars = 64 * 1024): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let text = "";
  for (const piece of pieces) {
    text += piece;
    if (text.length >= chunkChars) {
      chunks.push(encoder.encode(text));
      text = "";
    }
  }
  if (text) chunks.push(encoder.encode(text));
  return chunks;
}
