// A/B requests: /requests, the list, and /requests/{id}, one
// request: progress (runs done / needed per side, each job's phase,
// elapsed), the targets side by side (x86_64 beside arm64), every run as a
// dot per side, the LKP-style table, the profile difference (helper
// "flame"'s renderProfileDiff from js/flame.js, loaded when it exists) and
// the commands that run it again. Refreshes itself while queued or running.
import { h, replace, link, section, table, emptyState, errorBox, fmtTime, fmtNum, fmtPct, fmtP,
	duration, stateBadge, badge, commitLink, fmtParams } from '../dom.js';
import { api } from '../api.js';
import { listOf } from '../model.js';
import { progressBar } from './jobs.js';

const REFRESH_MS = 3000;
const STATES = ['', 'resolving', 'queued', 'running', 'done', 'failed', 'cancelled'];
const VERDICT_KIND = { regression: 'bad', improvement: 'good', 'no-change': 'muted', inconclusive: 'warn' };
const SVG = 'http://www.w3.org/2000/svg';

export function verdictBadge(v) {
	return v ? badge(v, VERDICT_KIND[v] || '') : null;
}

// resolving: the server is resolving its refs; jobs follow (or fail_reason says why not)
function live(q) {
	return q.state === 'resolving' || q.state === 'queued' || q.state === 'running';
}

// what the request tests: head ref/sha, or the patch series
function changeOf(q) {
	if (q.patches)
		return h('span', null, `${q.patches.count} patch${q.patches.count === 1 ? '' : 'es'} `,
			h('span', { class: 'subject' }, q.patches.subject || ''));
	const hd = q.head || {};
	return commitLink(hd.sha, hd.ref && hd.ref !== hd.sha ? hd.ref : null);
}

// --- the list -------------------------------------------------------------

function listTable(list) {
	if (!list.length)
		return emptyState('No requests.');
	return table([
		{ label: '#' }, { label: 'state' }, { label: 'verdict' }, { label: 'tree' }, { label: 'base' },
		{ label: 'change' }, { label: 'targets' }, { label: 'testcases' }, { label: 'label' }, { label: 'submitted' },
	], list.map((q) => h('tr', { class: 'request-row', dataset: { state: q.state, id: String(q.id) } },
		h('td', null, h('a', { href: `/requests/${q.id}` }, `#${q.id}`)),
		h('td', null, stateBadge(q.state)),
		h('td', null, verdictBadge(q.verdict) || h('span', { class: 'muted' }, '—')),
		h('td', null, q.tree || ''),
		h('td', null, commitLink((q.base || {}).sha, (q.base || {}).ref)),
		h('td', null, changeOf(q)),
		h('td', null, (q.targets || []).join(' ')),
		h('td', null, (q.testcases || []).map((t) => t.testcase).join(' ')),
		h('td', null, q.label || ''),
		h('td', null, fmtTime(q.created_at)))), { class: 'list', id: 'requests' });
}

async function renderList(root, query) {
	document.title = 'requests · regtrack';
	const state = query.get('state') || '';
	const holder = h('div');
	const sel = h('select', { id: 'request-state', onchange: (ev) => location.assign(link('/requests', { state: ev.target.value })) },
		STATES.map((s) => h('option', { value: s, selected: s === state }, s || 'all states')));
	replace(root, h('h1', null, 'A/B requests'),
		h('p', { class: 'muted' }, 'A change tested against its base on each target: submit with ',
			h('code', null, 'regtrack test … --wait --gate'), ' or POST /api/v1/requests.'),
		h('div', { class: 'pickers' }, h('label', null, 'state ', sel)), holder);
	const data = await api('/requests', { query: { state }, optional: true });
	replace(holder, data === null ? emptyState('This server has no requests API yet.') : listTable(listOf(data, 'requests')));
}

// --- one request ------------------------------------------------------------

// the elapsed time of a job: leased -> finished (or now while it runs)
function jobElapsed(j, now) {
	const t0 = Date.parse(j.leased_at);
	if (!Number.isFinite(t0))
		return '—';
	const t1 = Date.parse(j.finished_at);
	return duration(((Number.isFinite(t1) ? t1 : now) - t0) / 1000);
}

