// One job (/jobs/{id}): phase, elapsed time per phase, progress, message,
// runs (what each got: its guest, from the job's run_guests), log
// tail; refreshes itself while the job is queued or leased.
import { h, replace, section, table, emptyState, errorBox, fmtTime, duration, stateBadge,
	commitLink, fmtParams } from '../dom.js';
import { api, getToken, setToken } from '../api.js';
import { pick, commitOf, jobStatus, caseParams, vmShape, runGot } from '../model.js';
import { progressBar } from './jobs.js';

const REFRESH_MS = 3000;

// {run id: {run}} for the job's runs, from the job's run_guests (GET
// /api/v1/jobs/{id}: what each run got, one request for a job of any number
// of runs; the same query fills the job's runs and run_guests, so every run
// has an entry); a run without one shows as not described
function readRuns(j) {
	const ids = (j.runs || []).map((r) => (typeof r === 'string' ? r : pick(r, 'run_id', 'id'))).filter(Boolean);
	const guests = j.run_guests && typeof j.run_guests === 'object' ? j.run_guests : {};
	return new Map(ids.filter((rid) => guests[rid] && typeof guests[rid] === 'object')
		.map((rid) => [rid, { run: { extra: withoutNulls(guests[rid]) } }]));
}

// run_guests says null for a key the run did not record, where the run's own
// extra has none: the same to runGot
function withoutNulls(o) {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
}

// [{phase, start, seconds, progress, message}] from phase_history; the last
// phase of a live job runs until now.
export function phaseTimes(hist, live, now = Date.now()) {
	const out = [];
	for (let i = 0; i < hist.length; i++) {
		const t = Date.parse(hist[i].at);
		const next = i + 1 < hist.length ? Date.parse(hist[i + 1].at) : live ? now : NaN;
		if (out.length && out[out.length - 1].phase === hist[i].phase) {
			const o = out[out.length - 1];
			o.seconds = (next - o.start) / 1000;
			o.progress = hist[i].progress;
			o.message = hist[i].message || o.message;
			continue;
		}
		out.push({ phase: hist[i].phase, start: t, seconds: (next - t) / 1000,
			progress: hist[i].progress, message: hist[i].message });
	}
	return out;
}

// Cancel for a submit or admin token: a queued job at once, a leased one's
// worker stops at its next heartbeat.
function cancelForm(j, rerender) {
	const out = h('span', { class: 'muted', id: 'job-cancel-status' });
	const tok = h('input', { id: 'job-cancel-token', type: 'password', size: 30, placeholder: 'admin token',
		value: getToken(), autocomplete: 'off' });
	return h('form', {
		class: 'pickers', id: 'job-cancel',
		onsubmit: async (ev) => {
			ev.preventDefault();
			if (tok.value.trim() !== getToken())
				setToken(tok.value.trim());
			replace(out, 'cancelling…');
			try {
				await api(`/jobs/${j.id}/cancel`, { method: 'POST', body: {} });
				await rerender();
			} catch (e) {
				replace(out, errorBox(e));
			}
		},
	}, h('label', null, 'token ', tok), h('button', { type: 'submit' }, 'Cancel job'), out);
}

