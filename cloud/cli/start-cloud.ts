import { ConfigError, readEnvironment } from '../../listener/config.ts';
import { startCloud } from '../cloud-app.ts';
import { loadCloudConfig } from '../cloud-config.ts';

/** `service start --cloud`: the multi-tenant API under /api/v1 (docs/cloud.md). */
export async function runCloud(): Promise<number> {
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
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await cloud.stop();
  return 0;
}
