// Overview (/): open regressions and improvements, bisects, queue depth,
// workers online by arch, tracking at a glance (trees, their last poll,
// the plans' jobs), the last results, tracked testcases.
import { h, replace, link, section, table, emptyState, errorBox, fmtPct, age, stateBadge,
	commitLink, setupLabel, badge } from '../dom.js';
import { tryApi } from '../api.js';
import { lastPoll } from './trees.js';
import { bisectsTable } from './bisects.js';
import { pick, listOf, regressionKind, setupOf, seriesQuery, goodOf, badOf, jobStatus,
	isWorker, shiftPct, shiftTitle, archOf } from '../model.js';

const ONLINE_S = 15 * 60;
const OPEN = new Set(['new', 'confirmed', 'bisecting', 'bisected', 'reported']);

function panel(res, name, fn) {
	if (res.missing)
		return emptyState(`No ${name} yet: this server has no ${name} API.`);
	if (res.error)
		return errorBox(res.error);
	return fn(res.data);
}

function regressionRows(data) {
	const list = listOf(data, 'regressions').filter((r) => OPEN.has(r.state));
	if (!list.length)
		return emptyState('No open regressions or improvements.');
	return table([
		{ label: '#' }, { label: 'kind' }, { label: '%change', cls: 'num' }, { label: 'metric' },
		{ label: 'arch' }, { label: 'setup' }, { label: 'range' }, { label: 'state' }, { label: 'age' },
	], list.map((r) => {
		const kind = regressionKind(r);
		const good = goodOf(r), bad = badOf(r);
		return h('tr', { class: 'regression-row' },
			h('td', null, h('a', { href: `/regressions/${r.id}` }, `#${r.id}`)),
			h('td', null, badge(kind, { improvement: 'good', regression: 'bad' }[kind] || 'info')),
			h('td', { class: `num ${kind}`, title: shiftTitle(r, fmtPct) }, fmtPct(shiftPct(r))),
			h('td', null, h('a', { href: link('/series', seriesQuery(setupOf(r), r.metric)) }, r.metric || ''),
				r.group_size > 1 ? h('span', { class: 'muted' }, ` +${r.group_size - 1} more`) : null),
			h('td', { class: 'arch' }, archOf(r)),
			h('td', { class: 'setup' }, setupLabel(setupOf(r))),
			h('td', null, commitLink(good.sha), ' .. ', commitLink(bad.sha)),
			h('td', null, stateBadge(r.state)),
			h('td', null, age(pick(r, 'created_at', 'detected_at', 'updated_at'))));
	}), { class: 'list', id: 'regressions' });
}

function bisectRows(data) {
	const list = listOf(data, 'bisects');
	if (!list.length)
		return emptyState('No bisects yet.');
	return bisectsTable(list);
}

function queueSummary(jobs) {
	const list = listOf(jobs, 'jobs');
	const by = {};
	for (const j of list) {
		const st = jobStatus(j).state;
		by[st] = (by[st] || 0) + 1;
	}
	// failed and skipped as the jobs page's filter lists them (a same-image
	// job ran nothing because another commit's runs stand for it: not a failure)
	return h('p', { id: 'queue' },
		h('span', { class: 'big' }, String(by.queued || 0)), ' queued · ',
		h('span', { class: 'big' }, String(by.leased || 0)), ' running · ',
		h('a', { href: '/jobs?state=failed', id: 'queue-failed' }, `${by.failed || 0} failed`), ' · ',
		by.skipped ? [h('a', { href: '/jobs?state=skipped', id: 'queue-skipped' }, `${by.skipped} skipped`), ' · '] : null,
		h('a', { href: '/jobs' }, 'all jobs'));
}

// Registered workers by arch; hosts that only submitted results are
// counted apart: they run no jobs.
function workersSummary(machines) {
	const all = listOf(machines, 'machines');
	const list = all.filter(isWorker), ci = all.length - list.length;
	const ciNote = ci ? h('p', { class: 'muted', id: 'ci-hosts' },
		`${ci} host${ci === 1 ? '' : 's'} only submitted results (not workers)`) : null;
	if (!list.length)
		return [emptyState('No worker has registered yet.'), ciNote];
	const now = Date.now();
	const arches = {};
	for (const m of list) {
		const a = arches[m.arch] || (arches[m.arch] = { online: 0, total: 0 });
		a.total++;
		if ((now - Date.parse(m.last_seen)) / 1000 < ONLINE_S)
			a.online++;
	}
	return [h('ul', { class: 'inline', id: 'workers' }, Object.keys(arches).sort().map((a) =>
		h('li', null, h('b', null, a), `: ${arches[a].online} online of ${arches[a].total}`))), ciNote];
}

