// Renders resources/icon.svg to resources/icon.png, the 1024×1024 image electron-builder turns into the
// Windows .ico, the macOS .icns and the Linux icons. Run after changing the SVG:
//   npm run build && node out/scripts/render-icon.js
// It draws with Debian's Chromium through playwright-core (set CHROMIUM_PATH for another Chromium).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { pngInfo } from './png-info.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SIZE = 1024;
// Apple's app icon grid: the rounded square spans 824 of 1024 pixels, so the icon sits among other macOS
// icons at the same size; Windows and Linux scale the same image down.
const BODY = 824;

async function render(svgFile: string, pngFile: string): Promise<void> {
  const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}; install it (apt-get install chromium) or set CHROMIUM_PATH`);
  const svg = readFileSync(svgFile).toString('base64');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
    const offset = (SIZE - BODY) / 2;
    await page.setContent(
      `<!doctype html><html><body style="margin:0;background:transparent">` +
        `<img src="data:image/svg+xml;base64,${svg}" style="position:absolute;left:${offset}px;top:${offset}px;width:${BODY}px;height:${BODY}px">` +
        `</body></html>`,
    );
    await page.locator('img').evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode());
    await page.screenshot({ path: pngFile, omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
  } finally {
    await browser.close();
  }
  const info = pngInfo(readFileSync(pngFile));
  if (info.width !== SIZE || info.height !== SIZE || !info.alpha) throw new Error(`${pngFile} came out ${info.width}×${info.height}${info.alpha ? '' : ' without alpha'}`);
  process.stdout.write(`wrote ${pngFile} (${SIZE}×${SIZE}, transparent corners)\n`);
}

await render(join(REPO, 'resources', 'icon.svg'), join(REPO, 'resources', 'icon.png'));
