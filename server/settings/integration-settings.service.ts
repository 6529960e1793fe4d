/**
 * The deployment's integration settings (admin only), stored in `integration_settings`
 * and kept in memory. A value never set shows its startup value (RECSVC_DEFAULT_INSTANCE,
 * RECSVC_CORS_ORIGINS) or the spec's default (the gates).
 *
 * When each takes effect (`applied` in the response): a setting whose consumer subscribed
 * with `onChange` (features.ts says which, `live`) applies at once; the others when the
 * service next starts and reads them with `load()`. `cors_origins` is always at restart:
 * the CORS plugin is configured once, before any route.
 *
 * Values are checked before anything is stored: hosts as the service would connect to
 * them (the SSRF rules of server/platform/social), origins in their exact `scheme://host[:port]`
 * form; each bad value is a 400 naming it (`allowed_instances[2]`).
 */
import type { Kysely } from 'kysely';
import { ValidationError } from '../../src/errors.js';
import {
  DEFAULT_INTEGRATION_VALUES,
  type IntegrationSettings,
  type IntegrationSettingsPatch,
  type IntegrationValues,
} from '../../src/settings/settings.schema.js';
import type { Database } from '../platform/db/database.js';
import { InstanceAddressError, parseInstanceAddress } from '../platform/social/social.service.js';
import { listIntegrationSettings, upsertIntegrationSettings, type IntegrationSettingRow } from './settings.repository.js';

type IntegrationName = keyof IntegrationValues;

const NAMES = Object.keys(DEFAULT_INTEGRATION_VALUES) as IntegrationName[];

export interface IntegrationSettingsDeps {
  db: Kysely<Database>;
  /** The values the deployment started with (from its configuration). */
  startup?: Partial<Pick<IntegrationValues, 'default_instance' | 'cors_origins'>>;
  /** RECSVC_ALLOW_INSECURE_INSTANCES: hosts are checked by the same rule as X-Social-Instance. */
  allowInsecureInstances?: boolean;
  /** Settings whose consumers apply a change at once (they subscribe with `onChange`). */
  live?: ReadonlyArray<Exclude<IntegrationName, 'cors_origins'>>;
  now?: () => number;
}

/** Called with the effective values at load and after every change. */
export type IntegrationListener = (values: IntegrationValues) => void;

export class IntegrationSettingsService {
  private values: IntegrationValues;
  private updatedAtMs: number | undefined;
  private readonly listeners: IntegrationListener[] = [];
  private readonly now: () => number;

  constructor(private readonly deps: IntegrationSettingsDeps) {
    this.now = deps.now ?? Date.now;
    this.values = { ...DEFAULT_INTEGRATION_VALUES, ...deps.startup };
  }

  /** Reads the stored values (call once at start, before serving). */
  async load(): Promise<IntegrationValues> {
    const rows = await listIntegrationSettings(this.deps.db);
    const stored: Partial<Record<IntegrationName, unknown>> = {};
    for (const row of rows) if (row.name in DEFAULT_INTEGRATION_VALUES) stored[row.name as IntegrationName] = JSON.parse(row.value);
    this.values = { ...DEFAULT_INTEGRATION_VALUES, ...this.deps.startup, ...(stored as Partial<IntegrationValues>) };
    this.updatedAtMs = rows.length === 0 ? undefined : Math.max(...rows.map((row) => Number(row.updated_at_ms)));
    this.notify();
    return this.values;
  }

  /** The effective values (stored, else startup, else default). */
  current(): IntegrationValues {
    return this.values;
  }

  /** The response of GET and PATCH. */
  view(): IntegrationSettings {
    return {
      ...this.values,
      applied: {
        live: NAMES.filter((name) => this.isLive(name)),
        at_restart: NAMES.filter((name) => !this.isLive(name)),
      },
      updated_at: this.updatedAtMs === undefined ? null : new Date(this.updatedAtMs).toISOString(),
    };
  }

  /** Subscribes to changes; the listener is called at once with the current values. */
  onChange(listener: IntegrationListener): void {
    this.listeners.push(listener);
    listener(this.values);
  }

  /** Validates and stores the given settings (omitted ones keep their value). */
  async update(patch: IntegrationSettingsPatch, updatedBy: string | null): Promise<IntegrationSettings> {
    const next: Partial<IntegrationValues> = {};
    if (patch.default_instance !== undefined) {
      next.default_instance = patch.default_instance === null ? null : this.host(patch.default_instance, 'default_instance');
    }
    if (patch.allowed_instances !== undefined) {
      const hosts = patch.allowed_instances.map((host, index) => this.host(host, `allowed_instances[${index}]`));
      next.allowed_instances = [...new Set(hosts)];
    }
    if (patch.cors_origins !== undefined) {
      next.cors_origins = patch.cors_origins === '*' ? '*' : patch.cors_origins.map((origin, index) => checkOrigin(origin, index));
    }
    if (patch.gate_thresholds !== undefined) next.gate_thresholds = { ...this.values.gate_thresholds, ...patch.gate_thresholds };
    const merged = { ...this.values, ...next };
    if (
      merged.default_instance !== null &&
      merged.allowed_instances.length > 0 &&
      !merged.allowed_instances.includes(merged.default_instance)
    ) {
      throw new ValidationError(
        `default_instance ${merged.default_instance} is not among allowed_instances: add it, or choose one of them`,
        'default_instance',
      );
    }
    const nowMs = this.now();
    const rows: IntegrationSettingRow[] = Object.entries(next).map(([name, value]) => ({
      name,
      value: JSON.stringify(value),
      updated_at_ms: nowMs,
      updated_by: updatedBy,
    }));
    await upsertIntegrationSettings(this.deps.db, rows);
    if (rows.length > 0) {
      this.values = merged;
      this.updatedAtMs = nowMs;
      this.notify();
    }
    return this.view();
  }

  private isLive(name: IntegrationName): boolean {
    return (this.deps.live ?? []).some((live) => live === name);
  }

  private host(value: string, field: string): string {
    try {
      return parseInstanceAddress(value.trim(), { allowInsecure: this.deps.allowInsecureInstances === true }).host;
    } catch (error) {
      if (!(error instanceof InstanceAddressError)) throw error;
      throw new ValidationError(`${field} must be an instance host name such as mastodon.social: ${error.message}`, field);
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener(this.values);
  }
}

/** An origin exactly as browsers send it: `scheme://host[:port]`, nothing more (the rule of RECSVC_CORS_ORIGINS). */
function checkOrigin(origin: string, index: number): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
    throw new ValidationError(
      `cors_origins[${index}] must be an origin such as https://elk.zone (scheme, host and port only), got "${origin}"`,
      `cors_origins[${index}]`,
    );
  }
  return origin;
}
