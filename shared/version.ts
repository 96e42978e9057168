/** Interface version of the listener API (OpenAPI info.version), as the specification fixes it. */
export const API_VERSION = '0.6.0';

/**
 * Version of the contract itself (OpenAPI `x-contract-version`, package.json): backward-compatible
 * additions and deprecations on top of API_VERSION raise it; docs/changelog.md says what changed.
 */
export const CONTRACT_VERSION = '0.11.0';

/**
 * The release, as package.json numbers it: the package carries the contract's version
 * (test/shared/deprecations.test.ts holds the two equal), so it is read from here, never written twice.
 */
export const RELEASE_VERSION = CONTRACT_VERSION;

/** The versions as `service --version` prints them: the release, then the interface and contract it speaks. */
export const VERSION_TEXT = `${RELEASE_VERSION} (interface ${API_VERSION}, contract ${CONTRACT_VERSION})`;
