// The profile diff's loading off the page's main thread (a module worker
// started by js/flame.js): fetches the reply (10^5 stacks a side are tens of
// MB of JSON), parses it and merges both sides' folded text into the tree,
// then hands the tree's arrays back transferred, not copied. The page's
// thread only draws, so a large profile never holds it up.
//
// In: {url, token}. Out: {reply (the JSON without folded; reply.stacks: its
// base_stacks, head_stacks and top), tree
// (FlameTree.transfer's data), ms: {fetch, parse, merge}} or {error:
// {status, code, message, field}} for an answer that is not 2xx.
import { newTree, mergeFolded } from './flametree.js';

self.onmessage = async (ev) => {
	const { url, token } = ev.data;
	try {
		const t0 = performance.now();
		const headers = { Accept: 'application/json' };
		if (token)
			headers.Authorization = 'Bearer ' + token;
		const resp = await fetch(url, { headers });
		const raw = await resp.text();
		const t1 = performance.now();
		if (!resp.ok) {
			let err = null;
			try {
				err = JSON.parse(raw).error;
			} catch {
				/* not JSON: the status line */
			}
			self.postMessage({ error: { status: resp.status, code: err ? err.code : 'http', field: err ? err.field : null,
				message: err ? `${err.message}${err.detail ? ' (' + err.detail + ')' : ''}` : `${resp.status} ${resp.statusText}` } });
			return;
		}
		const reply = raw ? JSON.parse(raw) : null;
		const t2 = performance.now();
		const folded = (reply && reply.folded) || {};
		if (reply) {
			reply.stacks = { base: folded.base_stacks, head: folded.head_stacks, top: folded.top };
			delete reply.folded;
		}
		const tree = newTree();
		mergeFolded(tree, typeof folded.base === 'string' ? folded.base : '', 'base');
		mergeFolded(tree, typeof folded.head === 'string' ? folded.head : '', 'head');
		tree.finish();
		const { data, buffers } = tree.transfer();
		self.postMessage({ reply, tree: data, folded: Boolean(folded.base || folded.head),
			ms: { fetch: t1 - t0, parse: t2 - t1, merge: performance.now() - t2 } }, buffers);
	} catch (e) {
		self.postMessage({ error: { status: 0, code: 'network', message: `cannot load the profile diff: ${e.message || e}` } });
	}
};
