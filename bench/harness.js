// Shared pieces of the benchmarks that drive a real `recsvc serve` child (bench/social.js;
// bench/run.js can take them too): a free port, waiting for /health, a process's CPU time
// from /proc, and one autocannon run printed as one JSON line with exact percentiles.
import autocannon from 'autocannon';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Resolves once `${base}/health` answers 2xx; throws if `child` exits first or after `seconds` (default 30). */
export async function waitForHealth(base, child, seconds = 30) {
  for (let i = 0; i < seconds * 10; i++) {
    if (child.exitCode !== null) throw new Error(`recsvc serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('recsvc serve did not become healthy');
}

/** CPU time (user + system, ms, all threads) a process has used so far; null where /proc is missing. */
export function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in 100 Hz ticks
  } catch {
    return null;
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const round2 = (x) => (x === null ? null : Math.round(x * 100) / 100);

/** CPU time (ms) of a pid, of several pids (summed), or what a function returns; null when unknown. */
function cpuOf(source) {
  if (typeof source === 'function') return source();
  if (Array.isArray(source)) {
    const each = source.map(processCpuMs);
    return each.includes(null) ? null : each.reduce((a, b) => a + b, 0);
  }
  return processCpuMs(source);
}

/**
 * CPU time (ms) of every process named `name` on this machine (e.g. postgres backends), from
 * /proc, per pid: measure() counts what each used between its two readings, so processes
 * that exit meanwhile do not make the figure negative (what they used after the first
 * reading is missed).
 */
export function cpuOfProcessesNamed(name) {
  const byPid = new Map();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      } catch {
        continue; // gone meanwhile
      }
      const ms = processCpuMs(Number(entry));
      if (ms !== null) byPid.set(entry, ms);
    }
  } catch {
    return null;
  }
  return byPid;
}

/** CPU used between two readings of cpuOf (per-pid maps: only what each pid used since the first). */
function cpuBetween(before, after) {
  if (before === null || after === null) return null;
  if (!(after instanceof Map)) return after - before;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * One autocannon run against `url`, latencies collected per response so that p95 is exact.
 * `url` may be a list (several instances behind no balancer): the connections are split
 * evenly and each URL gets its own autocannon, all at once; the line sums them.
 * `requestFactory` (optional) returns each request's method, path and body; `cpu` names the
 * processes whose CPU per request is reported ({server: pid or [pids] or () => ms, ...} →
 * server_cpu_ms_per_request). Prints and returns {name, connections, requests_per_sec, p50,
 * p95, p99, errors, ...}.
 */
export async function measure({ name, url, connections, duration, amount, headers = {}, requestFactory, cpu = {}, quiet = false }) {
  const urls = Array.isArray(url) ? url : [url];
  const latencies = [];
  const cpuBefore = Object.fromEntries(Object.entries(cpu).map(([label, source]) => [label, cpuOf(source)]));
  // A fixed amount of requests is timed from the start to the last response: autocannon ends
  // such a run at its next one-second sample, so its own duration rounds up to whole seconds
  // (5,000 requests in 5.1 s read as 833/s instead of 980/s).
  const startedAt = performance.now();
  let lastResponseAt = startedAt;
  const results = await Promise.all(
    urls.map((target, i) => {
      // Connections (and a fixed amount of requests) split evenly, the first URLs taking the remainder.
      const share = (total) => Math.floor(total / urls.length) + (i < total % urls.length ? 1 : 0);
      const instance = autocannon({
        url: target,
        connections: share(connections),
        ...(amount === undefined ? { duration } : { amount: share(amount) }),
        headers,
        ...(requestFactory ? { requests: [{ setupRequest: (req) => ({ ...req, ...requestFactory() }) }] } : {}),
      });
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        latencies.push(responseTime);
        lastResponseAt = performance.now();
      });
      return instance;
    }),
  );
  latencies.sort((a, b) => a - b);
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const seconds = amount === undefined ? duration : (lastResponseAt - startedAt) / 1000;
  const line = {
    name,
    connections,
    ...(urls.length > 1 ? { instances: urls.length } : {}),
    requests_per_sec: Math.round(total / seconds),
    p50: round2(percentile(latencies, 50)),
    p95: round2(percentile(latencies, 95)),
    p99: round2(percentile(latencies, 99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
  };
  for (const [label, source] of Object.entries(cpu)) {
    const used = cpuBetween(cpuBefore[label], cpuOf(source));
    // CPU per request: steadier than requests/s when the load generator shares the machine.
    line[`${label}_cpu_ms_per_request`] = used === null ? null : round2(used / total);
  }
  if (!quiet) console.log(JSON.stringify(line));
  return line;
}
