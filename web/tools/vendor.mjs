// Copies the pinned front-end packages' browser files from node_modules/
// (installed by `npm ci` from package-lock.json) into vendor/, which the
// server serves as plain files: no build step, no CDN.
//
//   node tools/vendor.mjs           copy (after `npm ci`)
//   node tools/vendor.mjs --check   exit 1 when vendor/ differs from node_modules/
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = dirname(dirname(fileURLToPath(import.meta.url)));
const files = [
	['node_modules/uplot/dist/uPlot.esm.js', 'vendor/uPlot.esm.js'],
	['node_modules/uplot/dist/uPlot.min.css', 'vendor/uPlot.min.css'],
	['node_modules/uplot/LICENSE', 'vendor/uPlot.LICENSE'],
];
const check = process.argv.includes('--check');
let bad = 0;

mkdirSync(join(web, 'vendor'), { recursive: true });
for (const [from, to] of files) {
	const src = join(web, from);
	if (!existsSync(src)) {
		console.error(`vendor: ${from} is missing: run 'npm ci' in web/ first`);
		process.exit(2);
	}
	const data = readFileSync(src);
	const dst = join(web, to);
	if (check) {
		if (!existsSync(dst) || !readFileSync(dst).equals(data)) {
			console.error(`vendor: ${to} differs from ${from}: run 'npm run vendor' in web/`);
			bad = 1;
		}
	} else {
		writeFileSync(dst, data);
	}
}
process.exit(bad);
