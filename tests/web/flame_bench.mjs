// make bench's flame graph figure: load -> drawn in Debian's chromium of the
// profile diff page part (web/js/flame.js) for FLAME_STACKS (default 10^5)
// distinct stacks a side (tests/web/flamegen.mjs, fixed seed), beside a
// baseline measured in the same run: a uPlot chart of as many points (the
// series page's library) fetched and drawn the same way. Also: merging
// alone, and a zoom click and a search on the large graph. A tiny local
// HTTP server serves web/ and the generated reply (the figure is the
// browser's, not the server's). Prints one JSON object on stdout.
//
// "Freezes" means: a main-thread task longer than 200 ms (input then waits
// longer than the "good" bound of Interaction to Next Paint); the longest
// task of each load is reported.
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { genFolded, lcg } from './flamegen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, '..', '..', 'web');
const N = Number(process.env.FLAME_STACKS || 100000);
const REPS = Number(process.env.BENCH_REPS || 5);

const t0 = Date.now();
const g = genFolded(N);
const samples = (t) => t.split('\n').reduce((s, l) => s + (Number(l.slice(l.lastIndexOf(' ') + 1)) || 0), 0);
const symbols = Array.from({ length: 200 }, (_, i) => ({ symbol: `fn_${i}`, base_children_pct: 10 - i * 0.04,
	head_children_pct: 10 - i * 0.05, children_change: -i * 0.01, base_self_pct: 1, head_self_pct: 1, self_change: 0,
	p: 0.01, significant: i < 10 }));
const reply = Buffer.from(JSON.stringify({ base: { commit: 'b'.repeat(40), runs: 3, samples: samples(g.base) },
	head: { commit: 'h'.repeat(40), runs: 3, samples: samples(g.head) }, symbols, folded: g }));
const rnd = lcg(7);
const pts = (n) => {
	const x = Array.from({ length: n }, (_, i) => i), y = x.map(() => 250000 * (1 + (rnd() - 0.5) * 0.03));
	return Buffer.from(JSON.stringify({ x, y }));
};
const points = pts(N);
console.error(`flame bench: ${N} stacks a side, reply ${(reply.length / 1e6).toFixed(1)} MB, generated in ${Date.now() - t0} ms`);

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.json': 'application/json' };
const srv = createServer((req, res) => {
	const u = new URL(req.url, 'http://x');
	const send = (code, type, body) => {
		res.writeHead(code, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': 'no-store' });
		res.end(body);
	};
	if (u.pathname === '/api/v1/profile-diff')
		return send(200, 'application/json', reply);
	if (u.pathname === '/bench/points')
		return send(200, 'application/json', points);
	const root = u.pathname.startsWith('/bench/') ? here : web;
	const file = normalize(join(root, u.pathname));
	if (!file.startsWith(root) || !existsSync(file))
		return send(404, 'text/plain', Buffer.from('not found'));
	return send(200, TYPES[extname(file)] || 'application/octet-stream', readFileSync(file));
});
await new Promise((r) => srv.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${srv.address().port}`;
if (process.env.FLAME_SERVE) {
	// for work by hand: serve until killed
	console.error(`serving ${base}/bench/flame.html?what=flame`);
	await new Promise(() => {});
}
const profile = mkdtempSync(join(tmpdir(), 'regtrack-flame-bench-'));
const ctx = await chromium.launchPersistentContext(profile, {
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
		'--disable-component-update', '--disable-sync'],
	viewport: { width: 1400, height: 900 }, timeout: 60000,
});
const page = ctx.pages()[0] || await ctx.newPage();
page.setDefaultTimeout(120000);
page.on('pageerror', (e) => console.error('page error:', String(e)));
page.on('console', (m) => m.type() === 'error' && console.error('console:', m.text()));
async function load(what) {
	await page.goto(`${base}/bench/flame.html?what=${what}&points=${N}`);
	await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 120000 });
	return JSON.parse(await page.evaluate(() => document.body.dataset.result));
}
// the time of one interaction on the drawn graph, and the longest task it made
async function interact(fn) {
	return page.evaluate(async (src) => {
		const long = [];
		const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e.duration)));
		obs.observe({ type: 'longtask' });
		const fg = document.querySelector('.flame').flame;
		const t = performance.now();
		(new Function('fg', src))(fg);
		await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
		const ms = performance.now() - t;
		await new Promise((r) => setTimeout(r, 200));
		obs.disconnect();
		return { ms, longest_task_ms: Math.max(0, ...long) };
	}, fn);
}
const out = { stacks: N, reply_bytes: reply.length, flame: [], uplot: [], parse: [], zoom: [], search: [] };
try {
	for (let i = 0; i < REPS; i++) {
		// interleaved, so a noisy neighbour hits figure and baseline alike
		out.flame.push(await load('flame'));
		out.nodes = await page.evaluate(() => document.querySelector('.flame').flame.tree.n);
		// zoom into the widest frame above the root, then search
		out.zoom.push(await interact(`const f = fg.frames().filter((x) => x.depth === 1).sort((a, b) => b.w - a.w)[0];
			fg.zoomTo(f.id);`));
		out.search.push(await interact(`fg.zoomTo(0); fg.search('mm');`));
		out.frames = out.flame[out.flame.length - 1].frames;
		out.uplot.push(await load('uplot'));
		out.parse.push(await load('parse'));
	}
} finally {
	await ctx.close();
	srv.close();
	rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
