/**
 * The analysis method of a read (src/experiments/sequential.ts) as the commands take it: the
 * `--method` option of `create`, `status` and `analyze` (light: loaded at every CLI start for
 * help; the lines showing a result's method are in analyze-method.view.ts).
 */
import { Option, type Command } from 'commander';
import { ANALYSIS_METHODS, type AnalysisMethod } from '../../src/experiments/stats/sequential.js';

export interface MethodFlags {
  method?: AnalysisMethod;
}

/** Adds `--method fixed|sequential` with this help text. */
export function addMethodOption(command: Command, description: string): Command {
  return command.addOption(new Option('--method <method>', description).choices(ANALYSIS_METHODS));
}

/** `?method=` for the analysis endpoint, or nothing when the experiment's own method applies. */
export function methodQuery(method: AnalysisMethod | undefined): string {
  return method === undefined ? '' : `method=${method}`;
}
