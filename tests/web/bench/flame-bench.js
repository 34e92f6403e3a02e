// The page of `make bench`'s flame graph figure (tests/web/flame_bench.mjs
// opens it): ?what=flame draws the profile diff at /api/v1/profile-diff with
// renderProfileDiff, ?what=uplot the baseline, a uPlot chart of
// ?points=N points (the series page's chart library on the same number of
// items), ?what=parse only fetches and merges the folded texts (loadProfileDiff: in
// its worker). When done:
// body.dataset.result = JSON {drawn_ms (navigation start to the first paint
// after drawing), longest_task_ms (the longest main-thread task seen by the
// Long Tasks API, 0 when none passed its 50 ms floor), long_tasks, frames}.
import { renderProfileDiff, loadProfileDiff } from '/js/flame.js';

const longTasks = [];
new PerformanceObserver((l) => {
	for (const e of l.getEntries())
		longTasks.push(e.duration);
}).observe({ type: 'longtask', buffered: true });

const q = new URLSearchParams(location.search);
const what = q.get('what') || 'flame';
const el = document.getElementById('app');
const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
let frames = 0;
if (what === 'flame') {
	const div = document.createElement('div');
	el.appendChild(div);
	await renderProfileDiff(div, '/api/v1/profile-diff?base=b&head=h');
	frames = div.querySelector('canvas') ? Number(div.querySelector('canvas').dataset.frames) : 0;
} else if (what === 'parse') {
	await loadProfileDiff('/api/v1/profile-diff?base=b&head=h');
} else {
	// loaded here, not at the top: the flame figure must not pay for it
	const { default: uPlot } = await import('/vendor/uPlot.esm.js');
	const n = Number(q.get('points') || 100000);
	// the same work the series page does: fetch the points, then draw them
	const d = await (await fetch(`/bench/points?n=${n}`)).json();
	const div = document.createElement('div');
	el.appendChild(div);
	new uPlot({ width: 1300, height: 400, series: [{}, { stroke: 'blue', points: { show: true, size: 3 }, paths: () => null }] },
		[d.x, d.y], div);
	frames = n;
}
await painted();
const drawn = performance.now();
// the Long Tasks API reports a task after it ends: give it a moment
await new Promise((r) => setTimeout(r, 300));
document.body.dataset.result = JSON.stringify({ drawn_ms: drawn, longest_task_ms: Math.max(0, ...longTasks),
	long_tasks: longTasks.length, frames });
