export function generateApiTypes(documentJson: string): Promise<string>;
