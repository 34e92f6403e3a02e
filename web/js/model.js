// Readers of the API's objects that tolerate the few spellings an
// endpoint may use (a commit as "sha" or {sha, subject}; last_good or good).

export function pick(o, ...keys) {
	if (!o)
		return undefined;
	for (const k of keys)
		if (o[k] !== undefined && o[k] !== null)
			return o[k];
	return undefined;
}

// {sha, subject} from "sha", {sha, subject} or {commit, subject}.
export function commitOf(v, subject) {
	if (!v)
		return { sha: '', subject: subject || '' };
	if (typeof v === 'string')
		return { sha: v, subject: subject || '' };
	return { sha: v.sha || v.commit || '', subject: v.subject || subject || '' };
}

// The list inside a list response: [..] itself or {items|<name>: [..]}.
export function listOf(data, name) {
	if (Array.isArray(data))
		return data;
	if (data && Array.isArray(data[name]))
		return data[name];
	if (data && Array.isArray(data.items))
		return data.items;
	return [];
}

// The size of a verdict: the Hodges-Lehmann shift in % (hl_pct, which the
// verdict comes from) when the record has one, else LKP's %change of means
// (change_pct; old records).
export function shiftPct(r) {
	if (!r)
		return undefined;
	return Number.isFinite(r.hl_pct) ? r.hl_pct : r.change_pct;
}

// A title telling which figure shiftPct gave, with the means' %change.
export function shiftTitle(r, fmt) {
	if (!r || !Number.isFinite(r.hl_pct))
		return '%change of means';
	return `Hodges-Lehmann shift; %change of means ${fmt(r.change_pct)}`;
}

export function regressionKind(r) {
	const k = pick(r, 'kind', 'change', 'direction');
	if (k === 'regression' || k === 'improvement' || k === 'change')
		return k;
	return 'change';
}

// The series page's query for one setup and metric.
export function seriesQuery(setup, metric) {
	if (!setup)
		return { metric };
	return {
		testcase: setup.testcase, metric, tbox_group: setup.tbox_group, kconfig: setup.kconfig,
		compiler: setup.compiler, params: setup.params, mode: setup.mode,
	};
}

// The range of a regression record: last good and first bad {sha, subject}.
export function goodOf(r) {
	return commitOf(pick(r, 'last_good', 'good', 'good_commit', 'base'));
}

export function badOf(r) {
	return commitOf(pick(r, 'first_bad', 'bad', 'bad_commit', 'head'));
}

// [lo, hi] %change confidence interval, or null.
export function ciOf(r) {
	if (!r)
		return null;
	if (Array.isArray(r.ci_pct))
		return r.ci_pct;
	if (Number.isFinite(r.ci_lo_pct) && Number.isFinite(r.ci_hi_pct))
		return [r.ci_lo_pct, r.ci_hi_pct];
	return null;
}

// The setup of a record: its `setup` object, or the flat fields a
// regression or bisect carries (testcase, params, kconfig, …, setup_id).
export function setupOf(o) {
	if (!o)
		return null;
	if (o.setup && typeof o.setup === 'object')
		return o.setup;
	if (!o.testcase)
		return null;
	return {
		id: o.setup_id, testcase: o.testcase, params: o.params, kconfig: o.kconfig,
		compiler: o.compiler, tbox_group: o.tbox_group, mode: o.mode,
	};
}

// The arch a job, bisect or regression runs on, in the kernel's names
// (x86_64, arm64): its `arch`, else its kconfig's first word
// (x86_64-defconfig), else '' (a host job for a tbox_group, say).
export function archOf(o) {
	if (!o)
		return '';
	const a = o.arch || (o.setup && o.setup.arch) ||
		(typeof o.kconfig === 'string' ? o.kconfig.split('-')[0] : '');
	return { aarch64: 'arm64', amd64: 'x86_64', 'x86-64': 'x86_64' }[a] ||
		(['x86_64', 'arm64'].includes(a) ? a : '');
}

// What became of a job, for the pages: {state, failed, reason}, the API's
// `status` (its list's ?state= filter). A job the worker finished without a
// run (outcome build-failed, boot-failed, run-failed: a refused testcase or
// params, a fetch failure) is `done` in the API's state but failed here,
// with the worker's reason (fail_reason, else the worker's own line of the
// log tail); one of an image already measured (outcome same-image) is
// skipped, not failed: another commit's runs (same_image_as) stand for it.
export function jobStatus(j) {
	if (!j)
		return { state: '', failed: false, reason: null };
	if (j.state === 'done' && j.outcome === 'same-image')
		return { state: 'skipped', failed: false, reason: null };
	const noRun = j.state === 'done' && typeof j.outcome === 'string' && j.outcome !== 'ok';
	if (j.state !== 'failed' && !noRun)
		return { state: j.state, failed: false, reason: null };
	let reason = j.fail_reason || null;
	if (!reason && typeof j.log_tail === 'string') {
		const lines = j.log_tail.split('\n').filter((l) => l.trim());
		const own = lines.filter((l) => l.startsWith('regtrack-worker: '));
		const line = own.length ? own[own.length - 1] : lines[lines.length - 1];
		reason = line ? `${j.outcome}: ${line}` : null;
	}
	return { state: 'failed', failed: true, reason };
}

