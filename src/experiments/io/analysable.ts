/**
 * Whether offline data can be analysed at all: a comparison needs users in the control and in
 * at least one treatment. A file with no user rows (only a header, only the experiment line) or
 * with every user in one variant is an input error with a one-line reason, not an empty report
 * that exits 0 (issue 30).
 */
import { ValidationError } from '../../errors.js';
import type { VariantAccumulator } from '../stats/variant-accumulator.js';

/** Why the data cannot be analysed, as one line naming the file; undefined when it can. */
export function unanalysableReason(
  file: string,
  variants: readonly { name: string; is_control: boolean }[],
  accumulators: ReadonlyMap<string, VariantAccumulator>,
): string | undefined {
  const usersOf = (name: string): number => accumulators.get(name)?.users ?? 0;
  const total = variants.reduce((sum, v) => sum + usersOf(v.name), 0);
  if (total === 0) return `${file}: no user rows, nothing to analyse (a comparison needs users in the control and in a treatment)`;
  const withUsers = variants.filter((v) => usersOf(v.name) > 0);
  const control = variants.find((v) => v.is_control);
  if (withUsers.length >= 2 && control !== undefined && usersOf(control.name) > 0) return undefined;
  const only = withUsers.map((v) => `"${v.name}"${v.is_control ? ' (the control)' : ''}`).join(', ');
  const missing = control !== undefined && usersOf(control.name) === 0 ? `the control "${control.name}" has none` : 'no treatment has any';
  return `${file}: all ${total} users are in ${only} and ${missing}: nothing to compare`;
}

/** Throws a ValidationError (the CLI's exit 2) with unanalysableReason's line when the data cannot be analysed. */
export function assertAnalysable(
  file: string,
  variants: readonly { name: string; is_control: boolean }[],
  accumulators: ReadonlyMap<string, VariantAccumulator>,
): void {
  const reason = unanalysableReason(file, variants, accumulators);
  if (reason !== undefined) throw new ValidationError(reason, 'file');
}
