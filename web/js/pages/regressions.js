// All regressions and improvements (/regressions[?state=]).
import { h, replace, link, table, emptyState, fmtPct, age, stateBadge, commitLink,
	setupLabel, badge } from '../dom.js';
import { api } from '../api.js';
import { pick, listOf, regressionKind, shiftPct, shiftTitle, setupOf, goodOf, badOf, archOf } from '../model.js';

const STATES = ['', 'new', 'confirmed', 'bisecting', 'bisected', 'reported', 'fixed', 'invalid', 'wontfix'];

export async function render(root, { query }) {
	document.title = 'regressions · regtrack';
	const state = query.get('state') || '';
	const data = await api('/regressions', { query: { state }, optional: true });
	const sel = h('select', { id: 'reg-state', onchange: (ev) => location.assign(link('/regressions', { state: ev.target.value })) },
		STATES.map((s) => h('option', { value: s, selected: s === state }, s || 'all states')));
	const head = [h('h1', null, 'Regressions and improvements'), h('div', { class: 'pickers' }, h('label', null, 'state ', sel))];
	if (data === null) {
		replace(root, head, emptyState('This server has no regressions API yet.'));
		return;
	}
	const list = listOf(data, 'regressions');
	if (!list.length) {
		replace(root, head, emptyState('None.'));
		return;
	}
	replace(root, head, table([
		{ label: '#' }, { label: 'kind' }, { label: '%change', cls: 'num' }, { label: 'metric' },
		{ label: 'arch' }, { label: 'setup' }, { label: 'range' }, { label: 'state' }, { label: 'age' },
	], list.map((r) => {
		const kind = regressionKind(r);
		return h('tr', { class: 'regression-row' },
			h('td', null, h('a', { href: `/regressions/${r.id}` }, `#${r.id}`)),
			h('td', null, badge(kind, { improvement: 'good', regression: 'bad' }[kind] || 'info'),
				// a step at a change of host fingerprint: the machine, not a commit
				r.environment ? [' ', h('span', { title: `host changed: ${(r.environment.fields || []).join(', ')}` },
					badge('environment', 'warn'))] : null),
			h('td', { class: `num ${kind}`, title: shiftTitle(r, fmtPct) }, fmtPct(shiftPct(r))),
			h('td', null, r.metric || ''), h('td', { class: 'arch' }, archOf(r)),
			h('td', null, setupLabel(setupOf(r))),
			h('td', null, commitLink(goodOf(r).sha), ' .. ', commitLink(badOf(r).sha)),
			h('td', null, stateBadge(r.state)),
			h('td', null, age(pick(r, 'created_at', 'detected_at'))));
	}), { class: 'list', id: 'regressions' }));
}
