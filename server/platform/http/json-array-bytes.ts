/**
 * A JSON array response body from JSON texts already serialised (cached status JSON, a
 * ranking's fields, an instance's own bytes): `[a,b,…]` in UTF-8, written once into one
 * buffer of the exact size. Joining strings instead made the body three times over on the
 * heap (the joined rope, its flattened copy when fastify measured it, its UTF-8 encoding
 * when the socket wrote it): a recommendation page is ~40 KB, so that was a large share of
 * what every request allocated. A buffer this size lives outside the collected heap.
 */

/** One piece of an element's JSON text: text, or its UTF-8 bytes. */
export type JsonPiece = string | Buffer;

/** `[a,b,…]`, each element given as the pieces of its JSON text in order. */
export function jsonArrayBytes(elements: readonly (readonly JsonPiece[])[]): Buffer {
  let size = elements.length === 0 ? 2 : elements.length + 1;
  for (const pieces of elements)
    for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.length;
  const body = Buffer.allocUnsafe(size);
  let at = body.write('[', 0, 'latin1');
  elements.forEach((pieces, i) => {
    if (i > 0) at += body.write(',', at, 'latin1');
    for (const piece of pieces) at += typeof piece === 'string' ? body.write(piece, at, 'utf8') : piece.copy(body, at);
  });
  at += body.write(']', at, 'latin1');
  if (at !== size) throw new Error(`jsonArrayBytes wrote ${at} bytes of ${size}`);
  return body;
}
