// Series (/series?testcase=&metric=[&tbox_group&kconfig&compiler&params&mode]):
// pickers, then one chart per matching setup, and its latest commits.
import { h, replace, link, section, table, emptyState, errorBox, shortSha, fmtNum, fmtPct,
	fmtP, fmtTime, fmtParams, setupLabel, commitLink, plural } from '../dom.js';
import { api, tryApi } from '../api.js';
import { listOf, seriesQuery, pick, badOf, regressionKind, shiftPct } from '../model.js';
import { seriesChart } from '../chart.js';

const FILTERS = ['testcase', 'metric', 'tbox_group', 'kconfig', 'compiler', 'params', 'mode'];
const MAX_CHARTS = 8;
const RECENT = 30;

function current(query) {
	const q = {};
	for (const k of FILTERS)
		if (query.get(k))
			q[k] = query.get(k);
	return q;
}

function go(q) {
	location.assign(link('/series', q));
}

function canon(o) {
	if (!o || typeof o !== 'object')
		return o;
	return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

function parseParams(text) {
	try {
		return canon(JSON.parse(text));
	} catch {
		return null;
	}
}

// Does setup s match the filters of the page's query q (absent = any)?
function setupMatches(q, s) {
	if (!q.params)
		return false;
	return JSON.stringify(parseParams(q.params)) === JSON.stringify(canon(s.params)) &&
		['tbox_group', 'kconfig', 'compiler', 'mode'].every((k) => !q[k] || q[k] === s[k]);
}

function pickers(q, testcases, metrics) {
	const tc = testcases.find((t) => t.name === q.testcase);
	const tcSel = h('select', {
		id: 'pick-testcase', onchange: (ev) => go({ testcase: ev.target.value }),
	}, h('option', { value: '' }, '— testcase —'),
	testcases.map((t) => h('option', { value: t.name, selected: t.name === q.testcase }, t.name)));
	const setups = tc ? tc.setup_list || [] : [];
	const setupSel = h('select', {
		id: 'pick-setup', disabled: !tc,
		onchange: (ev) => {
			const s = setups[Number(ev.target.value)];
			go(s ? { ...seriesQuery({ ...s, testcase: q.testcase }, q.metric) }
				: { testcase: q.testcase, metric: q.metric });
		},
	}, h('option', { value: '' }, 'all setups'),
	setups.map((s, i) => h('option', {
		value: String(i), selected: setupMatches(q, s),
	}, [fmtParams(s.params), s.tbox_group, s.kconfig, s.compiler, s.mode].filter(Boolean).join(' / '))));
	const mine = metrics.filter((m) => q.testcase && m.name.startsWith(q.testcase + '.'));
	const others = metrics.filter((m) => !mine.includes(m));
	const metSel = h('select', {
		id: 'pick-metric', disabled: !tc,
		onchange: (ev) => go({ ...q, metric: ev.target.value }),
	}, h('optgroup', { label: q.testcase || 'testcase' },
		mine.map((m) => h('option', { value: m.name, selected: m.name === q.metric }, m.name))),
	h('optgroup', { label: 'other metrics and monitors' },
		others.map((m) => h('option', { value: m.name, selected: m.name === q.metric }, m.name))));
	return h('form', { class: 'pickers', onsubmit: (ev) => ev.preventDefault() },
		h('label', null, 'testcase ', tcSel), h('label', null, 'setup ', setupSel),
		h('label', null, 'metric ', metSel));
}

// Change points of one series: those the series API sends ([{index} or
// {commit}, change_pct]) and the regression records of this setup and
// metric (at their first bad commit). -> [{index, change_pct, kind, href}]
function changePoints(s, metric, regressions) {
	const out = [];
	const at = (sha) => s.commits.findIndex((c) => c.sha === sha);
	for (const cp of s.change_points || []) {
		const i = Number.isInteger(cp.index) ? cp.index : at(cp.commit);
		if (i > 0)
			out.push({
				index: i, change_pct: shiftPct(cp), kind: cp.kind || null, id: cp.regression_id,
				href: cp.regression_id ? `/regressions/${cp.regression_id}` : compareLink(s, i, metric),
			});
	}
	for (const r of regressions) {
		const sid = pick(r, 'setup_id') ?? pick(pick(r, 'setup'), 'id');
		if (r.metric !== metric || sid !== s.setup.id)
			continue;
		const i = at(badOf(r).sha);
		if (i < 0)
			continue;
		const same = out.findIndex((o) => o.index === i);
		if (same >= 0)
			out.splice(same, 1);
		out.push({ index: i, change_pct: shiftPct(r), kind: regressionKind(r), state: r.state, href: `/regressions/${r.id}`, id: r.id });
	}
	return out.sort((a, b) => a.index - b.index);
}

function changeList(s, cps) {
	if (!cps.length)
		return null;
	return h('p', { class: 'change-points' }, 'change points: ', cps.map((cp, k) => [k ? ' · ' : '',
		h('a', { href: cp.href }, shortSha(s.commits[cp.index].sha).slice(0, 7)), ' ',
		h('span', { class: `pct ${cp.kind || ''}` }, fmtPct(cp.change_pct)),
		cp.id ? h('span', { class: 'muted' }, ` ${cp.kind || 'regression'} #${cp.id}${cp.state ? ' ' + cp.state : ''}`) : null]));
}

// Where the detector raised a candidate's noise sigma because the series'
// history moves more than its noise model allowed (the series API's
// noise_raised, > 1; 1 or null, a detection stored before it was kept:
// nothing): "σ ×2.25", and the words for a title or a sentence.
const RAISED_WHY = 'the history moves more than its noise model allowed';
function raisedMark(c) {
	return c.noise_raised > 1 ? `σ ×${c.noise_raised.toFixed(2)}` : null;
}

function sizeCell(c) {
	const mark = raisedMark(c);
	return h('td', { class: 'num' }, Number.isFinite(c.effect) ? `${c.effect.toFixed(1)} σ` : '—',
		mark ? h('span', { class: 'raised', title: `noise sigma raised ${c.noise_raised.toFixed(2)} times: ${RAISED_WHY}, ` +
			'so the series\' own moves, not the model\'s noise, set the bar a change must clear' }, ` (${mark})`) : null);
}

// A candidate's stage; one read net of a cycle its history holds (the series
// API's cycle, P > 0: a window's levels and sigma are those net of it, a final
// estimate's p and sigma) says so.
function stageText(c) {
	const net = c.cycle > 0 ? `net of a ${c.cycle}-commit cycle` : null;
	if (c.stage === 'final')
		return net ? `final estimate (p ${net})` : 'final estimate';
	const what = [c.excursion ? 'excursion' : null, net].filter(Boolean).join(', ');
	return what ? `window (${what})` : 'window';
}

// "Why (not) flagged": the reasons of the series' last detection (the
// series API's "detection": each candidate split the detector considered,
// its size, p and the rule that kept or dropped it). Every string is text.
function whyFlagged(s) {
	const d = s.detection;
	if (!d)
		return null;
	const cands = d.candidates || [];
	const kept = cands.filter((c) => c.kept && c.stage === 'final');
	const best = cands.slice().sort((a, b) => (a.p_value ?? 2) - (b.p_value ?? 2))[0];
	const at = (c) => (Number.isInteger(c.index) ? s.commits[c.index] : null);
	const name = (c) => shortSha(c.commit).slice(0, 7);
	let verdict;
	if (kept.length)
		verdict = `flagged: ${kept.map((c) => `${name(c)} (${fmtPct(c.change_pct)}, p ${fmtP(c.p_value)})`).join(', ')}`;
	else if (best)
		verdict = `not flagged: the strongest candidate, ${name(best)} (${fmtPct(best.change_pct)}, p ${fmtP(best.p_value)}), was dropped: ${best.reason}` +
			(raisedMark(best) ? ` (over ${raisedMark(best)}: ${RAISED_WHY})` : '');
	else
		verdict = 'not flagged: no split was tested (too few commits)';
	const st = d.settings || {};
	const rows = cands.map((c) => {
		const cm = at(c);
		return h('tr', { class: `why-row ${c.kept ? 'kept' : 'dropped'}` },
			h('td', null, commitLink(c.commit, cm ? cm.subject : null)),
			h('td', null, stageText(c)),
			h('td', { class: 'num' }, `${c.n_before} | ${c.n_after}`),
			h('td', { class: 'num' }, `${fmtNum(c.before)} → ${fmtNum(c.after)}`),
			h('td', { class: 'num' }, fmtPct(c.change_pct, 2)),
			h('td', { class: 'num' }, fmtP(c.p_value)),
			sizeCell(c),
			h('td', { class: 'reason' }, c.kept ? 'kept' : `dropped: ${c.reason}`));
	});
	return h('details', { class: 'why-flagged' },
		h('summary', null, h('b', null, 'Why (not) flagged: '), verdict),
		h('p', { class: 'muted' }, `Last detection ${fmtTime(d.at)} over ${d.n_commits} commits; ` +
			`p ≤ ${st.p_max}, |%change| ≥ ${st.min_change_pct} %, windows of ${st.window} commits, ` +
			`at least ${st.min_seg} a side. Each test window's strongest split and each accepted ` +
			'split\'s final estimate:'),
		table([{ label: 'split before' }, { label: 'stage' },
			{ label: 'commits', cls: 'num', title: 'commits of its window before | after the split' },
			{ label: 'median before → after', cls: 'num' }, { label: '%change', cls: 'num' },
			{ label: 'p', cls: 'num' }, { label: 'size', cls: 'num', title: `in noise sigmas; σ ×N: sigma raised N times, ${RAISED_WHY}` },
			{ label: 'rule' }], rows, { class: 'list why-table' }));
}

function compareLink(s, c, metric) {
	if (c <= 0)
		return null;
	const st = s.setup;
	return link('/compare', {
		base: s.commits[c - 1].sha, head: s.commits[c].sha, testcase: st.testcase,
		tbox_group: st.tbox_group, kconfig: st.kconfig, compiler: st.compiler,
		params: st.params, mode: st.mode, focus: metric,
	});
}

function seriesBlock(s, metric, unit, width, regressions) {
	const cps = changePoints(s, metric, regressions);
	const info = h('div', { class: 'hover-info', 'aria-live': 'polite' },
		h('span', { class: 'muted' }, 'Hover a point for its commit; click to compare it with its parent.'));
	const chartEl = h('div', { class: 'chart' });
	const n = s.points.value.length;
	const nc = s.commits.length;
	const medians = new Array(nc).fill(null).map(() => []);
	for (let i = 0; i < n; i++)
		medians[s.points.commit[i]].push(s.points.value[i]);
	const first = Math.max(0, nc - RECENT);
	const rows = [];
	for (let c = nc - 1; c >= first; c--) {
		const v = medians[c].slice().sort((a, b) => a - b);
		const m = v.length ? (v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : null;
		const cl = compareLink(s, c, metric);
		rows.push(h('tr', { class: 'commit-row' },
			h('td', { class: 'num' }, String(c)),
			h('td', null, commitLink(s.commits[c].sha, s.commits[c].subject)),
			h('td', { class: 'num' }, String(v.length)),
			h('td', { class: 'num' }, fmtNum(m)),
			h('td', null, cl ? h('a', { href: cl }, 'vs parent') : '')));
	}
	const block = h('section', { class: 'card series-block' },
		h('h2', null, setupLabel(s.setup)),
		h('p', { class: 'muted' }, `${n} runs over ${nc} commits`),
		chartEl, info, changeList(s, cps), whyFlagged(s),
		h('details', { class: 'commits' }, h('summary', null, `Latest ${plural(nc - first, 'commit')}`),
			table([{ label: '#', cls: 'num' }, { label: 'commit' }, { label: 'runs', cls: 'num' },
				{ label: 'median', cls: 'num' }, { label: '' }], rows, { class: 'list' })));
	const draw = () => {
		const t0 = performance.now();
		const u = seriesChart(chartEl, s, {
			metric, unit, width, changePoints: cps.map((cp) => cp.index),
			onHover: (p) => {
				if (!p) {
					return;
				}
				replace(info,
					h('code', { class: 'sha' }, shortSha(p.commit.sha)), ' ',
					h('span', { class: 'subject' }, p.commit.subject || ''), ' · ',
					h('b', null, 'value '), fmtNum(p.value), unit ? ` ${unit}` : '',
					' · ', h('b', null, 'median '), fmtNum(p.median), ` of ${p.runs} runs`);
			},
			onPick: (c) => {
				const l = compareLink(s, c, metric);
				if (l)
					location.assign(l);
			},
		});
		let pending = 0;
		addEventListener('resize', () => {
			clearTimeout(pending);
			pending = setTimeout(() => u.setSize({ width: Math.max(480, chartEl.clientWidth), height: u.height }), 150);
		});
		chartEl.dataset.points = String(n);
		chartEl.dataset.drawMs = String(Math.round(performance.now() - t0));
	};
	return { block, draw };
}

export async function render(root, { query }) {
	const q = current(query);
	document.title = `${q.metric || 'series'} · regtrack`;
	// with both named in the link, the series is asked for at once, beside the pickers' lists
	const early = q.testcase && q.metric ? Promise.all([api('/series', { query: q }),
		tryApi('/regressions', { query: { testcase: q.testcase, metric: q.metric } })]) : null;
	if (early)
		early.catch(() => {}); /* awaited below */
	const [testcases, metrics] = await Promise.all([api('/testcases'), api('/metrics')]);
	const tcs = listOf(testcases, 'testcases');
	const mets = listOf(metrics, 'metrics');
	if (q.testcase && !q.metric) {
		const m = mets.find((x) => x.name.startsWith(q.testcase + '.'));
		if (m) {
			q.metric = m.name;
			history.replaceState(null, '', link('/series', q));
		}
	}
	const head = [h('h1', null, 'Series'), pickers(q, tcs, mets)];
	if (!q.testcase || !q.metric) {
		replace(root, head, emptyState(tcs.length ? 'Pick a testcase and a metric.'
			: 'No results yet: nothing to chart.'));
		return;
	}
	replace(root, head, h('p', { class: 'muted' }, 'Loading series…'));
	let data, regs;
	try {
		[data, regs] = await (early || Promise.all([api('/series', { query: q }),
			tryApi('/regressions', { query: { testcase: q.testcase, metric: q.metric } })]));
	} catch (e) {
		replace(root, head, errorBox(e));
		return;
	}
	const all = data.series || [];
	if (!all.length) {
		replace(root, head, emptyState('No runs match these filters.'));
		return;
	}
	const { list, also } = linkedSetups(q, all);
	const unit = (mets.find((m) => m.name === q.metric) || {}).unit || '';
	replace(root, head);
	const width = Math.max(480, Math.min(root.clientWidth - 40, 1400));
	for (const s of list.slice(0, MAX_CHARTS)) {
		const { block, draw } = seriesBlock(s, q.metric, unit, width, listOf(regs.data, 'regressions'));
		root.appendChild(block);
		draw();
	}
	const links = (l) => h('ul', null, l.map((s) =>
		h('li', null, h('a', { href: link('/series', seriesQuery(s.setup, q.metric)) },
			setupLabel(s.setup)))));
	if (list.length > MAX_CHARTS)
		root.appendChild(section('More setups', links(list.slice(MAX_CHARTS))));
	if (also.length)
		root.appendChild(section('The same machine shape in another spelling', links(also)));
}

// The series of the setup the page's params name, and the others the filter
// matched: params= finds a setup stored in the spelling given and the one of
// the machine shape's one spelling (README: the machine a job names), two setups; a
// link names its setup by its params as stored, so that one is charted and
// the other listed. No setup of exactly those params: all are charted.
function linkedSetups(q, all) {
	const want = q.params ? JSON.stringify(parseParams(q.params)) : null;
	const exact = want ? all.filter((s) => JSON.stringify(canon(s.setup.params)) === want) : [];
	if (!exact.length || exact.length === all.length)
		return { list: all, also: [] };
	return { list: exact, also: all.filter((s) => !exact.includes(s)) };
}