// A host that registered as a worker (it can lease jobs), not one that
// only sent results (CI submissions make a machine row too).
export function isWorker(m) {
	return Boolean(m) && Array.isArray(m.capabilities) && m.capabilities.length > 0;
}

// The params the worker reads itself to shape the test machine (lib/vmspec.h).
export const VM_PARAMS = ['measure', 'accel', 'vcpus', 'pin', 'hugepages', 'numa'];

// The case's own params: params without VM_PARAMS.
export function caseParams(params) {
	const out = {};
	for (const [k, v] of Object.entries(params || {}))
		if (!VM_PARAMS.includes(k))
			out[k] = v;
	return out;
}

// "kvm · 16 vCPUs pinned · NUMA host · 2M hugepages" from a job's params; the
// worker's defaults for what they leave out: '' when they name nothing.
export function vmShape(params) {
	const p = params || {};
	// pin as vmspec_parse() reads it: true, 1, or their text (a command line's pin=true)
	const on = (v) => v === true || v === 1 || v === '1' || v === 'true';
	const parts = [];
	if (p.accel)
		parts.push(String(p.accel));
	if (p.measure === 'icount')
		parts.push('icount');
	if (p.vcpus !== undefined || on(p.pin))
		parts.push([p.vcpus !== undefined ? `${p.vcpus} vCPU${String(p.vcpus) === '1' ? '' : 's'}` : 'vCPUs',
			on(p.pin) ? 'pinned' : null].filter(Boolean).join(' '));
	if (p.numa !== undefined)
		parts.push(`NUMA ${p.numa === 'host' ? 'as the host' : `${p.numa} node${String(p.numa) === '1' ? '' : 's'}`}`);
	if (p.hugepages && p.hugepages !== 'none')
		parts.push(`${p.hugepages} hugepages`);
	return parts.join(' · ');
}

// "0-15", "0,32", "0,0,1,1": a list of CPU (or node) numbers in its own order
// (vCPU i's host CPU is the i-th); an ascending list with no repeats in the
// kernel's cpulist spelling (each step-by-one stretch as FIRST-LAST), any
// other one number by number; '—' when it is no list of numbers.
export function cpuList(v) {
	if (!Array.isArray(v) || !v.length || !v.every(Number.isInteger))
		return '—';
	if (v.some((c, i) => i && c <= v[i - 1]))
		return v.join(',');
	const out = [];
	for (let i = 0; i < v.length;) {
		let j = i;
		while (j + 1 < v.length && v[j + 1] === v[j] + 1)
			j++;
		out.push(j > i ? `${v[i]}-${v[j]}` : String(v[i]));
		i = j + 1;
	}
	return out.join(',');
}

// What one run got, in words, from GET /api/v1/runs/{id}: its extra.guest
// (worker/execute.c exec_run_object, qemu_guest_json: null where the worker
// did not pin, use hugepages or lay out NUMA; a key absent where the worker
// predates it, said as '—'):
//   "kvm, 16 vCPUs pinned to host CPUs 0-15, 2M hugepages, 2 NUMA nodes, 512 MiB, cpu host".
// A run without a guest says so, with the accel and CPU count it recorded.
export function runGot(run) {
	const x = (run && run.extra) || {};
	const g = x.guest;
	const txt = (v) => (v === undefined || v === null || typeof v === 'object' ? '—' : String(v));
	if (!g || typeof g !== 'object') {
		const cpus = Number.isInteger(x.cpus) ? `${x.cpus} CPU${x.cpus === 1 ? '' : 's'} seen by the case` : 'CPUs —';
		const why = x.accel === 'host' ? 'no guest: it ran on the host itself'
			: x.accel === 'kexec' ? 'no guest: the host booted the kernel under test'
				: 'no guest recorded: an older run, or one posted without it';
		return `${txt(x.accel)}, ${cpus} (${why})`;
	}
	const n = g.nr_cpus;
	let cpus = Number.isInteger(n) ? `${n} vCPU${n === 1 ? '' : 's'}` : 'vCPUs —';
	if (Array.isArray(g.pinned))
		cpus += ` pinned to host CPU${new Set(g.pinned).size === 1 ? '' : 's'} ${cpuList(g.pinned)}`;
	else
		cpus += g.pinned === null ? ' not pinned' : ', pinning —';
	const numa = Array.isArray(g.numa) ? `${g.numa.length} NUMA node${g.numa.length === 1 ? '' : 's'}` +
		(g.numa.length && g.numa.every((d) => d && Number.isInteger(d.host_node))
			? ` mirroring host nodes ${cpuList(g.numa.map((d) => d.host_node))}` : '')
		: g.numa === null ? 'no NUMA layout' : 'NUMA —';
	return [txt(g.accel !== undefined ? g.accel : x.accel) + (g.icount === true ? ' icount' : ''), cpus,
		typeof g.hugepages === 'string' ? `${g.hugepages} hugepages` : g.hugepages === null ? 'no hugepages' : 'hugepages —',
		numa, Number.isFinite(g.memory_mb) ? `${g.memory_mb} MiB` : 'memory —', `cpu ${txt(g.cpu_model)}`].join(', ');
}
