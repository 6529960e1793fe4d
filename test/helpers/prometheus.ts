/**
 * A strict-enough reader of the Prometheus text exposition format (0.0.4):
 * every line must be a comment (# HELP / # TYPE) or a valid sample, so a
 * malformed /metrics output fails the test that reads it.
 */
export interface MetricFamily {
  name: string;
  type: string;
  help: string;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses exposition text into families; throws on any malformed line. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const familyOf = (name: string): MetricFamily => {
    let family = families.get(name);
    if (!family) {
      family = { name, type: 'untyped', help: '', samples: [] };
      families.set(name, family);
    }
    return family;
  };
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('# HELP ')) {
      const [, name, ...help] = line.split(' ').slice(1);
      familyOf(line.split(' ')[2]!).help = [name, ...help].slice(1).join(' ');
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!name || !type || !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) {
        throw new Error(`line ${index + 1}: bad TYPE line: ${line}`);
      }
      familyOf(name).type = type;
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${index + 1}: not a sample: ${line}`);
    const value = Number(match[4] === '+Inf' ? Infinity : match[4] === '-Inf' ? -Infinity : match[4]);
    if (Number.isNaN(value) && match[4] !== 'NaN') throw new Error(`line ${index + 1}: bad value: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[3] ?? '').matchAll(LABEL)) labels[label[1]!] = label[2]!;
    const sampleName = match[1]!;
    const base = sampleName.replace(/_(bucket|sum|count)$/, '');
    const family = families.has(sampleName) ? familyOf(sampleName) : familyOf(families.has(base) ? base : sampleName);
    family.samples.push({ name: sampleName, labels, value });
  }
  return families;
}
