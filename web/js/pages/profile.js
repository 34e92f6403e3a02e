// /profile-diff?base=SHA&head=SHA[&testcase&params&tbox_group&kconfig&compiler&mode&monitors…][&setup=ID]:
// the differential flame graph and top changed symbols of two commits'
// profiled runs (GET /api/v1/profile-diff with the same query), the picture
// the regression, bisect and request pages embed. A diff is of one setup
// (x86_64 and arm64 stacks are not one graph; the API answers 400 "setup"
// for several): when the commits were profiled in several, the page draws
// the URL's setup=, else the first, and links the others.
import { h, replace, link, section, emptyState, commitLink, setupLabel } from '../dom.js';
import { api } from '../api.js';
import { renderProfileDiff } from '../flame.js';

const FILTERS = ['testcase', 'params', 'tbox_group', 'kconfig', 'compiler', 'mode', 'monitors'];

// the setups (setup_json objects) in which both commits have profiled runs
// matching the filters: the compare API's setups with perf-profile
async function profiledSetups(q) {
	const query = { base: q.base, head: q.head };
	for (const k of FILTERS)
		if (q[k] !== undefined)
			query[k] = q[k];
	try {
		const d = await api('/compare', { query });
		return ((d && d.setups) || []).filter((s) => (s.monitors || []).includes('perf-profile'));
	} catch {
		return [];
	}
}

export async function render(root, { query }) {
	const base = query.get('base'), head = query.get('head');
	document.title = 'profile diff · regtrack';
	if (!base || !head) {
		replace(root, h('h1', null, 'Profile diff'),
			emptyState('Give two commits: /profile-diff?base=SHA&head=SHA and the setup (testcase=…, params=…, monitors=perf-profile).'));
		return;
	}
	const el = h('div', { id: 'profile-diff' });
	const q = Object.fromEntries(query.entries());
	const setups = await profiledSetups(q);
	let picker = null;
	if (setups.length > 1) {
		if (!q.setup || !setups.some((s) => String(s.id) === q.setup))
			q.setup = String(setups[0].id);
		picker = h('p', { id: 'setup-pick' }, `profiled in ${setups.length} setups: `,
			setups.map((s, i) => [i ? ' · ' : '', String(s.id) === q.setup
				? h('b', { class: 'setup', dataset: { setup: String(s.id) } }, setupLabel(s))
				: h('a', { class: 'setup', dataset: { setup: String(s.id) }, href: link('/profile-diff', { ...q, setup: s.id }) },
					setupLabel(s))]));
	}
	const cmpq = { ...q };
	delete cmpq.setup;
	replace(root, h('h1', null, 'Profile diff: ', commitLink(head), ' vs ', commitLink(base)),
		picker,
		h('p', null, h('a', { href: link('/compare', cmpq) }, 'the metrics of the same runs compared')),
		section('Differential flame graph', el));
	await renderProfileDiff(el, link('/api/v1/profile-diff', q));
}
