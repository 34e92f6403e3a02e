// DOM helpers. Every string handed to h() becomes a text node or an
// attribute value: nothing here parses HTML, so text from users, workers
// or git (commit subjects, hostnames, logs) can never become markup.

const SAFE_URL = /^(\/(?!\/)|https?:\/\/|#|\?)/;

// h('a', {href: '/x', class: 'c', onclick: fn}, 'text', node, [more]) -> Element.
// Attributes named on* take a function (an event listener); href/src must
// be a relative path or http(s) URL, or the attribute is dropped.
export function h(tag, attrs, ...children) {
	const el = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === null || v === undefined || v === false)
			continue;
		if (k.startsWith('on') && typeof v === 'function')
			el.addEventListener(k.slice(2), v);
		else if (k === 'class')
			el.className = v;
		else if (k === 'dataset')
			Object.assign(el.dataset, v);
		else if ((k === 'href' || k === 'src') && !SAFE_URL.test(String(v)))
			continue;
		else if (k === 'value' && 'value' in el)
			el.value = String(v);
		else if (k === 'checked' || k === 'selected' || k === 'disabled' || k === 'hidden')
			el[k] = Boolean(v);
		else
			el.setAttribute(k, v === true ? '' : String(v));
	}
	append(el, children);
	return el;
}

export function append(el, children) {
	for (const c of children) {
		if (c === null || c === undefined || c === false)
			continue;
		if (Array.isArray(c))
			append(el, c);
		else if (c instanceof Node)
			el.appendChild(c);
		else
			el.appendChild(document.createTextNode(String(c)));
	}
	return el;
}

export function clear(el) {
	while (el.firstChild)
		el.removeChild(el.firstChild);
	return el;
}

export function replace(el, ...children) {
	return append(clear(el), children);
}

// Builds "/path?k=v&…" skipping null/empty values.
export function link(path, params) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(params || {}))
		if (v !== null && v !== undefined && v !== '')
			q.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
	const s = q.toString();
	return s ? `${path}?${s}` : path;
}

// --- formatting --------------------------------------------------------

export function shortSha(sha) {
	return typeof sha === 'string' ? sha.slice(0, 12) : '';
}

// Numbers as LKP prints them: integers above 10^4, else 4 significant digits.
// "1 commit", "3 commits": a count with its noun, singular for one
export function plural(n, noun) {
	return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// English ordinals: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st
export function ordinal(n) {
	const t = n % 100;
	const s = t >= 11 && t <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] || 'th';
	return `${n}${s}`;
}

export function fmtNum(v) {
	if (v === null || v === undefined || Number.isNaN(v))
		return '—';
	if (!Number.isFinite(v))
		return String(v);
	if (Math.abs(v) >= 1e4)
		return String(Math.round(v));
	return String(Number(v.toPrecision(4)));
}

// Axis labels in SI steps of 1000: 12.5M, 250k, 1.5k, 999, 0.132, -250k.
// The value is rounded to 4 digits first, so 999999 is 1M, not 1000k.
const COMPACT = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
export function fmtCompact(v) {
	if (!Number.isFinite(v))
		return '';
	const a = Math.abs(Number(v.toPrecision(4)));
	for (const [scale, suffix] of COMPACT)
		if (a >= scale)
			return String(Number((v / scale).toPrecision(4))) + suffix;
	return String(Number(v.toPrecision(4)) || 0);
}

export function fmtPct(v, digits = 1) {
	if (v === null || v === undefined || !Number.isFinite(v))
		return '—';
	return (v > 0 ? '+' : '') + v.toFixed(digits) + '%';
}

export function fmtP(p) {
	if (p === null || p === undefined || !Number.isFinite(p))
		return '—';
	if (p === 0)
		return '0';
	return p < 1e-3 ? p.toExponential(1) : String(Number(p.toPrecision(2)));
}

export function fmtBytesMB(mb) {
	if (!Number.isFinite(mb))
		return '—';
	return mb >= 1024 ? `${Number((mb / 1024).toPrecision(3))} GiB` : `${mb} MiB`;
}

// "3 h ago" from an RFC 3339 time; '—' when missing.
export function age(iso, now = Date.now()) {
	const t = Date.parse(iso);
	if (!Number.isFinite(t))
		return '—';
	return duration((now - t) / 1000) + ' ago';
}

export function duration(s) {
	if (!Number.isFinite(s))
		return '—';
	s = Math.max(0, s);
	if (s < 60)
		return `${Math.round(s)} s`;
	if (s < 3600)
		return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
	if (s < 86400)
		return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
	return `${Math.floor(s / 86400)} d ${Math.round((s % 86400) / 3600)} h`;
}

export function fmtTime(iso) {
	const t = Date.parse(iso);
	if (!Number.isFinite(t))
		return '—';
	return new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

// "test=small-allocs nr_task=100%" from a params object.
export function fmtParams(params) {
	if (!params || typeof params !== 'object')
		return '';
	return Object.keys(params).sort().map((k) => {
		const v = params[k];
		return `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
	}).join(' ');
}

export function setupLabel(s) {
	if (!s)
		return '';
	return [s.testcase, fmtParams(s.params), s.tbox_group, s.kconfig, s.compiler,
		s.mode && s.mode !== 'wallclock' ? s.mode : null].filter(Boolean).join(' / ');
}

// --- small page parts --------------------------------------------------

export function emptyState(text) {
	return h('p', { class: 'empty' }, text);
}

export function errorBox(err) {
	const msg = err && err.message ? err.message : String(err);
	return h('div', { class: 'error', role: 'alert' }, msg);
}

export function section(title, ...body) {
	return h('section', { class: 'card' }, h('h2', null, title), ...body);
}

// A <table> from column specs [{label, cls, sortKey}] and rows of cells.
export function table(columns, rows, attrs = {}) {
	return h('table', attrs,
		h('thead', null, h('tr', null, columns.map((c) =>
			h('th', { class: c.cls || null, title: c.title || null }, c.label)))),
		h('tbody', null, rows));
}

export function badge(text, kind) {
	return h('span', { class: `badge ${kind || ''}` }, text);
}

export function stateBadge(state) {
	const kind = {
		new: 'warn', confirmed: 'bad', bisecting: 'info', bisected: 'info', reported: 'info',
		fixed: 'good', invalid: 'muted', wontfix: 'muted', queued: 'muted', leased: 'info',
		running: 'info', done: 'good', failed: 'bad', cancelled: 'muted', skipped: 'muted',
		resolving: 'muted',
	}[state] || '';
	return badge(state || '?', kind);
}

export function commitLink(sha, subject) {
	return h('span', { class: 'commit' },
		h('code', { class: 'sha', title: sha || '' }, shortSha(sha)),
		subject ? h('span', { class: 'subject' }, ' ', subject) : null);
}
