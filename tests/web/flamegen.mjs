// A synthetic pair of folded profiles (Brendan Gregg's folded format, as
// the worker posts them) of a given number of distinct stacks, from a fixed
// seed, for the flame graph's bench and its large-input browser check.
//
// The shape is a kernel-like call graph: 2000 functions, each calling 2..7
// others; a stack is a random walk of depth 4..32 (preferring each function's first callees) from one of 12 comms, so
// prefixes are shared near the root and the leaves fan out, as in a real
// `perf script | stackcollapse` of a box under load. head is base with a
// tenth of the stacks through `hot_fn` grown 3x (the regression) and a few
// stacks gone: the differential graph has red, blue and neutral frames.
export function lcg(seed) {
	let s = seed >>> 0;
	return () => {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		return s / 4294967296;
	};
}

export function genFolded(nStacks, seed = 22) {
	const rnd = lcg(seed);
	const NF = 2000;
	const names = Array.from({ length: NF }, (_, i) => `fn_${i.toString(36)}_${['do', 'sys', 'mm', 'vfs', 'sched', 'irq'][i % 6]}`);
	names[7] = 'hot_fn';
	const callees = names.map(() => Array.from({ length: 2 + Math.floor(rnd() * 6) }, () => Math.floor(rnd() * NF)));
	const comms = Array.from({ length: 12 }, (_, i) => `comm-${i}`);
	const seen = new Set();
	const base = [], head = [];
	let guard = 0;
	while (seen.size < nStacks && guard++ < nStacks * 20) {
		const depth = 4 + Math.floor(rnd() * 29);
		const fr = [comms[Math.floor(rnd() * comms.length)]];
		let f = Math.floor(rnd() * 24); // a few entry points: shared roots
		for (let d = 0; d < depth; d++) {
			fr.push(names[f]);
			const c = callees[f];
			f = c[Math.floor(c.length * rnd() ** 5)]; // the first callee most often: shared prefixes
		}
		const stack = fr.join(';');
		if (seen.has(stack))
			continue;
		seen.add(stack);
		const n = 1 + Math.floor(-Math.log(1 - rnd()) * 20);
		const grows = fr.includes('hot_fn');
		const gone = !grows && rnd() < 0.02;
		base.push(`${stack} ${n}`);
		if (!gone)
			head.push(`${stack} ${grows ? 3 * n : n}`);
	}
	// sorted, as stackcollapse-perf.pl prints them
	base.sort();
	head.sort();
	return { base: base.join('\n') + '\n', head: head.join('\n') + '\n' };
}
