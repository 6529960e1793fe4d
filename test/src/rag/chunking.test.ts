import { describe, expect, it } from 'vitest';
import { chunkMarkdown, MAX_CHUNK_CHARS, MAX_POST_CHUNK_CHARS, postChunk, splitLong } from '../../../src/rag/chunking.js';

const DOC = `# Service

Intro paragraph that is long enough to stand on its own as a chunk of the documentation, more than a hundred characters.

## Experiments

Variants are chosen like this:

- hash the ids
- take mod 100

### Gates

A gate blocks a variant whose metric is on the wrong side of its threshold, judged on the confidence interval.

\`\`\`sh
recsvc gates check 1

# not a heading, inside a fence
\`\`\`

## Privacy

Tracking levels are full, limited and none; none stores nothing about the user at all, ever, in any table.
`;

describe('chunkMarkdown', () => {
  const chunks = chunkMarkdown('README.md', DOC);

  it('names each chunk by path and heading path', () => {
    expect(chunks.map((c) => c.source)).toEqual([
      { type: 'doc', path: 'README.md', heading: 'Service' },
      { type: 'doc', path: 'README.md', heading: 'Service > Experiments' },
      { type: 'doc', path: 'README.md', heading: 'Service > Experiments > Gates' },
      { type: 'doc', path: 'README.md', heading: 'Service > Experiments > Gates' },
      { type: 'doc', path: 'README.md', heading: 'Service > Privacy' },
    ]);
    expect(chunks.map((c) => c.id)).toEqual(['README.md#1', 'README.md#2', 'README.md#3', 'README.md#4', 'README.md#5']);
    expect(chunks[1]?.title).toBe('Service > Experiments');
  });

  it('joins a lead-in to what follows, and keeps a fenced block whole with its `#` lines', () => {
    expect(chunks[1]?.text).toBe('Variants are chosen like this:\n\n- hash the ids\n- take mod 100');
    expect(chunks[3]?.text).toBe('```sh\nrecsvc gates check 1\n\n# not a heading, inside a fence\n```');
  });

  it('keeps every chunk within MAX_CHUNK_CHARS', () => {
    const long = Array.from({ length: 200 }, (_, i) => `| row ${i} | a table cell with some words |`).join('\n');
    const split = chunkMarkdown('docs/x.md', `## Table\n\n${long}\n`);
    expect(split.length).toBeGreaterThan(1);
    for (const chunk of split) expect(chunk.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(split.map((c) => c.text).join('\n')).toBe(long);
  });
});

describe('splitLong', () => {
  it('cuts one very long line at spaces', () => {
    const line = Array.from({ length: 100 }, () => 'word').join(' ');
    const pieces = splitLong(line, 50);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(50);
    expect(pieces.join(' ').split(/\s+/)).toHaveLength(100);
  });
});

describe('postChunk', () => {
  it('indexes the content warning, the text and the tags', () => {
    const chunk = postChunk({
      id: '7',
      accountId: 'a1',
      url: 'https://x/7',
      spoilerText: 'CW food',
      plainText: 'Bread',
      tagNames: 'baking rye',
    });
    expect(chunk).toEqual({
      id: 'post:7',
      title: '#baking #rye',
      text: 'CW food\n\nBread',
      source: { type: 'post', post_id: '7', url: 'https://x/7', account_id: 'a1' },
    });
  });

  it('bounds the text', () => {
    const chunk = postChunk({ id: '8', accountId: 'a', url: null, spoilerText: '', plainText: 'x'.repeat(10_000), tagNames: '' });
    expect(chunk.text).toHaveLength(MAX_POST_CHUNK_CHARS);
  });
});
