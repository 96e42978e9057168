// Types of the whole API from the OpenAPI document, with openapi-typescript. `npm run generate` at
// the repository root calls this (scripts/generate-docs.ts), so api.d.ts never falls behind the contract.
import openapiTS, { astToString } from 'openapi-typescript';

/** The text of api.d.ts for the OpenAPI document given as JSON text. */
export async function generateApiTypes(documentJson) {
  const ast = await openapiTS(documentJson);
  return `// Generated from openapi/openapi.json by openapi-typescript (npm run generate). Do not edit.\n${astToString(ast)}`;
}
