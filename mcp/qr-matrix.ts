import QRCode from 'qrcode';

/** A QR code's modules row by row (1 = dark), and the data mask it was drawn with. */
export interface QrMatrix {
  size: number;
  modules: Uint8Array;
  mask: number;
}

// The 15 format bits for error correction level M and each mask 0..7 (ISO/IEC 18004, table C.1).
const FORMAT_BITS_M = [0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0];

const MASKS: ((row: number, col: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r * c) % 3) + ((r + c) % 2)) % 2 === 0,
];

/**
 * The QR code (level M) of a text, encoded as one byte segment, with the mask of lowest penalty.
 * Same modules as `qrcode` draws for that segment, for a third of the time: `qrcode` picks the mask
 * by drawing, scoring and undoing each of the eight through per-module method calls, most of the QR
 * code's cost. Here `qrcode` builds the symbol once with mask 0, and the eight candidates are scored
 * over a flat array with the same penalty rules.
 * One byte segment: `qrcode`'s search for the cheapest mix of modes cost more than everything else
 * together, for at most one version less (a Base payment URI: 45 modules instead of 49; a Bitcoin
 * one: the same 37).
 */
export function qrMatrix(text: string): QrMatrix {
  const symbol = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M', maskPattern: 0 });
  const { size, data, reservedBit } = symbol.modules;
  const patterns = maskPatterns(size, reservedBit);
  const unmasked = new Uint8Array(data.length);
  xorInto(unmasked, data, patterns[0]!);
  const candidate = new Uint8Array(data.length);
  const best = new Uint8Array(data.length);
  let bestMask = 0;
  let lowest = Infinity;
  for (let mask = 0; mask < patterns.length; mask++) {
    xorInto(candidate, unmasked, patterns[mask]!);
    placeFormatBits(candidate, size, FORMAT_BITS_M[mask]!);
    const score = penalty(candidate, size);
    // Strictly lower: on a tie the first mask wins, as in qrcode.
    if (score < lowest) {
      lowest = score;
      bestMask = mask;
      best.set(candidate);
    }
  }
  return { size, modules: best, mask: bestMask };
}

// A plain loop into a reused array: TypedArray map() and fresh arrays were most of the cost.
function xorInto(out: Uint8Array, modules: Uint8Array, pattern: Uint8Array): void {
  for (let i = 0; i < out.length; i++) out[i] = modules[i]! ^ pattern[i]!;
}

// Which modules each mask flips, by symbol size: the function patterns a mask leaves alone depend on
// the version alone, so one set serves every code of that size (at most 40 sizes exist).
const patternsBySize = new Map<number, Uint8Array[]>();

function maskPatterns(size: number, reserved: Uint8Array): Uint8Array[] {
  let patterns = patternsBySize.get(size);
  if (!patterns) {
    patterns = MASKS.map((flips) => {
      const pattern = new Uint8Array(size * size);
      for (let i = 0; i < pattern.length; i++) {
        pattern[i] = !reserved[i] && flips(Math.floor(i / size), i % size) ? 1 : 0;
      }
      return pattern;
    });
    patternsBySize.set(size, patterns);
  }
  return patterns;
}

// Where qrcode puts the format bits: bit i once along column 8 and once along row 8.
function placeFormatBits(modules: Uint8Array, size: number, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const bit = (bits >> i) & 1;
    const vertical = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    const horizontal = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 14 - i;
    modules[vertical * size + 8] = bit;
    modules[8 * size + horizontal] = bit;
  }
}

/**
 * The four penalty rules as qrcode scores them: runs of 5 or more in a line, 2x2 blocks of one colour,
 * finder-like 1:1:3:1:1 patterns, and the dark share's distance from half. Written without branches
 * on module values where it can: those are random, and mispredicted branches were half the time.
 */
function penalty(modules: Uint8Array, size: number): number {
  let points = 0;
  let dark = 0;
  for (let a = 0; a < size; a++) {
    // Row a and column a in one pass.
    let rowRun = 0;
    let colRun = 0;
    let rowLast = 0;
    let colLast = 0;
    let rowBits = 0;
    let colBits = 0;
    for (let b = 0; b < size; b++) {
      const inRow = modules[a * size + b]!;
      const inCol = modules[b * size + a]!;
      dark += inRow;
      // A run scores 3 when it reaches 5 modules, then 1 for each module more.
      rowRun = rowRun * (inRow ^ rowLast ^ 1) + 1;
      colRun = colRun * (inCol ^ colLast ^ 1) + 1;
      rowLast = inRow;
      colLast = inCol;
      points += atLeast5(rowRun) + 2 * is5(rowRun) + atLeast5(colRun) + 2 * is5(colRun);
      rowBits = ((rowBits << 1) & 0x7ff) | inRow;
      colBits = ((colBits << 1) & 0x7ff) | inCol;
      if (b >= 10 && (rowBits === 0x5d0 || rowBits === 0x05d)) points += 40;
      if (b >= 10 && (colBits === 0x5d0 || colBits === 0x05d)) points += 40;
    }
  }
  let blocks = 0;
  for (let top = 0; top < size * (size - 1); top += size) {
    let left = modules[top]! + modules[top + size]!;
    for (let col = 1; col < size; col++) {
      const right = modules[top + col]! + modules[top + size + col]!;
      blocks += is0(left + right) | is0(4 - left - right);
      left = right;
    }
  }
  return points + 3 * blocks + Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10) * 10;
}

// 1 or 0 without a branch, for small non-negative counts.
const is0 = (n: number) => (n - 1) >>> 31;
const is5 = (n: number) => is0(n ^ 5);
const atLeast5 = (n: number) => (4 - n) >>> 31;