// The newest runs, as the server received them.
function recentRows(data) {
	const list = listOf(data, 'runs');
	if (!list.length)
		return emptyState('No results yet.');
	return table([
		{ label: 'received' }, { label: 'testcase' }, { label: 'commit' }, { label: 'setup' },
		{ label: 'metrics', cls: 'num' }, { label: 'status' },
	], list.map((r) => h('tr', { class: 'run-row' },
		h('td', null, age(r.received_at)),
		h('td', null, h('a', { href: link('/series', { testcase: r.testcase }) }, r.testcase)),
		h('td', null, commitLink(r.commit, r.subject)),
		h('td', { class: 'muted' }, setupLabel(setupOf(r))),
		h('td', { class: 'num' }, String(r.metrics)),
		h('td', null, stateBadge(r.status)))),
	{ class: 'list', id: 'last-results' });
}

// Tracking at a glance: each tree with a plan or a poll, its last poll and
// its plans' jobs summed (the trees page has them per plan).
function trackingRows(data) {
	const list = listOf(data, 'trees').filter((t) => (t.plans && t.plans.length) || t.polls > 0);
	if (!list.length)
		return emptyState('No tree is tracked: add a test plan (POST /api/v1/plans) and the server schedules its pushes.');
	const sum = (t, k) => (t.plans || []).reduce((n, p) => n + ((p.jobs || {})[k] || 0), 0);
	return [table([
		{ label: 'tree' }, { label: 'branches', cls: 'num' }, { label: 'last poll' }, { label: 'plans' },
		{ label: 'queued', cls: 'num' }, { label: 'running', cls: 'num' }, { label: 'done', cls: 'num' },
		{ label: 'superseded', cls: 'num' },
	], list.map((t) => h('tr', { class: 'tracking-row', 'data-tree': t.name },
		h('td', null, h('a', { href: '/trees' }, t.name)),
		h('td', { class: 'num' }, String((t.heads || []).length)),
		h('td', null, lastPoll(t)),
		h('td', null, (t.plans || []).map((p, i) => [i ? ', ' : '',
			h('a', { href: `/plans/${encodeURIComponent(p.name)}` }, p.name)])),
		h('td', { class: 'num jobs-queued' }, String(sum(t, 'queued'))),
		h('td', { class: 'num jobs-running' }, String(sum(t, 'running'))),
		h('td', { class: 'num jobs-done' }, String(sum(t, 'done'))),
		h('td', { class: 'num jobs-superseded' }, String(sum(t, 'superseded'))))),
	{ class: 'list', id: 'tracking' }), h('p', null, h('a', { href: '/trees' }, 'trees'), ' · ',
		h('a', { href: '/plans' }, 'test plans'))];
}

function testcaseRows(data) {
	const list = listOf(data, 'testcases');
	if (!list.length)
		return emptyState('No results yet: submit some with `regtrack submit` or POST /api/v1/results.');
	return table([{ label: 'testcase' }, { label: 'setups', cls: 'num' }, { label: '' }],
		list.map((t) => h('tr', null,
			h('td', null, t.name),
			h('td', { class: 'num' }, String(t.setups)),
			h('td', null, h('a', { href: link('/series', { testcase: t.name }) }, 'series')))),
		{ class: 'list', id: 'testcases' });
}

export async function render(root) {
	document.title = 'overview · regtrack';
	const [regs, bisects, jobs, machines, testcases, runs, trees] = await Promise.all([
		tryApi('/regressions', { query: { leaders: 1 } }), tryApi('/bisects'), tryApi('/jobs'),
		tryApi('/machines'), tryApi('/testcases'), tryApi('/runs', { query: { limit: 10 } }),
		tryApi('/trees'),
	]);
	replace(root,
		h('h1', null, 'Overview'),
		section('Open regressions and improvements', panel(regs, 'regressions', regressionRows)),
		h('div', { class: 'cols' },
			section('Queue', panel(jobs, 'jobs', queueSummary)),
			section('Workers', panel(machines, 'machines', workersSummary))),
		section('Tracking', panel(trees, 'trees', trackingRows)),
		section('Bisects', panel(bisects, 'bisects', bisectRows)),
		section('Last results', panel(runs, 'runs', recentRows)),
		section('Testcases', panel(testcases, 'testcases', testcaseRows)));
}
