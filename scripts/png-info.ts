// Just enough of PNG to check a rendered icon: its size, whether it has an alpha channel, and the
// first pixel (which is the same whatever filter its row uses, because there is nothing before it).
import { inflateSync } from 'node:zlib';

export interface PngInfo {
  width: number;
  height: number;
  alpha: boolean;
  /** RGBA of the top-left pixel, for 8-bit RGBA images; null otherwise. */
  topLeft: [number, number, number, number] | null;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function pngInfo(png: Buffer): PngInfo {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colorType = 0;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      bitDepth = body[8] ?? 0;
      colorType = body[9] ?? 0;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const alpha = colorType === 4 || colorType === 6;
  let topLeft: PngInfo['topLeft'] = null;
  if (colorType === 6 && bitDepth === 8 && data.length > 0) {
    const raw = inflateSync(Buffer.concat(data));
    // raw[0] is the first row's filter byte; the first pixel follows unchanged by any filter.
    topLeft = [raw[1] ?? 0, raw[2] ?? 0, raw[3] ?? 0, raw[4] ?? 0];
  }
  return { width, height, alpha, topLeft };
}
