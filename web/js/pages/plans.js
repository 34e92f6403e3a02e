// Test plans (/plans, /plans/NAME): what runs where, as data. The list shows
// each plan's matrix size, schedule and jobs by state; a plan's page its
// matrix (testcases × kconfig / compiler / target, the jobs of one tested
// commit) and what its last pushes tested and skipped, and why.
import { h, replace, section, table, emptyState, age, fmtParams, fmtTime, commitLink, badge, ordinal } from '../dom.js';
import { api } from '../api.js';
import { listOf } from '../model.js';
import { JOB_COLUMNS, jobCells } from './trees.js';

// the arch of a kconfig name (x86_64-defconfig) or of a target (arm64); null: a tbox_group
function archOf(name) {
	const a = String(name || '').split('-')[0];
	return { x86_64: 'x86_64', amd64: 'x86_64', arm64: 'aarch64', aarch64: 'aarch64' }[a] || null;
}

// The plan's setups, as the server expands them (server/track/plan.c plan_setups):
// a kconfig of one arch is not booted on a target of another.
export function setups(p) {
	const out = [];
	for (const tc of p.testcases || [])
		for (const k of p.kconfigs || [])
			for (const c of p.compilers || [])
				for (const t of p.targets || []) {
					const ta = archOf(t);
					if (k !== 'host' && ta && archOf(k) !== ta)
						continue;
					out.push({ testcase: tc.testcase, params: tc.params || {}, kconfig: k, compiler: c, target: t });
				}
	return out;
}

function scheduleText(s) {
	s = s || {};
	const parts = [];
	if (s.heads)
		parts.push('each new head');
	if (s.every > 0)
		parts.push(s.every === 1 ? 'every commit' : `every ${ordinal(s.every)} commit`);
	if (s.paths && s.paths.length)
		parts.push(`touching ${s.paths.join(', ')}`);
	parts.push(`at most ${s.max_per_push} per push`);
	return parts.join(' · ');
}

function jobsOf(trees) {
	const by = {};
	for (const t of trees)
		for (const p of t.plans || [])
			by[p.name] = p;
	return by;
}

function listPage(root, plans, trees) {
	const jobs = jobsOf(trees);
	replace(root, h('h1', null, 'Test plans'), plans.length ? table([
		{ label: 'plan' }, { label: 'tree' }, { label: 'branches' },
		{ label: 'jobs a commit', cls: 'num', title: 'testcases × kconfigs × compilers × targets that fit' },
		{ label: 'schedule' }, { label: 'runs' }, ...JOB_COLUMNS,
	], plans.map((p) => h('tr', { class: 'plan-row', 'data-plan': p.name },
		h('td', null, h('a', { href: `/plans/${encodeURIComponent(p.name)}` }, p.name),
			p.enabled ? null : [' ', badge('disabled', 'muted')]),
		h('td', null, p.tree),
		h('td', null, (p.branches || []).join(' ')),
		h('td', { class: 'num setups' }, String(setups(p).length)),
		h('td', { class: 'schedule' }, scheduleText(p.schedule)),
		h('td', null, `${p.repeat} × ${p.measure}`),
		...jobCells((jobs[p.name] || {}).jobs))), { class: 'list', id: 'plans' })
		: emptyState('No test plan yet (POST /api/v1/plans, or regtrack-server plan apply FILE.json).'));
}

function picks(list) {
	if (!Array.isArray(list) || !list.length)
		return h('span', { class: 'muted' }, '—');
	return h('ul', { class: 'picks' }, list.map((x) =>
		h('li', null, commitLink(x.commit), ' ', badge(x.reason, x.reason === 'max_per_push' || x.reason === 'paths' ? 'warn' : 'info'))));
}

