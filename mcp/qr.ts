import QRCode from 'qrcode';

/** PNG of a payment URI's QR code, made locally: the URI never leaves the machine. */
export async function renderQrPng(uri: string): Promise<Buffer> {
  // Error correction M and a 4-module quiet zone: what wallet scanners read reliably off a screen.
  return QRCode.toBuffer(uri, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 4 });
}
