/** Flag parsers shared by commands; each throws a usage error naming the flag. */
import { InvalidArgumentError } from 'commander';
import { usageError } from './cli-error.js';

/** A flag's value parsed inside an action: whatever the parser refuses is a usage error `<flag>: <why>` (exit 2). */
export function parseFlag<T>(flag: string, text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    throw usageError(`${flag}: ${(error as Error).message}`);
  }
}

/** Parses durations like `90s`, `30m`, `24h`, `7d` (or `never`) into seconds. */
export function parseDuration(text: string): number | null {
  if (text === 'never') return null;
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  if (!match || Number(match[1]) === 0)
    throw new InvalidArgumentError(`expected a positive duration like 30m, 24h, 7d, or "never", got "${text}"`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** Commander argument parser for a positive integer. */
export function parsePositiveInt(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) <= 0) throw new InvalidArgumentError('expected a positive integer');
  return Number(text);
}

/** Commander argument parser for a finite number greater than 0. */
export function parsePositiveNumber(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) throw new InvalidArgumentError('expected a number greater than 0');
  return value;
}

/** Commander argument parser for a finite number (thresholds). */
export function parseFiniteNumber(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new InvalidArgumentError('expected a number');
  return value;
}

/** A share strictly between 0 and 1, written 0.8 or 80%. */
export function parseShare(text: string): number {
  const trimmed = text.trim();
  const value = trimmed.endsWith('%') ? Number(trimmed.slice(0, -1)) / 100 : Number(trimmed);
  if (trimmed === '' || !(value > 0 && value < 1)) throw new InvalidArgumentError('expected a share between 0 and 1, like 0.8 or 80%');
  return value;
}

/** A relative effect in percent of the baseline, written 10% or 10 (→ 0.1); negative for a decrease. */
export function parseRelativeEffect(text: string): number {
  const trimmed = text.trim().replace(/%$/, '');
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value) || value === 0 || value <= -100)
    throw new InvalidArgumentError('expected a non-zero percentage of the baseline above -100, like 10% or -5%');
  return value / 100;
}
