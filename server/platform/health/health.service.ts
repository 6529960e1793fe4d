/** Measurements behind the health endpoints. */

export interface ComponentHealth {
  status: 'connected' | 'error';
  latency_ms: number;
  message?: string;
}

/** One social instance as the instances component shows it (the social feature supplies them). */
export interface InstanceHealthReading {
  instance: string;
  status: 'up' | 'down';
  requests: number;
  errors: number;
  last_error?: string;
  down_since?: string;
}

/** One real database round trip and its latency (as the database handle measured it). */
export async function checkDatabase(ping: () => Promise<number>): Promise<ComponentHealth> {
  const started = process.hrtime.bigint();
  try {
    return { status: 'connected', latency_ms: round2(await ping()) };
  } catch (error) {
    return { status: 'error', latency_ms: elapsedMs(started), message: (error as Error).message };
  }
}

/** A Redis check that never throws nor waits past the connection's command timeout (server/platform/redis). */
export async function checkRedis(ping: () => Promise<ComponentHealth>): Promise<ComponentHealth> {
  try {
    return await ping();
  } catch (error) {
    return { status: 'error', latency_ms: 0, message: (error as Error).message };
  }
}

let lastCpu = process.cpuUsage();
let lastCpuAt = process.hrtime.bigint();

/** Uptime, resident memory and CPU use since the previous call (whole process). */
export function processStats(): { uptime_seconds: number; memory_usage_mb: number; cpu_percent: number } {
  const now = process.hrtime.bigint();
  const cpu = process.cpuUsage(lastCpu);
  const wallMicros = Number(now - lastCpuAt) / 1000;
  lastCpu = process.cpuUsage();
  lastCpuAt = now;
  const cpuPercent = wallMicros > 0 ? ((cpu.user + cpu.system) / wallMicros) * 100 : 0;
  return {
    uptime_seconds: Math.floor(process.uptime()),
    memory_usage_mb: round2(process.memoryUsage().rss / 1_048_576),
    cpu_percent: round2(cpuPercent),
  };
}

function elapsedMs(started: bigint): number {
  return round2(Number(process.hrtime.bigint() - started) / 1e6);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
