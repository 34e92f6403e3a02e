// Compare (/compare?base=&head=[&testcase…&metric=PREFIX&filter=&changed=1&sort=&focus=]):
// the LKP-style table per setup — base mean ±%stddev, %change, head mean
// ±%stddev, metric — with significance badges, sorting and filtering.
import { h, replace, link, emptyState, errorBox, fmtNum, fmtPct, fmtP, commitLink,
	setupLabel, badge } from '../dom.js';
import { api } from '../api.js';
import { seriesQuery, shiftPct, shiftTitle } from '../model.js';

const PASS = ['base', 'head', 'testcase', 'tbox_group', 'kconfig', 'compiler', 'params', 'mode',
	'metric', 'alpha'];

// Sort keys: name -> comparator over rows.
const SORTS = {
	metric: (a, b) => a.metric.localeCompare(b.metric),
	change: (a, b) => Math.abs(nz(shiftPct(b))) - Math.abs(nz(shiftPct(a))) ||
		a.metric.localeCompare(b.metric),
	p: (a, b) => nz(a.p_value, 2) - nz(b.p_value, 2) || a.metric.localeCompare(b.metric),
	base: (a, b) => nz(b.mean[0]) - nz(a.mean[0]),
	head: (a, b) => nz(b.mean[1]) - nz(a.mean[1]),
};

function nz(v, d = 0) {
	return Number.isFinite(v) ? v : d;
}

export function verdictBadge(r) {
	if (r.verdict === 'different')
		return badge(r.change === 'improvement' ? 'improvement' : r.change === 'regression'
			? 'regression' : 'changed', r.change === 'improvement' ? 'good'
			: r.change === 'regression' ? 'bad' : 'info');
	if (r.verdict === 'need-more-runs')
		return badge('need more runs', 'warn');
	return badge('same', 'muted');
}

function withStd(mean, std) {
	return [fmtNum(mean), h('span', { class: 'std' }, Number.isFinite(std) && std !== 0
		? ` ±${std.toFixed(std < 10 ? 1 : 0)}%` : '')];
}

// The p cell: p and the BH-adjusted q, or for a row an icount setup decided by
// its measured A/A spread (by_spread, no q) that spread.
function pCell(r) {
	if (r.by_spread)
		return h('td', { class: 'num by-spread', title: `icount setup: decided by the measured A/A spread of ${r.aa_runs} runs, not the rank test (p ${fmtP(r.p_value)})` },
			h('span', { class: 'muted' }, `by A/A spread ±${fmtSpread(r.aa_spread_pct)} %`));
	return h('td', { class: 'num', title: `p ${fmtP(r.p_value)}, BH-adjusted q ${fmtP(r.q_value)}, Welch p ${fmtP(r.welch_p)}` },
		fmtP(r.p_value), h('span', { class: 'muted' }, ` q ${fmtP(r.q_value)}`));
}

function fmtSpread(v) {
	return Number.isFinite(v) ? String(Number(v.toPrecision(2))) : '—';
}

// One table row of a comparison (used by the bisect page too).
export function compareRow(r, setup, focus) {
	const dir = r.verdict === 'different' ? r.change : 'none';
	return h('tr', {
		class: `cmp-row dir-${dir}${focus && r.metric === focus ? ' focus' : ''}`,
		dataset: { metric: r.metric, change: r.change, verdict: r.verdict },
	},
	h('td', { class: 'num' }, withStd(r.mean[0], r.stddev_pct[0])),
	h('td', { class: `num pct ${dir}`, title: shiftTitle(r, fmtPct) + (r.ci_pct ? `; CI ${fmtPct(r.ci_pct[0])} .. ${fmtPct(r.ci_pct[1])}` : '') },
		fmtPct(shiftPct(r)),
		r.ci_pct && Number.isFinite(r.ci_pct[0]) ? h('span', { class: 'ci' },
			` [${fmtPct(r.ci_pct[0])}, ${fmtPct(r.ci_pct[1])}]`) : null),
	h('td', { class: 'num' }, withStd(r.mean[1], r.stddev_pct[1])),
	h('td', { class: 'num muted' }, `${r.n[0]}:${r.n[1]}`),
	pCell(r),
	h('td', null, verdictBadge(r)),
	h('td', { class: 'metric' },
		setup ? h('a', { href: link('/series', seriesQuery(setup, r.metric)), title: 'series' }, r.metric)
			: r.metric,
		r.unit ? h('span', { class: 'unit' }, ` ${r.unit}`) : null));
}

export const COLUMNS = [
	{ label: 'base', key: 'base', cls: 'num', title: 'mean of the base runs ±%stddev' },
	{ label: '%change', key: 'change', cls: 'num', title: 'Hodges-Lehmann shift in % (old records: %change of means; the cell\'s title gives the means\' %change) [confidence interval]' },
	{ label: 'head', key: 'head', cls: 'num', title: 'mean of the head runs ±%stddev' },
	{ label: 'runs', cls: 'num' },
	{ label: 'p', key: 'p', cls: 'num', title: 'Mann-Whitney p (q: Benjamini-Hochberg adjusted)' },
	{ label: 'verdict' },
	{ label: 'metric', key: 'metric' },
];

