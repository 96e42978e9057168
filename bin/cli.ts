// The `service` command: the listener's commands, with `start --cloud` from the Cloud edition.
// An entry point of its own, so the listener edition never imports Cloud. Cloud's setting names are
// imported only when `start` is given an unknown flag (to name the setting meant), its application only for
// `start --cloud`: no other command, and not the listener, pays for them. The chains are the
// default list (core/chains/default-chains.ts), imported when a command reads its settings.
import { main } from '../listener/cli/index.ts';

const chains = async () => (await import('../core/chains/default-chains.ts')).defaultChains;

process.exitCode = await main(process.argv.slice(2), async () => ({
  chains,
  runCloud: async () => (await import('../cloud/cli/start-cloud.ts')).runCloud(await chains()),
  cloudSettingNames: async () => (await import('../cloud/cloud-config.ts')).cloudSettingNames(await chains()),
}));
