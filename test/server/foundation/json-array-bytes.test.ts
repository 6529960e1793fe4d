/**
 * jsonArrayBytes (server/platform/http): the bytes of `[a,b,…]` from each element's JSON pieces, text
 * or bytes, exactly as UTF-8 encoding the joined text would give them, for any JSON values
 * (non-ASCII, astral characters, escapes) cut into pieces anywhere between code points.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonArrayBytes, type JsonPiece } from '../../../server/platform/http/json-array-bytes.js';

/** Cuts `text` into pieces at the given code-point positions, some as text and some as bytes. */
function cut(text: string, cuts: readonly number[], asBytes: readonly boolean[]): JsonPiece[] {
  const points = [...text];
  const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
  const pieces: JsonPiece[] = [];
  let from = 0;
  for (const to of [...at, points.length]) {
    const piece = points.slice(from, to).join('');
    pieces.push(asBytes[pieces.length % Math.max(1, asBytes.length)] ? Buffer.from(piece, 'utf8') : piece);
    from = to;
  }
  return pieces;
}

describe('jsonArrayBytes', () => {
  it('writes what encoding the joined text gives, for any values cut anywhere', () => {
    const element = fc.record({
      value: fc.jsonValue(),
      cuts: fc.array(fc.nat(), { maxLength: 4 }),
      asBytes: fc.array(fc.boolean(), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(element, { maxLength: 6 }), (elements) => {
        const texts = elements.map((e) => JSON.stringify(e.value) ?? 'null');
        const bytes = jsonArrayBytes(elements.map((e, i) => cut(texts[i]!, e.cuts, e.asBytes)));
        expect(bytes.equals(Buffer.from(`[${texts.join(',')}]`, 'utf8'))).toBe(true);
        expect(JSON.parse(bytes.toString('utf8'))).toEqual(texts.map((t) => JSON.parse(t) as unknown));
      }),
      { numRuns: 300 },
    );
  });

  it('an empty list is [] and multi-byte text is counted in bytes, not characters', () => {
    expect(jsonArrayBytes([]).toString('utf8')).toBe('[]');
    const body = jsonArrayBytes([['{"t":"é€', '😀"}'], ['"ß"']]);
    expect(body.toString('utf8')).toBe('[{"t":"é€😀"},"ß"]');
    expect(body.length).toBe(Buffer.byteLength('[{"t":"é€😀"},"ß"]'));
  });
});
