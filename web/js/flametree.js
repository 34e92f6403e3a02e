// The profile diff's tree (no DOM: js/flame.js and its worker,
// js/flame-worker.js, both use it): both sides' folded stacks merged into one
// tree of typed arrays, the change of each frame, and the frames to draw at a
// zoom. web/README.md says what the picture built from it shows.

export const MIN_PX = 0.5;      // frames narrower than this are not laid out
export const SLICE_MS = 40;     // longest stretch of merging before a yield (main-thread merging)

// The merged tree of both sides, nodes as indices into typed arrays (10^5
// stacks make ~10^6 frames: as objects they cost seconds of allocation and
// garbage collection, as arrays a fraction). Node 0 is the root "all".
// Per node: name (an index into names), parent (-1 for the root), first /
// next (its first child, its next sibling: -1 for none), b / h the samples
// through it (children included) on the base / head side, bs / hs the
// samples that end in it (self). Children are found by (parent, name) in an
// open-addressing hash table.
const ARRAYS = ['parent', 'name', 'first', 'next', 'b', 'h', 'bs', 'hs'];

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

	// The tree as a message for postMessage: {data, buffers} (the node
	// arrays cut to n and transferred, not copied). fromTransfer(data) is
	// the tree again, on the other side.
	transfer() {
		const data = { names: this.names, n: this.n, cap: this.n, base: this.base, head: this.head,
			bad: this.bad, maxDelta: this.maxDelta };
		const buffers = [];
		for (const k of ARRAYS) {
			data[k] = this[k].slice(0, this.n);
			buffers.push(data[k].buffer);
		}
		return { data, buffers };
	}

	static fromTransfer(data) {
		const t = Object.create(FlameTree.prototype);
		Object.assign(t, data, { ids: null, table: null, hcap: 0, sortedKids: new Map(), slices: [] });
		return t;
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
// A frame's function: the name cut at perf's compiler suffixes (.isra.N,
// .constprop.N, .part.N, .cold: GCC's clones of one function), the rule of
// lib/parse/perf_fold.h perf_fold_sym_len, so the picture and the table of
// symbols name a function alike.
const CLONE = /\.(isra\.|constprop\.|part\.|cold)/;
export function funcName(f) {
	if (f.indexOf('.') < 0)
		return f;
	const m = CLONE.exec(f);
	return m ? f.slice(0, m.index) : f;
}

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
			const f = funcName(text.slice(fs, fe));
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

// Resolves in a new macrotask (after input and paint had their turn).
export const yieldTask = () => new Promise((resolve) => {
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
