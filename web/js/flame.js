// The differential flame graph of a profile diff (GET .../profile-diff with
// folded=1 when the browser holds a token, else folded=top: each side's
// largest stacks, the others as one "[other stacks]" frame) and the table
// of the symbols that changed most.
//
// The picture is Brendan Gregg's differential flame graph
// (https://www.brendangregg.com/blog/2014-11-09/differential-flame-graphs.html,
// flamegraph.pl): the head's stacks merged into one tree, root at the
// bottom, each frame as wide as its share of the head's samples (children
// included), siblings in name order; coloured by how that share changed
// from the base: red grew, blue shrank, the intensity the change over the
// graph's largest change (flamegraph.pl's scaling: 210 * (1 - |d| / max)
// for the other two channels). Shares, not counts: the sides may have
// different numbers of runs and samples. A frame the head lost entirely has
// no width; the table below lists it.
//
// Drawn on a canvas (not SVG, not d3-flame-graph: web/README.md has the
// measurements): only frames at least MIN_PX wide are laid out, so drawing
// costs what is visible, never the 10^6 nodes 10^5 stacks can make. The
// reply is fetched, parsed and merged in a worker (js/flame-worker.js; on
// this thread in 40 ms slices where no worker starts), so the page answers
// input while a large profile loads.
import { h, replace, append, table, emptyState, errorBox, fmtP, fmtNum, fmtPct, shortSha } from './dom.js';
import { api, getToken, ApiError } from './api.js';
import { FlameTree, buildTree, layout, frameColor, delta, yieldTask } from './flametree.js';

export { FlameTree, newTree, mergeFolded, buildTree, layout, frameColor, delta } from './flametree.js';

const ROW = 17;          // px per frame row
const TOP_ROWS = 30;     // symbols shown before "show all"

// --- the picture -----------------------------------------------------------

function pct(v) {
	return Number.isFinite(v) ? `${v.toFixed(2)}%` : '—';
}

function frameText(tree, id) {
	const H = tree.head.samples || 1, B = tree.base.samples || 1;
	const d = delta(tree, id), ds = delta(tree, id, true);
	return `${tree.nameOf(id)} — head ${pct(100 * tree.h[id] / H)} (${tree.h[id]} samples), ` +
		`base ${pct(100 * tree.b[id] / B)} (${tree.b[id]}); change ${d > 0 ? '+' : ''}${d.toFixed(2)} pp; ` +
		`self ${pct(100 * tree.hs[id] / H)} vs ${pct(100 * tree.bs[id] / B)} (${ds > 0 ? '+' : ''}${ds.toFixed(2)} pp)`;
}

// A name test from the search box: /regex/ or a substring; null for none.
function matcher(term) {
	if (!term)
		return null;
	const re = /^\/(.+)\/$/.exec(term);
	if (re) {
		try {
			const r = new RegExp(re[1]);
			return (s) => r.test(s);
		} catch {
			return () => false;
		}
	}
	return (s) => s.includes(term);
}

// Per name index, whether it matches; and the head samples of the
// outermost matching frames inside zoom (ids grow from parent to child, so
// one pass in id order knows each node's ancestors).
function searchTree(tree, match, zoom) {
	const byName = new Uint8Array(tree.names.length);
	tree.names.forEach((nm, i) => {
		byName[i] = match(nm) ? 1 : 0;
	});
	const inZoom = new Uint8Array(tree.n), under = new Uint8Array(tree.n);
	inZoom[zoom] = 1;
	let samples = 0;
	for (let i = zoom; i < tree.n; i++) {
		const p = tree.parent[i];
		if (i !== zoom) {
			if (p < zoom || !inZoom[p])
				continue;
			inZoom[i] = 1;
			under[i] = under[p] || byName[tree.name[p]];
		}
		if (byName[tree.name[i]] && !under[i])
			samples += tree.h[i];
	}
	return { byName, samples };
}

