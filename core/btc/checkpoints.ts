import { GENESIS_CHECKPOINT, type Checkpoint } from './header-chain.ts';
import type { BtcNetwork } from '../../shared/index.ts';

/**
 * Where each network's header chain is trusted from: the last entry of Electrum's
 * `electrum/chains/<network>/checkpoints.json` (github.com/spesmilo/electrum, commit
 * 9ebabef3839e37af2fce13dc016bc9491da781ad, 2026-07-01). Entry i is the hash of block
 * 2016·i + 2015, the last block of retarget interval i. Refreshing for a release is described in
 * docs/security.md ("Refreshing the checkpoints"); `takenAt` is that commit's date, from which
 * /health warns once the checkpoint is old (verified-headers.ts, CHECKPOINT_WARN_DAYS).
 */
export const checkpoints: Record<BtcNetwork, Checkpoint> = {
  mainnet: { height: 953_567, hash: '00000000000000000001b315e72169bef4867bf780527aa97c625ee9c001dc5d', takenAt: '2026-07-01' },
  // testnet3, which mempool.space/testnet serves.
  testnet: { height: 5_011_775, hash: '000000000000041b511bf0b926371d5045f70bbc30d36b66f1c84ed30d765886', takenAt: '2026-07-01' },
  signet: { height: 308_447, hash: '0000000fce481bd689af96794ea36ad8e80bc4635f068104aeff53bc17326ecf', takenAt: '2026-07-01' },
  // A private chain: nothing to trust it from but its own genesis block.
  regtest: GENESIS_CHECKPOINT,
};
