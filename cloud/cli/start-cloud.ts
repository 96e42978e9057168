import { STOP_GRACE_MS, stopSignal } from '../../listener/cli/start.ts';
import { ConfigError, readEnvironment } from '../../listener/config.ts';
import { startCloud } from '../cloud-app.ts';
import { loadCloudConfig } from '../cloud-config.ts';

/** `service start --cloud`: the multi-tenant API under /api/v1 (docs/cloud.md). */
export async function runCloud(): Promise<number> {
  const signal = stopSignal();
  let config;
  try {
    config = loadCloudConfig(readEnvironment(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const cloud = await startCloud(config);
  signal.started();
  await signal.requested;
  await cloud.stop({ graceMs: STOP_GRACE_MS });
  return 0;
}
