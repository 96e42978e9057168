import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { qrMatrix } from '../../mcp/qr-matrix.ts';
import { renderQrPng } from '../../mcp/qr.ts';

// jsqr is CommonJS whose module.exports is the function and also carries it as `default`;
// its typings only know the latter.
const jsQR = jsQRModule.default;

const btcUri = (n: number) => `bitcoin:bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wl${n % 10}h?amount=0.${String(n).padStart(8, '0')}`;
const baseUri = (n: number) =>
  `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x${(n * 7919).toString(16).padStart(40, '0')}&uint256=${n * 12345}`;

// URIs for which qrcode's own scoring picks mask 0, 2, 3, 4, 5, 6 and 7, so that every mask's
// pattern and format bits meet the comparison below (qrcode picks mask 1 for none of these shapes).
const URI_BY_MASK: Record<number, string> = {
  0: baseUri(176),
  2: btcUri(0),
  3: btcUri(12),
  4: baseUri(2),
  5: btcUri(1),
  6: btcUri(198),
  7: btcUri(3817),
};

test('the QR matrix is the one qrcode draws for the same byte segment, its choice of mask included', () => {
  const uris = [...Object.values(URI_BY_MASK), ...Array.from({ length: 60 }, (_, n) => btcUri(5000 + n)), ...Array.from({ length: 60 }, (_, n) => baseUri(300 + n))];
  for (const uri of uris) {
    const reference = QRCode.create([{ data: Buffer.from(uri, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
    const matrix = qrMatrix(uri);
    assert.equal(matrix.size, reference.modules.size, uri);
    assert.equal(matrix.mask, reference.maskPattern, uri);
    assert.deepEqual(Buffer.from(matrix.modules), Buffer.from(reference.modules.data), uri);
  }
  for (const [mask, uri] of Object.entries(URI_BY_MASK)) assert.equal(qrMatrix(uri).mask, Number(mask), uri);
});

/** The PNG read by hand: chunks, header fields and the inflated 1-bit rows. */
function readPng(png: Buffer) {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    chunks.push({ type: png.toString('latin1', at + 4, at + 8), data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  assert.deepEqual(chunks.map((c) => c.type), ['IHDR', 'IDAT', 'IEND']);
  const header = chunks[0]!.data;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  assert.deepEqual([...header.subarray(8)], [1, 0, 0, 0, 0], 'bit depth 1, grayscale, no interlace');
  const raw = inflateSync(chunks[1]!.data);
  const rowBytes = 1 + Math.ceil(width / 8);
  assert.equal(raw.length, rowBytes * height);
  const dark = (x: number, y: number) => {
    assert.equal(raw[y * rowBytes], 0, 'filter type None');
    return ((raw[y * rowBytes + 1 + (x >> 3)]! >> (7 - (x & 7))) & 1) === 0;
  };
  return { width, height, dark };
}

test('the QR PNG draws the matrix at 4 px a module inside a 4-module quiet zone, and a reader decodes the URI', () => {
  for (const uri of [btcUri(12345), baseUri(42)]) {
    const png = renderQrPng(uri);
    const { size, modules } = qrMatrix(uri);
    const image = readPng(png);
    assert.equal(image.width, (size + 8) * 4);
    assert.equal(image.height, image.width);
    for (let y = 0; y < image.height; y++) {
      for (let x = 0; x < image.width; x++) {
        const row = Math.floor(y / 4) - 4;
        const col = Math.floor(x / 4) - 4;
        const inside = row >= 0 && row < size && col >= 0 && col < size;
        assert.equal(image.dark(x, y), inside && modules[row * size + col] === 1, `pixel ${x},${y} of ${uri}`);
      }
    }
    // An independent decoder (CRCs checked) and QR reader agree.
    const decoded = PNG.sync.read(png);
    assert.equal(jsQR(new Uint8ClampedArray(decoded.data), decoded.width, decoded.height)?.data, uri);
  }
});
