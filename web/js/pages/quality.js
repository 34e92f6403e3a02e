// The alert-quality ledger (/quality[?days=|since=][&plan=&testcase=&metric=&tbox_group=]):
// GET /api/v1/quality as tables. What counts as a true change or a false
// alarm is the server's (the reply's `labels`; README "Alert quality"):
// precision = true / (true + false), per plan, testcase, metric and
// tbox_group over the window, and false alarms per week per plan.
import { h, replace, link, table, emptyState, errorBox, fmtTime } from '../dom.js';
import { api } from '../api.js';

const DAYS = ['7', '30', '90', '180', '365'];
const FILTERS = ['plan', 'testcase', 'metric', 'tbox_group'];

const precisionText = (p) => (Number.isFinite(p) ? `${(p * 100).toFixed(1)}%` : '—');

// the count cells of one row: precision, true changes, false alarms, not judged, alerts
function countCells(c) {
	return [
		h('td', { class: 'num precision' }, precisionText(c.precision)),
		h('td', { class: 'num true-changes' }, String(c.true_changes)),
		h('td', { class: 'num false-alarms' }, String(c.false_alarms)),
		h('td', { class: 'num unjudged' }, String(c.unjudged)),
		h('td', { class: 'num alerts' }, String(c.alerts)),
	];
}

const COUNT_COLUMNS = [
	{ label: 'precision', cls: 'num', title: 'true changes / (true changes + false alarms)' },
	{ label: 'true', cls: 'num' }, { label: 'false alarms', cls: 'num' },
	{ label: 'not judged', cls: 'num' }, { label: 'alerts', cls: 'num' },
];

// a name cell that links to the ledger filtered by it ('no plan' for null)
function nameCell(key, name, query) {
	if (name === null || name === undefined)
		return h('td', null, h('span', { class: 'muted' }, 'no plan'));
	return h('td', null, h('a', { href: link('/quality', { ...query, [key]: name }) }, name));
}

function byTable(rows, key, id, query, extra) {
	if (!rows.length)
		return emptyState('No alerts in this window.');
	return table([{ label: key }, ...COUNT_COLUMNS, ...(extra ? extra.columns : [])],
		rows.map((r) => h('tr', { class: `${id}-row`, dataset: { name: r[key] === null ? '' : r[key] } },
			nameCell(key, r[key], query), countCells(r), extra ? extra.cells(r) : null)),
		{ class: 'list', id });
}

function filterForm(query) {
	const days = h('select', { name: 'days', id: 'quality-days' },
		query.since ? h('option', { value: '', selected: true }, `since ${query.since}`) : null,
		DAYS.map((d) => h('option', { value: d, selected: !query.since && d === (query.days || '90') }, `last ${d} days`)));
	const inputs = FILTERS.map((f) => h('label', null, `${f} `,
		h('input', { name: f, id: `quality-${f}`, size: 16, value: query[f] || '' })));
	return h('form', {
		class: 'pickers', id: 'quality-filters',
		onsubmit: (ev) => {
			ev.preventDefault();
			const q = {};
			if (days.value)
				q.days = days.value;
			else if (query.since)
				q.since = query.since;
			for (const f of FILTERS) {
				const v = ev.target.elements[f].value.trim();
				if (v)
					q[f] = v;
			}
			location.assign(link('/quality', q));
		},
	}, h('label', null, 'window ', days), inputs, h('button', { type: 'submit' }, 'show'));
}

export async function render(root, { query }) {
	document.title = 'alert quality · regtrack';
	const q = {};
	for (const k of ['days', 'since', ...FILTERS])
		if (query.get(k))
			q[k] = query.get(k);
	const head = [h('h1', null, 'Alert quality'), filterForm(q)];
	let data;
	try {
		data = await api('/quality', { query: q, optional: true });
	} catch (e) {
		// a bad argument (the server's 400 names it) keeps the form to mend it with
		replace(root, head, errorBox(e));
		return;
	}
	if (data === null) {
		replace(root, head, emptyState('This server has no alert-quality API yet.'));
		return;
	}
	const w = data.window || {};
	const o = data.overall || {};
	const labels = data.labels || {};
	const perWeek = new Map((data.false_alarms_per_week || []).map((p) => [p.plan, p]));
	const weekStarts = w.week_starts || [];
	const planExtra = {
		columns: [{ label: 'false alarms / week', cls: 'num' }, { label: 'by week', title: 'false alarms in each 7-day step from the window\'s start' }],
		cells: (r) => {
			const p = perWeek.get(r.plan) || { per_week: 0, weekly: [] };
			return [h('td', { class: 'num per-week' }, Number(p.per_week).toFixed(2)),
				h('td', { class: 'weekly muted', title: weekStarts.map((s, i) => `${s}: ${p.weekly[i] ?? 0}`).join('\n') },
					(p.weekly || []).join(' '))];
		},
	};
	replace(root, head,
		h('div', { class: 'card', id: 'quality-summary' },
			h('p', null, h('b', null, 'precision '), h('span', { id: 'quality-precision' }, precisionText(o.precision)),
				` · ${o.true_changes ?? 0} true changes, ${o.false_alarms ?? 0} false alarms, ${o.unjudged ?? 0} not judged`,
				` of ${o.alerts ?? 0} alerts first detected from ${fmtTime(w.since)} to ${fmtTime(w.until)}`,
				Number.isFinite(w.days) ? ` (${w.days.toFixed(0)} days)` : ''),
			h('p', { class: 'muted', id: 'quality-labels' },
				'true change: ', (labels.true_change || []).join(', '),
				' · false alarm: ', (labels.false_alarm || []).join(', '),
				' · not judged: ', (labels.unjudged || []).join(', '),
				' (a record\'s state now; an admin marks a false alarm on its page)')),
		h('section', { class: 'card' }, h('h2', null, 'By plan'),
			byTable(data.by_plan || [], 'plan', 'quality-plans', q, planExtra)),
		h('section', { class: 'card' }, h('h2', null, 'By testcase'),
			byTable(data.by_testcase || [], 'testcase', 'quality-testcases', q)),
		h('section', { class: 'card' }, h('h2', null, 'By metric'),
			byTable(data.by_metric || [], 'metric', 'quality-metrics', q)),
		h('section', { class: 'card' }, h('h2', null, 'By tbox_group'),
			byTable(data.by_tbox_group || [], 'tbox_group', 'quality-tbox-groups', q)),
		h('section', { class: 'card' }, h('h2', null, 'By plan, testcase, metric and tbox_group'),
			(data.groups || []).length ? table([{ label: 'plan' }, { label: 'testcase' }, { label: 'metric' },
				{ label: 'tbox_group' }, ...COUNT_COLUMNS], data.groups.map((g) => h('tr', { class: 'quality-group-row' },
				nameCell('plan', g.plan, q), nameCell('testcase', g.testcase, q), nameCell('metric', g.metric, q),
				nameCell('tbox_group', g.tbox_group, q), countCells(g))), { class: 'list', id: 'quality-groups' })
				: emptyState('No alerts in this window.')));
}
