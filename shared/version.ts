/** Interface version of the listener API (OpenAPI info.version), as the specification fixes it. */
export const API_VERSION = '0.6.0';

/**
 * Version of the contract itself (OpenAPI `x-contract-version`, package.json): backward-compatible
 * additions and deprecations on top of API_VERSION raise it; docs/changelog.md says what changed.
 */
export const CONTRACT_VERSION = '0.8.0';
