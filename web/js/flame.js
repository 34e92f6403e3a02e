// The differential flame graph of a profile diff (GET .../profile-diff with
// folded=1) and the table of the symbols that changed most.
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
// costs what is visible, never the 10^6 nodes 10^5 stacks can make; the
// folded text is merged in slices of SLICE_MS with a yield to the event
// loop between them, so the page answers input while a large profile loads.
import { h, replace, append, table, emptyState, errorBox, fmtP, shortSha } from './dom.js';
import { api } from './api.js';

const ROW = 17;          // px per frame row
const MIN_PX = 0.5;      // frames narrower than this are not laid out
const SLICE_MS = 40;     // longest stretch of merging before a yield
const TOP_ROWS = 30;     // symbols shown before "show all"

// --- the tree ------------------------------------------------------------

// The merged tree of both sides, nodes as indices into typed arrays (10^5
// stacks make ~10^6 frames: as objects they cost seconds of allocation and
// garbage collection, as arrays a fraction). Node 0 is the root "all".
// Per node: name (an index into names), parent (-1 for the root), first /
// next (its first child, its next sibling: -1 for none), b / h the samples
// through it (children included) on the base / head side, bs / hs the
// samples that end in it (self). Children are found by (parent, name) in an
// open-addressing hash table.
export class FlameTree {
	constructor() {
		this.names = ['all'];
		this.ids = new Map([['all', 0]]);
		this.n = 1;
		this.cap = 0;
		this.grow(1024);
		this.parent[0] = -1;
		this.hcap = 2048;
		this.table = new Int32Array(this.hcap);
		this.base = { samples: 0, stacks: 0 };
		this.head = { samples: 0, stacks: 0 };
		this.bad = 0;          // lines that were not "frames count"
		this.maxDelta = 0;     // the largest |delta| of any frame (set by finish())
		this.sortedKids = new Map();
		this.slices = [];      // ms of each slice buildTree merged in
	}

	grow(cap) {
		for (const [k, T, fill] of [['parent', Int32Array, 0], ['name', Int32Array, 0], ['first', Int32Array, -1],
			['next', Int32Array, -1], ['b', Float64Array, 0], ['h', Float64Array, 0], ['bs', Float64Array, 0],
			['hs', Float64Array, 0]]) {
			const a = new T(cap);
			if (fill)
				a.fill(fill);
			if (this[k])
				a.set(this[k]);
			this[k] = a;
		}
		this.cap = cap;
	}

	// murmur3's 32-bit finalizer over (p, nm): linear probing needs good low bits
	slot(p, nm) {
		let x = Math.imul(p, 0x9e3779b1) ^ nm;
		x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
		x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
		return (x ^ (x >>> 16)) & (this.hcap - 1);
	}

	// The child of p named by name index nm, made when missing.
	child(p, nm) {
		const m = this.hcap - 1;
		let s = this.slot(p, nm);
		for (let e = this.table[s]; e; e = this.table[s]) {
			if (this.parent[e - 1] === p && this.name[e - 1] === nm)
				return e - 1;
			s = (s + 1) & m;
		}
		if (this.n === this.cap)
			this.grow(this.cap * 2);
		const id = this.n++;
		this.parent[id] = p;
		this.name[id] = nm;
		this.next[id] = this.first[p];
		this.first[p] = id;
		this.table[s] = id + 1;
		this.sortedKids.delete(p);
		if (this.n * 2 > this.hcap) {
			this.hcap *= 2;
			this.table = new Int32Array(this.hcap);
			for (let i = 1; i < this.n; i++) {
				let t = this.slot(this.parent[i], this.name[i]);
				while (this.table[t])
					t = (t + 1) & (this.hcap - 1);
				this.table[t] = i + 1;
			}
		}
		return id;
	}

	nameOf(id) {
		return this.names[this.name[id]];
	}

	// The node at a path of frame names from the root, or -1.
	find(path) {
		let cur = 0;
		for (const f of path) {
			let k = this.first[cur];
			while (k >= 0 && this.nameOf(k) !== f)
				k = this.next[k];
			if (k < 0)
				return -1;
			cur = k;
		}
		return cur;
	}

