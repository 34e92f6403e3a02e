// Screenshot of one dashboard page: node tests/web/screenshot.mjs URL OUT.png [WIDTH HEIGHT]
// Used for the README's picture of a regression page (docs/regression-page.png).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, out, w = '1280', h = '1400'] = process.argv.slice(2);
if (!url || !out) {
	console.error('usage: node tests/web/screenshot.mjs URL OUT.png [WIDTH HEIGHT]');
	process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), 'regtrack-shot-'));
const browser = await chromium.launchPersistentContext(profile, {
	executablePath: '/usr/bin/chromium',
	headless: true,
	viewport: { width: Number(w), height: Number(h) },
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
	const page = await browser.newPage();
	await page.goto(url, { waitUntil: 'networkidle', timeout: 30000 });
	await page.waitForTimeout(500);
	await page.screenshot({ path: out, fullPage: false });
} finally {
	await browser.close();
	rmSync(profile, { recursive: true, force: true });
}