function progressPart(q, now) {
	const p = q.progress || {};
	const t1 = Date.parse(q.finished_at);
	const elapsed = ((Number.isFinite(t1) ? t1 : now) - Date.parse(q.created_at)) / 1000;
	const side = (name) => {
		const s = p[name] || { jobs: 0, finished: 0, runs: 0, runs_needed: 0 };
		return h('div', { class: 'side-progress', id: `progress-${name}` },
			h('b', null, `${name} `), `${s.runs} / ${s.runs_needed} runs`, ' ',
			progressBar(s.runs_needed ? s.runs / s.runs_needed : null),
			h('span', { class: 'muted' }, ` · ${s.finished} / ${s.jobs} jobs finished`));
	};
	const jobs = q.jobs || [];
	return section('Progress',
		h('div', { class: 'range' }, side('base'), side('head'),
			h('div', { id: 'elapsed' }, h('b', null, 'elapsed '), duration(elapsed),
				live(q) ? h('span', { class: 'muted' }, ' (running)') : null),
			(q.waiting_for || []).length ? h('div', { class: 'warn', id: 'waiting-for' },
				'waiting for a worker: ', q.waiting_for.join(', ')) : null),
		jobs.length ? table([
			{ label: 'job' }, { label: 'side' }, { label: 'round', cls: 'num' }, { label: 'target' },
			{ label: 'state' }, { label: 'phase' }, { label: 'progress' }, { label: 'runs', cls: 'num' },
			{ label: 'machine' }, { label: 'elapsed', cls: 'num' },
		], jobs.map((j) => h('tr', { class: 'request-job', dataset: { side: j.side, state: j.state } },
			h('td', null, h('a', { href: `/jobs/${j.id}` }, `#${j.id}`)),
			h('td', null, j.side), h('td', { class: 'num' }, String(j.round)),
			h('td', null, j.tbox_group || j.arch || ''),
			h('td', { title: j.fail_reason || null }, stateBadge(j.state)),
			h('td', { class: 'phase' }, j.state === 'done' && j.outcome !== 'ok' ? j.outcome : j.phase || '—'),
			h('td', null, j.state === 'leased' ? progressBar(j.progress) : h('span', { class: 'muted' }, '—')),
			h('td', { class: 'num' }, `${j.runs} / ${j.repeat}`),
			h('td', null, j.machine || ''),
			h('td', { class: 'num' }, jobElapsed(j, now)))), { class: 'list', id: 'request-jobs' })
			: emptyState('No jobs.'));
}

// every run of one metric as a dot per side, on one value axis
export function dotsSvg(base, head, { width = 300, rowH = 18 } = {}) {
	const all = [...base, ...head].filter(Number.isFinite);
	const svg = document.createElementNS(SVG, 'svg');
	const lx = 40, w = width - lx - 8;
	svg.setAttribute('width', String(width));
	svg.setAttribute('height', String(rowH * 2 + 4));
	svg.setAttribute('class', 'dots');
	if (!all.length)
		return svg;
	let lo = Math.min(...all), hi = Math.max(...all);
	if (hi === lo) {
		lo -= Math.abs(lo) * 0.01 || 1;
		hi += Math.abs(hi) * 0.01 || 1;
	}
	const x = (v) => lx + ((v - lo) / (hi - lo)) * w;
	[['base', base], ['head', head]].forEach(([name, vals], row) => {
		const y = rowH * row + rowH / 2 + 2;
		const label = document.createElementNS(SVG, 'text');
		label.setAttribute('x', '0');
		label.setAttribute('y', String(y + 4));
		label.setAttribute('class', 'dot-label');
		label.textContent = name;
		svg.appendChild(label);
		for (const v of vals) {
			if (!Number.isFinite(v))
				continue;
			const c = document.createElementNS(SVG, 'circle');
			c.setAttribute('cx', x(v).toFixed(1));
			c.setAttribute('cy', String(y));
			c.setAttribute('r', '3.5');
			c.setAttribute('class', `dot dot-${name}`);
			const t = document.createElementNS(SVG, 'title');
			t.textContent = `${name}: ${fmtNum(v)}`;
			c.appendChild(t);
			svg.appendChild(c);
		}
	});
	return svg;
}

