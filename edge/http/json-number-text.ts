import { JSON_NUMBER } from '../../shared/index.ts';

/**
 * The exact source text of every top-level numeric field of a JSON object, by key.
 *
 * JSON.parse turns numbers into doubles, and Node 20 has no access to the source text, so
 * "10.000000000000000001" would silently become 10. Money must not be rounded behind the
 * caller's back, so the HTTP edge recovers the digits the client sent, once, next to JSON.parse.
 * The input must already have passed JSON.parse (it is well-formed); as with JSON.parse, the
 * last occurrence of a duplicated key wins. A key whose value is not a number is absent.
 */
export function topLevelNumberTexts(json: string): Map<string, string> {
  const texts = new Map<string, string>();
  let i = skipWhitespace(json, 0);
  if (json[i] !== '{') return texts;
  i = skipWhitespace(json, i + 1);
  while (json[i] === '"') {
    const keyEnd = endOfString(json, i);
    const key = JSON.parse(json.slice(i, keyEnd)) as string;
    i = skipWhitespace(json, keyEnd) + 1; // past ':'
    i = skipWhitespace(json, i);
    const valueEnd = endOfValue(json, i);
    const text = json.slice(i, valueEnd);
    if (JSON_NUMBER.test(text)) texts.set(key, text);
    else texts.delete(key);
    i = skipWhitespace(json, valueEnd);
    if (json[i] !== ',') break;
    i = skipWhitespace(json, i + 1);
  }
  return texts;
}

function skipWhitespace(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  return i;
}

/** `i` is at an opening quote; returns the index just past the closing quote. */
function endOfString(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  return s.length;
}

function endOfValue(s: string, i: number): number {
  if (s[i] === '"') return endOfString(s, i);
  if (s[i] === '{' || s[i] === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === '"') j = endOfString(s, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return s.length;
  }
  let j = i;
  while (j < s.length && !',}] \t\n\r'.includes(s[j])) j++;
  return j;
}
