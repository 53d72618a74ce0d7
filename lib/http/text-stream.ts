/**
 * Text produced piece by piece as a response body: the stream asks for the next pieces only when
 * the socket has taken the last ones (pull, not push), and sends them in chunks of about 64 KB
 * rather than one write per piece.
 */
const encoder = new TextEncoder();

export function textStream(pieces: Iterable<string>, chunkChars = 64 * 1024): ReadableStream<Uint8Array> {
  let iterator: Iterator<string> | null = null;
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
        text += next.value;
      }
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      iterator?.return?.();
    },
  });
}