// A zoomable, searchable canvas flame graph of tree in el. Returns the
// handle {frames(), zoomTo(id), search(term), draw()} (el.flame too):
// frames() is what was drawn last, [{name, id, x, y, w, h, fill, depth,
// ancestor}] in CSS px relative to the canvas, for the browser tests and
// the bench.
export function flameGraph(el, tree) {
	const canvas = h('canvas', { class: 'flame-canvas', role: 'img' });
	const hint = 'click a frame to zoom; the search box highlights frames by name';
	const info = h('p', { class: 'flame-info muted' }, hint);
	const matchInfo = h('span', { class: 'flame-match muted' });
	const input = h('input', { type: 'search', class: 'flame-search', placeholder: 'search frames (substring or /regex/)',
		size: 36, 'aria-label': 'search frames' });
	const reset = h('button', { type: 'button', class: 'flame-reset', disabled: true }, 'reset zoom');
	const bar = h('div', { class: 'flame-bar pickers' }, input, reset, matchInfo);
	append(el, [bar, canvas, info]);
	let zoom = 0, term = null, drawn = [], width = 0;
	const handle = { draws: 0 };
	const rows = new Map();

	function draw() {
		width = Math.max(320, Math.floor(el.clientWidth || 960));
		const frames = layout(tree, zoom, width);
		const depth = frames.reduce((m, f) => Math.max(m, f.depth), 0);
		const H = (depth + 1) * ROW;
		const dpr = window.devicePixelRatio || 1;
		canvas.width = Math.round(width * dpr);
		canvas.height = Math.round(H * dpr);
		canvas.style.width = `${width}px`;
		canvas.style.height = `${H}px`;
		const ctx = canvas.getContext('2d');
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.font = '11px ui-monospace, "DejaVu Sans Mono", monospace';
		ctx.textBaseline = 'middle';
		const cw = ctx.measureText('m').width || 7;
		const match = matcher(term);
		const found = match ? searchTree(tree, match, zoom) : null;
		drawn = [];
		rows.clear();
		// rectangles grouped by fill (a fillStyle change parses a colour), then the labels
		const byFill = new Map();
		for (const f of frames) {
			const id = f.id;
			const y = H - (f.depth + 1) * ROW;
			const fill = f.ancestor ? 'rgb(238,238,238)' : frameColor(tree, id, found && found.byName[tree.name[id]]);
			const d = { name: tree.nameOf(id), id, x: f.x, y, w: f.w, h: ROW - 1, fill, depth: f.depth, ancestor: f.ancestor };
			drawn.push(d);
			if (!byFill.has(fill))
				byFill.set(fill, []);
			byFill.get(fill).push(d);
			if (!rows.has(f.depth))
				rows.set(f.depth, []);
			rows.get(f.depth).push(d);
		}
		for (const [fill, ds] of byFill) {
			ctx.fillStyle = fill;
			for (const d of ds)
				ctx.fillRect(d.x, d.y, Math.max(d.w - 0.5, 0.5), ROW - 1);
		}
		ctx.fillStyle = '#111';
		for (const d of drawn) {
			if (d.w > 3 * cw) {
				const max = Math.floor((d.w - 6) / cw);
				ctx.fillText(d.name.length > max ? d.name.slice(0, Math.max(max - 2, 0)) + '..' : d.name, d.x + 3, d.y + ROW / 2);
			}
		}
		handle.draws++;
		for (const r of rows.values())
			r.sort((a, b) => a.x - b.x);
		replace(matchInfo, found ? `matched ${pct(100 * found.samples / (tree.head.samples || 1))} of the head's samples`
			+ (zoom ? ` (inside ${tree.nameOf(zoom)})` : '') : '');
		reset.disabled = zoom === 0;
		canvas.setAttribute('aria-label', `differential flame graph: ${drawn.length} frames drawn` +
			(zoom ? `, zoomed into ${tree.nameOf(zoom)}` : ''));
		canvas.dataset.frames = String(drawn.length);
		canvas.dataset.zoom = zoom ? tree.nameOf(zoom) : '';
	}

	function frameAt(ev) {
		const r = canvas.getBoundingClientRect();
		const x = ev.clientX - r.left, y = ev.clientY - r.top;
		const row = rows.get(Math.floor((r.height - y) / ROW)) || [];
		let lo = 0, hi = row.length - 1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (row[mid].x + row[mid].w <= x)
				lo = mid + 1;
			else if (row[mid].x > x)
				hi = mid - 1;
			else
				return row[mid];
		}
		return null;
	}

	canvas.addEventListener('click', (ev) => {
		const f = frameAt(ev);
		if (f) {
			zoom = f.id;
			draw();
		}
	});
	canvas.addEventListener('mousemove', (ev) => {
		const f = frameAt(ev);
		canvas.style.cursor = f ? 'pointer' : '';
		replace(info, f ? frameText(tree, f.id) : hint);
	});
	reset.addEventListener('click', () => {
		zoom = 0;
		draw();
	});
	input.addEventListener('input', () => {
		term = input.value.trim() || null;
		draw();
	});
	let lastW = 0;
	if (typeof ResizeObserver === 'function') {
		// redraw at the new width; a page that re-rendered dropped the graph
		let seen = el.isConnected;
		const ro = new ResizeObserver(() => {
			if (seen && !el.isConnected) {
				ro.disconnect();
				return;
			}
			seen = seen || el.isConnected;
			const w = Math.floor(el.clientWidth);
			if (w && Math.abs(w - lastW) > 2) {
				lastW = w;
				draw();
			}
		});
		ro.observe(el);
	}
	draw();
	lastW = width;
	Object.assign(handle, {
		frames: () => drawn.slice(),
		zoomTo: (id) => {
			zoom = id > 0 ? id : 0;
			draw();
		},
		search: (t) => {
			input.value = t || '';
			term = t || null;
			draw();
		},
		draw, tree, canvas,
	});
	el.flame = handle;
	return handle;
}

