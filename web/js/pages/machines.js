// Machines (/machines): arch, CPUs, memory, tbox_group, last seen, the host
// fingerprint, runs done.
import { h, replace, table, emptyState, age, fmtBytesMB, fmtTime } from '../dom.js';
import { api } from '../api.js';
import { listOf } from '../model.js';

function fingerprint(fp) {
	if (!fp || typeof fp !== 'object' || !Object.keys(fp).length)
		return h('span', { class: 'muted' }, '—');
	return h('details', null, h('summary', null, `${Object.keys(fp).length} facts`),
		h('dl', { class: 'kv' }, Object.keys(fp).sort().map((k) => [
			h('dt', null, k),
			h('dd', null, typeof fp[k] === 'string' ? fp[k] : JSON.stringify(fp[k]))])));
}

export async function render(root) {
	document.title = 'machines · regtrack';
	const list = listOf(await api('/machines'), 'machines');
	if (!list.length) {
		replace(root, h('h1', null, 'Machines'), emptyState('No machine has registered or sent results yet.'));
		return;
	}
	replace(root, h('h1', null, 'Machines'), table([
		{ label: 'hostname' }, { label: 'arch' }, { label: 'tbox_group' }, { label: 'CPUs', cls: 'num' },
		{ label: 'memory', cls: 'num' }, { label: 'CPU model' }, { label: 'last seen' },
		{ label: 'runs', cls: 'num' }, { label: 'fingerprint' },
	], list.map((m) => h('tr', { class: 'machine-row' },
		h('td', null, m.hostname || ''), h('td', null, m.arch || ''), h('td', null, m.tbox_group || ''),
		h('td', { class: 'num' }, m.nr_cpus === null || m.nr_cpus === undefined ? '—' : String(m.nr_cpus)),
		h('td', { class: 'num' }, fmtBytesMB(m.memory_mb)),
		h('td', null, m.cpu_model || ''),
		h('td', { title: fmtTime(m.last_seen) }, age(m.last_seen)),
		h('td', { class: 'num' }, String(m.runs ?? m.jobs_done ?? '—')),
		h('td', null, fingerprint(m.fingerprint)))), { class: 'list', id: 'machines' }));
}