	// A node's children in name order (sorted once, when first asked for).
	kids(id) {
		let s = this.sortedKids.get(id);
		if (!s) {
			const a = [];
			for (let k = this.first[id]; k >= 0; k = this.next[k])
				a.push(k);
			const nm = this.names, name = this.name;
			a.sort((x, y) => (nm[name[x]] < nm[name[y]] ? -1 : nm[name[x]] > nm[name[y]] ? 1 : 0));
			s = Int32Array.from(a);
			this.sortedKids.set(id, s);
		}
		return s;
	}

	// Sets maxDelta from every node.
	finish() {
		let m = 0;
		const H = this.head.samples || 1, B = this.base.samples || 1;
		for (let i = 0; i < this.n; i++) {
			const d = Math.abs(this.h[i] / H - this.b[i] / B);
			if (d > m)
				m = d;
		}
		this.maxDelta = 100 * m;
	}
}

export function newTree() {
	return new FlameTree();
}

// Merges the folded lines of text[from..] into tree on one side ('base' or
// 'head'): each line "f0;f1;…;fn COUNT" adds COUNT to every frame on its
// path (b or h) and to the last one's self count (bs or hs). Lines without
// a positive integer count after the last space, or without a frame, are
// counted in tree.bad and skipped. Stops at a line end once deadline
// (performance.now() ms) has passed; returns the offset to go on from,
// text.length when done. The previous line's frames are reused as far as
// the two lines agree character by character: folded output is sorted
// (stackcollapse sorts it), so neighbours share most of their prefix and
// most frames need no lookup.
export function mergeFolded(tree, text, side, from = 0, deadline = Infinity) {
	const head = side === 'head';
	const tot = head ? tree.head : tree.base;
	const path = [0];
	let prevStart = 0, prevLen = -1;
	let pos = from, n = 0;
	while (pos < text.length) {
		let end = text.indexOf('\n', pos);
		if (end < 0)
			end = text.length;
		const line = pos;
		pos = end + 1;
		let stop = end;
		if (stop > line && text.charCodeAt(stop - 1) === 13)
			stop--; // CRLF
		const sp = text.lastIndexOf(' ', stop - 1);
		if (sp < line) {
			if (stop > line && text.slice(line, stop).trim())
				tree.bad++;
			continue;
		}
		const cs = text.slice(sp + 1, stop);
		const count = /^\d+$/.test(cs) ? Number(cs) : NaN;
		if (!(count > 0) || sp === line) {
			tree.bad++;
			continue;
		}
		// whole frames shared with the previous good line
		const len = sp - line;
		let i = 0, depth = 0, cut = 0;
		if (prevLen >= 0) {
			while (i < len && i < prevLen && text.charCodeAt(line + i) === text.charCodeAt(prevStart + i)) {
				if (text.charCodeAt(line + i) === 59) {
					depth++;
					cut = i + 1;
				}
				i++;
			}
			if (i === len && i === prevLen) {
				depth++;
				cut = len + 1;
			}
		}
		path.length = depth + 1;
		let cur = path[depth];
		for (let fs = line + cut; fs <= sp && cut <= len;) {
			let fe = text.indexOf(';', fs);
			if (fe < 0 || fe > sp)
				fe = sp;
			const f = text.slice(fs, fe);
			let nm = tree.ids.get(f);
			if (nm === undefined) {
				nm = tree.names.length;
				tree.names.push(f);
				tree.ids.set(f, nm);
			}
			cur = tree.child(cur, nm);
			path.push(cur);
			fs = fe + 1;
		}
		const inc = head ? tree.h : tree.b;
		for (let k = 0; k < path.length; k++)
			inc[path[k]] += count;
		(head ? tree.hs : tree.bs)[cur] += count;
		prevStart = line;
		prevLen = len;
		tot.samples += count;
		tot.stacks++;
		if ((++n & 15) === 0 && performance.now() > deadline)
			break;
	}
	return Math.min(pos, text.length);
}

