import QRCode from 'qrcode';

/**
 * The payment URI's QR code as an SVG element, made here: the URI never goes to an image service.
 * A 4-module quiet zone is what the QR standard asks for; level M matches the MCP server's PNG.
 */
export function renderQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