// LKP's compare layout: base %stddev %change head %stddev metric
function lkpTable(rows) {
	return table([
		{ label: 'base', cls: 'num' }, { label: '%stddev', cls: 'num' }, { label: '%change', cls: 'num', title: 'Hodges-Lehmann shift [95 % CI]' },
		{ label: 'head', cls: 'num' }, { label: '%stddev', cls: 'num' }, { label: 'metric' }, { label: 'n', cls: 'num' },
		{ label: 'p', cls: 'num' }, { label: 'verdict' },
	], rows.map((r) => h('tr', { class: `lkp-row ${r.change || ''}`, dataset: { metric: r.metric } },
		h('td', { class: 'num' }, fmtNum(r.mean[0])),
		h('td', { class: 'num' }, Number.isFinite(r.stddev_pct[0]) ? `± ${r.stddev_pct[0].toFixed(1)}%` : ''),
		h('td', { class: `num pct ${r.change || ''}`, title: `means' %change ${fmtPct(r.change_pct)}` },
			fmtPct(r.hl_pct), ' ', h('span', { class: 'muted' }, `[${fmtPct(r.ci_pct[0])}, ${fmtPct(r.ci_pct[1])}]`)),
		h('td', { class: 'num' }, fmtNum(r.mean[1])),
		h('td', { class: 'num' }, Number.isFinite(r.stddev_pct[1]) ? `± ${r.stddev_pct[1].toFixed(1)}%` : ''),
		h('td', null, r.metric),
		h('td', { class: 'num' }, `${r.n[0]} / ${r.n[1]}`),
		h('td', { class: 'num' }, fmtP(r.p_value)),
		h('td', null, r.change === 'regression' || r.change === 'improvement' ? r.change : r.verdict))),
	{ class: 'lkp' });
}

// one target's column: per testcase its dots and its rows; then its profile slot
function targetColumn(q, target) {
	const groups = (q.groups || []).map((g, i) => ({ ...g, index: i })).filter((g) => g.target === target);
	const rows = ((q.result || {}).rows || []);
	const samples = q.samples || [];
	const slot = h('div', { class: 'profile-diff', id: `profile-diff-${target}` }, emptyState('no profile diff'));
	const col = h('div', { class: 'card target', id: `target-${target}`, dataset: { target } },
		h('h2', null, target),
		groups.map((g) => {
			const metrics = [...new Set(samples.filter((s) => s.group === g.index).map((s) => s.metric))];
			const vals = (m, side) => ((samples.find((s) => s.group === g.index && s.metric === m && s.side === side) || {}).values || []);
			const grows = rows.filter((r) => r.group === g.index && !r.monitor);
			return h('div', { class: 'group', dataset: { group: String(g.index) } },
				h('h3', null, g.testcase, ' ', h('span', { class: 'muted' }, fmtParams(g.params)), ' ',
					h('span', { class: 'muted' }, g.kconfig)),
				metrics.length ? metrics.map((m) => h('div', { class: 'metric-dots', dataset: { metric: m } },
					h('div', { class: 'muted' }, m), dotsSvg(vals(m, 'base'), vals(m, 'head'))))
					: emptyState('No runs yet.'),
				grows.length ? lkpTable(grows) : null);
		}),
		h('h3', null, 'profile difference'), slot);
	return { col, slot };
}

// helper "flame"'s renderer, when js/flame.js exists; the slot says so otherwise
async function profileDiff(slot, id, target) {
	try {
		const m = await import('../flame.js');
		if (typeof m.renderProfileDiff !== 'function')
			return;
		await m.renderProfileDiff(slot, `/api/v1/requests/${id}/profile-diff?target=${encodeURIComponent(target)}`);
	} catch {
		replace(slot, emptyState('no profile diff'));
	}
}