function matrix(p) {
	const cols = [];
	for (const k of p.kconfigs || [])
		for (const c of p.compilers || [])
			for (const t of p.targets || [])
				cols.push({ k, c, t });
	const all = setups(p);
	const has = (tc, col) => all.some((s) => s.testcase === tc.testcase && s.kconfig === col.k &&
		s.compiler === col.c && s.target === col.t);
	return table([{ label: 'testcase' }, ...cols.map((col) => ({ label: `${col.t} · ${col.k} · ${col.c}` }))],
		(p.testcases || []).map((tc) => h('tr', { class: 'matrix-row' },
			h('td', null, tc.testcase, ' ', h('span', { class: 'muted' }, fmtParams(tc.params))),
			cols.map((col) => h('td', { class: has(tc, col) ? 'cell-on' : 'cell-off muted',
				title: has(tc, col) ? 'a job per tested commit' : 'that kconfig\'s arch does not boot there' },
			has(tc, col) ? '●' : '—')))), { class: 'list', id: 'matrix' });
}

async function planPage(root, name) {
	const [p, pushes, trees] = await Promise.all([api(`/plans/${encodeURIComponent(name)}`),
		api(`/plans/${encodeURIComponent(name)}/pushes`), api('/trees')]);
	const jobs = (jobsOf(listOf(trees, 'trees'))[name] || {}).jobs;
	document.title = `plan ${name} · regtrack`;
	replace(root,
		h('h1', null, `Plan ${p.name}`, p.enabled ? null : [' ', badge('disabled', 'muted')]),
		h('dl', { class: 'kv', id: 'plan-spec' },
			h('dt', null, 'tree'), h('dd', null, h('a', { href: '/trees' }, p.tree), ' · ', (p.branches || []).join(' ')),
			h('dt', null, 'schedule'), h('dd', { class: 'schedule' }, scheduleText(p.schedule)),
			h('dt', null, 'runs'), h('dd', null, `${p.repeat} a job · ${p.measure}`,
				p.monitors && p.monitors.length ? ` · monitors ${p.monitors.join(', ')}` : ''),
			h('dt', null, 'priority'), h('dd', null, String(p.priority)),
			h('dt', null, 'owner'), h('dd', null, p.owner || '—')),
		section(`Matrix: ${setups(p).length} job(s) a tested commit`, matrix(p)),
		section('Jobs', table(JOB_COLUMNS, [h('tr', { id: 'plan-jobs' }, ...jobCells(jobs))], { class: 'list' })),
		section('Last pushes', Array.isArray(pushes) && pushes.length ? table([
			{ label: 'when' }, { label: 'branch' }, { label: 'range' }, { label: 'commits', cls: 'num' },
			{ label: 'tested (why)' }, { label: 'skipped (why)' }, { label: 'jobs queued', cls: 'num' },
			{ label: 'superseded', cls: 'num' },
		], pushes.map((x) => h('tr', { class: 'push-row' },
			h('td', { title: fmtTime(x.at) }, age(x.at)),
			h('td', null, x.branch),
			h('td', null, x.old ? [commitLink(x.old), ' .. '] : h('span', { class: 'muted' }, 'first look: '),
				commitLink(x.new), x.forced ? [' ', badge('force-pushed', 'warn')] : null),
			h('td', { class: 'num' }, String(x.commits)),
			h('td', { class: 'tested' }, picks(x.tested)),
			h('td', { class: 'skipped' }, picks(x.skipped)),
			h('td', { class: 'num jobs-queued' }, String(x.jobs_queued)),
			h('td', { class: 'num' }, String(x.superseded)))), { class: 'list', id: 'pushes' })
			: emptyState('No push yet: the plan schedules at its tree\'s next poll.')));
}

export async function render(root, ctx) {
	if (ctx && ctx.name)
		return planPage(root, ctx.name);
	document.title = 'plans · regtrack';
	const [plans, trees] = await Promise.all([api('/plans'), api('/trees')]);
	return listPage(root, listOf(plans, 'plans'), listOf(trees, 'trees'));
}
