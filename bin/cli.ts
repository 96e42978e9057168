// The `service` command: the listener's commands, with `start --cloud` from the Cloud edition.
// An entry point of its own, so the listener edition never imports Cloud.
import { runCloud } from '../cloud/cli/start-cloud.ts';
import { cloudSettingNames } from '../cloud/cloud-config.ts';
import { main } from '../listener/cli/index.ts';

process.exitCode = await main(process.argv.slice(2), { runCloud, cloudSettingNames });
