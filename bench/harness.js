// Shared pieces of the benchmarks that drive a real `recsvc serve` child (bench/social.js;
// bench/run.js can take them too): a free port, waiting for /health, a process's CPU time
// from /proc, and one autocannon run printed as one JSON line with exact percentiles.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
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

/** Resolves once `${base}/health` answers 2xx; throws if `child` exits first or after 30 s. */
export async function waitForHealth(base, child) {
  for (let i = 0; i < 300; i++) {
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

/**
 * One autocannon run against `url`, latencies collected per response so that p95 is exact.
 * `requestFactory` (optional) returns each request's method, path and body; `cpu` names the
 * processes whose CPU per request is reported ({server: pid, ...} → server_cpu_ms_per_request).
 * Prints and returns {name, connections, requests_per_sec, p50, p95, p99, errors, ...}.
 */
export async function measure({ name, url, connections, duration, amount, headers = {}, requestFactory, cpu = {}, quiet = false }) {
  const latencies = [];
  const cpuBefore = Object.fromEntries(Object.entries(cpu).map(([label, pid]) => [label, processCpuMs(pid)]));
  const instance = autocannon({
    url,
    connections,
    ...(amount === undefined ? { duration } : { amount }),
    headers,
    ...(requestFactory ? { requests: [{ setupRequest: (req) => ({ ...req, ...requestFactory() }) }] } : {}),
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const line = {
    name,
    connections,
    requests_per_sec: Math.round(result.requests.total / (amount === undefined ? duration : result.duration)),
    p50: round2(percentile(latencies, 50)),
    p95: round2(percentile(latencies, 95)),
    p99: round2(percentile(latencies, 99)),
    errors: result.errors + result.timeouts + result.non2xx,
  };
  for (const [label, pid] of Object.entries(cpu)) {
    const before = cpuBefore[label];
    // CPU per request: steadier than requests/s when the load generator shares the machine.
    line[`${label}_cpu_ms_per_request`] = before === null ? null : round2((processCpuMs(pid) - before) / result.requests.total);
  }
  if (!quiet) console.log(JSON.stringify(line));
  return line;
}