// A frame's change: its share of the head's samples minus its share of the
// base's, in percentage points (children included, or self when self).
export function delta(tree, id, self = false) {
	const H = tree.head.samples || 1, B = tree.base.samples || 1;
	return self ? 100 * (tree.hs[id] / H - tree.bs[id] / B) : 100 * (tree.h[id] / H - tree.b[id] / B);
}

const yieldTask = () => new Promise((resolve) => {
	// a macrotask: lets input and paint in (setTimeout(0) is clamped to 4 ms when nested)
	const ch = new MessageChannel();
	ch.port1.onmessage = () => resolve();
	ch.port2.postMessage(0);
});

// The tree of both sides' folded texts, merged in slices of SLICE_MS with
// a yield between them; then the largest change. Resolves to the tree.
export async function buildTree(baseText, headText) {
	const tree = newTree();
	for (const [side, text] of [['base', baseText || ''], ['head', headText || '']]) {
		let pos = 0;
		while (pos < text.length) {
			const t = performance.now();
			pos = mergeFolded(tree, text, side, pos, t + SLICE_MS);
			tree.slices.push(performance.now() - t);
			if (pos < text.length)
				await yieldTask();
		}
	}
	tree.finish();
	return tree;
}

// The frames to draw at zoom `zoom` (a node) in a graph `width` px wide:
// [{id, x, w, depth, ancestor}], the zoomed frame's ancestors first at full
// width, then its subtree with x / w in px from head samples, frames
// narrower than MIN_PX left out (their parent covers them).
export function layout(tree, zoom, width) {
	const out = [];
	const chain = [];
	for (let a = zoom; a >= 0; a = tree.parent[a])
		chain.unshift(a);
	chain.forEach((id, depth) => out.push({ id, x: 0, w: width, depth, ancestor: true }));
	out.pop();
	if (!(tree.h[zoom] > 0))
		return out;
	const scale = width / tree.h[zoom];
	const stack = [zoom, 0, chain.length - 1];
	while (stack.length) {
		const depth = stack.pop(), x = stack.pop(), id = stack.pop();
		out.push({ id, x, w: tree.h[id] * scale, depth, ancestor: false });
		let cx = x;
		for (const k of tree.kids(id)) {
			const kw = tree.h[k] * scale;
			if (kw >= MIN_PX)
				stack.push(k, cx, depth + 1);
			cx += kw;
		}
	}
	return out;
}

