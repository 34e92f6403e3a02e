// The series chart (uPlot): every run's value as a dot and each commit's
// median as a line, in commit order; change points as dashed verticals;
// hover reports the run, click opens the commit's comparison with its parent.
//
// x is the commit's index in the series with the commit's runs spread
// across [-0.25, +0.25] around it, so every point has its own x (uPlot's
// aligned data wants strictly increasing x) and the cursor snaps to runs.
import uPlot from '/vendor/uPlot.esm.js';
import { shortSha, fmtCompact } from './dom.js';

// Per-point layout and per-commit medians from the API's columns.
// commit: commit index of each point (ascending as the API sends them).
export function layout(commitIdx, values, nrCommits) {
	const n = values.length;
	const order = Array.from({ length: n }, (_, i) => i);
	let sorted = true;
	for (let i = 1; i < n && sorted; i++)
		sorted = commitIdx[i - 1] <= commitIdx[i];
	if (!sorted)
		order.sort((a, b) => commitIdx[a] - commitIdx[b] || a - b);
	const x = new Float64Array(n), y = new Array(n), med = new Array(n).fill(null);
	const src = new Int32Array(n);
	const medians = new Array(nrCommits).fill(null), counts = new Int32Array(nrCommits);
	for (let i = 0; i < n;) {
		const c = commitIdx[order[i]];
		let j = i;
		while (j < n && commitIdx[order[j]] === c)
			j++;
		const cnt = j - i;
		const vals = [];
		for (let k = 0; k < cnt; k++) {
			const p = order[i + k];
			x[i + k] = c + (cnt > 1 ? (k / (cnt - 1) - 0.5) * 0.5 : 0);
			y[i + k] = values[p];
			src[i + k] = p;
			if (Number.isFinite(values[p]))
				vals.push(values[p]);
		}
		vals.sort((a, b) => a - b);
		const m = vals.length ? (vals.length % 2 ? vals[vals.length >> 1]
			: (vals[vals.length / 2 - 1] + vals[vals.length / 2]) / 2) : null;
		medians[c] = m;
		counts[c] = cnt;
		med[i + (cnt >> 1)] = m;
		i = j;
	}
	return { x, y, med, src, medians, counts };
}

function cssVar(name, fallback) {
	const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
	return v || fallback;
}

// Draws the chart into el. opts: {series (one API series item), metric,
// unit, changePoints: [commit index…], culprit (commit index of the first
// bad commit: a solid line before it, labelled culpritLabel), width,
// height, onHover(info|null), onPick(commitIndex)}. Returns the uPlot instance.
export function seriesChart(el, s, opts) {
	const commits = s.commits;
	const L = layout(s.points.commit, s.points.value, commits.length);
	const dot = cssVar('--dot', '#4a78c2'), line = cssVar('--median', '#d9822b');
	const cps = opts.changePoints || [];
	const intTicks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000];
	const uopts = {
		width: opts.width || 900,
		height: opts.height || 320,
		legend: { show: false },
		cursor: {
			drag: { x: true, y: false, setScale: true },
			points: { size: 8, fill: (u, si) => (si === 1 ? dot : line) },
			focus: { prox: 16 },
		},
		scales: { x: { time: false, range: [-0.6, Math.max(commits.length - 0.4, 0.6)] } },
		axes: [
			{
				label: 'commit (series order)',
				incrs: intTicks,
				values: (u, splits) => splits.map((v) =>
					(Number.isInteger(v) && commits[v] ? shortSha(commits[v].sha).slice(0, 7) : '')),
				size: 40,
			},
			{
				label: `${opts.metric}${opts.unit ? ' (' + opts.unit + ')' : ''}`,
				// the labels drawn last, on the element too: the canvas holds no text to read back
				values: (u, splits) => {
					const labels = splits.map((v) => fmtCompact(v));
					el.dataset.yTicks = labels.join(' ');
					return labels;
				},
				size: 64,
			},
		],
		series: [
			{},
			{
				label: 'run', stroke: dot, paths: () => null,
				points: { show: true, size: 4, width: 0, fill: dot, stroke: dot },
			},
			{ label: 'median', stroke: line, width: 2, spanGaps: true, points: { show: false } },
		],
		hooks: {
			draw: [(u) => {
				if (Number.isInteger(opts.culprit)) {
					const ctx = u.ctx, { top, height } = u.bbox;
					const px = u.valToPos(opts.culprit - 0.5, 'x', true);
					// where the line is, in canvas pixels (the canvas holds nothing to read back)
					el.dataset.culpritX = String(Math.round(px));
					ctx.save();
					ctx.strokeStyle = ctx.fillStyle = cssVar('--bad', '#c62828');
					ctx.lineWidth = 2 * devicePixelRatio;
					ctx.beginPath();
					ctx.moveTo(px, top);
					ctx.lineTo(px, top + height);
					ctx.stroke();
					if (opts.culpritLabel) {
						ctx.font = `${12 * devicePixelRatio}px sans-serif`;
						ctx.textBaseline = 'top';
						ctx.fillText(opts.culpritLabel, px + 4 * devicePixelRatio, top + 4 * devicePixelRatio);
					}
					ctx.restore();
				}
				if (!cps.length)
					return;
				const ctx = u.ctx, { top, height } = u.bbox;
				ctx.save();
				ctx.strokeStyle = cssVar('--bad', '#c62828');
				ctx.lineWidth = 2 * devicePixelRatio;
				ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
				for (const c of cps) {
					const px = u.valToPos(c - 0.5, 'x', true);
					ctx.beginPath();
					ctx.moveTo(px, top);
					ctx.lineTo(px, top + height);
					ctx.stroke();
				}
				ctx.restore();
			}],
			setCursor: [(u) => {
				const i = u.cursor.idx;
				if (!opts.onHover)
					return;
				if (i === null || i === undefined) {
					opts.onHover(null);
					return;
				}
				const p = L.src[i], c = s.points.commit[p];
				opts.onHover({
					commitIndex: c, commit: commits[c], value: s.points.value[p],
					runId: s.points.run_id ? s.points.run_id[p] : null,
					median: L.medians[c], runs: L.counts[c],
				});
			}],
		},
	};
	const u = new uPlot(uopts, [L.x, L.y, L.med], el);
	// a click (not the end of a drag-zoom) picks the commit under the cursor
	let down = null;
	u.over.addEventListener('mousedown', (ev) => {
		down = [ev.clientX, ev.clientY];
	});
	u.over.addEventListener('click', (ev) => {
		const moved = down && Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 3;
		down = null;
		const i = u.cursor.idx;
		if (moved || i === null || i === undefined || !opts.onPick)
			return;
		opts.onPick(s.points.commit[L.src[i]]);
	});
	return u;
}