// --- the table -------------------------------------------------------------

function change(v) {
	if (!Number.isFinite(v))
		return '—';
	return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
}

// The symbols by |children change| (the server's order): children % and
// self % on each side, the change in percentage points, with perWork the
// children samples per unit of work on each side and their change in %,
// p and a marker when the change is significant across runs (per work
// when perWork: a share grows when the others' work shrinks). Clicking a
// symbol searches the flame graph for it.
export function symbolsTable(symbols, onPick, { perWork = false } = {}) {
	const perWorkCells = (s) => perWork ? [h('td', { class: 'num per-work' }, fmtNum(s.base_children_per_work)),
		h('td', { class: 'num per-work' }, fmtNum(s.head_children_per_work)),
		h('td', { class: 'num per-work' }, fmtPct(s.per_work_change_pct))] : [];
	const row = (s) => {
		// the graph's colours: red grew, blue shrank (not good / bad: a profile is not a verdict)
		const dir = s.children_change > 0 ? 'grew' : s.children_change < 0 ? 'shrank' : '';
		return h('tr', { class: `symbol-row${s.significant ? ' significant' : ''}`, dataset: { symbol: s.symbol } },
			h('td', null, onPick ? h('a', { href: '#', class: 'symbol', onclick: (ev) => {
				ev.preventDefault();
				onPick(s.symbol);
			} }, s.symbol) : h('code', null, s.symbol)),
			h('td', { class: 'num' }, pct(s.base_children_pct)), h('td', { class: 'num' }, pct(s.head_children_pct)),
			h('td', { class: `num change ${dir}` }, change(s.children_change)),
			h('td', { class: 'num' }, pct(s.base_self_pct)), h('td', { class: 'num' }, pct(s.head_self_pct)),
			h('td', { class: 'num' }, change(s.self_change)),
			...perWorkCells(s),
			h('td', { class: 'num' }, fmtP(s.p)),
			h('td', { class: 'sig', title: s.significant ? 'significant across runs' : 'not significant' },
				s.significant ? '★' : ''));
	};
	const cols = [{ label: 'symbol' },
		{ label: 'base children', cls: 'num', title: '% of the base\'s samples with the symbol on the stack' },
		{ label: 'head children', cls: 'num' }, { label: 'change', cls: 'num', title: 'percentage points' },
		{ label: 'base self', cls: 'num', title: '% of the base\'s samples ending in the symbol' },
		{ label: 'head self', cls: 'num' }, { label: 'change', cls: 'num' },
		...(perWork ? [{ label: 'base per work', cls: 'num', title: 'children samples per unit of work (the work metric × runtime)' },
			{ label: 'head per work', cls: 'num' }, { label: 'change', cls: 'num', title: 'per work, in %' }] : []),
		{ label: 'p', cls: 'num', title: perWork ? 'of the runs\' samples per work' : 'of the runs\' children %' },
		{ label: 'sig.', title: '★: significant across runs' }];
	const list = Array.isArray(symbols) ? symbols : [];
	const body = list.slice(0, TOP_ROWS).map(row);
	const t = table(cols, body, { class: 'list profile-symbols' });
	if (list.length <= TOP_ROWS)
		return t;
	const more = h('button', { type: 'button', class: 'linklike show-all' }, `show all ${list.length} symbols`);
	more.addEventListener('click', () => {
		append(t.tBodies[0], list.slice(TOP_ROWS).map(row));
		more.remove();
	});
	return h('div', null, t, more);
}

