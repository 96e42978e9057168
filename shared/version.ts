/** Interface version of the listener API (OpenAPI info.version). */
export const API_VERSION = '0.6.0';