function view(q, now) {
	const slots = [];
	const cols = (q.targets || []).map((t) => {
		const c = targetColumn(q, t);
		slots.push([c.slot, t]);
		return c.col;
	});
	const rep = q.reproduce_local || [];
	return {
		slots,
		nodes: [
			h('h1', null, `Request #${q.id} `, stateBadge(q.state), ' ', verdictBadge(q.verdict)),
			h('div', { class: 'card range', id: 'request-summary' },
				h('div', null, h('b', null, 'tree '), q.tree || ''),
				h('div', null, h('b', null, 'base '), commitLink((q.base || {}).sha, (q.base || {}).ref)),
				h('div', null, h('b', null, q.patches ? 'patches ' : 'head '), changeOf(q),
					q.patches && q.patches.mbox_url ? [' · ', mboxLink(q.patches.mbox_url)] : null),
				q.plan ? h('div', { id: 'plan' }, h('b', null, 'plan '), h('a', { href: `/plans/${encodeURIComponent(q.plan)}` }, q.plan)) : null,
				q.patches && q.patches.patch_id ? h('div', null, h('b', null, 'patch-id '), h('code', { id: 'patch-id' }, q.patches.patch_id)) : null,
				h('div', null, h('b', null, 'build '), [q.kconfig || 'defconfig', q.compiler, q.measure].filter(Boolean).join(' / ')),
				h('div', { id: 'repeat' }, h('b', null, 'runs a side '), String(q.repeat),
					q.repeat_why ? h('span', { class: 'muted' }, ` — ${q.repeat_why}`) : null),
				q.label ? h('div', null, h('b', null, 'label '), q.label) : null,
				h('div', null, h('b', null, 'submitted '), fmtTime(q.created_at),
					q.finished_at ? [' · ', h('b', null, 'finished '), fmtTime(q.finished_at)] : null),
				q.fail_reason ? h('div', { class: 'error', id: 'fail-reason' }, q.fail_reason) : null),
			progressPart(q, now),
			h('div', { class: 'cols targets', id: 'targets' }, cols),
			section('Run it again',
				q.reproduce ? h('div', null, h('b', null, 'A/B in the service '), h('pre', { class: 'cmd', id: 'reproduce' }, q.reproduce)) : null,
				rep.length ? h('div', null, h('b', null, 'on your own machine, inside a kernel tree '),
					rep.map((r) => h('pre', { class: 'cmd reproduce-local' }, r.command))) : null),
		],
	};
}

async function renderOne(root, id) {
	document.title = `request ${id} · regtrack`;
	const load = async () => {
		const q = await api(`/requests/${id}`, { optional: true });
		if (q === null) {
			replace(root, h('h1', null, `Request #${id}`), emptyState('This server has no requests API yet.'));
			return false;
		}
		const v = view(q, Date.now());
		replace(root, v.nodes);
		// the profile slots only once the request has runs to compare
		if (((q.progress || {}).head || {}).runs)
			for (const [slot, t] of v.slots)
				await profileDiff(slot, id, t);
		return live(q);
	};
	if (await load()) {
		const t = setInterval(async () => {
			if (document.hidden)
				return;
			try {
				if (!(await load()))
					clearInterval(t);
			} catch (e) {
				root.appendChild(errorBox(e));
				clearInterval(t);
			}
		}, REFRESH_MS);
		addEventListener('pagehide', () => clearInterval(t));
	}
}

// The series needs a token (README "Security: what is public"): a plain
// link would go without it, so a click fetches it with the page's token
// and shows it below, as text.
function mboxLink(url) {
	const a = h('a', { href: url, id: 'mbox' }, 'mbox');
	a.addEventListener('click', async (ev) => {
		ev.preventDefault();
		let shown;
		try {
			shown = h('pre', { class: 'log', id: 'mbox-text' },
				await api(url.replace(/^\/api\/v1/, ''), { text: true }));
		} catch (e) {
			shown = errorBox(e);
		}
		const old = document.getElementById('mbox-text');
		if (old)
			old.remove();
		a.closest('.card').after(shown);
	});
	return a;
}

export async function render(root, { id, query }) {
	if (id === null)
		return renderList(root, query);
	return renderOne(root, id);
}
