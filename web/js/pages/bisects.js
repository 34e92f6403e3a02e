// Every bisect, newest first (/bisects[?state=]): state, arch, testcase,
// metric, range, first bad commit. The overview's bisects table is this one.
import { h, replace, link, table, emptyState, age, stateBadge, commitLink, fmtParams } from '../dom.js';
import { api } from '../api.js';
import { pick, commitOf, listOf, archOf } from '../model.js';

const STATES = ['', 'queued', 'running', 'done', 'failed', 'cancelled'];

// A bisect that descended into merges: on which level it is (or ended), and how
// many merges it went into (the bisect page has the levels' headings).
function levelNote(b) {
	const n = Array.isArray(b.descents) ? b.descents.length : 0;
	if (!(b.level > 0) && !n)
		return null;
	return h('span', { class: 'bisect-level muted' },
		` · level ${b.level || 0} · ${n} merge${n === 1 ? '' : 's'} descended into`);
}

// the table of bisects (the API's list objects), one row each, linked to its page
export function bisectsTable(list) {
	return table([
		{ label: '#' }, { label: 'state' }, { label: 'arch' }, { label: 'testcase' }, { label: 'metric' },
		{ label: 'range' }, { label: 'first bad commit' }, { label: 'started' },
	], list.map((b) => {
		const fb = commitOf(pick(b, 'first_bad_commit', 'first_bad'), b.first_bad_subject);
		return h('tr', { class: 'bisect-row', dataset: { id: String(b.id) } },
			h('td', null, h('a', { href: `/bisects/${b.id}` }, `#${b.id}`)),
			h('td', null, stateBadge(b.state)),
			h('td', { class: 'arch' }, archOf(b)),
			h('td', { class: 'testcase' }, b.testcase || '',
				b.params && Object.keys(b.params).length ? h('span', { class: 'muted' }, ' ', fmtParams(b.params)) : null),
			h('td', null, b.metric || ''),
			h('td', null, commitLink(commitOf(b.good).sha), ' .. ', commitLink(commitOf(b.bad).sha)),
			h('td', { class: 'first-bad' }, fb.sha ? commitLink(fb.sha, fb.subject) : '—', levelNote(b)),
			h('td', null, age(pick(b, 'created_at', 'started_at'))));
	}), { class: 'list', id: 'bisects' });
}

export async function render(root, { query }) {
	document.title = 'bisects · regtrack';
	const state = query.get('state') || '';
	const data = await api('/bisects', { query: { state, limit: 1000 }, optional: true });
	const sel = h('select', { id: 'bisect-state', onchange: (ev) => location.assign(link('/bisects', { state: ev.target.value })) },
		STATES.map((s) => h('option', { value: s, selected: s === state }, s || 'all states')));
	const head = [h('h1', null, 'Bisects'), h('div', { class: 'pickers' }, h('label', null, 'state ', sel))];
	if (data === null) {
		replace(root, head, emptyState('This server has no bisects API yet.'));
		return;
	}
	const list = listOf(data, 'bisects');
	replace(root, head, list.length ? bisectsTable(list) : emptyState('None.'));
}