// folded=top: what the graph leaves out (null when nothing was)
function trimmedNote(st) {
	if (!st || !st.top || !(st.base > st.top || st.head > st.top))
		return null;
	return h('p', { class: 'muted flame-trimmed' }, `the ${st.top} largest stacks of each side `
		+ `(of ${st.base} base, ${st.head} head); the others are one [other stacks] frame. `
		+ 'With a token (the token button at the top) the graph has them all.');
}

function sideText(label, s) {
	if (!s)
		return null;
	return [h('b', null, label), ' ', h('code', { class: 'sha', title: s.commit || '' }, shortSha(s.commit)),
		h('span', { class: 'muted' }, ` · ${s.runs} run${s.runs === 1 ? '' : 's'}, ${s.samples} samples`)];
}

// Fetches a profile diff (diffUrl as given to renderProfileDiff; folded=1
// added with a token, folded=top without: folded=1 needs one) and merges
// its folded stacks: in a worker (js/flame-worker.js) when the browser can
// start one, else on this thread in slices (buildTree). Resolves to {reply
// (without folded; reply.stacks: {base, head, top} its stack counts), tree,
// folded: whether any stacks came, form: '1' or 'top', where: 'worker' or
// 'page'}; throws ApiError for an answer that is not 2xx.
export async function loadProfileDiff(diffUrl) {
	const path = String(diffUrl).replace(/^\/api\/v1(?=\/)/, '');
	const url = new URL('/api/v1' + path, location.origin);
	const form = getToken() ? '1' : 'top';
	url.searchParams.set('folded', form);
	let worker = null;
	try {
		worker = new Worker(new URL('./flame-worker.js', import.meta.url), { type: 'module' });
	} catch {
		worker = null;
	}
	if (worker) {
		const msg = await new Promise((resolve) => {
			worker.onmessage = (ev) => resolve(ev.data);
			// the worker could not start (or died): merge on the page instead
			worker.onerror = (ev) => {
				ev.preventDefault();
				resolve(null);
			};
			worker.postMessage({ url: url.href, token: getToken() });
		});
		worker.terminate();
		if (msg && msg.error)
			throw new ApiError(msg.error.status, msg.error.code, msg.error.message, msg.error.field);
		if (msg)
			return { reply: msg.reply, tree: FlameTree.fromTransfer(msg.tree), folded: msg.folded, form, where: 'worker', ms: msg.ms };
	}
	const d = await api(path, { query: { folded: form } });
	const folded = (d && d.folded) || {};
	const tree = await buildTree(typeof folded.base === 'string' ? folded.base : '',
		typeof folded.head === 'string' ? folded.head : '');
	if (d) {
		d.stacks = { base: folded.base_stacks, head: folded.head_stacks, top: folded.top };
		delete d.folded;
	}
	return { reply: d, tree, folded: Boolean(folded.base || folded.head), form, where: 'page' };
}

