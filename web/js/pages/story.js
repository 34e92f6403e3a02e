// The parts of a regression page that tell its story, answer first
// (GET /api/v1/regressions/{id}: `bisect`, `arch`, `also_seen`): the first
// bad commit the bisect found, the same change on every arch, the series
// around the change with the culprit marked (chart.js, as on /series) and
// the profile diff of culprit vs parent (flame.js, loaded when present).
import { h, replace, link, table, emptyState, errorBox, fmtPct, commitLink, shortSha } from '../dom.js';
import { api } from '../api.js';
import { pick, commitOf, shiftPct, shiftTitle, regressionKind, ciOf, badOf, seriesQuery, setupOf } from '../model.js';
import { seriesChart } from '../chart.js';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
// commits of the series shown on each side of the first bad commit
const WINDOW = 15;

// The bisect's answer: its first bad commit, or null while it has none.
export function culpritOf(r, b) {
	const rb = pick(r, 'bisect');
	const fb = pick(rb, 'first_bad_commit') || pick(b, 'first_bad_commit');
	return fb ? { ...commitOf(fb), author: fb.author || '', diffstat: fb.diffstat || null } : null;
}

function ciText(ci) {
	return Array.isArray(ci) && Number.isFinite(ci[0]) && Number.isFinite(ci[1])
		? `[${fmtPct(ci[0])}, ${fmtPct(ci[1])}]` : '';
}

// The top of the page: the first bad commit the bisect found with subject,
// author, diffstat and confidence; else what stands in (the detection range).
export function answerCard(r, b) {
	const rb = pick(r, 'bisect') || b;
	const fb = culpritOf(r, b);
	if (!fb) {
		const why = !rb ? 'not bisected yet' : rb.state === 'done'
			? 'the bisect ended without a single first bad commit' : `bisect #${rb.id} ${rb.state || 'pending'}`;
		return h('div', { class: 'card answer', id: 'answer', dataset: { source: 'range' } },
			h('p', null, h('b', null, 'first bad commit: '), `unknown (${why}); the detection range ends at `,
				commitLink(badOf(r).sha, badOf(r).subject)));
	}
	const conf = pick(rb, 'confidence');
	const ds = fb.diffstat;
	return h('div', { class: 'card answer', id: 'answer', dataset: { source: 'bisect', sha: fb.sha } },
		h('p', { class: 'answer-commit' }, h('b', null, 'first bad commit: '),
			h('code', { class: 'sha', id: 'answer-sha', title: fb.sha }, shortSha(fb.sha)), ' ',
			h('span', { class: 'subject', id: 'answer-subject' }, fb.subject)),
		h('p', { class: 'muted', id: 'answer-facts' },
			fb.author ? [h('span', { id: 'answer-author' }, fb.author), ' · '] : '',
			ds && typeof ds === 'object'
				? h('span', { id: 'answer-diffstat' }, `${plural(Number(ds.files_changed) || 0, 'file')} changed, ` +
					`+${ds.insertions} \u2212${ds.deletions}`)
				: h('span', { id: 'answer-diffstat' }, 'diffstat not collected yet'),
			Number.isFinite(conf) ? [' · ', h('span', { id: 'answer-confidence' },
				`confidence ${(conf * 100).toFixed(1)}%`)] : '',
			rb && rb.id ? [' · found by ', h('a', { href: `/bisects/${rb.id}` }, `bisect #${rb.id}`)] : ''));
}

// One row per arch: this record's, then the same change found on the
// others (also_seen; the rule is server/db/regressions.h's). null when the
// change was seen on one arch only.
export function archTable(r, b) {
	const seen = Array.isArray(r.also_seen) ? r.also_seen : [];
	if (!seen.length)
		return null;
	const fb = culpritOf(r, b);
	const mine = {
		arch: r.arch || '?', regression_id: r.id, hl_pct: r.hl_pct, change_pct: r.change_pct, ci_pct: ciOf(r),
		kind: regressionKind(r), first_bad: fb ? { sha: fb.sha, subject: fb.subject, source: 'bisect' }
			: { ...badOf(r), source: 'range' }, url: null,
	};
	const row = (a) => {
		const kind = a.kind || 'change';
		const f = a.first_bad || {};
		return h('tr', { class: 'arch-row', dataset: { arch: a.arch, regression: String(a.regression_id) } },
			h('td', null, h('b', null, a.arch)),
			h('td', { class: `num pct ${kind}`, title: shiftTitle(a, fmtPct) }, fmtPct(shiftPct(a))),
			h('td', { class: 'num muted' }, ciText(a.ci_pct)),
			h('td', null, commitLink(f.sha, f.subject),
				h('span', { class: 'muted' }, f.source === 'bisect' ? ' (bisect)' : ' (range end)')),
			h('td', null, a.url ? h('a', { href: a.url }, `#${a.regression_id}`)
				: h('span', { class: 'muted' }, `#${a.regression_id} (this page)`)));
	};
	return h('div', { class: 'card arches', id: 'arches' },
		h('h2', null, `Seen on ${plural(seen.length + 1, 'arch')}`),
		table([{ label: 'arch' }, { label: 'change', cls: 'num' }, { label: 'CI', cls: 'num' },
			{ label: 'first bad commit' }, { label: 'regression' }], [row(mine), ...seen.map(row)],
		{ class: 'list', id: 'arch-table' }));
}

