// /profile-diff?base=SHA&head=SHA[&testcase&params&tbox_group&kconfig&compiler&mode&monitors…]:
// the differential flame graph and top changed symbols of two commits'
// profiled runs (GET /api/v1/profile-diff with the same query), the picture
// the regression, bisect and request pages embed.
import { h, replace, link, section, emptyState, commitLink } from '../dom.js';
import { renderProfileDiff } from '../flame.js';

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
	replace(root, h('h1', null, 'Profile diff: ', commitLink(head), ' vs ', commitLink(base)),
		h('p', null, h('a', { href: link('/compare', q) }, 'the metrics of the same runs compared')),
		section('Differential flame graph', el));
	await renderProfileDiff(el, link('/api/v1/profile-diff', q));
}