function view(j, rerender, got) {
	const live = j.state === 'queued' || j.state === 'leased';
	const phases = phaseTimes(j.phase_history || [], live);
	const runs = j.runs || [];
	const st = jobStatus(j);
	return [
		h('h1', null, `Job #${j.id} `, stateBadge(st.state)),
		h('div', { class: 'card range' },
			h('div', null, h('b', null, 'commit '), commitLink(commitOf(j.commit).sha, pick(j, 'commit_subject', 'subject'))),
			h('div', null, h('b', null, 'testcase '), j.testcase || '', ' ', h('span', { class: 'muted' }, fmtParams(caseParams(j.params)))),
			// the machine the job asked for (accel, vCPUs, pinning, NUMA, hugepages); the
			// Runs section says what each run got
			h('div', { id: 'job-machine' }, h('b', null, 'machine '), j.kconfig === 'host' ? 'the host itself'
				: vmShape(j.params) || h('span', { class: 'muted' }, "the worker's default (KVM with the host's CPUs where usable, else TCG)")),
			h('div', null, h('b', null, 'build '), [j.kconfig, j.compiler, j.tbox_group || j.arch].filter(Boolean).join(' / ')),
			h('div', null, h('b', null, 'phase '), j.phase || '—', ' ', st.failed ? null : progressBar(j.progress),
				j.message ? h('span', { class: 'muted' }, ' ', j.message) : null),
			h('div', null, h('b', null, 'attempts '), String(j.attempts ?? '—'),
				j.outcome ? [' · ', h('b', null, 'outcome '), typeof j.outcome === 'string' ? j.outcome : JSON.stringify(j.outcome)] : null,
				j.machine ? [' · ', h('b', null, 'machine '), String(j.machine)] : null),
			st.reason ? h('div', { class: 'error', id: 'fail-reason' }, st.reason) : null,
			st.state === 'skipped' ? h('div', { class: 'muted', id: 'same-image' }, 'skipped: it built the same kernel image as ',
				commitLink(j.same_image_as), ', whose runs stand for this commit') : null,
			// what the server warned about when the job was queued (no worker serves its
			// tbox_group yet; no case table registered, so nothing was checked)
			(j.warnings || []).length ? h('ul', { class: 'warning', id: 'job-warnings' },
				j.warnings.map((w) => h('li', null, w))) : null,
			live ? cancelForm(j, rerender) : null),
		section('Phases', phases.length ? table([
			{ label: 'phase' }, { label: 'started' }, { label: 'elapsed', cls: 'num' },
			{ label: 'progress' }, { label: 'message' },
		], phases.map((p) => h('tr', { class: 'phase-row' },
			h('td', null, p.phase || ''), h('td', null, fmtTime(new Date(p.start).toISOString())),
			h('td', { class: 'num' }, duration(p.seconds)), h('td', null, progressBar(p.progress)),
			h('td', null, p.message || ''))), { class: 'list', id: 'phases' })
			: emptyState('No phase reported yet.')),
		// what each run got ("run 1: kvm, 16 vCPUs pinned to host CPUs 0-15, …"), then its raw JSON
		section('Runs', runs.length ? h('ul', { id: 'runs' }, runs.map((r, i) => {
			const rid = typeof r === 'string' ? r : pick(r, 'run_id', 'id');
			const g = got.get(rid);
			return h('li', null, h('span', { class: 'run-got' }, `run ${i + 1}: `,
				!g ? '—' : runGot(g.run)),
			' · ', h('a', { href: `/api/v1/runs/${rid}`, title: 'the run as the API has it (JSON)' }, String(rid)),
			typeof r === 'object' && r.status ? ` ${r.status}` : '');
		})) : emptyState(st.state === 'skipped' ? 'No runs: the same kernel image was measured already.'
			: st.failed || j.state === 'cancelled' ? 'No runs.' : 'No runs yet.')),
		section('Log tail', j.log_tail ? h('pre', { class: 'log', id: 'log-tail' }, j.log_tail)
			// withheld without a token (README "Security: what is public")
			: j.request && !('log_tail' in j) ? emptyState('The log of an A/B request\'s job needs a token: it builds the submitted series.')
				: emptyState('No log.')),
	];
}

export async function render(root, { id }) {
	document.title = `job ${id} · regtrack`;
	const load = async () => {
		const j = await api(`/jobs/${id}`, { optional: true });
		if (j === null) {
			replace(root, h('h1', null, `Job #${id}`), emptyState('This server has no jobs API yet.'));
			return false;
		}
		replace(root, view(j, load, readRuns(j)));
		return j.state === 'queued' || j.state === 'leased';
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
	}
}
