/**
 * A spreadsheet runs a cell starting with `=`, `+`, `-` or `@` (or a tab or carriage return before
 * one) as a formula: such a cell gets a leading `'`, which spreadsheets show as text (OWASP's advice
 * on CSV injection). An order id "-42" is exported as "'-42".
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF, quotes doubled; null is empty. */
function csvField(value: string | null): string {
  if (value === null) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One RFC 4180 record, CRLF-terminated. */
export const csvLine = (fields: readonly (string | null)[]): string => `${fields.map(csvField).join(',')}\r\n`;
