// Patches from a list (/inbox[?inbox=NAME]): each registered inbox with its
// filter and last poll (its error when it failed), and the series assembled
// from it with their state (waiting for parts, incomplete, filtered, not
// applying, duplicate, queued, tested: no change / improvement / regression,
// replied), each linked to its thread's Message-ID and its request.
import { h, replace, link, table, emptyState, fmtTime, badge } from '../dom.js';
import { api } from '../api.js';

const STATE_KIND = {
	waiting: 'info', incomplete: 'muted', filtered: 'muted', 'not-applying': 'bad',
	duplicate: 'muted', queued: 'info', tested: 'good', replied: 'good', failed: 'bad',
};
const VERDICT_KIND = { regression: 'bad', improvement: 'good', 'no-change': 'muted', inconclusive: 'warn' };

// the thread of a Message-ID: the inbox's own page of it when it is served over http(s)
function threadLink(inbox, msgid) {
	const text = `<${msgid}>`;
	if (!/^https?:\/\//.test(inbox.url))
		return h('code', { class: 'msgid' }, text);
	const base = inbox.url.replace(/\/+$/, '');
	return h('a', { class: 'msgid', href: `${base}/${encodeURIComponent(msgid)}/` }, text);
}

function stateCell(s) {
	const label = s.state === 'waiting' ? `waiting for parts (${s.parts}/${s.total})` : s.state;
	return h('td', { class: 'state', title: s.reason || '' },
		badge(label, STATE_KIND[s.state] || ''),
		s.verdict && s.verdict !== s.state ? [' ', badge(s.verdict, VERDICT_KIND[s.verdict] || '')] : null,
		s.reason ? h('div', { class: 'muted reason' }, s.reason) : null);
}

function seriesRow(inbox, s, byId) {
	const prev = s.previous_id ? byId.get(s.previous_id) : null;
	const dup = s.duplicate_of ? byId.get(s.duplicate_of) : null;
	return h('tr', { class: 'series-row', dataset: { anchor: s.anchor, state: s.state } },
		h('td', null, h('div', null, `v${s.version}${s.resend ? ' RESEND' : ''} `, s.title),
			h('div', { class: 'muted' }, s.author)),
		h('td', { class: 'num' }, `${s.parts}/${s.total}${s.cover ? ' +cover' : ''}`),
		stateCell(s),
		h('td', null, threadLink(inbox, s.anchor)),
		h('td', null, s.request_id ? h('a', { class: 'request', href: `/requests/${s.request_id}` }, `request ${s.request_id}`) : '—'),
		h('td', null, prev ? h('span', null, `v${prev.version} `, threadLink(inbox, prev.anchor)) : null,
			dup ? h('span', null, 'same as ', threadLink(inbox, dup.anchor)) : null),
		h('td', { class: 'muted' }, fmtTime(s.updated_at)));
}

async function inboxSection(inbox) {
	const series = await api(`/inboxes/${encodeURIComponent(inbox.name)}/series`);
	const byId = new Map(series.map((s) => [s.id, s]));
	const filter = [
		inbox.lists.length ? `lists ${inbox.lists.join(', ')}` : 'any list',
		inbox.subject_prefixes.length ? `prefixes ${inbox.subject_prefixes.join(', ')}` : '[PATCH]',
		inbox.paths.length ? `paths ${inbox.paths.join(', ')}` : 'any path',
		inbox.plan ? `plan ${inbox.plan}` : 'no plan',
		inbox.cc_list ? 'replies Cc the list' : 'replies to the author only',
	].join(' · ');
	return h('section', { class: 'card inbox', dataset: { name: inbox.name } },
		h('h2', null, inbox.name, ' ', h('span', { class: 'muted' }, inbox.url)),
		h('p', { class: 'muted' }, filter),
		h('p', { class: 'poll' }, `${inbox.messages} messages · last poll ${fmtTime(inbox.last_poll_at)}`,
			inbox.poll_error ? h('span', { class: 'badge bad poll-error', title: inbox.poll_error }, ` ${inbox.poll_error}`) : null),
		series.length ? table([{ label: 'series' }, { label: 'parts', cls: 'num' }, { label: 'state' },
			{ label: 'thread' }, { label: 'request' }, { label: 'earlier' }, { label: 'updated' }],
		series.map((s) => seriesRow(inbox, s, byId)), { class: 'list series' }) : emptyState('No series seen yet.'));
}

export async function render(root, { query }) {
	document.title = 'patches from lists · regtrack';
	const head = h('h1', null, 'Patches from lists');
	const inboxes = await api('/inboxes', { optional: true });
	if (inboxes === null) {
		replace(root, head, emptyState('This server has no inbox API yet.'));
		return;
	}
	const want = query.get('inbox');
	const shown = inboxes.filter((i) => !want || i.name === want);
	if (!shown.length) {
		replace(root, head, emptyState('No inbox registered (POST /api/v1/inboxes; README "Testing patches from a list").'));
		return;
	}
	replace(root, head, h('p', { class: 'muted' }, shown.length > 1 ? shown.map((i, k) =>
		[k ? ' · ' : '', h('a', { href: link('/inbox', { inbox: i.name }) }, i.name)]) : null),
	...(await Promise.all(shown.map(inboxSection))));
}