// Renders the profile diff at diffUrl (an /api/v1/… profile-diff URL, with
// or without a query; folded=1 is added) into el: the sides, the
// differential flame graph of head vs base, the table of the top changed
// symbols. "no profiled runs yet" when the server answers 404 (or 409) or
// an empty diff. Resolves when drawn; el.dataset.profile is then 'drawn',
// 'empty' or 'error' (el.dataset.merged: 'worker' or 'page'). The one entry
// point the regression, bisect and request pages call.
export async function renderProfileDiff(el, diffUrl) {
	el.classList.add('profile-diff');
	el.dataset.profile = 'loading';
	replace(el, h('p', { class: 'muted' }, 'loading the profile diff…'));
	let got;
	try {
		got = await loadProfileDiff(diffUrl);
	} catch (e) {
		// 404: nothing profiled (or no such bisect/request); 409: not measured yet
		if (e.status === 404 || e.status === 409) {
			el.dataset.profile = 'empty';
			replace(el, emptyState('no profiled runs yet'), h('p', { class: 'muted' }, e.message));
		} else {
			el.dataset.profile = 'error';
			replace(el, errorBox(e));
		}
		return;
	}
	// each step its own task: the worker's message, the graph, the table
	await yieldTask();
	const d = got.reply, tree = got.tree;
	el.dataset.merged = got.where;
	el.dataset.folded = got.form === 'top' ? 'top' : 'all';
	const symbols = (d && Array.isArray(d.symbols)) ? d.symbols : [];
	if (!d || (!symbols.length && !got.folded)) {
		el.dataset.profile = 'empty';
		replace(el, emptyState('no profiled runs yet'));
		return;
	}
	const graph = h('div', { class: 'flame' });
	const perWork = Boolean(d.work && d.work.per_work);
	replace(el, h('p', { class: 'profile-sides' }, sideText('head', d.head), h('span', { class: 'muted' }, ' vs '),
		sideText('base', d.base)),
	// the sampled event by its name: the perf-profile.*.cycles-pp.* rows keep LKP's
	d.event ? h('p', { class: 'muted profile-event' }, 'sampled: ', h('code', null, d.event),
		d.event === 'cycles-pp' ? '' : ' (the perf-profile.*.cycles-pp.* metrics keep LKP\'s name)',
		perWork ? ['; per work: per unit of ', h('code', null, d.work.metric), ' × runtime, significance from it']
			: '; significance from the shares (no work metric on every run)') : null,
	h('p', { class: 'muted flame-legend' }, 'width: share of the head\'s samples; ',
		h('span', { class: 'swatch grew' }, 'red'), ' grew, ', h('span', { class: 'swatch shrank' }, 'blue'),
		' shrank since the base (deeper = a larger change of its share)'),
	trimmedNote(d.stacks),
	tree.head.samples ? graph : emptyState('the head has no folded stacks'),
	tree.bad ? h('p', { class: 'muted' }, `${tree.bad} malformed folded lines skipped`) : null);
	let fg = null;
	if (tree.head.samples) {
		fg = flameGraph(graph, tree);
		await yieldTask();
	}
	append(el, [h('h3', null, 'Top changed symbols'),
		symbols.length ? symbolsTable(symbols, fg ? (s) => {
			fg.search(s);
			graph.scrollIntoView({ block: 'nearest' });
		} : null, { perWork }) : emptyState('no symbol changed')]);
	el.dataset.profile = 'drawn';
}
