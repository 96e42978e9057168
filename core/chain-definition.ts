import type { Migration } from 'kysely';
import type * as z from 'zod';
import type { ChainRuntime, PlatformChainRuntime } from './chain-runtime.ts';
import type { Dialect } from './db/migrate.ts';
import type { ChainModule } from './invoices/chain-module.ts';
import type { Logger } from './log.ts';

/** The settings a chain reads, as the process environment gives them. */
export type ChainEnv = Readonly<Record<string, string | undefined>>;

/**
 * How an edition reads one chain's settings: the edition parses `shape` with its own settings (so
 * every refused value is reported in one list, in the settings' order), then `parse` checks the
 * parsed values together.
 */
export interface ChainSettingsParser<Settings> {
  /** Every setting name it reads (the settings check names an unknown one). */
  settingNames: readonly string[];
  /** The zod schema of the settings the edition parses for the chain (none: the chain reads `env` itself). */
  shape: z.ZodRawShape;
  /** The chain's settings from `values` (its shape parsed) and `env`; null when it is off or misconfigured (then `problems` says why). */
  parse(env: ChainEnv, problems: string[], values: Readonly<Record<string, unknown>>): Settings | null;
  /** Values of these settings that must never appear in a log line. */
  secrets?(settings: Settings): string[];
}

/** A process-wide helper a chain shares between its receivers (Bitcoin's address deriver), started on first use. */
export interface ChainWorker {
  close(): void;
}

/**
 * One chain, whole: what the contract, the invoice engine and the checkout page know of it (the
 * ChainModule members), its tables, how the listener and a multi-merchant platform (Cloud) read its
 * settings and run it. The editions are given a list of these and never name a chain.
 */
export interface ChainDefinition<ListenerSettings = any, PlatformSettings = any> extends ChainModule<ListenerSettings> {
  /**
   * The migrations of the chain's tables, by the names databases have recorded. Chains of one family
   * share their tables and return the same migrations under the same names.
   */
  migrations(dialect: Dialect): Record<string, Migration>;
  /** The listener's side: its settings for one merchant, that merchant's receiver and watcher. */
  listener: ChainSettingsParser<ListenerSettings> & ChainRuntime<ListenerSettings>;
  /** A multi-merchant platform's side: the settings every merchant shares, the watchers of all of them. */
  platform: ChainSettingsParser<PlatformSettings> & PlatformChainRuntime<PlatformSettings>;
  /**
   * A check over the listener settings of every chain of the list this chain's family shares (one
   * function for the family, run once): the EVM chains' shared key that enables none of them.
   */
  familyCheck?(env: ChainEnv, family: readonly ChainDefinition[]): string[];
  /** The chain's worker; the engine starts it on first use and closes it at stop. */
  startWorker?(logger: Logger): ChainWorker;
}

/** Typed in one place, so a chain file reads as one object. */
export function defineChain<L, P>(definition: ChainDefinition<L, P>): ChainDefinition<L, P> {
  return definition;
}

/** A chain the list passed in holds under this name. */
export function chainIn<Chain extends { chain: string }>(chains: readonly Chain[], chain: string): Chain {
  const found = chains.find((definition) => definition.chain === chain);
  if (!found) throw new Error(`no chain ${chain} in this service's chains`);
  return found;
}

/** A chain and its settings: what an edition runs of it. */
export interface ConfiguredChain<Settings = unknown> {
  definition: ChainDefinition<any, any>;
  settings: Settings;
}

/** The settings of the configured chain of this name; null when it is not configured. */
export function settingsOf<Settings>(configured: readonly ConfiguredChain[], chain: string): Settings | null {
  return (configured.find((entry) => entry.definition.chain === chain)?.settings as Settings | undefined) ?? null;
}

/** The settings of the configured chains of one family (x402 serves the EVM family), in the list's order. */
export function familySettings<Settings>(configured: readonly ConfiguredChain[], family: string): Settings[] {
  return configured.filter((entry) => entry.definition.facts.family === family).map((entry) => entry.settings as Settings);
}

/** Every listener setting name of the chains, once each. */
export function listenerSettingNames(chains: readonly ChainDefinition[]): string[] {
  return [...new Set(chains.flatMap((chain) => chain.listener.settingNames))];
}

/** The zod shapes of the chains' listener settings, merged: an edition parses them with its own. */
export const listenerSettingsShape = (chains: readonly ChainDefinition[]): z.ZodRawShape => Object.assign({}, ...chains.map((chain) => chain.listener.shape));

/** The zod shapes of the chains' platform settings, merged. */
export const platformSettingsShape = (chains: readonly ChainDefinition[]): z.ZodRawShape => Object.assign({}, ...chains.map((chain) => chain.platform.shape));

/** Every platform setting name of the chains, once each. */
export function platformSettingNames(chains: readonly ChainDefinition[]): string[] {
  return [...new Set(chains.flatMap((chain) => chain.platform.settingNames))];
}

/** The chains the listener settings enable, in the list's order, with their settings; problems appended. */
export function configureListenerChains(chains: readonly ChainDefinition[], env: ChainEnv, problems: string[], values: Readonly<Record<string, unknown>>): ConfiguredChain[] {
  const configured = chains.flatMap((definition) => {
    const settings = definition.listener.parse(env, problems, values);
    return settings === null ? [] : [{ definition, settings }];
  });
  const checks = new Set(chains.map((chain) => chain.familyCheck).filter((check) => check !== undefined));
  for (const check of checks) problems.push(...check(env, chains.filter((chain) => chain.familyCheck === check)));
  return configured;
}

/** The chains a platform's settings enable, in the list's order, with their settings; problems appended. */
export function configurePlatformChains(chains: readonly ChainDefinition[], env: ChainEnv, problems: string[], values: Readonly<Record<string, unknown>>): ConfiguredChain[] {
  return chains.flatMap((definition) => {
    const settings = definition.platform.parse(env, problems, values);
    return settings === null ? [] : [{ definition, settings }];
  });
}
