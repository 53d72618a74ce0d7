/** A response body read to its end: its chunks as the stream gave them, and their text (UTF-8). */
export async function readStream(stream: ReadableStream<Uint8Array>): Promise<{ chunks: Uint8Array[]; text: string }> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return { chunks, text: Buffer.concat(chunks).toString("utf8") };
}
