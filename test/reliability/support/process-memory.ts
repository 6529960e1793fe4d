/**
 * A process's memory as Linux reports it in /proc/<pid>/status: resident set now
 * (VmRSS) and its peak so far (VmHWM), in MiB.
 */
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  rssMiB: number;
  peakRssMiB: number;
}

/** Reads VmRSS and VmHWM of `pid`. */
export function readProcessMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]);
  };
  return { rssMiB: round1(kib('VmRSS') / 1024), peakRssMiB: round1(kib('VmHWM') / 1024) };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
