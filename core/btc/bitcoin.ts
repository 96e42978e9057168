import { defineChain } from '../chain-definition.ts';
import type { Dialect } from '../db/migrate.ts';
import { btcHeadersMigration } from './btc-headers.migration.ts';
import { btcModule } from './btc-module.ts';
import { btcPlatformRuntime, btcRuntime, type BtcListenerSettings, type BtcPlatformSettings } from './btc-runtime.ts';
import { btcListenerSecrets, btcListenerSettingNames, btcListenerShape, btcPlatformSettingNames, btcPlatformShape, parseBtcListenerSettings, parseBtcPlatformSettings } from './btc-settings.ts';
import { btcWatchingMigration } from './btc.migration.ts';
import { btcLightningMigration } from './lightning/lightning.migration.ts';
import './lightning/lightning.tables.ts';
import { startAddressDeriver } from './receive-address-book.ts';

/** Bitcoin, whole: its module, tables, settings, the listener's and the platform's runtime, the address deriver. */
export const bitcoin = defineChain<BtcListenerSettings, BtcPlatformSettings>({
  ...btcModule,
  migrations: (dialect: Dialect) => ({
    '0002_btc_watching': btcWatchingMigration,
    '0020_btc_headers': btcHeadersMigration(dialect),
    '0028_btc_lightning': btcLightningMigration,
  }),
  listener: { settingNames: btcListenerSettingNames, shape: btcListenerShape, parse: parseBtcListenerSettings, secrets: btcListenerSecrets, ...btcRuntime },
  platform: { settingNames: btcPlatformSettingNames, shape: btcPlatformShape, parse: parseBtcPlatformSettings, ...btcPlatformRuntime },
  // Deriving addresses takes CPU: one worker thread for every receiver of the process.
  startWorker: startAddressDeriver,
});
