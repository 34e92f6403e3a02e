// The bisect-style page, for /regressions/{id} and /bisects/{id}: the range,
// each bisect step in order (commit, subject, its samples as a strip of dots
// coloured by verdict, round), the first bad commit, the good-vs-bad
// comparison table, the .config difference, the report text, and triage
// controls for an admin token.
import { h, replace, link, section, table, emptyState, errorBox, fmtNum, fmtPct, fmtP,
	fmtTime, duration, commitLink, setupLabel, stateBadge, badge, shortSha } from '../dom.js';
import { api, getToken, setToken } from '../api.js';
import { pick, commitOf, regressionKind, shiftPct, shiftTitle, seriesQuery, goodOf, badOf, ciOf, setupOf } from '../model.js';
import { compareTable } from './compare.js';
import { answerCard, archTable, storyChart, profileSlot, fillProfileSlot } from './story.js';
import { renderProfileDiff } from '../flame.js';

const STATES = ['new', 'confirmed', 'bisecting', 'bisected', 'reported', 'fixed', 'invalid', 'wontfix'];
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
	const el = document.createElementNS(SVG, tag);
	for (const [k, v] of Object.entries(attrs || {}))
		el.setAttribute(k, String(v));
	for (const c of children)
		el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
	return el;
}

function sampleValues(samples) {
	return (samples || []).map((s) => (typeof s === 'number' ? s : pick(s, 'value', 'v')))
		.filter((v) => Number.isFinite(v));
}