// The fill of a frame: magenta when it matches the search, else red (grew)
// or blue (shrank) with the other channels at 210 * (1 - |d| / max), as
// flamegraph.pl does; a frame with no change is grey.
export function frameColor(tree, id, match) {
	if (match)
		return 'rgb(230,0,230)';
	const d = delta(tree, id);
	if (d === 0 || !(tree.maxDelta > 0))
		return 'rgb(221,221,221)';
	const c = Math.round(210 * (1 - Math.min(1, Math.abs(d) / tree.maxDelta)));
	return d > 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
}

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
		for (const f of frames) {
			const id = f.id, name = tree.nameOf(id);
			const y = H - (f.depth + 1) * ROW;
			const fill = f.ancestor ? 'rgb(238,238,238)' : frameColor(tree, id, found && found.byName[tree.name[id]]);
			ctx.fillStyle = fill;
			ctx.fillRect(f.x, y, Math.max(f.w - 0.5, 0.5), ROW - 1);
			if (f.w > 3 * cw) {
				const max = Math.floor((f.w - 6) / cw);
				const label = name.length > max ? name.slice(0, Math.max(max - 2, 0)) + '..' : name;
				ctx.fillStyle = '#111';
				ctx.fillText(label, f.x + 3, y + ROW / 2);
			}
			const d = { name, id, x: f.x, y, w: f.w, h: ROW - 1, fill, depth: f.depth, ancestor: f.ancestor };
			drawn.push(d);
			if (!rows.has(f.depth))
				rows.set(f.depth, []);
			rows.get(f.depth).push(d);
		}
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
	if (typeof ResizeObserver === 'function')
		new ResizeObserver(() => {
			const w = Math.floor(el.clientWidth);
			if (w && Math.abs(w - lastW) > 2 && canvas.isConnected) {
				lastW = w;
				draw();
			}
		}).observe(el);
	draw();
	lastW = width;
	const handle = {
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
	};
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
// self % on each side, the change in percentage points, p and a marker
// when the change is significant across runs. Clicking a symbol searches
// the flame graph for it.
export function symbolsTable(symbols, onPick) {
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
			h('td', { class: 'num' }, fmtP(s.p)),
			h('td', { class: 'sig', title: s.significant ? 'significant across runs' : 'not significant' },
				s.significant ? '★' : ''));
	};
	const cols = [{ label: 'symbol' },
		{ label: 'base children', cls: 'num', title: '% of the base\'s samples with the symbol on the stack' },
		{ label: 'head children', cls: 'num' }, { label: 'change', cls: 'num', title: 'percentage points' },
		{ label: 'base self', cls: 'num', title: '% of the base\'s samples ending in the symbol' },
		{ label: 'head self', cls: 'num' }, { label: 'change', cls: 'num' }, { label: 'p', cls: 'num' },
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

function sideText(label, s) {
	if (!s)
		return null;
	return [h('b', null, label), ' ', h('code', { class: 'sha', title: s.commit || '' }, shortSha(s.commit)),
		h('span', { class: 'muted' }, ` · ${s.runs} run${s.runs === 1 ? '' : 's'}, ${s.samples} samples`)];
}

// Renders the profile diff at diffUrl (an /api/v1/… profile-diff URL, with
// or without a query; folded=1 is added) into el: the sides, the
// differential flame graph of head vs base, the table of the top changed
// symbols. "no profiled runs yet" when the server answers 404 or an empty
// diff. Resolves when drawn; el.dataset.profile is then 'drawn', 'empty' or
// 'error'. The one entry point the regression, bisect and request pages call.
export async function renderProfileDiff(el, diffUrl) {
	el.classList.add('profile-diff');
	el.dataset.profile = 'loading';
	replace(el, h('p', { class: 'muted' }, 'loading the profile diff…'));
	const path = String(diffUrl).replace(/^\/api\/v1(?=\/)/, '');
	let d;
	try {
		d = await api(path, { query: { folded: 1 } });
	} catch (e) {
		if (e.status === 404) {
			el.dataset.profile = 'empty';
			replace(el, emptyState('no profiled runs yet'), h('p', { class: 'muted' }, e.message));
		} else {
			el.dataset.profile = 'error';
			replace(el, errorBox(e));
		}
		return;
	}
	const folded = (d && d.folded) || {};
	const symbols = (d && Array.isArray(d.symbols)) ? d.symbols : [];
	if (!d || (!symbols.length && !folded.head && !folded.base)) {
		el.dataset.profile = 'empty';
		replace(el, emptyState('no profiled runs yet'));
		return;
	}
	replace(el, h('p', { class: 'profile-sides' }, sideText('head', d.head), h('span', { class: 'muted' }, ' vs '),
		sideText('base', d.base)), h('p', { class: 'muted' }, 'merging the stacks…'));
	const tree = await buildTree(folded.base, folded.head);
	const graph = h('div', { class: 'flame' });
	replace(el, h('p', { class: 'profile-sides' }, sideText('head', d.head), h('span', { class: 'muted' }, ' vs '),
		sideText('base', d.base)),
	h('p', { class: 'muted flame-legend' }, 'width: share of the head\'s samples; ',
		h('span', { class: 'swatch grew' }, 'red'), ' grew, ', h('span', { class: 'swatch shrank' }, 'blue'),
		' shrank since the base (deeper = a larger change of its share)'),
	tree.head.samples ? graph : emptyState('the head has no folded stacks'),
	tree.bad ? h('p', { class: 'muted' }, `${tree.bad} malformed folded lines skipped`) : null);
	let fg = null;
	if (tree.head.samples)
		fg = flameGraph(graph, tree);
	append(el, [h('h3', null, 'Top changed symbols'),
		symbols.length ? symbolsTable(symbols, fg ? (s) => {
			fg.search(s);
			graph.scrollIntoView({ block: 'nearest' });
		} : null) : emptyState('no symbol changed')]);
	el.dataset.profile = 'drawn';
}
