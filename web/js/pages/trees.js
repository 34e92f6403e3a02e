// Trees (/trees): each tracked tree, its polls (when, how long, git's error,
// the next one), its branches' heads, and per test plan on it the jobs it
// queued by state (queued, running, done, failed, superseded) and the extra
// runs its tips asked for.
import { h, replace, section, table, emptyState, age, duration, fmtTime, commitLink, badge } from '../dom.js';
import { api } from '../api.js';
import { listOf } from '../model.js';

// a tree is polled on its own only while an enabled plan uses it (README "Tracking trees")
export function pollEvery(t) {
	if (!(t.poll_s > 0))
		return 'when asked (POST …/poll)';
	return (t.plans || []).some((p) => p.enabled) ? `every ${duration(t.poll_s)}`
		: `every ${duration(t.poll_s)} once a plan uses it; now when asked`;
}

export function lastPoll(t) {
	if (!t.last_poll_at)
		return h('span', { class: 'muted' }, 'never');
	return h('span', { title: fmtTime(t.last_poll_at) }, age(t.last_poll_at),
		Number.isFinite(t.last_poll_ms) ? h('span', { class: 'muted' }, ` · took ${t.last_poll_ms} ms`) : null,
		t.poll_error ? [' ', badge(`failed ×${t.poll_failures || 1}`, 'bad')] : null);
}

function nextPoll(t) {
	if (!t.next_poll_at)
		return h('span', { class: 'muted' }, '—');
	const s = (Date.parse(t.next_poll_at) - Date.now()) / 1000;
	return h('span', { title: fmtTime(t.next_poll_at) }, s <= 0 ? 'due now' : `in ${duration(s)}`);
}

export function jobCells(j) {
	j = j || {};
	return ['queued', 'running', 'done', 'failed', 'superseded', 'tip'].map((k) =>
		h('td', { class: `num jobs-${k}` }, String(j[k] || 0)));
}

export const JOB_COLUMNS = [
	{ label: 'queued', cls: 'num' }, { label: 'running', cls: 'num' }, { label: 'done', cls: 'num' },
	{ label: 'failed', cls: 'num' }, { label: 'superseded', cls: 'num' },
	{ label: 'tip runs', cls: 'num', title: 'extra jobs a tip that moved asked for (reports at the tip)' },
];

function treeCard(t) {
	const heads = Array.isArray(t.heads) ? t.heads : [];
	const plans = Array.isArray(t.plans) ? t.plans : [];
	return h('section', { class: 'card tree', id: `tree-${t.name}` },
		h('h2', null, t.name, ' ', h('span', { class: 'muted' }, t.url || '')),
		h('dl', { class: 'kv' },
			h('dt', null, 'polled'), h('dd', { class: 'poll-every' }, pollEvery(t)),
			h('dt', null, 'last poll'), h('dd', { class: 'last-poll' }, lastPoll(t)),
			h('dt', null, 'next poll'), h('dd', { class: 'next-poll' }, nextPoll(t)),
			h('dt', null, 'polls'), h('dd', { class: 'polls' }, String(t.polls || 0)),
			h('dt', null, 'commits'), h('dd', null, String(t.commits ?? '—'))),
		t.poll_error ? h('pre', { class: 'error poll-error', role: 'alert' }, t.poll_error) : null,
		h('h3', null, 'Branches'),
		heads.length ? table([
			{ label: 'branch' }, { label: 'head' }, { label: 'before' }, { label: 'moved' },
		], heads.map((b) => h('tr', { class: 'branch-row' },
			h('td', null, b.branch),
			h('td', { class: 'head' }, commitLink(b.head)),
			h('td', null, b.previous ? commitLink(b.previous) : h('span', { class: 'muted' }, '—'),
				b.forced ? [' ', badge('force-pushed', 'warn')] : null),
			h('td', null, age(b.updated_at)))), { class: 'list branches' })
			: emptyState(t.poll_error ? 'No branch seen yet: the poll failed (above).'
				: 'No branch seen yet: the tree has not been polled.'),
		h('h3', null, 'Plans'),
		plans.length ? table([{ label: 'plan' }, ...JOB_COLUMNS, { label: 'last push' }],
			plans.map((p) => h('tr', { class: 'plan-row', 'data-plan': p.name },
				h('td', null, h('a', { href: `/plans/${encodeURIComponent(p.name)}` }, p.name),
					p.enabled ? null : [' ', badge('disabled', 'muted')]),
				...jobCells(p.jobs),
				h('td', null, p.last_push ? [commitLink(p.last_push.new), ' ',
					h('span', { class: 'muted' }, `${p.last_push.jobs_queued} queued · ${age(p.last_push.at)}`)]
					: h('span', { class: 'muted' }, '—')))), { class: 'list plans' })
			: emptyState('No test plan uses this tree: it is mirrored for bisects only.'));
}

export async function render(root) {
	document.title = 'trees · regtrack';
	const list = listOf(await api('/trees'), 'trees');
	if (!list.length) {
		replace(root, h('h1', null, 'Trees'), emptyState('No tree registered yet (POST /api/v1/trees).'));
		return;
	}
	replace(root, h('h1', null, 'Trees'), h('div', { id: 'trees' }, list.map(treeCard)));
}