function median(v) {
	const s = v.slice().sort((a, b) => a - b);
	if (!s.length)
		return null;
	return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// One step's samples on a shared axis [lo, hi], dots coloured by verdict,
// with the good and bad references' medians as ticks.
function strip(values, verdict, lo, hi, refs) {
	const W = 260, H = 18, pad = 5;
	const x = (v) => (hi > lo ? pad + (v - lo) / (hi - lo) * (W - 2 * pad) : W / 2);
	const el = svg('svg', { class: 'strip', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img' });
	el.appendChild(svg('line', { x1: pad, x2: W - pad, y1: H / 2, y2: H / 2, class: 'axis' }));
	for (const [name, v] of refs)
		if (Number.isFinite(v))
			el.appendChild(svg('line', { x1: x(v), x2: x(v), y1: 1, y2: H - 1, class: `ref ref-${name}` },
				svg('title', null, `${name} median ${fmtNum(v)}`)));
	for (const v of values)
		el.appendChild(svg('circle', { cx: x(v).toFixed(1), cy: H / 2, r: 4, class: `dot ${verdict || 'unknown'}` },
			svg('title', null, fmtNum(v))));
	el.setAttribute('aria-label', `${values.length} samples, ${verdict || 'no verdict'}`);
	return el;
}

// The reference samples of one side: good_samples/bad_samples when given,
// else the last step of that role (the measured range endpoints).
function refSamples(bisect, role) {
	const given = pick(bisect, `${role}_samples`);
	if (given)
		return sampleValues(given);
	const steps = (bisect.steps || []).filter((s) => s.role === role);
	return steps.length ? sampleValues(steps[steps.length - 1].samples) : [];
}

// One level's steps: round, role, commit, its samples as dots on the axis
// [lo, hi] shared by every level, median, verdict (evidence as a tooltip).
function stepRows(steps, lo, hi, refs, level) {
	return table([
		{ label: 'round', cls: 'num' }, { label: 'role' }, { label: 'commit' }, { label: 'samples' },
		{ label: 'median', cls: 'num' }, { label: 'verdict' },
	], steps.map(({ s, i }) => {
		const c = commitOf(s.commit, s.subject);
		const vals = sampleValues(s.samples);
		const ev = s.evidence && typeof s.evidence === 'object' ? Object.entries(s.evidence)
			.map(([k, v]) => `${k}: ${typeof v === 'number' ? fmtNum(v) : JSON.stringify(v)}`).join(', ') : '';
		return h('tr', { class: `step-row verdict-${s.verdict || 'unknown'}`,
			dataset: { step: String(i), verdict: s.verdict || '', level: String(level) } },
		h('td', { class: 'num' }, s.round === undefined ? '' : String(s.round)),
		h('td', { class: 'muted' }, s.role || ''),
		h('td', null, commitLink(c.sha, c.subject),
			// identical images: built, not run; these are its twin's runs
			s.evidence && s.evidence.same_image_as ? h('span', { class: 'muted same-image' },
				' same image as ', commitLink(commitOf(s.evidence.same_image_as).sha)) : null),
		h('td', null, strip(vals, s.verdict, lo, hi, refs)),
		h('td', { class: 'num' }, fmtNum(median(vals)), h('span', { class: 'muted' }, ` n=${vals.length}`)),
		h('td', { title: ev }, badge(s.verdict || 'pending', { good: 'good', bad: 'bad', skip: 'muted' }[s.verdict] || 'warn')));
	}), { class: 'list steps', dataset: { level: String(level) } });
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// The subject of a commit the bisect names by sha only (a descent's merge):
// from a step that measured it, the candidates, or the first bad commit.
function subjectOf(bisect, sha) {
	for (const c of [...(bisect.steps || []), ...(bisect.candidates || []), bisect.first_bad_commit]) {
		const x = commitOf(c);
		if (sha && x.sha === sha && x.subject)
			return x.subject;
	}
	return '';
}

// The descents into merges (GET /bisects/{id} `descents`, one object per
// level left: {level, good, bad, merge, merge_parent, nr_candidates,
// side_commits, round, confidence, verification}), by the level they left.
function descentsOf(bisect) {
	const by = new Map();
	for (const d of Array.isArray(bisect.descents) ? bisect.descents : [])
		if (d && Number.isInteger(d.level))
			by.set(d.level, d);
	return by;
}

// "level N: …" above a level's steps. Level 0 is the first-parent chain
// good..bad; level N > 0 the side branch of the merge level N-1 found.
function levelHeading(bisect, level, descents) {
	let text;
	if (level === 0) {
		const d = descents.get(0);
		const n = d ? d.nr_candidates : bisect.nr_candidates;
		text = `level 0: first-parent chain ${shortSha(commitOf(bisect.good).sha)}..${shortSha(commitOf(bisect.bad).sha)}` +
			(Number.isFinite(n) ? ` \u2014 ${plural(n, 'commit')}` : '');
	} else {
		const d = descents.get(level - 1);
		if (!d) {
			text = `level ${level}`;
		} else {
			const subj = subjectOf(bisect, d.merge);
			text = `level ${level}: side branch of merge ${shortSha(d.merge)}${subj ? ` '${subj}'` : ''}` +
				(Number.isFinite(d.side_commits) ? ` \u2014 ${plural(d.side_commits, 'commit')}` : '') +
				`, good end = merge^1 ${shortSha(d.merge_parent)}`;
		}
	}
	return h('h3', { class: 'level-heading', dataset: { level: String(level) } }, text);
}

// Under a level that ended on a merge: what it found and how sure.
function descentResult(d) {
	const v = d.verification && typeof d.verification === 'object' ? d.verification : null;
	return h('p', { class: 'descent-result muted', dataset: { level: String(d.level) } },
		`first bad on level ${d.level}: merge `, commitLink(d.merge),
		Number.isFinite(d.confidence) ? ` · confidence ${(d.confidence * 100).toFixed(1)}%` : '',
		v ? [' · verified against merge^1', Array.isArray(v.n) ? ` · runs ${v.n.join(':')}` : '',
			Number.isFinite(shiftPct(v)) ? ` · ${fmtPct(shiftPct(v))}` : '',
			v.verdict ? ` · ${v.verdict}` : ''] : '',
		` · descended into its ${plural(d.side_commits, 'side commit')}`);
}

function stepsTable(bisect) {
	const steps = (bisect.steps || []).map((s, i) => ({ s, i }));
	if (!steps.length)
		return emptyState(bisect.state === 'queued' ? 'Queued: no step has run yet.' : 'No steps recorded.');
	const all = [];
	for (const { s } of steps)
		all.push(...sampleValues(s.samples));
	const refs = [['good', median(refSamples(bisect, 'good'))], ['bad', median(refSamples(bisect, 'bad'))]];
	const lo = Math.min(...all), hi = Math.max(...all);
	const levelOf = (s) => (Number.isInteger(s.level) ? s.level : 0);
	const descents = descentsOf(bisect);
	const top = Math.max(Number.isInteger(bisect.level) ? bisect.level : 0, ...steps.map(({ s }) => levelOf(s)),
		...[...descents.keys()].map((l) => l + 1));
	if (top === 0)
		return stepRows(steps, lo, hi, refs, 0);
	// a bisect that descended into merges: each level's steps under its heading
	const out = [];
	for (let level = 0; level <= top; level++) {
		const mine = steps.filter(({ s }) => levelOf(s) === level);
		out.push(h('div', { class: 'level', dataset: { level: String(level) } },
			levelHeading(bisect, level, descents),
			mine.length ? stepRows(mine, lo, hi, refs, level) : emptyState('No step on this level yet.'),
			descents.has(level) ? descentResult(descents.get(level)) : null));
	}
	return out;
}

// The verification round (first bad commit vs its parent) and, when the
// bisect could not narrow to one commit, the candidates left.
function verification(bisect) {
	const v = bisect.verification;
	const cands = bisect.candidates || [];
	const out = [];
	if (v && typeof v === 'object')
		out.push(h('p', { id: 'verification' }, h('b', null, 'verification: '),
			commitLink(commitOf(v.parent).sha), ' vs ', commitLink(commitOf(v.first_bad).sha),
			Array.isArray(v.n) ? ` · runs ${v.n.join(':')}` : '',
			Number.isFinite(shiftPct(v)) ? [' · ', h('span', { class: 'pct regression', title: shiftTitle(v, fmtPct) }, fmtPct(shiftPct(v)))] : '',
			v.verdict ? [' · ', badge(v.verdict, v.verdict === 'different' ? 'info' : 'warn')] : ''));
	if (cands.length > 1)
		out.push(h('div', { id: 'candidates' }, h('b', null, `the first bad commit is one of ${cands.length}:`),
			h('ul', null, cands.map((c) => h('li', null, commitLink(commitOf(c).sha, commitOf(c).subject))))));
	return out;
}

// What the first bad commit touched (first_bad_commit.diffstat: {files_changed,
// insertions, deletions, files: [{path, insertions, deletions}]}, files by
// path, at most 100; a binary file's counts are null), against its first
// parent. isMerge: the commit is a merge the bisect descended into.
function diffstatView(ds, isMerge) {
	if (!ds || typeof ds !== 'object')
		return h('p', { class: 'muted', id: 'diffstat' }, 'diffstat: not collected yet (the server reads it from its git mirror).');
	const files = Array.isArray(ds.files) ? ds.files : [];
	const n = Number(ds.files_changed) || 0;
	const count = (v, sign) => (Number.isFinite(v) ? `${sign}${v}` : '');
	return h('div', { class: 'diffstat', id: 'diffstat' },
		h('p', { class: 'diffstat-summary' }, h('b', null, 'diffstat: '),
			`${plural(n, 'file')} changed, +${ds.insertions} \u2212${ds.deletions}`,
			n === 0 ? h('span', { class: 'muted' }, ' (an empty commit)') : null,
			isMerge ? h('span', { class: 'muted' }, ' (the merge against its first parent: what its side branch brought)') : null),
		files.length ? table([{ label: 'file' }, { label: 'added', cls: 'num' }, { label: 'removed', cls: 'num' }],
			files.map((f) => h('tr', { class: 'diffstat-file' },
				h('td', null, h('code', null, f.path || '')),
				Number.isFinite(f.insertions) || Number.isFinite(f.deletions)
					? [h('td', { class: 'num ins' }, count(f.insertions, '+')), h('td', { class: 'num del' }, count(f.deletions, '\u2212'))]
					: h('td', { class: 'num muted', colspan: 2 }, 'binary'))),
			{ class: 'list diffstat-files' }) : null,
		files.length < n ? h('p', { class: 'muted', id: 'diffstat-more' },
			`the first ${files.length} of ${n} files, by path`) : null);
}

function firstBad(bisect) {
	const fb = pick(bisect, 'first_bad_commit');
	if (!fb && bisect.outcome === 'environment')
		return h('div', { class: 'first-bad environment', id: 'first-bad' },
			h('p', null, badge('environment', 'warn'), ' ', bisect.reason || ''));
	if (!fb)
		return bisect.state === 'done' ? emptyState('The bisect ended without a first bad commit.')
			: emptyState(`No first bad commit yet (${bisect.state || 'pending'}).`);
	const c = commitOf(fb);
	const isMerge = [...descentsOf(bisect).values()].some((d) => d.merge === c.sha);
	return h('div', { class: 'first-bad', id: 'first-bad' },
		h('p', null, h('b', null, 'first bad commit: '), commitLink(c.sha, c.subject)),
		bisect.confidence !== undefined ? h('p', null, h('b', null, 'confidence: '),
			Number.isFinite(bisect.confidence) ? `${(bisect.confidence * 100).toFixed(1)}%` : String(bisect.confidence)) : null,
		typeof fb === 'object' && Array.isArray(fb.outside_build) ? h('p', { class: 'outside-build', id: 'outside-build' },
			badge('suspect', 'warn'), ` touches only ${fb.outside_build.join(', ')}, which this kernel does not build: `
			+ 'unlikely to be the cause') : null,
		typeof fb === 'object' ? diffstatView(fb.diffstat, isMerge) : null);
}

// bisectRange: show the bisect's own good..bad (the /bisects page) even when
// it has a regression record (a bisect started by hand records one at the end)
function rangeCard(r, b, bisectRange) {
	// a bisect's endpoints are strings: their subjects are on the steps
	const subj = (sha) => ((b && b.steps) || []).find((st) => commitOf(st.commit).sha === sha)?.subject;
	const useR = r && !(bisectRange && b);
	const good = useR ? goodOf(r) : commitOf(pick(b, 'good'), subj(commitOf(pick(b, 'good')).sha));
	const bad = useR ? badOf(r) : commitOf(pick(b, 'bad'), subj(commitOf(pick(b, 'bad')).sha));
	// a record's range is the detector's: its bad end need not be the first bad commit
	const [goodLabel, badLabel] = useR ? ['last good ', 'range end '] : ['good ', 'bad '];
	const setup = setupOf(r) || setupOf(b);
	const metric = pick(r, 'metric') || pick(b, 'metric');
	const kind = r ? regressionKind(r) : null;
	const ci = ciOf(r);
	return h('div', { class: 'card range', id: 'range' },
		h('div', null, h('b', null, goodLabel), commitLink(good.sha, good.subject)),
		h('div', null, h('b', null, badLabel), commitLink(bad.sha, bad.subject)),
		metric ? h('div', null, h('b', null, 'metric '),
			h('a', { href: link('/series', seriesQuery(setup, metric)) }, metric),
			setup ? h('span', { class: 'muted' }, ' · ', setupLabel(setup)) : null) : null,
		r && pick(r, 'hl_pct', 'change_pct') !== undefined ? h('div', null, h('b', null, 'change '),
			h('span', { class: `pct ${kind}`, title: shiftTitle(r, fmtPct) }, fmtPct(shiftPct(r))),
			Number.isFinite(r.hl_pct) ? h('span', { class: 'muted' }, ` (means ${fmtPct(r.change_pct)})`) : '',
			Array.isArray(ci) ? ` [${fmtPct(ci[0])}, ${fmtPct(ci[1])}]` : '',
			r.p_value !== undefined ? ` · p ${fmtP(r.p_value)}` : '') : null,
		// the record's evidence in words, the mail's sentence (the API builds it: lib/evidence.h)
		r && r.evidence && typeof r.evidence.text === 'string' ? h('div', { id: 'evidence' },
			h('b', null, 'evidence '), r.evidence.text) : null,
		good.sha && bad.sha ? h('div', null, h('a', {
			href: link('/compare', { base: good.sha, head: bad.sha, ...(setup ? {
				testcase: setup.testcase, tbox_group: setup.tbox_group, kconfig: setup.kconfig,
				compiler: setup.compiler, params: setup.params, mode: setup.mode } : {}), focus: metric }),
		}, 'full comparison')) : null);
}

function bisectFacts(b) {
	const wall = pick(b, 'wall_time_s', 'wall_s');
	const jobs = pick(b, 'jobs', 'jobs_used');
	return h('p', { class: 'muted', id: 'bisect-facts' },
		h('a', { href: `/bisects/${b.id}` }, `bisect #${b.id}`), ' ', stateBadge(b.state),
		` · ${(b.steps || []).length} steps`,
		Number.isFinite(wall) ? ` · wall time ${duration(wall)}` : '',
		Array.isArray(jobs) ? ` · ${jobs.length} jobs` : Number.isFinite(jobs) ? ` · ${jobs} jobs` : '',
		Number.isFinite(b.runs_used) ? ` · ${b.runs_used} runs` : '',
		b.level > 0 ? ` · ${plural(b.level, 'merge')} descended into` : '',
		b.outcome ? ` · ${b.outcome}` : '',
		b.message || b.reason ? ` · ${b.message || b.reason}` : '');
}

function triage(r, rerender) {
	const out = h('p', { class: 'muted', id: 'triage-status' });
	const sel = h('select', { id: 'triage-state' }, STATES.map((s) =>
		h('option', { value: s, selected: s === r.state }, s)));
	const note = h('input', { id: 'triage-note', size: 50, placeholder: 'why (kept in the history)' });
	const tok = h('input', { id: 'triage-token', type: 'password', size: 30, placeholder: 'admin token',
		value: getToken(), autocomplete: 'off' });
	const form = h('form', {
		class: 'pickers', id: 'triage',
		onsubmit: async (ev) => {
			ev.preventDefault();
			if (tok.value.trim() !== getToken())
				setToken(tok.value.trim());
			replace(out, 'saving…');
			try {
				await api(`/regressions/${r.id}`, { method: 'PATCH', body: { state: sel.value, note: note.value } });
				await rerender();
			} catch (e) {
				replace(out, errorBox(e));
			}
		},
	}, h('label', null, 'state ', sel), h('label', null, 'note ', note),
	h('label', null, 'token ', tok), h('button', { type: 'submit' }, 'save'));
	return [form, out];
}

// The one step to call the alert a false alarm (POST /regressions/{id}/invalid,
// admin): a reason, kept as its history note, then the page again. Without a
// token, a note says how; a record already invalid shows its reason.
function markInvalid(r, rerender) {
	if (r.state === 'invalid') {
		const last = (r.history || []).filter((x) => x.to === 'invalid').pop();
		return h('p', { class: 'card muted', id: 'mark-invalid' }, 'marked invalid (a false alarm)',
			last && last.note ? [': ', h('span', { id: 'invalid-reason' }, last.note)] : '');
	}
	if (!getToken())
		return h('p', { class: 'muted', id: 'mark-invalid' },
			'Not a real change? Set an admin token to mark it invalid here, with a reason.');
	const out = h('span', { class: 'muted', id: 'mark-invalid-status' });
	const reason = h('input', { id: 'invalid-reason-input', size: 50, required: true,
		placeholder: 'why it is not a real change (kept in its history)' });
	return h('form', {
		class: 'pickers card', id: 'mark-invalid',
		onsubmit: async (ev) => {
			ev.preventDefault();
			replace(out, 'saving…');
			try {
				await api(`/regressions/${r.id}/invalid`, { method: 'POST', body: { reason: reason.value } });
				await rerender();
			} catch (e) {
				replace(out, errorBox(e));
			}
		},
	}, h('label', null, 'not a real change? ', reason), ' ',
	h('button', { type: 'submit', id: 'mark-invalid-button' }, 'mark invalid'), ' ', out);
}

// Every record of the same range (the API's `group`, leader first).
function groupTable(r) {
	const group = (r.group || []).filter((g) => g.id !== r.id);
	if (!group.length)
		return null;
	return section('Changed at the same range', table([
		{ label: '#' }, { label: 'kind' }, { label: '%change', cls: 'num' }, { label: 'metric' },
		{ label: 'setup' }, { label: 'state' },
	], group.map((g) => {
		const kind = regressionKind(g);
		return h('tr', { class: 'group-row' },
			h('td', null, h('a', { href: `/regressions/${g.id}` }, `#${g.id}`)),
			h('td', null, badge(kind, { improvement: 'good', regression: 'bad' }[kind] || 'info')),
			h('td', { class: `num pct ${kind}`, title: shiftTitle(g, fmtPct) }, fmtPct(shiftPct(g))),
			h('td', null, h('a', { href: link('/series', seriesQuery(setupOf(g), g.metric)) }, g.metric || '')),
			h('td', null, setupLabel(setupOf(g))),
			h('td', null, stateBadge(g.state)));
	}), { class: 'list', id: 'group' }));
}

// "bisect now" for an admin (POST /regressions/{id}/bisect): a bisect of the
// regression's own range, setup and metric, linked to it; then the page again.
function bisectNow(r, root, id, kind) {
	if (!getToken())
		return emptyState('Set an admin token to bisect it now.');
	const status = h('span', { class: 'muted', id: 'bisect-now-status' });
	return h('p', null, h('button', {
		type: 'button', id: 'bisect-now',
		onclick: async () => {
			replace(status, 'starting…');
			try {
				const out = await api(`/regressions/${r.id}/bisect`, { method: 'POST', body: {} });
				replace(status, `bisect ${out.id} queued`);
				await render(root, { id, kind });
			} catch (e) {
				replace(status, errorBox(e));
			}
		},
	}, 'bisect now'), ' ', status);
}

// Whom the mails about this regression went to, and their delivery (admin:
// the outbox API), and a button to queue a report now.
async function mails(r) {
	if (!getToken())
		return emptyState('Set an admin token to see whom each report went to, and to mail one now.');
	let list;
	try {
		list = await api('/outbox', { query: { regression: r.id }, optional: true });
	} catch (e) {
		return e.status === 401 || e.status === 403 ? emptyState('The delivery of mails needs an admin token.') : errorBox(e);
	}
	if (list === null)
		return emptyState('This server has no mail API yet.');
	const status = h('span', { class: 'muted' });
	return [
		list.length ? table([{ label: 'subject' }, { label: 'kind' }, { label: 'state' }, { label: 'to' },
			{ label: 'sent' }], list.map((m) => h('tr', { class: 'mail-row' },
			h('td', null, m.subject || ''), h('td', null, m.kind || ''), h('td', null, m.state || '',
				m.last_error ? h('span', { class: 'muted' }, ` ${m.last_error}`) : null),
			h('td', null, Array.isArray(m.recipients) ? m.recipients.join(', ') : String(m.recipients || '')),
			h('td', null, fmtTime(m.sent_at)))), { class: 'list', id: 'mails' })
			: emptyState('No report mailed yet.'),
		h('p', null, h('button', {
			type: 'button', id: 'send-report',
			onclick: async () => {
				replace(status, 'queueing…');
				try {
					const out = await api(`/regressions/${r.id}/report`, { method: 'POST', body: {} });
					replace(status, `queued as mail ${out && out.outbox_id !== undefined ? out.outbox_id : ''}`);
				} catch (e) {
					replace(status, errorBox(e));
				}
			},
		}, 'mail a report now'), ' ', status),
	];
}

// The report as mailed (GET /regressions/{id}/report, read scope): every
// mail about the regression, newest first, each with its headers and its
// text exactly as sent; no recipients (those are on the admin outbox).
async function reportMails(r) {
	if (!r)
		return emptyState('This bisect has recorded no regression yet: nothing was mailed.');
	let data;
	try {
		data = await api(`/regressions/${r.id}/report`, { optional: true });
	} catch (e) {
		return errorBox(e);
	}
	if (data === null)
		return emptyState('This server has no report API yet.');
	const mails = data.mails || [];
	if (!mails.length)
		return h('div', { id: 'report' }, emptyState('No report mailed yet.'));
	return h('div', { id: 'report' }, mails.map((m) => h('div', {
		class: 'mail', dataset: { state: m.state || '', kind: m.kind || '' },
	},
	m.state === 'skipped' || m.state === 'held' ? h('p', { class: 'mail-head mail-skipped' },
		// a held mail's reason starts with "held: " (the outbox's last_error)
		stateBadge(m.state === 'held' ? m.reason || 'held' : `skipped: ${m.reason || 'not mailed'}`), ' ',
		h('span', { class: 'muted' }, `${m.kind} report of ${fmtTime(m.created_at)} · `,
			m.state === 'held'
				? 'not mailed yet: the server holds mail while its configuration cannot send it; once it starts with what the reason names set, it sends this one'
				: m.reason === 'no recipients'
					? 'nobody is subscribed to this regression (POST /api/v1/subscriptions, or mail_cc), so it was not mailed; mail it again once someone is'
					: 'not mailed')) :
	h('p', { class: 'mail-head' }, stateBadge(m.state === 'dry_run' ? 'sent (dry run)' : m.state),
		' ', h('b', { class: 'mail-subject' }, m.subject || '(not rendered yet)'),
		h('span', { class: 'muted' }, ` · ${m.kind} report`,
			m.sent_at ? ` · sent ${fmtTime(m.sent_at)}` : ` · queued ${fmtTime(m.created_at)}`)),
	m.message_id ? h('p', { class: 'muted mail-ids' }, 'Message-ID: ', h('code', { class: 'message-id' }, m.message_id),
		m.in_reply_to ? [' · In-Reply-To: ', h('code', null, m.in_reply_to)] : null) : null,
	m.state === 'skipped' || m.state === 'held' ? null : m.rendered ? h('pre', { class: 'report' }, m.body || '')
		: emptyState('Queued: the mailer has not rendered this report yet.'))));
}

// The .config difference between the builds (parent vs first bad commit, or
// the range's ends), as the kernel's scripts/diffconfig prints it.
async function configDiff(r, b, kind) {
	const path = kind === 'bisect' || !r ? `/bisects/${b.id}/kconfig-diff` : `/regressions/${r.id}/kconfig-diff`;
	let d;
	try {
		d = await api(path, { optional: true });
	} catch (e) {
		return e.status === 404 ? emptyState(e.message) : errorBox(e);
	}
	if (d === null)
		return emptyState('This server has no .config difference API yet.');
	const side = (s) => [h('b', null, s.role.replace('_', ' ')), ' ', commitLink(s.commit, s.subject), ' ',
		h('a', { href: `/jobs/${s.job_id}`, class: 'muted' }, `job #${s.job_id}`)];
	return h('div', { id: 'config-diff' },
		h('p', { class: 'config-builds' }, side(d.base), h('span', { class: 'muted' }, ' vs '), side(d.head)),
		d.identical
			? h('p', { id: 'config-identical' }, `identical .config (${d.head.options} options)`)
			: [h('p', { id: 'config-summary' }, `${d.removed} removed · ${d.changed} changed · ${d.added} added`,
				h('span', { class: 'muted' }, ` (of ${d.base.options} / ${d.head.options} options; scripts/diffconfig)`)),
			h('pre', { class: 'config-diff' }, (d.entries || []).map((e, i) =>
				h('span', { class: `cfg-${e.op}` }, d.lines[i], '\n')))]);
}

function historyList(r) {
	const hist = pick(r, 'history') || [];
	if (!hist.length)
		return emptyState('No history.');
	return h('ol', { class: 'history', id: 'history' }, hist.map((e) => h('li', null,
		fmtTime(pick(e, 'at', 'time')), ' ',
		pick(e, 'from_state', 'from') ? [stateBadge(pick(e, 'from_state', 'from')), ' → '] : null,
		stateBadge(pick(e, 'to_state', 'state', 'to')),
		e.by || e.who ? ` by ${e.by || e.who}` : '', e.note || e.why ? ` — ${e.note || e.why}` : '')));
}

// standIn ({sha, subject}, or null): the commit whose runs stand for parent
// (the same kernel image), said above the table as the mail says it
async function comparison(good, bad, setup, metric, standIn, parent) {
	if (!good || !bad)
		return emptyState('No range to compare.');
	const note = standIn && standIn.sha ? h('p', { class: 'muted', id: 'stand-in' },
		commitLink(standIn.sha, standIn.subject), ' stands for the parent ', commitLink(parent),
		': the same kernel image') : null;
	try {
		const data = await api('/compare', { query: { base: good, head: bad, ...(setup ? {
			testcase: setup.testcase, tbox_group: setup.tbox_group, kconfig: setup.kconfig,
			compiler: setup.compiler, params: setup.params, mode: setup.mode,
			// the record's own setup: a bisect's profiled runs are a setup of their own
			monitors: setup.monitors || 'none' } : {}) } });
		return [note, compareTable(data, { sort: 'change', focus: metric })];
	} catch (e) {
		return [note, e.status === 404 ? emptyState(`No comparison: ${e.message}`) : errorBox(e)];
	}
}

export async function render(root, { id, kind }) {
	let r = null, b = null;
	document.title = `${kind} ${id} · regtrack`;
	if (kind === 'regression') {
		r = await api(`/regressions/${id}`, { optional: true });
		if (r === null) {
			replace(root, h('h1', null, `Regression #${id}`),
				emptyState('This server has no regressions API yet.'));
			return;
		}
		const bid = pick(r, 'bisect_id') || pick(pick(r, 'bisect'), 'id');
		if (bid)
			b = await api(`/bisects/${bid}`, { optional: true }).catch(() => null);
	} else {
		b = await api(`/bisects/${id}`, { optional: true });
		if (b === null) {
			replace(root, h('h1', null, `Bisect #${id}`), emptyState('This server has no bisects API yet.'));
			return;
		}
		const rid = pick(b, 'regression_id');
		if (rid)
			r = await api(`/regressions/${rid}`, { optional: true }).catch(() => null);
	}
	const setup = setupOf(r) || setupOf(b);
	const metric = pick(r, 'metric') || pick(b, 'metric');
	const good = r ? goodOf(r).sha : commitOf(pick(b, 'good')).sha;
	const bad = commitOf(pick(b, 'first_bad_commit')).sha || (r ? badOf(r).sha : commitOf(pick(b, 'bad')).sha);
	const parent = b && pick(b, 'first_bad_commit')
		? commitOf(pick(pick(b, 'verification'), 'parent') || pick(b, 'first_bad_parent') ||
			pick(pick(r, 'bisect'), 'parent')).sha || good : good;
	// a parent of the first bad commit's image ran nothing: the runs of the
	// commit that stood for it (parent_stand_in, the mail's table base too)
	const standIn = b && pick(b, 'first_bad_commit')
		? pick(b, 'parent_stand_in') || pick(pick(r, 'bisect'), 'parent_stand_in') : null;
	const cmpBase = commitOf(standIn).sha || parent;
	const title = kind === 'regression'
		? [`${{ improvement: 'Improvement', regression: 'Regression' }[regressionKind(r)] || 'Change'} #${r.id}: `,
			metric || '', ' ', fmtPct(shiftPct(r)), ' ', stateBadge(r.state)]
		: [`Bisect #${b.id}: `, metric || '', ' ', stateBadge(b.state)];
	const width = Math.max(480, Math.min(root.clientWidth - 40, 1400));
	const [cmp, cfg, mailed, chart] = await Promise.all([comparison(cmpBase, bad, setup, metric,
		cmpBase !== parent ? commitOf(standIn) : null, parent),
		r || b ? configDiff(r, b, kind) : null, reportMails(r),
		kind === 'regression' ? storyChart(r, b, width) : null]);
	const cmpTitle = parent !== good ? 'First bad commit vs its parent'
		: b && pick(b, 'first_bad_commit') ? 'Good vs first bad commit' : 'Last good vs first bad';
	const bisectPart = b ? section('Bisect', bisectFacts(b), stepsTable(b), firstBad(b), verification(b))
		: r ? section('Bisect', emptyState('Not bisected yet.'), bisectNow(r, root, id, kind)) : null;
	let parts, prof = null, bisectProfile = null;
	if (kind === 'regression') {
		// the story, answer first: the bisect's first bad commit, every arch it
		// was seen on, the detection range, the series around the change, the
		// profile diff, the comparison, the .config difference, the mail; then
		// how the bisect got there and the triage
		prof = profileSlot();
		parts = [
			h('h1', null, title),
			answerCard(r, b),
			archTable(r, b),
			h('div', { class: 'card-title muted' }, 'detection range (the detector\'s estimate)'),
			rangeCard(r, b, kind === 'bisect'),
			markInvalid(r, () => render(root, { id, kind })),
			section('Series around the change', chart.el),
			section('Profile diff: first bad commit vs its parent', prof),
			section(cmpTitle, cmp),
			section('.config difference', cfg),
			section('Report as mailed', mailed),
			groupTable(r),
			bisectPart,
			section('Mail delivery', await mails(r)),
			section('Triage', ...triage(r, () => render(root, { id, kind })), historyList(r)),
		].filter(Boolean);
	} else {
		// the bisect's profile diff (its profile round: first bad vs parent)
		bisectProfile = kind === 'bisect' && b ? h('div', { id: 'profile-diff' }) : null;
		parts = [h('h1', null, title), rangeCard(r, b, kind === 'bisect'), bisectPart,
			section(cmpTitle, cmp),
			bisectProfile ? section('Profile: first bad commit vs its parent', bisectProfile) : null,
			section('.config difference', cfg), section('Report as mailed', mailed)].filter(Boolean);
		if (r) {
			const g = groupTable(r);
			if (g)
				parts.splice(2, 0, g);
			parts.push(section('Mail delivery', await mails(r)));
			parts.push(section('Triage', ...triage(r, () => render(root, { id, kind })), historyList(r)));
		}
	}
	replace(root, parts);
	if (chart)
		chart.draw();
	if (prof)
		await fillProfileSlot(prof, r, b);
	if (bisectProfile)
		await renderProfileDiff(bisectProfile, `/api/v1/bisects/${b.id}/profile-diff`);
}
