import { startListener } from '../app.ts';
import { ConfigError, loadConfig, readEnvironment } from '../config.ts';
import type { Command } from './command.ts';

export const startCommand: Command = {
  name: 'start',
  summary: 'Start the listener (settings from the environment and ./.env)',
  usage: `
Usage: service start

Starts the listener. Settings come from environment variables, then from ./.env (the environment
wins). The default database is SQLite at ./data/service.db. See the README for every setting.
Stops cleanly on SIGINT/SIGTERM.`,
  async run() {
    let config;
    try {
      config = loadConfig(readEnvironment(process.env));
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
        return 1;
      }
      throw error;
    }
    const listener = await startListener(config);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await listener.stop();
    return 0;
  },
};
