// Jobs (/jobs[?state=]): the queue, refreshed every few seconds.
import { h, replace, link, table, emptyState, errorBox, age, stateBadge, commitLink,
	fmtParams } from '../dom.js';
import { api } from '../api.js';
import { listOf, pick, commitOf, jobStatus, archOf } from '../model.js';

const REFRESH_MS = 5000;
// the API's job status (jobStatus(): a done job without a run is failed or skipped)
const STATES = ['', 'queued', 'leased', 'done', 'failed', 'skipped', 'cancelled'];

export function progressBar(p) {
	const v = Number.isFinite(p) ? Math.max(0, Math.min(1, p > 1 ? p / 100 : p)) : null;
	if (v === null)
		return h('span', { class: 'muted' }, '—');
	return h('span', { class: 'progress', title: `${Math.round(v * 100)}%` },
		h('span', { class: 'bar', style: `width:${Math.round(v * 100)}%` }), ` ${Math.round(v * 100)}%`);
}

// a job that ended without a run: failed, or skipped (same image)
const noRun = (j) => jobStatus(j).failed || jobStatus(j).state === 'skipped';

function jobsTable(list) {
	if (!list.length)
		return emptyState('No jobs.');
	return table([
		{ label: '#' }, { label: 'state' }, { label: 'arch' }, { label: 'testcase' }, { label: 'commit' },
		{ label: 'phase' }, { label: 'progress' }, { label: 'attempts', cls: 'num' },
		{ label: 'machine' }, { label: 'updated' },
	], list.map((j) => h('tr', { class: 'job-row', dataset: { state: jobStatus(j).state } },
		h('td', null, h('a', { href: `/jobs/${j.id}` }, `#${j.id}`)),
		h('td', { title: jobStatus(j).reason || null }, stateBadge(jobStatus(j).state)),
		h('td', { class: 'arch' }, archOf(j) || h('span', { class: 'muted', title: 'host mode' }, '—')),
		h('td', null, j.testcase || '', j.params ? h('span', { class: 'muted' }, ' ', fmtParams(j.params)) : null),
		h('td', null, commitLink(commitOf(j.commit).sha)),
		h('td', null, noRun(j) && j.outcome ? j.outcome : j.phase || ''),
		h('td', null, noRun(j) ? h('span', { class: 'muted' }, '—') : progressBar(j.progress)),
		h('td', { class: 'num' }, j.attempts === undefined ? '' : String(j.attempts)),
		h('td', null, pick(j, 'hostname', 'machine') ? String(pick(j, 'hostname', 'machine')) : ''),
		h('td', null, age(pick(j, 'updated_at', 'finished_at', 'leased_at', 'created_at'))))),
	{ class: 'list', id: 'jobs' });
}

export async function render(root, { query }) {
	document.title = 'jobs · regtrack';
	const state = query.get('state') || '';
	const holder = h('div');
	const stamp = h('p', { class: 'muted' });
	const sel = h('select', { id: 'job-state', onchange: (ev) => location.assign(link('/jobs', { state: ev.target.value })) },
		STATES.map((s) => h('option', { value: s, selected: s === state }, s || 'all states')));
	replace(root, h('h1', null, 'Jobs'), h('div', { class: 'pickers' }, h('label', null, 'state ', sel)), stamp, holder);
	const load = async () => {
		let data;
		try {
			data = await api('/jobs', { query: { state }, optional: true });
		} catch (e) {
			replace(holder, errorBox(e));
			return false;
		}
		if (data === null) {
			replace(holder, emptyState('No jobs yet: this server has no jobs API.'));
			return false;
		}
		replace(holder, jobsTable(listOf(data, 'jobs')));
		replace(stamp, `updated ${new Date().toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000} s`);
		return true;
	};
	if (await load()) {
		const t = setInterval(() => {
			if (!document.hidden)
				load();
		}, REFRESH_MS);
		addEventListener('pagehide', () => clearInterval(t));
	}
}