// The series of the record's setup and metric, WINDOW commits either side
// of the first bad commit (the bisect's, else the range's end), drawn by
// chart.js with the culprit marked. Returns {el, draw}: draw() once el is
// in the page.
export async function storyChart(r, b, width) {
	const el = h('div', { class: 'chart story-chart', id: 'story-chart' });
	const info = h('p', { class: 'muted', id: 'story-chart-info' });
	const box = [el, info];
	const setup = setupOf(r);
	if (!setup || !r.metric)
		return { el: emptyState('No series to show.'), draw: () => {} };
	const fb = culpritOf(r, b);
	const sha = fb ? fb.sha : badOf(r).sha;
	let data;
	try {
		const q = seriesQuery(setup, r.metric);
		if (r.monitors !== undefined)
			q.monitors = Array.isArray(r.monitors) ? r.monitors.join(',') : r.monitors;
		data = await api('/series', { query: q });
	} catch (e) {
		return { el: errorBox(e), draw: () => {} };
	}
	const s = (data.series || []).find((x) => !setup.id || !x.setup || x.setup.id === undefined || x.setup.id === setup.id)
		|| (data.series || [])[0];
	const at = s ? s.commits.findIndex((c) => c.sha === sha) : -1;
	if (!s || at < 0)
		return { el: emptyState(`The series has no runs at ${shortSha(sha)}.`), draw: () => {} };
	const lo = Math.max(0, at - WINDOW), hi = Math.min(s.commits.length - 1, at + WINDOW);
	const keep = [];
	for (let i = 0; i < s.points.commit.length; i++)
		if (s.points.commit[i] >= lo && s.points.commit[i] <= hi)
			keep.push(i);
	const win = {
		...s, commits: s.commits.slice(lo, hi + 1),
		points: {
			commit: keep.map((i) => s.points.commit[i] - lo), value: keep.map((i) => s.points.value[i]),
			run_id: s.points.run_id ? keep.map((i) => s.points.run_id[i]) : undefined,
		},
	};
	const culprit = at - lo;
	el.dataset.culprit = sha;
	el.dataset.culpritIndex = String(culprit);
	el.dataset.commits = String(win.commits.length);
	el.dataset.points = String(keep.length);
	replace(info, `${plural(win.commits.length, 'commit')} around the first bad commit `,
		h('code', null, shortSha(sha)), fb ? ' (the bisect\'s, red line)' : ' (the detection range\'s end, red line)',
		` of ${s.commits.length} in the series · `,
		h('a', { href: link('/series', seriesQuery(setup, r.metric)) }, 'the whole series'));
	return {
		el: h('div', null, box),
		draw: () => {
			seriesChart(el, win, {
				metric: r.metric, unit: r.unit || '', width, height: 260, culprit,
				culpritLabel: `first bad ${shortSha(sha).slice(0, 7)}`,
				onHover: (p) => {
					if (p)
						replace(info, h('code', { class: 'sha' }, shortSha(p.commit.sha)), ' ',
							h('span', { class: 'subject' }, p.commit.subject || ''), ` · value ${p.value}`,
							` · median ${p.median} of ${p.runs} runs`);
				},
			});
		},
	};
}

// The profile diff of culprit vs parent: helper module flame.js draws it
// when the dashboard has it and the bisect has profiled runs; else a note.
export function profileSlot() {
	return h('div', { id: 'profile-diff', class: 'profile-diff' }, emptyState('Loading the profile diff…'));
}

export async function fillProfileSlot(el, r, b) {
	const bid = pick(pick(r, 'bisect'), 'id') || pick(b, 'id') || pick(r, 'bisect_id');
	if (!bid) {
		replace(el, emptyState('no profile diff yet (not bisected)'));
		return;
	}
	try {
		const mod = await import('../flame.js');
		replace(el);
		await mod.renderProfileDiff(el, `/api/v1/bisects/${bid}/profile-diff`);
		el.dataset.state = 'drawn';
	} catch (e) {
		el.dataset.state = 'none';
		replace(el, emptyState('no profile diff yet'),
			e && e.status ? h('p', { class: 'muted' }, e.message) : null);
	}
}

