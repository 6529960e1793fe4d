/**
 * Reading an experiment from the server for commands that need its design
 * (`bucket`, `gates check`): checked just enough that a wrong server fails with a
 * clear line instead of a TypeError.
 */
import { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import { EXIT } from './exit-codes.js';

/** The fields of a served experiment the CLI relies on. */
export interface RemoteExperiment {
  id: number;
  name: string;
  description?: string;
  status: string;
  traffic_percentage: number;
  minimum_sample_size: number;
  confidence_level: number;
  primary_metric?: string;
  gates?: Record<string, number | undefined>;
  variants: Array<{ id?: number; name: string; traffic_allocation: number; is_control: boolean; blocked?: boolean }>;
  created_at?: string;
  started_at?: string | null;
}

/** GET /api/v1/analytics/experiments/{id}. */
export async function fetchExperiment(client: ApiClient, id: number | string): Promise<RemoteExperiment> {
  const experiment = await client.get<RemoteExperiment>(ApiClient.experimentsPath(id));
  if (!experiment || !Array.isArray(experiment.variants)) {
    throw new CliError(`the server's experiment ${id} has no variants list: is ${client.baseUrl} a recsvc server?`, EXIT.server);
  }
  return experiment;
}
