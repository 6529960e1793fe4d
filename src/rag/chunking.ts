/**
 * Markdown to RAG chunks: one chunk per paragraph under its heading path, a lead-in
 * paragraph (ending with `:` or very short) joined to what follows, long paragraphs split
 * by lines. Fenced code blocks are never split at their blank lines.
 */
import type { Chunk } from './chunk.types.js';

/** The longest chunk, in characters: a paragraph or two, so an answer can quote it. */
export const MAX_CHUNK_CHARS = 1200;
/** A paragraph shorter than this is a lead-in: it joins the next one. */
const LEAD_IN_CHARS = 100;

interface Section {
  heading: string;
  paragraphs: string[];
}

/** Splits markdown into sections (heading path and paragraphs). */
function sections(markdown: string): Section[] {
  const out: Section[] = [];
  const headings: string[] = [];
  let current: Section = { heading: '', paragraphs: [] };
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = (): void => {
    const text = lines.join('\n').trim();
    if (text !== '') current.paragraphs.push(text);
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fenceMark && (fence === undefined || fence === fenceMark)) fence = fence === undefined ? fenceMark : undefined;
    const heading = fence === undefined && !fenceMark ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (heading?.[1] && heading[2]) {
      flush();
      out.push(current);
      headings.length = heading[1].length - 1;
      headings[heading[1].length - 1] = heading[2];
      current = { heading: headings.filter(Boolean).join(' > '), paragraphs: [] };
    } else if (fence === undefined && !fenceMark && line.trim() === '') {
      flush();
    } else {
      lines.push(line);
    }
  }
  flush();
  out.push(current);
  return out.filter((section) => section.paragraphs.length > 0);
}

/** Pieces of at most `max` characters, cut at line ends (or spaces, for one very long line). */
export function splitLong(text: string, max: number = MAX_CHUNK_CHARS): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let piece = '';
  for (const line of text.split('\n')) {
    for (const part of line.length > max ? (line.match(new RegExp(`.{1,${max}}(\\s|$)`, 'g')) ?? [line]) : [line]) {
      if (piece !== '' && piece.length + 1 + part.length > max) {
        pieces.push(piece.trim());
        piece = '';
      }
      piece = piece === '' ? part : `${piece}\n${part}`;
    }
  }
  if (piece.trim() !== '') pieces.push(piece.trim());
  return pieces;
}

/** Paragraphs grouped into chunk texts: lead-ins joined to the following paragraph, long ones split. */
function groupParagraphs(paragraphs: readonly string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const paragraph of paragraphs) {
    const text = pending === '' ? paragraph : `${pending}\n\n${paragraph}`;
    const leadIn = paragraph.endsWith(':') || paragraph.length < LEAD_IN_CHARS;
    if (leadIn && text.length < MAX_CHUNK_CHARS) {
      pending = text;
      continue;
    }
    out.push(...splitLong(text));
    pending = '';
  }
  if (pending !== '') out.push(...splitLong(pending));
  return out;
}

/** The chunks of one markdown document; `path` is how sources name it (e.g. `docs/architecture.md`). */
export function chunkMarkdown(path: string, markdown: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sections(markdown)) {
    for (const text of groupParagraphs(section.paragraphs)) {
      chunks.push({
        id: `${path}#${chunks.length + 1}`,
        title: section.heading,
        text,
        source: { type: 'doc', path, heading: section.heading },
      });
    }
  }
  return chunks;
}

/** The most characters of a post that are indexed and quoted. */
export const MAX_POST_CHUNK_CHARS = 2000;

/** What a post chunk is made of (its plain text, not its HTML). */
export interface PostText {
  readonly id: string;
  readonly accountId: string;
  readonly url: string | null;
  readonly spoilerText: string;
  readonly plainText: string;
  /** Lowercase tag names separated by spaces, as stored. */
  readonly tagNames: string;
}

/** One chunk for one post: content warning and text, tags as its title. */
export function postChunk(post: PostText): Chunk {
  const body = post.spoilerText === '' ? post.plainText : `${post.spoilerText}\n\n${post.plainText}`;
  const tags = post.tagNames
    .split(' ')
    .filter(Boolean)
    .map((tag) => `#${tag}`)
    .join(' ');
  return {
    id: `post:${post.id}`,
    title: tags,
    text: body.slice(0, MAX_POST_CHUNK_CHARS),
    source: { type: 'post', post_id: post.id, url: post.url, account_id: post.accountId },
  };
}