// The comparison table: setups as group headers, rows sorted/filtered.
export function compareTable(data, { sort = 'metric', filter = '', changed = false, focus, onSort } = {}) {
	const setups = new Map((data.setups || []).map((s) => [s.id, s]));
	const groups = new Map();
	for (const r of data.rows || []) {
		if (filter && !r.metric.startsWith(filter))
			continue;
		if (changed && r.verdict !== 'different')
			continue;
		if (!groups.has(r.setup_id))
			groups.set(r.setup_id, []);
		groups.get(r.setup_id).push(r);
	}
	const body = [];
	for (const [sid, rows] of groups) {
		rows.sort(SORTS[sort] || SORTS.metric);
		body.push(h('tr', { class: 'group' }, h('th', { colspan: COLUMNS.length },
			setupLabel(setups.get(sid)) || `setup ${sid}`)));
		for (const r of rows)
			body.push(compareRow(r, setups.get(sid), focus));
	}
	if (!body.length)
		return emptyState('No metrics match.');
	return h('table', { class: 'compare' },
		h('thead', null, h('tr', null, COLUMNS.map((c) => h('th', {
			class: `${c.cls || ''}${c.key ? ' sortable' : ''}${c.key === sort ? ' sorted' : ''}`,
			title: c.title || null,
			onclick: c.key && onSort ? () => onSort(c.key) : null,
		}, c.label, c.key === sort ? ' ▾' : '')))),
		h('tbody', null, body));
}

function commitForm(q) {
	const base = h('input', { name: 'base', value: q.get('base') || '', size: 42, placeholder: 'base commit sha' });
	const head = h('input', { name: 'head', value: q.get('head') || '', size: 42, placeholder: 'head commit sha' });
	return h('form', {
		class: 'pickers', id: 'compare-form',
		onsubmit: (ev) => {
			ev.preventDefault();
			location.assign(link('/compare', { base: base.value.trim(), head: head.value.trim() }));
		},
	}, h('label', null, 'base ', base), h('label', null, 'head ', head), h('button', { type: 'submit' }, 'compare'));
}

export async function render(root, { query }) {
	document.title = 'compare · regtrack';
	const title = h('h1', null, 'Compare');
	if (!query.get('base') || !query.get('head')) {
		replace(root, title, commitForm(query), emptyState('Give a base and a head commit.'));
		return;
	}
	const apiQuery = {};
	for (const k of PASS)
		if (query.get(k))
			apiQuery[k] = query.get(k);
	let data;
	try {
		data = await api('/compare', { query: apiQuery });
	} catch (e) {
		replace(root, title, commitForm(query), errorBox(e));
		return;
	}
	const state = {
		sort: SORTS[query.get('sort')] ? query.get('sort') : 'metric',
		filter: query.get('filter') || '',
		changed: query.get('changed') === '1',
		focus: query.get('focus') || '',
	};
	document.title = `${data.base.sha.slice(0, 7)}..${data.head.sha.slice(0, 7)} · regtrack`;
	const holder = h('div', { id: 'compare-table' });
	const counts = h('p', { class: 'muted', id: 'compare-counts' });
	const sync = () => {
		const u = new URLSearchParams(location.search);
		for (const [k, v] of [['sort', state.sort === 'metric' ? '' : state.sort],
			['filter', state.filter], ['changed', state.changed ? '1' : '']])
			if (v)
				u.set(k, v);
			else
				u.delete(k);
		history.replaceState(null, '', `/compare?${u}`);
		const t = compareTable(data, { ...state, onSort: (k) => {
			state.sort = k;
			sync();
		} });
		replace(holder, t);
		const rows = data.rows || [];
		const diff = rows.filter((r) => r.verdict === 'different');
		replace(counts, `${rows.length} metrics · ${diff.filter((r) => r.change === 'regression').length} regressed · ` +
			`${diff.filter((r) => r.change === 'improvement').length} improved · ` +
			`${rows.filter((r) => r.verdict === 'need-more-runs').length} need more runs · α ${data.alpha}`);
	};
	const filterIn = h('input', {
		id: 'filter', value: state.filter, placeholder: 'metric prefix, e.g. perf-stat.', size: 30,
		oninput: (ev) => {
			state.filter = ev.target.value.trim();
			sync();
		},
	});
	const changedIn = h('input', {
		type: 'checkbox', id: 'changed', checked: state.changed,
		onchange: (ev) => {
			state.changed = ev.target.checked;
			sync();
		},
	});
	const textLink = link('/api/v1/compare', { ...apiQuery, format: 'text' });
	replace(root, title,
		h('div', { class: 'card range' },
			h('div', null, h('b', null, 'base '), commitLink(data.base.sha, data.base.subject)),
			h('div', null, h('b', null, 'head '), commitLink(data.head.sha, data.head.subject))),
		h('div', { class: 'pickers' },
			h('label', null, 'filter ', filterIn),
			h('label', null, changedIn, ' significant changes only'),
			h('a', { href: textLink }, 'LKP text')),
		// the two sides ran on hosts that differ (CPU model, microcode, governor,
		// host kernel, cmdline): a change may be the machine's
		data.host_fingerprints && data.host_fingerprints.differ ? h('p', { class: 'warn host-fingerprints', id: 'host-fingerprints' },
			badge('host changed', 'warn'), ` the two sides ran on hosts that differ in ${data.host_fingerprints.fields.join(', ')}`) : null,
		counts, holder);
	sync();
	const f = holder.querySelector('tr.focus');
	if (f)
		f.scrollIntoView({ block: 'center' });
}
