/** A tiny JUnit XML reader for the tests: enough structure to check suites, cases, failures and skips. */

export interface JunitCase {
  classname: string;
  name: string;
  failure?: string | undefined;
  skipped: boolean;
}

export interface JunitDocument {
  totals: { tests: number; failures: number; skipped: number; errors: number };
  suites: Array<{ attributes: Record<string, string>; cases: JunitCase[] }>;
}

function attributes(tag: string): Record<string, string> {
  const unescape = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  return Object.fromEntries([...tag.matchAll(/([\w:-]+)="([^"]*)"/g)].map((m) => [m[1] as string, unescape(m[2] as string)]));
}

/** Parses the document; throws when the root or nesting is not what JUnit consumers expect. */
export function parseJunit(xml: string): JunitDocument {
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')) throw new Error('missing XML declaration');
  const root = /<testsuites\b([^>]*)>([\s\S]*)<\/testsuites>\s*$/.exec(xml);
  if (!root) throw new Error('no <testsuites> root');
  const rootAttributes = attributes(root[1] as string);
  const suites = [...(root[2] as string).matchAll(/<testsuite\b([^>]*)>([\s\S]*?)<\/testsuite>/g)].map((suite) => ({
    attributes: attributes(suite[1] as string),
    cases: [...(suite[2] as string).matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((testcase) => {
      const a = attributes(testcase[1] as string);
      const inner = testcase[2] ?? '';
      const failure = /<failure\b([^>]*)>/.exec(inner);
      return {
        classname: a.classname ?? '',
        name: a.name ?? '',
        failure: failure ? attributes(failure[1] as string).message : undefined,
        skipped: /<skipped\b/.test(inner),
      };
    }),
  }));
  const number = (key: string) => Number(rootAttributes[key]);
  return { totals: { tests: number('tests'), failures: number('failures'), skipped: number('skipped'), errors: number('errors') }, suites };
}
