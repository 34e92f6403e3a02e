// Browser tests of the dashboard: a throwaway PostgreSQL cluster, the real
// regtrack-server serving web/, seeded through the API (and one bulk SQL
// insert for the 10^5-point series), then Debian's chromium driven by
// playwright-core over every page. Screenshots go to tests/web/artifacts/.
//
// Environment: REGTRACK_BIN (dir with regtrack-server), REGTRACK_TEST_TMP
// (where the cluster goes; run.sh makes and removes it), BIG_POINTS (size
// of the large series, default 100000), CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, createWriteStream, writeFileSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
const top = dirname(dirname(here));
const BIN = process.env.REGTRACK_BIN || join(top, 'bin');
const TMP = process.env.REGTRACK_TEST_TMP || mkdtempSync('/tmp/regtrack-web-');
const ART = join(here, 'artifacts');
const BIG = Number(process.env.BIG_POINTS || 100000);
const PG_ENV = {
	...process.env,
	REGTRACK_PGDATA: process.env.REGTRACK_PGDATA || join(TMP, 'pg'),
	REGTRACK_PGPORT: process.env.REGTRACK_PGPORT || String(20000 + process.pid % 20000),
};
const XSS = 'mm: fix <script>alert(1)</script> and <img src=x onerror=alert(2)> in page_fault';
// The builds' .config (tests/fixtures/kconfig/README.md): the bisect's fake
// worker reports BASE_CONFIG before the culprit and HEAD_CONFIG from it on;
// DIFFCONFIG is what the kernel's scripts/diffconfig printed for the two.
const KCONFIG_DIR = join(top, 'tests', 'fixtures', 'kconfig');
const BASE_CONFIG = readFileSync(join(KCONFIG_DIR, 'x86_64-tiny-mm.config'), 'utf8');
const HEAD_CONFIG = readFileSync(join(KCONFIG_DIR, 'x86_64-tiny-mm-preempt-thp.config'), 'utf8');
const DIFFCONFIG = readFileSync(join(KCONFIG_DIR, 'x86_64-tiny-mm-preempt-thp.diffconfig'), 'utf8');
// report mails go to files (mail_dry_run_dir) with this one recipient
const MAIL_DIR = join(TMP, 'mail');
const MAIL_CC = 'perf-team@example.org';

// --- the tiny runner: sequential checks, one closing line ---------------
// WEB_ONLY=REGEX runs only the checks whose name it matches (everything is
// still seeded), for working on one page.
const results = [];
async function check(name, fn) {
	if (process.env.WEB_ONLY && !new RegExp(process.env.WEB_ONLY).test(name)) {
		console.log(`skip - ${name}`);
		return;
	}
	const t0 = Date.now();
	try {
		await fn();
		results.push([name, null]);
		console.log(`ok - ${name} (${Date.now() - t0} ms)`);
	} catch (e) {
		results.push([name, e]);
		console.log(`FAIL - ${name}: ${e && e.stack ? e.stack : e}`);
	}
}

// --- server and data -----------------------------------------------------
function run(cmd, args, opts = {}) {
	return execFileSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...opts }).trim();
}

function psql(sql) {
	return run(join(top, 'deploy', 'pg-local'), ['psql', '-X', '-tAq', '-v', 'ON_ERROR_STOP=1', '-c', sql], { env: PG_ENV });
}

async function startServer(conninfo) {
	const log = createWriteStream(join(TMP, 'server.log'));
	// the bisect coordinator's git mirrors under TMP, polling fast; no bisect
	// started by itself when the test confirms a regression
	const conf = join(TMP, 'server.conf');
	writeFileSync(conf, `data_dir = ${join(TMP, 'data')}\nbisect_poll_ms = 100\nbisect_share_pct = 100\n` +
		`auto_bisect_min_pct = 1000\nmail_dry_run_dir = ${MAIL_DIR}\nmail_cc = ${MAIL_CC}\nmail_poll_ms = 100\n` +
		// the 100,000-point series on a loaded machine (8 jobs on 2 cores) can take past 30 s
		'db_timeout_ms = 120000\n');
	const proc = spawn(join(BIN, 'regtrack-server'), ['serve', '--config', conf, '--db', conninfo,
		'--listen', '127.0.0.1:0', '--web-dir', join(top, 'web')], { stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, REGTRACK_ACCESS_LOG: '1' } });
	proc.stderr.pipe(log);
	const line = await new Promise((resolve, reject) => {
		const rl = createInterface({ input: proc.stdout });
		const timer = setTimeout(() => reject(new Error('server did not start in 30 s')), 30000);
		rl.once('line', (l) => {
			clearTimeout(timer);
			resolve(l);
		});
		proc.once('exit', (code) => reject(new Error(`server exited ${code}; see ${join(TMP, 'server.log')}`)));
	});
	process.on('exit', () => proc.kill('SIGTERM'));
	if (!line.startsWith('listening on '))
		throw new Error(`server said ${line}`);
	return { proc, url: 'http://' + line.split(' ').pop() };
}

function token(conninfo, scope) {
	return run(join(BIN, 'regtrack-server'), ['token', 'create', '--scope', scope, '--name',
		`${scope}-${randomUUID().slice(0, 8)}`], { env: { ...process.env, REGTRACK_DB: conninfo } });
}

let URLBASE, SERVER, TOK = {};
async function call(method, path, body, scope) {
	const headers = { 'Content-Type': 'application/json' };
	if (scope)
		headers.Authorization = 'Bearer ' + TOK[scope];
	let r;
	const once = () => fetch(URLBASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	try {
		try {
			r = await once();
		} catch (e) {
			// a kept-alive connection idle past the server's header_timeout_s (a slow
			// psql seed on a loaded machine) was closed by the server: a GET again
			// on a new connection
			if (method !== 'GET' || !/other side closed/.test(String(e.cause || e)))
				throw e;
			r = await once();
		}
	} catch (e) {
		const p = SERVER && SERVER.proc;
		throw new Error(`${method} ${path}: ${e.cause || e}; server ${p && p.exitCode !== null ? 'exited ' + p.exitCode
			: p && p.signalCode ? 'killed by ' + p.signalCode : 'still running'}`);
	}
	const text = await r.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		/* text */
	}
	return { status: r.status, json, text };
}

// false when the server has no such endpoint (a 404 that says so)
async function endpoint(route) {
	const r = await call('GET', route);
	return !(r.status === 404 && /^no such endpoint/.test(r.json && r.json.error ? r.json.error.message : ''));
}

// Deterministic noise (an LCG), so a failure reproduces.
let lcg = 12345;
function rnd() {
	lcg = (lcg * 1103515245 + 12345) % 2147483648;
	return lcg / 2147483648;
}

const hex = (n) => n.toString(16).padStart(2, '0');
const SHAS = Array.from({ length: 20 }, (_, i) => `${hex(0xa0 + i)}${'1234567890abcdef'.repeat(3)}`.slice(0, 40));
const STEP = 10; // first bad commit: throughput -15 % from here on
const SUBJECTS = SHAS.map((_, i) => (i === STEP ? XSS : `mm/vmscan: step ${i} of the seeded history`));
const RUNS = 6;

function doc(i, params, metrics) {
	return {
		run_id: randomUUID(), commit: SHAS[i], commit_time: new Date(Date.UTC(2026, 10, 1 + i, 12)).toISOString().replace('.000', ''),
		commit_subject: SUBJECTS[i], tree: 'linux', branch: 'master', kconfig: 'x86_64-defconfig', compiler: 'gcc-12',
		machine: { hostname: 'lkp-web-1', arch: 'x86_64', tbox_group: 'vm-2p', nr_cpus: 2, memory_mb: 4096, cpu_model: 'Test CPU @ 2.0GHz' },
		testcase: 'vm-scalability', params, status: 'ok', started_at: '2026-11-29T10:00:00Z', duration_s: 12.5, metrics,
	};
}

async function seed() {
	const posts = [];
	for (let i = 0; i < SHAS.length; i++) {
		for (let k = 0; k < RUNS; k++) {
			const tp = 1.0e7 * (i >= STEP ? 0.85 : 1) * (1 + (rnd() - 0.5) * 0.02);
			posts.push(doc(i, { test: 'small-allocs', nr_task: '100%' }, {
				'vm-scalability.throughput': [tp, tp * 1.001],
				'time.elapsed_time': [12.5 * (1 + (rnd() - 0.5) * 0.04)],
				'vm-scalability.free_time': [0.05 * (1 + (rnd() - 0.5) * 0.05)],
			}));
			if (k < 2)
				posts.push(doc(i, { test: 'small-allocs', nr_task: '50%' }, {
					'vm-scalability.throughput': [6.0e6 * (1 + (rnd() - 0.5) * 0.02)],
				}));
		}
	}
	for (const d of posts) {
		const r = await call('POST', '/api/v1/results', d, 'submit');
		assert.ok(r.status === 201 || r.status === 200, `POST results: ${r.status} ${r.text}`);
	}
	// the large series: one run through the API makes its setup, metric and
	// machine; the bulk goes in with SQL (10^5 uploads would take minutes)
	const big = doc(0, { mode: 'process', test: 'page_fault2', nr_task: '16' }, { 'will-it-scale.per_process_ops': [250000] });
	big.testcase = 'will-it-scale';
	big.commit = 'f'.repeat(40);
	big.commit_time = '2026-11-30T00:00:00Z';
	big.commit_subject = 'the newest commit of the large series';
	let r = await call('POST', '/api/v1/results', big, 'submit');
	assert.ok(r.status === 201 || r.status === 200, `POST big: ${r.status} ${r.text}`);
	const perCommit = 5, nc = Math.ceil((BIG - 1) / perCommit);
	psql(`WITH s AS (SELECT r.setup_id, r.machine_id, v.metric_id FROM runs r JOIN run_values v ON v.run_id = r.id
		JOIN commits c ON c.id = r.commit_id WHERE c.sha = '${'f'.repeat(40)}' LIMIT 1),
	c AS (INSERT INTO commits (sha, subject, commit_time)
		SELECT md5('c' || i) || substr(md5('d' || i), 1, 8), 'perf: seeded commit ' || i,
			timestamptz '2024-01-01 00:00Z' + i * interval '1 minute'
		FROM generate_series(1, ${nc}) i RETURNING id, commit_time),
	r AS (INSERT INTO runs (run_id, commit_id, setup_id, machine_id, status, doc_sha256)
		SELECT gen_random_uuid(), c.id, s.setup_id, s.machine_id, 'ok', '\\x00'::bytea
		FROM c, s, generate_series(1, ${perCommit}) k RETURNING id, commit_id)
	INSERT INTO run_values (run_id, metric_id, vals)
		SELECT r.id, s.metric_id, ARRAY[250000 * (1 + (random() - 0.5) * 0.03) *
			CASE WHEN r.commit_id % 7000 < 3500 THEN 1 ELSE 0.9 END]
		FROM r, s`);
	let t = Date.now();
	r = await call('GET', '/api/v1/series?testcase=will-it-scale&metric=will-it-scale.per_process_ops');
	assert.equal(r.status, 200);
	console.log(`  GET /api/v1/series of the large series: ${Date.now() - t} ms, ${r.text.length} bytes`);
	return r.json.series[0].points.value.length;
}

// A worker that registers, runs one host-mode job through every phase, and
// one job left queued. Returns {done, queued} job ids, or null without a jobs API.
const FINGERPRINT = { kernel: '6.1.0-test', governor: 'performance', smt: 'off', note: '<img src=x onerror=alert(3)>' };
const LOG = 'hackbench: 20 groups\n<script>alert(4)</script>\nTime: 1.234\n';
const REFUSED_REASON = "regtrack-worker: bad_params: hackbench has no parameter 'nr_tasks' (known: mode, groups, loops)";
const REFUSED_LOG = `lease ok\n\n${REFUSED_REASON}\n`;
async function seedJobs() {
	if ((await call('GET', '/api/v1/jobs')).status === 404)
		return null;
	let r = await call('POST', '/api/v1/workers/register', { hostname: 'lkp-web-2', arch: 'x86_64', tbox_group: 'vm-2p',
		nr_cpus: 2, memory_mb: 2048, cpu_model: 'Test CPU @ 2.0GHz', capabilities: ['host'], fingerprint: FINGERPRINT }, 'worker');
	assert.equal(r.status, 200, r.text);
	const mid = r.json.machine_id;
	const job = { commit: SHAS[11], kconfig: 'host', testcase: 'hackbench', params: { mode: 'threads' }, tbox_group: 'vm-2p' };
	r = await call('POST', '/api/v1/jobs', job, 'submit');
	assert.equal(r.status, 201, r.text);
	const done = r.json.id;
	r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 0 }, 'worker');
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.job.id, done);
	for (const [phase, progress] of [['build', 0.2], ['run', 0.6]]) {
		r = await call('POST', `/api/v1/jobs/${done}/heartbeat`, { machine_id: mid, phase, progress, message: `${phase} step` }, 'worker');
		assert.equal(r.status, 200, r.text);
	}
	const d = doc(11, { mode: 'threads' }, { 'hackbench.throughput': [1234.5] });
	d.testcase = 'hackbench';
	d.job_id = done;
	d.machine = { hostname: 'lkp-web-2', arch: 'x86_64', tbox_group: 'vm-2p', nr_cpus: 2, memory_mb: 2048, cpu_model: 'Test CPU @ 2.0GHz' };
	r = await call('POST', `/api/v1/jobs/${done}/complete`, { machine_id: mid, status: 'ok', results: [d], log_tail: LOG }, 'worker');
	assert.equal(r.status, 200, r.text);
	// a job whose params the worker refused: done in the API, no run, the reason in the log
	r = await call('POST', '/api/v1/jobs', { ...job, params: { mode: 'threads', nr_tasks: 4 } }, 'submit');
	assert.equal(r.status, 201, r.text);
	const refused = r.json.id;
	r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 0 }, 'worker');
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.job.id, refused);
	r = await call('POST', `/api/v1/jobs/${refused}/complete`, { machine_id: mid, status: 'run-failed', log_tail: REFUSED_LOG }, 'worker');
	assert.equal(r.status, 200, r.text);
	// a job whose build was an image already measured: skipped, not failed
	r = await call('POST', '/api/v1/jobs', { ...job, commit: SHAS[12], params: { mode: 'threads', groups: 2 } }, 'submit');
	assert.equal(r.status, 201, r.text);
	const skipped = r.json.id;
	r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 0 }, 'worker');
	assert.equal(r.json.job.id, skipped);
	r = await call('POST', `/api/v1/jobs/${skipped}/complete`, { machine_id: mid, status: 'same-image', log_tail: '',
		image_sha256: 'ab'.repeat(32), same_image_as: SHAS[11] }, 'worker');
	assert.equal(r.status, 200, r.text);
	r = await call('POST', '/api/v1/jobs', { ...job, params: { mode: 'process' } }, 'submit');
	assert.equal(r.status, 201, r.text);
	return { done, refused, skipped, queued: r.json.id };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// POST /api/v1/requests answers 202 (state resolving): the request's id once its refs are
// resolved and its jobs queued
async function submitRequest(body) {
	const r = await call('POST', '/api/v1/requests', body, 'submit');
	assert.equal(r.status, 202, r.text);
	assert.equal(r.json.state, 'resolving', r.text);
	for (let i = 0; i < 300; i++) {
		const q = await call('GET', `/api/v1/requests/${r.json.id}`, undefined, 'read');
		if (q.json.state !== 'resolving') {
			assert.equal(q.json.state, 'queued', q.text.slice(0, 400));
			return r.json.id;
		}
		await sleep(100);
	}
	throw new Error(`request ${r.json.id} still resolving`);
}

// The report of bisect `id` as the mailer wrote it (mail_dry_run_dir): waits
// until the outbox row is rendered and written, then reads DIR/<row id>.eml
// (headers, blank line, 8bit text with CRLF) back: {subject, messageId, body}.
async function mailedReport(id) {
	let row = '';
	for (let t = 0; t < 100 && !row; t++) {
		row = psql(`SELECT id FROM outbox WHERE bisect_id = ${id} AND state = 'dry_run'`);
		if (!row)
			await sleep(200);
	}
	assert.ok(row, `bisect ${id}: no report mailed (outbox: ${psql('SELECT id, state, last_error FROM outbox')})`);
	const file = join(MAIL_DIR, `${row}.eml`);
	assert.ok(existsSync(file), `${file} missing: ${readdirSync(MAIL_DIR)}`);
	const raw = readFileSync(file, 'utf8');
	const cut = raw.indexOf('\r\n\r\n');
	const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, ' ');
	const header = (name) => (head.split('\r\n').find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ': ')) || '')
		.slice(name.length + 2);
	assert.ok(header('Cc').includes(MAIL_CC) || header('To').includes(MAIL_CC), head);
	return { subject: header('Subject'), messageId: header('Message-ID'), body: raw.slice(cut + 4).replace(/\r\n/g, '\n') };
}

// A finished bisect through the real API: a git tree of BISECT_N empty
// commits made here (the culprit's subject is the XSS one), the tree
// registered, POST /api/v1/bisects, and one fake worker speaking the worker
// protocol: runs of commits at and after the culprit are 15 % slower, one
// commit fails to build. Returns {id, shas, culprit, broken} or null
// without a bisects API.
const BISECT_N = 16, CULPRIT = 11, BROKEN = 6;
function git(repo, args, env = {}) {
	return run('git', ['-C', repo, ...args], {
		env: { ...process.env, GIT_AUTHOR_NAME: 'Dev One', GIT_AUTHOR_EMAIL: 'dev@example.org',
			GIT_COMMITTER_NAME: 'Dev One', GIT_COMMITTER_EMAIL: 'dev@example.org', ...env },
	});
}
// The worker's side of a bisect: lease its jobs as machine `mid` and complete
// each with answer(job) (the body of POST /jobs/{id}/complete) until the
// bisect is no longer queued or running (60 s at most). Returns the last
// GET /api/v1/bisects/{id}, the jobs completed and the time taken.
async function driveBisect(id, mid, answer) {
	const t0 = Date.now();
	let b = null, jobsDone = 0;
	while (Date.now() - t0 < 60000) {
		b = (await call('GET', `/api/v1/bisects/${id}`)).json;
		if (!['queued', 'running'].includes(b.state))
			break;
		const r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 1 }, 'worker');
		if (r.status !== 200)
			continue;
		const c = await call('POST', `/api/v1/jobs/${r.json.job.id}/complete`, answer(r.json.job), 'worker');
		assert.equal(c.status, 200, c.text);
		jobsDone++;
	}
	return { b, jobsDone, ms: Date.now() - t0 };
}

// job.repeat result documents of `mean` ops/s (2 % noise) for a bisect's job.
function fakeResults(job, mean, tree) {
	return Array.from({ length: job.repeat }, () => {
		const d = doc(0, job.params, { 'page-fault.ops_per_sec': [mean * (1 + (rnd() - 0.5) * 0.02)] });
		Object.assign(d, { commit: job.commit, testcase: job.testcase, job_id: job.id, kconfig: job.kconfig,
			compiler: job.compiler, tree, commit_subject: undefined, commit_time: undefined });
		d.machine = { ...d.machine, hostname: 'lkp-web-2', memory_mb: 2048 };
		// a job with monitors perf-profile (the bisect's verification round)
		// comes back as the worker posts it: the stacks and their metrics;
		// the slow side's do_mmap grew (profiledDoc's stacks)
		if (Array.isArray(job.monitors) && job.monitors.includes('perf-profile')) {
			const stacks = profStacks(mean < 900000 ? 'head' : 'base', 1);
			Object.assign(d.metrics, profileMetrics(stacks));
			d.monitors = job.monitors;
			d.profile = { event: 'cpu-clock', samples: stacks.reduce((s, [, n]) => s + n, 0), folded: foldedText(stacks) };
		}
		return d;
	});
}

async function seedBisect() {
	if (!(await endpoint('/api/v1/bisects/1')))
		return null;
	const repo = join(TMP, 'linux');
	run('git', ['init', '-q', '-b', 'master', repo]);
	const shas = [];
	for (let i = 0; i < BISECT_N; i++) {
		const date = `2026-10-01T00:00:${String(i).padStart(2, '0')}Z`;
		git(repo, ['commit', '-q', '--allow-empty', '-m', i === CULPRIT ? XSS : `mm/page_alloc: change ${i}`],
			{ GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
		shas.push(git(repo, ['rev-parse', 'HEAD']));
	}
	let r = await call('POST', '/api/v1/trees', { name: 'demo', url: repo, branches: ['master'] }, 'admin');
	assert.equal(r.status, 200, r.text);
	r = await call('POST', '/api/v1/workers/register', { hostname: 'lkp-web-2', arch: 'x86_64', tbox_group: 'vm-2p',
		nr_cpus: 2, memory_mb: 2048, cpu_model: 'Test CPU @ 2.0GHz', capabilities: ['qemu-x86_64'], fingerprint: FINGERPRINT }, 'worker');
	assert.equal(r.status, 200, r.text);
	const mid = r.json.machine_id;
	r = await call('POST', '/api/v1/bisects', { tree: 'demo', good: shas[0], bad: shas[BISECT_N - 1], testcase: 'page-fault',
		params: { nr_task: '2' }, kconfig: 'x86_64-defconfig', compiler: 'gcc-12', tbox_group: 'vm-2p',
		metric: 'page-fault.ops_per_sec' }, 'submit');
	assert.equal(r.status, 201, r.text);
	const id = r.json.id;
	const index = Object.fromEntries(shas.map((sha, i) => [sha, i]));
	const { b, jobsDone, ms } = await driveBisect(id, mid, (job) => {
		const i = index[job.commit];
		if (i === BROKEN)
			return { machine_id: mid, status: 'build-failed', log_tail: "mm/page_alloc.c:42: error: implicit declaration of function 'mm_foo'\n" };
		return { machine_id: mid, status: 'ok', results: fakeResults(job, i >= CULPRIT ? 850000 : 1000000, 'demo'),
			log_tail: 'ok\n', kconfig: i >= CULPRIT ? HEAD_CONFIG : BASE_CONFIG };
	});
	console.log(`  bisect #${id}: ${b.state} (${b.outcome || b.reason}) after ${jobsDone} jobs in ${ms} ms`);
	assert.equal(b.state, 'done', JSON.stringify(b).slice(0, 500));
	assert.equal(b.first_bad_commit.sha, shas[CULPRIT]);
	return { id, shas, culprit: CULPRIT, broken: BROKEN, bisect: b, mid };
}

// A finished bisect that descended into a merge, through the real API: a
// tree made here,
//     c0 - c1 - c2 - c3 - ... - c6 - M - c7 - c8
//                \                  /
//                 s1 - ... ------ s6
// (M = git merge --no-ff of branch mm-fault), good c0, bad c8. c1 adds
// mm/memory.c (10 lines) and include/linux/mm.h (3 lines); the culprit s4
// rewrites 2 lines of mm/memory.c and adds one (+3 -2), adds a line to
// include/linux/mm.h (+1), adds mm/fault_around.c (+4) and a binary
// Documentation/mm/fault.png; every other commit is empty. Two bisects of
// good c0, bad c8: runs of commits that contain the culprit are 15 % slower,
// the culprit s4 (case "side"), or M itself (case "merge"). Level 0 walks the
// first-parent chain c1..c6, M, c7, c8 (9 commits) to M, level 1 its side
// branch s1..s6 to s4, or to M (every side commit good). Returns {side, merge}
// as {id, c: name -> sha, bisect}, or null without a bisects API.
const MERGE_CULPRIT = 's4', MERGE_SUBJECT = "Merge branch 'mm-fault'";
const MERGE_DIFFSTAT = { files_changed: 4, insertions: 8, deletions: 2, files: [
	['Documentation/mm/fault.png', null, null], ['include/linux/mm.h', 1, 0],
	['mm/fault_around.c', 4, 0], ['mm/memory.c', 3, 2]] };
async function seedMergeBisect(mid) {
	if (!mid)
		return null;
	const repo = join(TMP, 'linux-merged');
	run('git', ['init', '-q', '-b', 'master', repo]);
	const c = {};
	let t = 0;
	const commit = (name, files) => {
		for (const [path, text] of Object.entries(files || {})) {
			mkdirSync(dirname(join(repo, path)), { recursive: true });
			writeFileSync(join(repo, path), text);
			git(repo, ['add', '--', path]);
		}
		const date = `2026-10-02T00:00:${String(t++).padStart(2, '0')}Z`;
		git(repo, ['commit', '-q', '--allow-empty', '-m', name === MERGE_CULPRIT ? 'mm: fault around in 64k steps'
			: `mm: ${name}`], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
		c[name] = git(repo, ['rev-parse', 'HEAD']);
	};
	const lines = (n, tag) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`);
	const memory = lines(10, 'memory.c');
	commit('c0');
	commit('c1', { 'mm/memory.c': memory.join(''), 'include/linux/mm.h': lines(3, 'mm.h').join('') });
	commit('c2');
	git(repo, ['branch', 'mm-fault']);
	for (let i = 3; i <= 6; i++)
		commit(`c${i}`);
	git(repo, ['checkout', '-q', 'mm-fault']);
	for (let i = 1; i <= 6; i++)
		commit(`s${i}`, `s${i}` !== MERGE_CULPRIT ? null : {
			'mm/memory.c': [...memory.slice(0, 4), 'memory.c fault around 64k\n', 'memory.c fault around end\n',
				'memory.c new line\n', ...memory.slice(6)].join(''),
			'include/linux/mm.h': [...lines(3, 'mm.h'), 'mm.h fault_around_bytes\n'].join(''),
			'mm/fault_around.c': lines(4, 'fault_around.c').join(''),
			'Documentation/mm/fault.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2, 3]),
		});
	git(repo, ['checkout', '-q', 'master']);
	const date = `2026-10-02T00:00:${String(t++).padStart(2, '0')}Z`;
	git(repo, ['merge', '-q', '--no-ff', '-m', MERGE_SUBJECT, 'mm-fault'], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
	c.M = git(repo, ['rev-parse', 'HEAD']);
	commit('c7');
	commit('c8');
	// what git itself says the culprit touched (numstat: '-' for a binary file)
	// (the merge against its first parent brings the same: the side branch's only change)
	for (const sha of [c[MERGE_CULPRIT], c.M]) {
		const numstat = git(repo, ['show', '--numstat', '--diff-merges=first-parent', '--format=', sha]).split('\n').map((l) => l.split('\t'))
			.map(([a, d, p]) => [p, a === '-' ? null : Number(a), d === '-' ? null : Number(d)]).sort((x, y) => (x[0] < y[0] ? -1 : 1));
		assert.deepEqual(numstat, MERGE_DIFFSTAT.files, sha);
	}
	let r = await call('POST', '/api/v1/trees', { name: 'merged', url: repo, branches: ['master'] }, 'admin');
	assert.equal(r.status, 200, r.text);
	// two bisects over it (two setups, told apart by params.case): culprit s4 on the
	// side branch, and the merge itself slow (both its parents fast)
	const out = {};
	for (const [kase, culprit] of [['side', MERGE_CULPRIT], ['merge', 'M']]) {
		const slow = new Set([c[culprit], ...git(repo, ['rev-list', '--ancestry-path', `${c[culprit]}..${c.c8}`]).split('\n')]);
		r = await call('POST', '/api/v1/bisects', { tree: 'merged', good: c.c0, bad: c.c8, testcase: 'page-fault',
			params: { nr_task: '4', case: kase }, kconfig: 'x86_64-defconfig', compiler: 'gcc-12', tbox_group: 'vm-2p',
			metric: 'page-fault.ops_per_sec' }, 'submit');
		assert.equal(r.status, 201, r.text);
		const id = r.json.id;
		const { b, jobsDone, ms } = await driveBisect(id, mid, (job) => ({ machine_id: mid, status: 'ok',
			results: fakeResults(job, slow.has(job.commit) ? 850000 : 1000000, 'merged'), log_tail: 'ok\n' }));
		console.log(`  merge bisect #${id} (culprit ${culprit}): ${b.state} (${b.outcome || b.reason}) at level ${b.level} ` +
			`after ${jobsDone} jobs in ${ms} ms`);
		assert.equal(b.state, 'done', JSON.stringify(b).slice(0, 500));
		assert.equal(b.first_bad_commit.sha, c[culprit]);
		assert.equal(b.level, 1);
		assert.deepEqual(b.descents.map((d) => [d.level, d.merge, d.merge_parent, d.nr_candidates, d.side_commits]),
			[[0, c.M, c.c6, 9, 6]]);
		out[kase] = { id, c, bisect: b };
	}
	return out;
}

// The record of the seeded -15 % step of vm-scalability.throughput
// (nr_task=100%) at SHAS[STEP]: the detector's, or when it has not found it
// within 10 s, one inserted by hand as the detector would store it.
async function detectedRegression() {
	let others = [];
	const find = async () => {
		const r = await call('GET', '/api/v1/regressions?metric=vm-scalability.throughput');
		assert.equal(r.status, 200, r.text);
		const list = (Array.isArray(r.json) ? r.json : r.json.regressions)
			.filter((x) => x.params && x.params.nr_task === '100%');
		others = list.filter((x) => !x.bad || x.bad.sha !== SHAS[STEP]);
		return list.find((x) => x.bad && x.bad.sha === SHAS[STEP]);
	};
	for (let t = 0; t < 20; t++) {
		const reg = await find();
		if (reg) {
			console.log(`  the detector found regression #${reg.id} (${reg.change_pct.toFixed(1)}%)`);
			return reg;
		}
		await sleep(500);
	}
	console.log('  the detector did not report the seeded step within 10 s: inserting the record by hand');
	for (const o of others)
		console.log(`  NOTE: the detector placed a change at ${o.good.sha.slice(0, 8)}..${o.bad.sha.slice(0, 8)} ` +
			`(series index ${SHAS.indexOf(o.bad.sha)}, ${o.change_pct.toFixed(1)}%); the seeded step is at index ${STEP}`);
	psql(`WITH x AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind,
		change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, n_before, n_after, commits_after, pair_verdict)
		SELECT s.id, m.id, g.id, b.id, 'regression', -15.0, -15.4, -14.6, 0.0001, 'different', ${RUNS * STEP},
			${RUNS * (SHAS.length - STEP)}, ${SHAS.length - STEP}, 'different'
		FROM setups s, metrics m, commits g, commits b WHERE s.params->>'nr_task' = '100%'
			AND s.testcase_id = (SELECT id FROM testcases WHERE name = 'vm-scalability')
			AND m.name = 'vm-scalability.throughput' AND g.sha = '${SHAS[STEP - 1]}' AND b.sha = '${SHAS[STEP]}'
		RETURNING id)
	INSERT INTO regression_history (regression_id, who, from_state, to_state) SELECT id, 'detector', NULL, 'new' FROM x`);
	const reg = await find();
	assert.ok(reg, 'the inserted regression is not listed');
	return reg;
}

// Regression 1 (throughput -15 % from SHAS[STEP - 1] to SHAS[STEP]) and its
// finished bisect 1 over SHAS[0]..SHAS[STEP + 3], in the documented shapes; PATCH records
// what the page sent and moves the state.
function mockApis(setupId) {
	const setup = { setup_id: setupId, testcase: 'vm-scalability', params: { test: 'small-allocs', nr_task: '100%' },
		kconfig: 'x86_64-defconfig', compiler: 'gcc-12', tbox_group: 'vm-2p', mode: 'wallclock' };
	const good = (i) => Array.from({ length: 5 }, (_, k) => 1.0e7 * (1 + (k - 2) * 0.004) * (1 + i * 0.0001));
	const bad = (i) => good(i).map((v) => v * 0.85);
	const steps = [
		{ commit: SHAS[STEP - 2], subject: SUBJECTS[STEP - 2], round: 1, samples: good(STEP - 2), verdict: 'good' },
		{ commit: SHAS[STEP + 1], subject: SUBJECTS[STEP + 1], round: 1, samples: bad(STEP + 1), verdict: 'bad' },
		{ commit: SHAS[STEP - 1], subject: SUBJECTS[STEP - 1], round: 2, samples: [], verdict: 'skip' },
		{ commit: SHAS[STEP], subject: XSS, round: 2, samples: bad(STEP), verdict: 'bad' },
		{ commit: SHAS[STEP - 1], subject: SUBJECTS[STEP - 1], round: 3, samples: good(STEP - 1), verdict: 'good' },
	];
	const bisect = {
		id: 1, state: 'done', tree: 'linux', regression_id: 1, metric: 'vm-scalability.throughput', ...setup, arch: 'x86_64',
		good: SHAS[0], bad: SHAS[STEP + 3], steps, good_samples: good(0), bad_samples: bad(STEP + 3),
		first_bad_commit: { sha: SHAS[STEP], subject: XSS, author: 'A U Thor', commit_time: '2026-11-09T12:00:00Z',
			// at most 100 files by path: 102 changed, two shown
			diffstat: { files_changed: 102, insertions: 2050, deletions: 7, files: [
				{ path: 'mm/<img src=x onerror=alert(5)>.c', insertions: 2, deletions: 2 },
				{ path: 'mm/memory.c', insertions: 48, deletions: 5 }] } },
		first_bad_parent: SHAS[STEP - 1],
		confidence: 0.998, outcome: 'found', jobs_used: 5, runs_used: 45, wall_time_s: 3723,
		created_at: '2026-11-29T08:00:00Z',
	};
	const regression = {
		id: 1, kind: 'regression', state: 'new', metric: 'vm-scalability.throughput', unit: '', ...setup,
		good: { sha: SHAS[STEP - 1], subject: SUBJECTS[STEP - 1] }, bad: { sha: SHAS[STEP], subject: XSS },
		change_pct: -15.0, ci_pct: [-16.1, -13.9], p_value: 0.0022, verdict: 'different', bisect_id: 1,
		created_at: '2026-11-29T07:00:00Z', group_id: 1, group_size: 1,
		history: [{ at: '2026-11-29T07:00:00Z', who: 'detector', from: null, to: 'new', note: null }],
	};
	// GET /api/v1/regressions/1/report: a follow-up still queued, then the first report
	const report = { regression_id: 1, mails: [
		{ id: 9, kind: 'range', state: 'skipped', reason: 'no recipients', rendered: false, subject: null, message_id: null,
			in_reply_to: null, bisect_id: null, created_at: '2026-11-29T11:00:00Z', sent_at: null, body: null },
		{ id: 8, kind: 'range', state: 'queued', rendered: false, subject: null, message_id: null, in_reply_to: null,
			bisect_id: null, created_at: '2026-11-29T10:00:00Z', sent_at: null, body: null },
		{ id: 5, kind: 'bisect', state: 'sent', rendered: true,
			subject: `[linux:master] [mm] ${SHAS[STEP].slice(0, 12)}: vm-scalability.throughput -15.0% regression`,
			message_id: '<0b6f3c1e-5d2a-4d7e-9a51-7f1c2e3d4b5a@example.org>', in_reply_to: null, bisect_id: 1,
			created_at: '2026-11-29T08:30:00Z', sent_at: '2026-11-29T08:30:02Z',
			body: `Greeting,\n\nregtrack found a -15.0% regression of vm-scalability.throughput due to commit:\n\n` +
				`commit: ${SHAS[STEP]} ("${XSS}")\n` },
		{ id: 3, kind: 'range', state: 'held', reason: 'held: smtp_url not set', rendered: false, subject: null,
			message_id: null, in_reply_to: null, bisect_id: null, created_at: '2026-11-29T07:30:00Z', sent_at: null, body: null },
	] };
	// GET /api/v1/regressions/1/kconfig-diff: the usual case, the same fragments built twice
	const kconfig = {
		base: { role: 'parent', commit: SHAS[STEP - 1], subject: SUBJECTS[STEP - 1], job_id: 41, options: 1100 },
		head: { role: 'first_bad', commit: SHAS[STEP], subject: XSS, job_id: 42, options: 1100 },
		identical: true, removed: 0, changed: 0, added: 0, lines: [], entries: [],
	};
	const patches = [];
	const json = (route, status, body) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
	return {
		bisect, regression, patches, report, kconfig,
		handle: async (route) => {
			const req = route.request();
			const path = new URL(req.url()).pathname;
			if (req.method() === 'PATCH' && path === '/api/v1/regressions/1') {
				const body = JSON.parse(req.postData());
				patches.push({ body, auth: req.headers().authorization });
				regression.history.push({ at: '2026-11-29T09:00:00Z', who: 'token:admin', from: regression.state,
					to: body.state, note: body.note });
				regression.state = body.state;
				return json(route, 200, regression);
			}
			if (path === '/api/v1/regressions')
				return json(route, 200, { regressions: [regression] });
			if (path === '/api/v1/regressions/1')
				return json(route, 200, regression);
			if (path === '/api/v1/regressions/1/report')
				return json(route, 200, report);
			if (path === '/api/v1/regressions/1/kconfig-diff' || path === '/api/v1/bisects/1/kconfig-diff')
				return json(route, 200, kconfig);
			if (path === '/api/v1/bisects')
				return json(route, 200, [bisect]);
			if (path === '/api/v1/bisects/1')
				return json(route, 200, bisect);
			return json(route, 404, { error: { code: 'not_found', message: `no ${path}` } });
		},
	};
}

// --- profiles: documents as the worker posts them ---------------
// Two commits' profiled runs (monitors ["perf-profile"]) of one setup, three
// runs each: the head's do_mmap grew from 20 % to 50 % of the samples (a
// demo_delay under it), handle_mm_fault shrank from 50 % to 25 %. Each run
// carries the folded stacks (`profile`) and the perf-profile.* metrics
// computed from them, in LKP's names.
const PROF_BASE = 'ba5e' + '0123456789abcdef'.repeat(3).slice(0, 36);
const PROF_HEAD = 'bead' + '0123456789abcdef'.repeat(3).slice(0, 36);
const PROF_PARAMS = { test: 'small-allocs', nr_task: '8' };
const MMAP = 'small-allocs;entry_SYSCALL_64;do_syscall_64;__x64_sys_mmap;ksys_mmap_pgoff;do_mmap';
const MUNMAP = 'small-allocs;entry_SYSCALL_64;do_syscall_64;__x64_sys_munmap;__vm_munmap;unmap_region';
const FAULT = 'small-allocs;asm_exc_page_fault;exc_page_fault;handle_mm_fault';
const PROF_STACKS = {
	base: [[`${MMAP};mmap_region`, 200], [MUNMAP, 300], [`${FAULT};__handle_mm_fault`, 450], [FAULT, 50]],
	head: [[`${MMAP};mmap_region`, 200], [`${MMAP};demo_delay`, 400], [MUNMAP, 300], [`${FAULT};__handle_mm_fault`, 250], [FAULT, 50]],
};
// run k of a side: every count a little off (so runs differ), folded text sorted
function profStacks(side, k) {
	return PROF_STACKS[side].map(([s, n]) => [s, Math.round(n * (1 + (k - 1) * 0.03))]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
const foldedText = (stacks) => stacks.map(([s, n]) => `${s} ${n}`).join('\n') + '\n';
// perf-profile.children/self.cycles-pp.SYMBOL: % of all samples with the
// symbol on the stack (once per stack) / at its top; the comm is not a symbol
function profileMetrics(stacks) {
	const total = stacks.reduce((s, [, n]) => s + n, 0), ch = {}, self = {};
	for (const [s, n] of stacks) {
		const fr = s.split(';').slice(1);
		for (const f of new Set(fr))
			ch[f] = (ch[f] || 0) + n;
		self[fr[fr.length - 1]] = (self[fr[fr.length - 1]] || 0) + n;
	}
	const m = {};
	for (const [f, n] of Object.entries(ch))
		m[`perf-profile.children.cycles-pp.${f}`] = [100 * n / total];
	for (const [f, n] of Object.entries(self))
		m[`perf-profile.self.cycles-pp.${f}`] = [100 * n / total];
	return m;
}
function profiledDoc(sha, subject, day, stacks) {
	const d = doc(0, PROF_PARAMS, { 'vm-scalability.throughput': [1.0e7 * (1 + (rnd() - 0.5) * 0.02)], ...profileMetrics(stacks) });
	Object.assign(d, { commit: sha, commit_subject: subject, commit_time: `2026-11-2${day}T12:00:00Z`,
		monitors: ['perf-profile'],
		profile: { event: 'cpu-clock', samples: stacks.reduce((s, [, n]) => s + n, 0), folded: foldedText(stacks) } });
	return d;
}
// Posts the profiled runs; returns what the diff must show: the merged
// folded text of each side and the symbols (children/self % of the merged
// samples) as the test computed them from the same documents.
async function seedProfiles() {
	const merged = { base: new Map(), head: new Map() };
	for (const [side, sha, day] of [['base', PROF_BASE, 1], ['head', PROF_HEAD, 2]])
		for (let k = 0; k < 3; k++) {
			const stacks = profStacks(side, k);
			for (const [s, n] of stacks)
				merged[side].set(s, (merged[side].get(s) || 0) + n);
			const r = await call('POST', '/api/v1/results', profiledDoc(sha, `mm: profiled ${side}`, day, stacks), 'submit');
			assert.ok(r.status === 201 || r.status === 200, `POST profiled result: ${r.status} ${r.text}`);
		}
	const stacks = { base: [...merged.base].sort(), head: [...merged.head].sort() };
	const mb = profileMetrics(stacks.base), mh = profileMetrics(stacks.head);
	const syms = [...new Set([...Object.keys(mb), ...Object.keys(mh)].filter((k) => k.includes('.children.'))
		.map((k) => k.replace('perf-profile.children.cycles-pp.', '')))];
	const v = (m, kind, s) => (m[`perf-profile.${kind}.cycles-pp.${s}`] || [0])[0];
	const symbols = syms.map((s) => ({ symbol: s, base_children_pct: v(mb, 'children', s), head_children_pct: v(mh, 'children', s),
		children_change: v(mh, 'children', s) - v(mb, 'children', s), base_self_pct: v(mb, 'self', s), head_self_pct: v(mh, 'self', s),
		self_change: v(mh, 'self', s) - v(mb, 'self', s), p: 0.001, significant: Math.abs(v(mh, 'children', s) - v(mb, 'children', s)) > 1 }))
		.sort((a, b) => Math.abs(b.children_change) - Math.abs(a.children_change) || (a.symbol < b.symbol ? -1 : 1));
	const samples = (st) => st.reduce((s, [, n]) => s + n, 0);
	return { stacks, symbols, reply: { base: { commit: PROF_BASE, runs: 3, samples: samples(stacks.base) },
		head: { commit: PROF_HEAD, runs: 3, samples: samples(stacks.head) }, symbols,
		folded: { base: foldedText(stacks.base), head: foldedText(stacks.head) } } };
}
const profQuery = (base, head) => new URLSearchParams({ base, head, testcase: 'vm-scalability', params: JSON.stringify(PROF_PARAMS),
	tbox_group: 'vm-2p', kconfig: 'x86_64-defconfig', compiler: 'gcc-12', monitors: 'perf-profile' });
// a side's share (%) of the samples at and under a stack prefix
function share(list, prefix) {
	const tot = list.reduce((s, [, n]) => s + n, 0);
	return 100 * list.filter(([s]) => s === prefix || s.startsWith(prefix + ';')).reduce((s, [, n]) => s + n, 0) / tot;
}
const headShare = (stacks, prefix) => share(stacks.head, prefix);
const baseShare = (stacks, prefix) => share(stacks.base, prefix);
// Tracking through the real API: a git tree made here registered
// with poll_s 0, a plan on it (will-it-scale on the x86_64 arch and on a
// tbox_group no worker serves, so its jobs stay queued; paths mm/), and
// three polls: the baseline, a push of three commits (tested: its head),
// a push touching none of the paths (its head skipped, why said). A second
// tree whose URL does not exist fails its poll with git's message.
// Returns {heads, plan} or null without a plans API.
async function pollOnce(name) {
	const polls = async () => ((await call('GET', '/api/v1/trees')).json.find((t) => t.name === name) || {}).polls || 0;
	const before = await polls();
	const r = await call('POST', `/api/v1/trees/${name}/poll`, undefined, 'submit');
	assert.equal(r.status, 202, r.text);
	const t0 = Date.now();
	while (await polls() <= before) {
		if (Date.now() - t0 > 30000)
			throw new Error(`no poll of ${name} in 30 s`);
		await new Promise((res) => setTimeout(res, 300));
	}
}

async function seedTracking() {
	if ((await call('GET', '/api/v1/plans')).status === 404)
		return null;
	const repo = join(TMP, 'tracked');
	run('git', ['init', '-q', '-b', 'master', repo]);
	let n = 0;
	const commitFile = (file) => {
		n++;
		mkdirSync(dirname(join(repo, file)), { recursive: true });
		writeFileSync(join(repo, file), `${n}\n`, { flag: 'a' });
		git(repo, ['add', '-A']);
		const date = `2026-03-01T10:${String(n).padStart(2, '0')}:00Z`;
		git(repo, ['commit', '-q', '-m', `tracked change ${n}`], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
		return git(repo, ['rev-parse', 'HEAD']);
	};
	const heads = [commitFile('mm/a.c')];
	let r = await call('POST', '/api/v1/trees', { name: 'tracked', url: repo, branches: ['master'], poll_s: 0 }, 'admin');
	assert.equal(r.status, 200, r.text);
	const plan = { name: 'web-track', tree: 'tracked', branches: ['master'],
		testcases: [{ testcase: 'will-it-scale', params: { mode: 'process' } }],
		kconfigs: ['x86_64-defconfig'], compilers: ['gcc-12'], targets: ['x86_64', 'lkp-track-web'],
		repeat: 3, measure: 'icount', monitors: [],
		schedule: { heads: true, every: 0, paths: ['mm/'], max_per_push: 20 },
		priority: 0, owner: 'perf@example.org', enabled: true };
	r = await call('POST', '/api/v1/plans', plan, 'admin');
	assert.equal(r.status, 201, r.text);
	await pollOnce('tracked');
	commitFile('fs/a.c');
	commitFile('mm/b.c');
	heads.push(commitFile('fs/b.c'));
	await pollOnce('tracked');
	commitFile('Documentation/x.rst');
	heads.push(commitFile('Documentation/y.rst'));
	await pollOnce('tracked');
	r = await call('POST', '/api/v1/trees', { name: 'gone', url: join(TMP, 'no-such-repo'), poll_s: 0 }, 'admin');
	assert.equal(r.status, 200, r.text);
	await pollOnce('gone');
	return { heads, plan };
}

// --- the browser ---------------------------------------------------------
// Two A/B requests on the bisect's tree, through the real API:
// `done` of shas[0] vs shas[3] on x86_64 and arm64, 6 runs a side, head +8 %
// on x86_64 and -6 % on arm64 (2 % noise); `running` on x86_64 with one job
// leased in its build phase. Returns {done, running} ids, or null.
async function seedRequests(bisect) {
	if (!bisect || !(await endpoint('/api/v1/requests')))
		return null;
	const arm = { hostname: 'lkp-web-arm', arch: 'aarch64', tbox_group: 'vm-arm', nr_cpus: 2, memory_mb: 2048,
		cpu_model: 'Test ARM CPU' };
	const x86 = { hostname: 'lkp-web-2', arch: 'x86_64', tbox_group: 'vm-2p', nr_cpus: 2, memory_mb: 2048,
		cpu_model: 'Test CPU @ 2.0GHz' };
	let r = await call('POST', '/api/v1/workers/register', { ...arm, capabilities: ['qemu-aarch64'], fingerprint: FINGERPRINT }, 'worker');
	assert.equal(r.status, 200, r.text);
	const workers = [[bisect.mid, x86, 1.08], [r.json.machine_id, arm, 0.94]];
	const body = { tree: 'demo', base: bisect.shas[0], head: bisect.shas[3], testcases: [{ testcase: 'page-fault', params: { nr_task: '2' } }],
		targets: ['x86_64', 'arm64'], repeat: 6, min_change_pct: 2, label: 'ci#web' };
	const done = await submitRequest(body);
	for (let busy = true; busy;) {
		busy = false;
		for (const [mid, machine, factor] of workers) {
			r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 0 }, 'worker');
			if (r.status !== 200)
				continue;
			busy = true;
			const job = r.json.job;
			const mean = 1000000 * (job.side === 'head' ? factor : 1);
			const results = Array.from({ length: job.repeat }, () => ({
				...doc(0, job.params, { 'page-fault.ops_per_sec': [mean * (1 + (rnd() - 0.5) * 0.02)] }),
				commit: job.commit, testcase: job.testcase, job_id: job.id, kconfig: job.kconfig, compiler: job.compiler,
				tree: 'demo', commit_subject: undefined, commit_time: undefined, machine,
			}));
			const c = await call('POST', `/api/v1/jobs/${job.id}/complete`, { machine_id: mid, status: 'ok', results, log_tail: 'ok\n' }, 'worker');
			assert.equal(c.status, 200, c.text);
		}
	}
	r = await call('GET', `/api/v1/requests/${done}`);
	assert.equal(r.json.state, 'done', r.text.slice(0, 400));
	assert.equal(r.json.verdict, 'regression', r.text.slice(0, 400));
	const running = await submitRequest({ ...body, head: bisect.shas[5], targets: ['x86_64'], repeat: 4, label: 'ci#web-2' });
	// other jobs of the seeded history (the bisects' coordinator queues its own) may come first
	let job = null;
	for (let i = 0; i < 20 && !job; i++) {
		r = await call('POST', '/api/v1/jobs/lease', { machine_id: bisect.mid, wait_s: 1 }, 'worker');
		if (r.status !== 200)
			continue;
		if (r.json.job.side) {
			job = r.json.job;
			break;
		}
		console.log(`  (leased job ${r.json.job.id} of ${r.json.job.testcase} first: completing it)`);
		const c = await call('POST', `/api/v1/jobs/${r.json.job.id}/complete`, { machine_id: bisect.mid, status: 'run-failed', log_tail: 'not this one\n' }, 'worker');
		assert.equal(c.status, 200, c.text);
	}
	assert.ok(job, 'a job of the running request');
	r = await call('POST', `/api/v1/jobs/${job.id}/heartbeat`, { machine_id: bisect.mid, phase: 'build', progress: 0.4, message: 'make -j2' }, 'worker');
	assert.equal(r.status, 200, r.text);
	r = await call('GET', `/api/v1/requests/${running}`);
	assert.equal(r.json.state, 'running', r.text.slice(0, 600));
	return { done, running };
}

async function main() {
	mkdirSync(ART, { recursive: true });
	const conninfo = run(join(top, 'deploy', 'pg-local'), ['start'], { env: PG_ENV }).split('\n').pop();
	const srv = await startServer(conninfo);
	URLBASE = srv.url;
	SERVER = srv;
	for (const s of ['read', 'submit', 'admin', 'worker'])
		TOK[s] = token(conninfo, s);
	const t0 = Date.now();
	const bigPoints = await seed();
	const jobs = await seedJobs();
	const bisect = await seedBisect();
	const mergeBisect = await seedMergeBisect(bisect && bisect.mid);
	const tracking = await seedTracking();
	if (process.env.WEB_SEED_ONLY)
		return 0;
	if (process.env.WEB_KEEP) {
		// for working on the pages by hand: seeded server until killed
		console.log(`serving ${URLBASE} (admin token ${TOK.admin}); kill ${process.pid} to stop`);
		await new Promise((resolve) => process.once('SIGTERM', resolve));
		return 0;
	}
	console.log(`seeded ${SHAS.length} commits x ${RUNS} runs and a series of ${bigPoints} points in ${Date.now() - t0} ms`);

	const profile = mkdtempSync(join(TMP, 'chromium-'));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
		viewport: { width: 1400, height: 900 },
		timeout: 60000,
	});
	const page = ctx.pages()[0] || await ctx.newPage();
	page.setDefaultTimeout(20000);
	const dialogs = [], pageErrors = [], consoleErrors = [];
	page.on('dialog', (d) => {
		dialogs.push(d.message());
		d.dismiss().catch(() => {});
	});
	page.on('pageerror', (e) => pageErrors.push(String(e)));
	page.on('console', (m) => {
		// a 404 of an API not built yet is expected: the page shows an empty state
		if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 404/.test(m.text()))
			consoleErrors.push(m.text());
	});
	const timings = {};
	async function open(path, name) {
		await page.goto(URLBASE + path);
		await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 30000 });
		const ms = Number(await page.evaluate(() => document.body.dataset.ready));
		timings[name] = ms;
		return ms;
	}
	const shot = (name) => page.screenshot({ path: join(ART, `${name}.png`), fullPage: true });

	try {
		await check('overview lists testcases and panels', async () => {
			await open('/', 'overview');
			assert.equal(await page.textContent('h1'), 'Overview');
			const rows = await page.$$eval('#testcases tbody tr', (trs) => trs.map((t) => t.cells[0].textContent));
			assert.deepEqual(rows, [jobs && 'hackbench', bisect && 'page-fault', 'vm-scalability', 'will-it-scale'].filter(Boolean));
			// lkp-web-1 only submitted results: not a worker; lkp-web-2 registered
			if (jobs) {
				assert.equal(await page.textContent('#workers'), 'x86_64: 1 online of 1');
				assert.equal(await page.textContent('#ci-hosts'), '1 host only submitted results (not workers)');
			}
			// the last results: the newest runs, at most 10, each a known testcase and its commit
			const last = await page.$$eval('#last-results tbody tr', (trs) => trs.map((t) =>
				[t.cells[1].textContent, (t.cells[2].querySelector('code.sha') || {}).title || '']));
			assert.ok(last.length >= 1 && last.length <= 10, JSON.stringify(last));
			// "1 min 2 s ago", never "ago ago"
			for (const when of await page.$$eval('#last-results tbody tr', (trs) => trs.map((t) => t.cells[0].textContent)))
				assert.match(when, /^\d+ (s|min \d+ s|h \d+ min|d \d+ h) ago$/);
			for (const [tc, commit] of last) {
				assert.ok(['hackbench', 'page-fault', 'vm-scalability', 'will-it-scale'].includes(tc), tc);
				assert.match(commit, /^[0-9a-f]{40}$/);
			}
			if (jobs)
				// the refused job (done in the API, outcome run-failed, no run) counts as failed,
				// the same-image one as skipped ("2 failed", the failed filter listed none)
				assert.match(await page.textContent('#queue'), /^[1-9]\d* queued · \d+ running · 1 failed · 1 skipped · all jobs$/);
			await shot('overview');
		});

		await check('navigation: nav bar to series, pickers to a chart', async () => {
			await page.click('nav a[data-nav="series"]');
			await page.waitForURL('**/series');
			await page.waitForFunction(() => document.body.dataset.ready);
			await page.selectOption('#pick-testcase', 'vm-scalability');
			await page.waitForURL(/\/series\?testcase=vm-scalability/);
			await page.waitForFunction(() => document.body.dataset.ready);
			// first metric of the testcase chosen, both setups charted
			assert.equal(await page.inputValue('#pick-metric'), 'vm-scalability.free_time');
			await page.selectOption('#pick-metric', 'vm-scalability.throughput');
			await page.waitForURL(/metric=vm-scalability.throughput/);
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.equal(await page.locator('.series-block').count(), 2);
			const pts = await page.$$eval('.chart', (cs) => cs.map((c) => Number(c.dataset.points)).sort((a, b) => a - b));
			assert.deepEqual(pts, [2 * SHAS.length, RUNS * SHAS.length]);
			assert.equal(await page.locator('.chart canvas').count(), 2);
		});

		await check('series: "why (not) flagged" lists the last detection\'s candidates, strings as text', async () => {
			const q = new URLSearchParams({ testcase: 'vm-scalability', metric: 'vm-scalability.throughput',
				tbox_group: 'vm-2p', kconfig: 'x86_64-defconfig', compiler: 'gcc-12',
				params: JSON.stringify({ nr_task: '100%', test: 'small-allocs' }) });
			const d = (await call('GET', `/api/v1/series?${q}`)).json.series[0].detection;
			assert.ok(d && d.candidates.length, JSON.stringify(d));
			await open(`/series?${q}`, 'series-why');
			await page.click('.why-flagged summary');
			const rows = await page.$$eval('.why-row', (trs) => trs.map((t) => [...t.cells].map((c) => c.textContent)));
			assert.equal(rows.length, d.candidates.length);
			d.candidates.forEach((c, i) => {
				assert.ok(rows[i][0].startsWith(c.commit.slice(0, 12)), rows[i][0]);
				assert.equal(rows[i][7], c.kept ? 'kept' : `dropped: ${c.reason}`);
				// 20 commits, independent noise: no sigma raised, no mark
				assert.equal(c.noise_raised, 1, JSON.stringify(c));
				assert.equal(rows[i][6], Number.isFinite(c.effect) ? `${c.effect.toFixed(1)} σ` : '—');
			});
			assert.equal(await page.locator('.why-flagged .raised').count(), 0);
			// the subjects are text: the XSS commit's (if a candidate) shows literally
			assert.equal(await page.locator('.why-flagged img, .why-flagged script').count(), 0);
			const kept = d.candidates.filter((c) => c.kept && c.stage === 'final');
			const summary = await page.textContent('.why-flagged summary');
			if (kept.length)
				assert.ok(summary.startsWith(`Why (not) flagged: flagged: ${kept[0].commit.slice(0, 7)}`), summary);
			else
				assert.match(summary, /^Why \(not\) flagged: not flagged: the strongest candidate, [0-9a-f]{7} .* was dropped: /);
			await shot('series-why');
		});

		await check('series: one setup, hover shows the commit subject as text, click opens compare', async () => {
			const q = new URLSearchParams({ testcase: 'vm-scalability', metric: 'vm-scalability.throughput',
				tbox_group: 'vm-2p', kconfig: 'x86_64-defconfig', compiler: 'gcc-12',
				params: JSON.stringify({ nr_task: '100%', test: 'small-allocs' }) });
			await open(`/series?${q}`, 'series');
			assert.equal(await page.locator('.series-block').count(), 1);
			assert.equal(await page.inputValue('#pick-setup'), '0');
			assert.match(await page.textContent('.series-block h2'), /vm-scalability \/ nr_task=100% test=small-allocs \/ vm-2p/);
			// the latest-commits table: newest first, the XSS subject literal
			const first = await page.$$eval('.commit-row', (trs) => trs.map((t) => t.cells[1].textContent));
			assert.equal(first.length, SHAS.length);
			assert.ok(first[SHAS.length - 1 - STEP].includes(XSS), first[SHAS.length - 1 - STEP]);
			// hover the middle run of the first bad commit: x = commit index on [-0.6, n-0.4]
			const box = await page.locator('.u-over').boundingBox();
			const px = box.x + (STEP + 0.6) / (SHAS.length) * box.width;
			await page.mouse.move(px, box.y + box.height / 2);
			await page.waitForFunction(() => /alert/.test(document.querySelector('.hover-info').textContent));
			const info = await page.textContent('.hover-info');
			assert.ok(info.includes(XSS), info);
			assert.ok(info.includes(SHAS[STEP].slice(0, 12)), info);
			await shot('series');
			await page.mouse.click(px, box.y + box.height / 2);
			await page.waitForURL(/\/compare\?/);
			const u = new URL(page.url());
			assert.equal(u.searchParams.get('base'), SHAS[STEP - 1]);
			assert.equal(u.searchParams.get('head'), SHAS[STEP]);
			assert.equal(u.searchParams.get('focus'), 'vm-scalability.throughput');
		});

		await check('compare: rows, verdicts, direction colours, sorting and filtering', async () => {
			await page.waitForFunction(() => document.body.dataset.ready);
			// the head commit's subject is shown literally
			assert.ok((await page.textContent('.range')).includes(XSS));
			const metrics = await page.$$eval('tr.cmp-row', (trs) => trs.map((t) => t.dataset.metric));
			assert.deepEqual(metrics, ['time.elapsed_time', 'vm-scalability.free_time', 'vm-scalability.throughput']);
			const tp = page.locator('tr.cmp-row[data-metric="vm-scalability.throughput"]');
			assert.equal(await tp.getAttribute('data-verdict'), 'different');
			assert.equal(await tp.getAttribute('data-change'), 'regression');
			assert.match(await tp.getAttribute('class'), /dir-regression/);
			assert.match(await tp.getAttribute('class'), /focus/);
			const pct = await tp.locator('td.pct').textContent();
			const v = parseFloat(pct);
			assert.ok(v < -13 && v > -17, pct);
			assert.equal(await tp.locator('.badge').textContent(), 'regression');
			const colour = await tp.locator('td.pct').evaluate((td) => getComputedStyle(td).color);
			assert.equal(colour, 'rgb(198, 40, 40)');
			const href = new URL(await tp.locator('a').getAttribute('href'), URLBASE);
			assert.equal(href.pathname, '/series');
			assert.equal(href.searchParams.get('metric'), 'vm-scalability.throughput');
			assert.equal(href.searchParams.get('tbox_group'), 'vm-2p');
			assert.deepEqual(JSON.parse(href.searchParams.get('params')), { test: 'small-allocs', nr_task: '100%' });
			await shot('compare');
			// sort by |%change|: the regression comes first
			await page.click('th:has-text("%change")');
			const sorted = await page.$$eval('tr.cmp-row', (trs) => trs.map((t) => t.dataset.metric));
			assert.equal(sorted[0], 'vm-scalability.throughput');
			assert.match(page.url(), /sort=change/);
			// filter by prefix
			await page.fill('#filter', 'time.');
			assert.deepEqual(await page.$$eval('tr.cmp-row', (trs) => trs.map((t) => t.dataset.metric)), ['time.elapsed_time']);
			await page.fill('#filter', '');
			await page.check('#changed');
			assert.deepEqual(await page.$$eval('tr.cmp-row', (trs) => trs.map((t) => t.dataset.metric)), ['vm-scalability.throughput']);
			assert.match(page.url(), /changed=1/);
			// the metric links to its series
			await page.click('tr.cmp-row a');
			await page.waitForURL(/\/series\?/);
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.equal(await page.locator('.series-block').count(), 1);
		});

		await check('compare: form without commits, error for an unknown commit', async () => {
			await open('/compare', 'compare-empty');
			assert.equal(await page.locator('#compare-form').count(), 1);
			await page.fill('#compare-form input[name=base]', SHAS[0]);
			await page.fill('#compare-form input[name=head]', SHAS[11]);
			await page.click('#compare-form button');
			await page.waitForURL(/head=/);
			await page.waitForFunction(() => document.body.dataset.ready);
			// 3 metrics of one setup, throughput of the other, and the job's hackbench run at head only
			assert.equal(await page.locator('tr.cmp-row').count(), jobs ? 5 : 4);
			await open(`/compare?base=${'e'.repeat(40)}&head=${SHAS[1]}`, 'compare-404');
			assert.match(await page.textContent('.error'), /no results for commit/);
		});

		await check('machines: the seeded machine', async () => {
			await open('/machines', 'machines');
			const cells = await page.$$eval('#machines tbody tr', (trs) => trs.map((t) => [...t.cells].slice(0, 5).map((c) => c.textContent)));
			const want = [['lkp-web-1', 'x86_64', 'vm-2p', '2', '4 GiB']];
			if (jobs) {
				want.push(['lkp-web-2', 'x86_64', 'vm-2p', '2', '2 GiB']);
				// a host's fingerprint needs a token (README "Security: what is public")
				assert.equal(await page.locator('#machines tbody tr:nth-child(2) summary').count(), 0);
				await page.evaluate((t) => localStorage.setItem('regtrack.token', t), TOK.read);
				await open('/machines', 'machines-token');
				await page.click('#machines tbody tr:nth-child(2) summary');
				const fp = await page.textContent('#machines tbody tr:nth-child(2) dl');
				assert.ok(fp.includes(FINGERPRINT.note), fp);
				assert.ok(fp.includes('governorperformance'), fp);
			}
			assert.deepEqual(cells, want);
			await shot('machines');
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
		});

		await check('jobs: the queue, then one job with its phases and log', async () => {
			await open('/jobs', 'jobs');
			if (!jobs) {
				assert.match(await page.textContent('main'), /no jobs API/);
				await shot('jobs');
				return;
			}
			const rows = await page.$$eval('#jobs tbody tr', (trs) => trs.map((t) => [t.cells[0].textContent,
				t.cells[1].textContent, t.cells[3].textContent, t.cells[5].textContent]));
			// newest first; a bisect's jobs may sit between
			const mine = rows.filter((row) => [`#${jobs.queued}`, `#${jobs.skipped}`, `#${jobs.refused}`, `#${jobs.done}`].includes(row[0]));
			assert.deepEqual(mine, [[`#${jobs.queued}`, 'queued', 'hackbench mode=process', ''],
				[`#${jobs.skipped}`, 'skipped', 'hackbench groups=2 mode=threads', 'same-image'],
				[`#${jobs.refused}`, 'failed', 'hackbench mode=threads nr_tasks=4', 'run-failed'],
				[`#${jobs.done}`, 'done', 'hackbench mode=threads', 'done']]);
			assert.equal(await page.getAttribute(`#jobs tr:has(a[href="/jobs/${jobs.refused}"]) td:nth-child(2)`, 'title'),
				`run-failed: ${REFUSED_REASON}`);
			await shot('jobs');
			// the filter lists what the rows and the overview call failed and skipped
			for (const [state, id] of [['failed', jobs.refused], ['skipped', jobs.skipped]]) {
				await page.selectOption('#job-state', state);
				await page.waitForURL(new RegExp(`state=${state}`));
				await page.waitForFunction(() => document.body.dataset.ready);
				const listed = await page.$$eval('#jobs tbody tr', (trs) => trs.map((t) => [t.cells[0].textContent, t.cells[1].textContent]));
				assert.ok(listed.some((row) => row[0] === `#${id}`), JSON.stringify(listed));
				assert.ok(listed.every((row) => row[1] === state), JSON.stringify(listed));
			}
			await open(`/jobs/${jobs.skipped}`, 'job-skipped');
			assert.equal(await page.textContent('h1'), `Job #${jobs.skipped} skipped`);
			assert.equal(await page.textContent('#same-image'),
				`skipped: it built the same kernel image as ${SHAS[11].slice(0, 12)}, whose runs stand for this commit`);
			assert.equal(await page.locator('#fail-reason').count(), 0);
			await open('/jobs', 'jobs');
			await page.selectOption('#job-state', 'done');
			await page.waitForURL(/state=done/);
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.equal(await page.locator('#jobs tbody tr').count(), (await call('GET', '/api/v1/jobs?state=done')).json.length);
			await page.click(`#jobs a[href="/jobs/${jobs.done}"]`);
			await page.waitForURL(`**/jobs/${jobs.done}`);
			await page.waitForFunction(() => document.body.dataset.ready);
			timings.job = Number(await page.evaluate(() => document.body.dataset.ready));
			const phases = await page.$$eval('#phases tbody tr', (trs) => trs.map((t) => t.cells[0].textContent));
			assert.deepEqual(phases, ['leased', 'build', 'run', 'done']);
			assert.equal(await page.textContent('#log-tail'), LOG);
			// a host-mode job: no guest to shape, and its params shown without the machine's
			assert.equal(await page.textContent('#job-machine'), 'machine the host itself');
			assert.equal(await page.locator('#runs li').count(), 1);
			// its one run, posted without accel, cpus or guest: said so, the raw JSON linked
			assert.match(await page.textContent('#runs li'),
				/^run 1: —, CPUs — \(no guest recorded: an older run, or one posted without it\) · [0-9a-f-]{36}$/);
			assert.match(await page.getAttribute('#runs li a', 'href'), /^\/api\/v1\/runs\/[0-9a-f-]{36}$/);
			assert.match(await page.textContent('h1'), /done/);
			assert.equal(await page.locator('#fail-reason').count(), 0);
			assert.equal(await page.locator('#job-cancel').count(), 0);
			await shot('job');
		});

		await check('jobs: a job that produced no run is failed with the worker\'s reason; an admin cancels a queued job', async () => {
			if (!jobs)
				return;
			await open(`/jobs/${jobs.refused}`, 'job-refused');
			assert.equal(await page.textContent('h1'), `Job #${jobs.refused} failed`);
			assert.equal(await page.textContent('#fail-reason'), `run-failed: ${REFUSED_REASON}`);
			assert.equal(await page.locator('.card.range .progress').count(), 0);
			assert.equal(await page.locator('#job-cancel').count(), 0);
			assert.equal(await page.locator('#runs li').count(), 0);
			await shot('job-refused');
			await open(`/jobs/${jobs.queued}`, 'job-queued');
			assert.equal(await page.textContent('h1'), `Job #${jobs.queued} queued`);
			// what the server warned about when it queued the job: this
			// worker registered no case table, so nothing was checked
			assert.deepEqual(await page.$$eval('#job-warnings li', (lis) => lis.map((l) => l.textContent)),
				['no worker has registered its cases yet: testcase and params not checked']);
			await page.fill('#job-cancel-token', TOK.admin);
			await page.click('#job-cancel button');
			await page.waitForFunction(() => /cancelled/.test(document.querySelector('h1').textContent));
			assert.equal(await page.textContent('h1'), `Job #${jobs.queued} cancelled`);
			assert.equal((await call('GET', `/api/v1/jobs/${jobs.queued}`)).json.state, 'cancelled');
			assert.equal(await page.locator('#job-cancel').count(), 0);
			const phases = await page.$$eval('#phases tbody tr', (trs) => trs.map((t) => t.cells[0].textContent));
			assert.deepEqual(phases, ['cancelled']);
			await shot('job-cancelled');
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
		});

		await check('job machine: the shape a job names, in words (vmShape)', async () => {
			const got = await page.evaluate(async () => {
				const { vmShape, caseParams } = await import('/js/model.js');
				return [vmShape({ accel: 'kvm', vcpus: 16, pin: true, numa: 'host', hugepages: '2M', nr_task: 16 }),
					vmShape({ measure: 'icount', vcpus: 1 }), vmShape({ numa: 2 }), vmShape({ nr_task: 1 }),
					caseParams({ accel: 'kvm', pin: true, nr_task: 16, measure: 'icount' }),
					// a mail's reproduce line gives them as text (--params pin=true,vcpus=4)
					vmShape({ accel: 'tcg', vcpus: '4', pin: 'true' }), vmShape({ vcpus: 4, pin: 'false' })];
			});
			assert.deepEqual(got, ['kvm · 16 vCPUs pinned · NUMA as the host · 2M hugepages', 'icount · 1 vCPU',
				'NUMA 2 nodes', '', { nr_task: 16 }, 'tcg · 4 vCPUs pinned', '4 vCPUs']);
			// the series and regression pages' setup: the machine's params among the case's
			const label = await page.evaluate(async () => {
				const { setupLabel } = await import('/js/dom.js');
				return setupLabel({ testcase: 'small-allocs', params: { nr_task: 4, accel: 'tcg', vcpus: 4, pin: true },
					tbox_group: 'vm-2p', kconfig: 'x86_64-defconfig', compiler: 'gcc-12' });
			});
			assert.equal(label, 'small-allocs / accel=tcg nr_task=4 pin=true vcpus=4 / vm-2p / x86_64-defconfig / gcc-12');
		});

		await check('job machine: a job that names its host mode, vCPUs and pinning shows them on its page', async () => {
			if (!jobs || !bisect)
				return;
			// a kernel job needs a tracked tree: the bisect's (a full sha is taken as it is)
			let r = await call('POST', '/api/v1/jobs', { tree: 'demo', commit: SHAS[11], kconfig: 'x86_64-defconfig', testcase: 'hackbench',
				params: { mode: 'threads', accel: 'tcg', vcpus: 4, pin: true }, tbox_group: 'vm-shape' }, 'submit');
			assert.equal(r.status, 201, r.text);
			const id = r.json.id;
			try {
				await open(`/jobs/${id}`, 'job-machine');
				assert.equal(await page.textContent('#job-machine'), 'machine tcg · 4 vCPUs pinned');
				// the case's own params beside the testcase, without the machine's
				assert.equal(await page.textContent('.card.range > div:nth-child(2)'), 'testcase hackbench mode=threads');
			} finally {
				// no worker of this tier leases it: cancelled, so it is not left queued
				r = await call('POST', `/api/v1/jobs/${id}/cancel`, {}, 'admin');
				assert.equal(r.status, 200, r.text);
			}
		});

		await check('job machine: each run says what it got (its guest), beside what the job asked for', async () => {
			if (!jobs || !bisect)
				return;
			let r = await call('POST', '/api/v1/workers/register', { hostname: 'lkp-web-got', arch: 'x86_64', tbox_group: 'vm-got',
				nr_cpus: 32, memory_mb: 65536, cpu_model: 'Test CPU @ 2.0GHz', capabilities: ['qemu-x86_64'], fingerprint: FINGERPRINT }, 'worker');
			assert.equal(r.status, 200, r.text);
			const mid = r.json.machine_id;
			const params = { mode: 'threads', accel: 'kvm', vcpus: 16, pin: true, hugepages: '2M', numa: 2 };
			r = await call('POST', '/api/v1/jobs', { tree: 'demo', commit: SHAS[11], kconfig: 'x86_64-defconfig', testcase: 'hackbench',
				params, tbox_group: 'vm-got' }, 'submit');
			assert.equal(r.status, 201, r.text);
			const id = r.json.id;
			r = await call('POST', '/api/v1/jobs/lease', { machine_id: mid, wait_s: 0 }, 'worker');
			assert.equal(r.status, 200, r.text);
			const job = r.json.job;
			assert.equal(job.id, id);
			// what worker/execute.c writes: the guest qemu was given (pinned: the host CPU of
			// each vCPU), and a run from a worker that predates pinned, hugepages, numa and cpu_model
			const guest = { arch: 'x86_64', nr_cpus: 16, memory_mb: 512, accel: 'kvm', icount: false, cpu_model: 'host',
				pinned: Array.from({ length: 16 }, (_, i) => i), hugepages: '2M',
				numa: [{ node: 0, cpus: '0-7', memory_mb: 256, host_node: null }, { node: 1, cpus: '8-15', memory_mb: 256, host_node: null }] };
			const older = { arch: 'x86_64', nr_cpus: 16, memory_mb: 512, accel: 'kvm', icount: false };
			const results = [guest, older].map((g) => ({
				...doc(11, job.params, { 'hackbench.throughput': [1000] }), testcase: 'hackbench', job_id: id, kconfig: job.kconfig,
				compiler: job.compiler, accel: 'kvm', cpus: 16, guest: g,
				machine: { hostname: 'lkp-web-got', arch: 'x86_64', tbox_group: 'vm-got', nr_cpus: 32, memory_mb: 65536, cpu_model: 'Test CPU @ 2.0GHz' },
			}));
			r = await call('POST', `/api/v1/jobs/${id}/complete`, { machine_id: mid, status: 'ok', results, log_tail: 'ok\n' }, 'worker');
			assert.equal(r.status, 200, r.text);
			// what each run got comes with the job (run_guests): no run is read on its own
			const runReads = [];
			const onReq = (req) => {
				if (new URL(req.url()).pathname.startsWith('/api/v1/runs/'))
					runReads.push(req.url());
			};
			page.on('request', onReq);
			try {
				await open(`/jobs/${id}`, 'job-runs-got');
			} finally {
				page.off('request', onReq);
			}
			assert.deepEqual(runReads, []);
			assert.equal(await page.textContent('#job-machine'), 'machine kvm · 16 vCPUs pinned · NUMA 2 nodes · 2M hugepages');
			assert.deepEqual(await page.$$eval('#runs li .run-got', (s) => s.map((e) => e.textContent)), [
				'run 1: kvm, 16 vCPUs pinned to host CPUs 0-15, 2M hugepages, 2 NUMA nodes, 512 MiB, cpu host',
				'run 2: kvm, 16 vCPUs, pinning —, hugepages —, NUMA —, 512 MiB, cpu —']);
			// the raw JSON stays linked, in the job's order of runs
			assert.deepEqual(await page.$$eval('#runs li a', (as) => as.map((a) => a.getAttribute('href'))),
				results.map((d) => `/api/v1/runs/${d.run_id}`));
			await shot('job-runs-got');
		});

		await check('words: ordinals and plurals as English writes them', async () => {
			const got = await page.evaluate(async () => {
				const { ordinal, plural } = await import('/js/dom.js');
				return { ord: [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(ordinal),
					pl: [plural(1, 'commit'), plural(0, 'commit'), plural(2, 'commit')] };
			});
			assert.deepEqual(got.ord, ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd',
				'101st', '111th', '112th']);
			assert.deepEqual(got.pl, ['1 commit', '0 commits', '2 commits']);
		});

		await check('axis labels: fmtCompact across magnitudes, the charts\' y ticks', async () => {
			const got = await page.evaluate(async () => {
				const { fmtCompact, age } = await import('/js/dom.js');
				const vs = [0, 1, 999, 1000, 1500, 25000, 250000, 999999, 1e6, 1.5e9, 2.5e12, -1, -1500, -250000,
					-1.5e9, 0.132, 0.5, -0.25, 0.0001234, 12.5, 999.95, NaN, Infinity];
				return { labels: vs.map((v) => [String(v), fmtCompact(v)]), age: age(new Date(Date.now() - 62000).toISOString()) };
			});
			assert.deepEqual(got.labels, [['0', '0'], ['1', '1'], ['999', '999'], ['1000', '1k'], ['1500', '1.5k'],
				['25000', '25k'], ['250000', '250k'], ['999999', '1M'], ['1000000', '1M'], ['1500000000', '1.5G'],
				['2500000000000', '2.5T'], ['-1', '-1'], ['-1500', '-1.5k'], ['-250000', '-250k'], ['-1500000000', '-1.5G'],
				['0.132', '0.132'], ['0.5', '0.5'], ['-0.25', '-0.25'], ['0.0001234', '0.0001234'], ['12.5', '12.5'],
				['999.95', '1k'], ['NaN', ''], ['Infinity', '']]);
			assert.equal(got.age, '1 min 2 s ago');
			// the large series' values are about 225k..257k: its ticks say so (not "25k")
			const ticks = async () => (await page.getAttribute('.chart', 'data-y-ticks')).split(' ');
			await open(`/series?${new URLSearchParams({ testcase: 'will-it-scale', metric: 'will-it-scale.per_process_ops' })}`, 'series-ticks');
			let labels = await ticks();
			assert.ok(labels.length >= 3, labels.join(' '));
			for (const l of labels) {
				assert.match(l, /^\d+(\.\d+)?k$/, labels.join(' '));
				assert.ok(parseFloat(l) >= 200 && parseFloat(l) < 300, labels.join(' '));
			}
			// vm-scalability.throughput, nr_task=100%: 8.5M..10.1M
			await open(`/series?${new URLSearchParams({ testcase: 'vm-scalability', metric: 'vm-scalability.throughput',
				tbox_group: 'vm-2p', kconfig: 'x86_64-defconfig', compiler: 'gcc-12',
				params: JSON.stringify({ nr_task: '100%', test: 'small-allocs' }) })}`, 'series-ticks-m');
			labels = await ticks();
			for (const l of labels) {
				assert.match(l, /^\d+(\.\d+)?M$/, labels.join(' '));
				assert.ok(parseFloat(l) >= 8 && parseFloat(l) <= 10.5, labels.join(' '));
			}
		});

		await check('regression and bisect pages without those APIs: empty states', async () => {
			if (!(await endpoint('/api/v1/regressions'))) {
				await open('/regressions/1', 'regression-empty');
				assert.match(await page.textContent('main'), /no regressions API yet/);
			}
			if (!(await endpoint('/api/v1/bisects/1'))) {
				await open('/bisects/1', 'bisect-empty');
				assert.match(await page.textContent('main'), /no bisects API yet/);
			}
		});

		await check('regression page on the real regressions API: record, comparison, triage, change point', async () => {
			if (!(await endpoint('/api/v1/regressions'))) {
				console.log('  (this server has no regressions API: nothing to check)');
				return;
			}
			const reg = await detectedRegression();
			await open('/', 'overview-real');
			const row = page.locator(`#regressions a[href="/regressions/${reg.id}"]`);
			assert.equal(await row.count(), 1);
			await row.click();
			await page.waitForURL(`**/regressions/${reg.id}`);
			await page.waitForFunction(() => document.body.dataset.ready);
			timings['regression-real'] = Number(await page.evaluate(() => document.body.dataset.ready));
			// new, or confirmed already when the detector saw the step hold (both are open states)
			const from = (await call('GET', `/api/v1/regressions/${reg.id}`)).json.state;
			assert.ok(['new', 'confirmed'].includes(from), from);
			assert.match(await page.textContent('h1'), new RegExp(`^Regression #${reg.id}: vm-scalability.throughput -1\\d\\.\\d% ${from}$`));
			const range = await page.textContent('#range');
			assert.ok(range.includes(SUBJECTS[STEP - 1]) && range.includes(XSS), range);
			// the record's evidence in words, as the API (and the mail) has it
			const ev = (await call('GET', `/api/v1/regressions/${reg.id}`)).json.evidence;
			assert.match(ev.text, /^the \d+ tested commits after moved by -1\d\.\d % \[-\d+\.\d, -\d+\.\d\], \d+(\.\d)? \u00d7 the series' own spread$/);
			assert.equal(await page.textContent('#evidence'), `evidence ${ev.text}`);
			const tp = page.locator('tr.cmp-row[data-metric="vm-scalability.throughput"]');
			assert.equal(await tp.getAttribute('data-change'), 'regression');
			// its runs came without jobs: no build's .config to compare, and nothing mailed yet
			const cfgText = await page.textContent('section:has(> h2:text-is(".config difference"))');
			assert.ok(cfgText.includes(`no .config stored for the good build (commit ${SHAS[STEP - 1].slice(0, 12)}, ` +
				'kconfig x86_64-defconfig): no job of it reported one'), cfgText);
			assert.equal(await page.textContent('#report'), 'No report mailed yet.');
			await shot('regression-real');
			const to = from === 'new' ? 'confirmed' : 'reported';
			await page.selectOption('#triage-state', to);
			await page.fill('#triage-note', 'reproduced <i>by hand</i>');
			await page.fill('#triage-token', TOK.admin);
			await page.click('#triage button');
			await page.waitForFunction((want) => new RegExp(want).test(document.querySelector('h1').textContent), to);
			const after = (await call('GET', `/api/v1/regressions/${reg.id}`)).json;
			assert.equal(after.state, to);
			const last = await page.$$eval('#history li', (lis) => lis[lis.length - 1].textContent);
			assert.match(last, new RegExp(`${from} → ${to} by .* — reproduced <i>by hand</i>$`));
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			// the series marks it, linked to the record
			await open(`/series?${new URLSearchParams({ testcase: 'vm-scalability', metric: 'vm-scalability.throughput' })}`, 'series-real-cp');
			assert.equal(await page.locator(`.change-points a[href="/regressions/${reg.id}"]`).count(), 1);
		});

		await check('alert quality: /quality shows the ledger\'s figures; the regression page marks a record invalid in one step', async () => {
			const reg = await detectedRegression();
			const before = (await call('GET', '/api/v1/quality')).json;
			const pct = (p) => (Number.isFinite(p) ? `${(p * 100).toFixed(1)}%` : '—');
			const rowOf = (list, key, name) => list.find((x) => x[key] === name);
			await open('/quality', 'quality');
			assert.equal(await page.textContent('h1'), 'Alert quality');
			assert.equal(await page.getAttribute('nav a[data-nav="quality"]', 'class'), 'active');
			assert.equal(await page.textContent('#quality-precision'), pct(before.overall.precision));
			assert.match(await page.textContent('#quality-labels'), /^true change: confirmed, bisecting, bisected, reported, fixed, wontfix · false alarm: invalid · not judged: new/);
			const metricCells = async (name) => page.$$eval(`#quality-metrics tr[data-name="${name}"] td`, (tds) => tds.map((td) => td.textContent));
			const tp0 = rowOf(before.by_metric, 'metric', 'vm-scalability.throughput');
			assert.ok(tp0, JSON.stringify(before.by_metric));
			assert.deepEqual(await metricCells('vm-scalability.throughput'), ['vm-scalability.throughput', pct(tp0.precision),
				String(tp0.true_changes), String(tp0.false_alarms), String(tp0.unjudged), String(tp0.alerts)]);
			assert.equal(await page.locator('#quality-plans tr').count(), before.by_plan.length + 1);
			// the record's state now says what it counts as; marking it invalid makes it a false alarm
			const state = (await call('GET', `/api/v1/regressions/${reg.id}`)).json.state;
			assert.notEqual(state, 'invalid');
			const was = before.labels.true_change.includes(state) ? 'true_changes' : 'unjudged';
			await page.evaluate((t) => localStorage.setItem('regtrack.token', t), TOK.admin);
			await open(`/regressions/${reg.id}`, 'regression-invalidate');
			const reason = 'a backup job ran <b>beside</b> the benchmark';
			await page.fill('#invalid-reason-input', reason);
			await page.click('#mark-invalid-button');
			await page.waitForFunction(() => / invalid$/.test(document.querySelector('h1').textContent));
			assert.equal(await page.textContent('#invalid-reason'), reason);
			const last = await page.$$eval('#history li', (lis) => lis[lis.length - 1].textContent);
			assert.match(last, new RegExp(`${state} → invalid by token:admin-[0-9a-f]+ — `));
			assert.ok(last.endsWith(` — ${reason}`), last);
			await shot('regression-invalidated');
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			const after = (await call('GET', '/api/v1/quality?metric=vm-scalability.throughput')).json;
			assert.equal(after.overall.false_alarms, tp0.false_alarms + 1);
			assert.equal(after.overall[was], tp0[was] - 1);
			await open('/quality?metric=vm-scalability.throughput', 'quality-filtered');
			assert.equal(await page.inputValue('#quality-metric'), 'vm-scalability.throughput');
			assert.equal(await page.textContent('#quality-precision'), pct(after.overall.precision));
			assert.deepEqual((await metricCells('vm-scalability.throughput')).slice(2, 4),
				[String(after.overall.true_changes), String(after.overall.false_alarms)]);
			await shot('quality');
			// a bad argument: the server's message, and the form kept to mend it with
			const nErrors = consoleErrors.length;
			await open('/quality?days=abc&metric=vm-scalability.throughput', 'quality-bad-days');
			assert.match(await page.textContent('.error'), /days/);
			// the browser logs the 400 it was meant to get: that one, and nothing else
			assert.deepEqual(consoleErrors.splice(nErrors),
				['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
			assert.equal(await page.locator('#quality-filters').count(), 1);
			assert.equal(await page.inputValue('#quality-metric'), 'vm-scalability.throughput');
			await page.selectOption('#quality-days', '30');
			await page.click('#quality-filters button[type="submit"]');
			await page.waitForFunction(() => document.querySelector('#quality-precision'));
			assert.equal(new URL(page.url()).search, '?days=30&metric=vm-scalability.throughput');
		});

		await check('inbox page: a registered inbox with its poll error, its series with state, thread and request links', async () => {
			if (!(await endpoint('/api/v1/inboxes'))) {
				console.log('  (this server has no inbox API: nothing to check)');
				return;
			}
			const r = await call('POST', '/api/v1/inboxes', { name: 'web-lm', url: 'http://127.0.0.1:9/linux-mm', poll_s: 1, lists: ['linux-mm@kvack.org'], paths: ['mm/'], plan: 'smoke', cc_list: true }, 'admin');
			assert.equal(r.status, 200, JSON.stringify(r.json));
			// the poll fails (nothing listens on port 9): its error is on the inbox
			let inbox;
			for (let i = 0; i < 100 && !(inbox && inbox.poll_error); i++) {
				inbox = (await call('GET', '/api/v1/inboxes')).json.find((x) => x.name === 'web-lm');
				if (!inbox.poll_error)
					await new Promise((res) => setTimeout(res, 200));
			}
			assert.ok(inbox.poll_error, 'no poll error');
			// series of every state, as the API answers them (assembly itself: tests/integration/test_inbox.py)
			const t = '2026-01-07T10:00:00Z';
			const base = { cover: true, total: 3, parts: 3, resend: false, author: 'Dev One <dev@example.org>', reason: null, base: null, patch_ids: null, previous_id: null, duplicate_of: null, request_id: null, verdict: null, reply_outbox_id: null, deadline: t, created_at: t, updated_at: t };
			const series = [
				{ ...base, id: 4, anchor: 'sa-v2-0@example.org', version: 2, title: 'mm: faster small allocs', state: 'replied', verdict: 'regression', request_id: 12, previous_id: 1, reply_outbox_id: 3 },
				{ ...base, id: 3, anchor: 'tidy-2@example.org', version: 1, cover: false, total: 1, parts: 1, resend: true, title: 'mm: tidy x', state: 'duplicate', duplicate_of: 2, reason: 'the same patches as series 2 (patch-id)' },
				{ ...base, id: 2, anchor: 'tidy-1@example.org', version: 1, cover: false, total: 1, parts: 1, title: 'mm: tidy x', state: 'tested', verdict: 'no-change', request_id: 11 },
				{ ...base, id: 1, anchor: 'sa-v1-0@example.org', version: 1, title: 'mm: faster small allocs', state: 'waiting', parts: 2 },
			];
			await page.route(/\/api\/v1\/inboxes\/web-lm\/series/, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(series) }));
			try {
				await open('/inbox?inbox=web-lm', 'inbox');
				assert.equal(await page.textContent('h1'), 'Patches from lists');
				assert.equal(await page.getAttribute('nav a[data-nav="inbox"]', 'class'), 'active');
				assert.equal(await page.getAttribute('.poll-error', 'title'), inbox.poll_error);
				const row = (a) => page.locator(`tr.series-row[data-anchor="${a}"]`);
				assert.equal(await page.locator('tr.series-row').count(), 4);
				assert.match(await row('sa-v2-0@example.org').locator('td.state').textContent(), /^replied regression/);
				assert.equal(await row('sa-v2-0@example.org').locator('a.request').getAttribute('href'), '/requests/12');
				assert.equal(await row('sa-v2-0@example.org').locator('a.msgid').first().getAttribute('href'), 'http://127.0.0.1:9/linux-mm/sa-v2-0%40example.org/');
				assert.match(await row('sa-v2-0@example.org').textContent(), /v1 <sa-v1-0@example\.org>/);
				assert.match(await row('sa-v1-0@example.org').locator('td.state').textContent(), /^waiting for parts \(2\/3\)/);
				assert.match(await row('tidy-2@example.org').textContent(), /same as <tidy-1@example\.org>/);
				assert.match(await row('tidy-1@example.org').locator('td.state').textContent(), /^tested no-change/);
				await shot('inbox');
			} finally {
				await page.unroute(/\/api\/v1\/inboxes\/web-lm\/series/);
			}
		});

		await check('bisect page on the real bisects API: range, steps with samples, first bad commit, verification', async () => {
			if (!bisect) {
				console.log('  (this server has no bisects API: nothing to check)');
				return;
			}
			const b = bisect.bisect;
			const mail = await mailedReport(bisect.id);
			await open('/', 'overview-bisect');
			const row = page.locator(`#bisects a[href="/bisects/${bisect.id}"]`);
			assert.equal(await row.count(), 1);
			// one level: nothing said about merges
			assert.equal(await page.locator(`#bisects tr.bisect-row:has(a[href="/bisects/${bisect.id}"]) .bisect-level`).count(), 0);
			assert.ok((await page.textContent('#bisects')).includes(XSS));
			await row.click();
			await page.waitForURL(`**/bisects/${bisect.id}`);
			await page.waitForFunction(() => document.body.dataset.ready);
			timings['bisect-real'] = Number(await page.evaluate(() => document.body.dataset.ready));
			assert.match(await page.textContent('h1'), new RegExp(`^Bisect #${bisect.id}: page-fault.ops_per_sec done`));
			const range = await page.textContent('#range');
			assert.ok(range.includes(bisect.shas[0].slice(0, 12)) && range.includes(bisect.shas[BISECT_N - 1].slice(0, 12)), range);
			// every step in the API's order, its dots coloured by its verdict
			const steps = await page.$$eval('tr.step-row', (trs) => trs.map((t) => [t.cells[2].textContent.slice(0, 12),
				t.dataset.verdict, t.querySelectorAll('circle.dot').length]));
			assert.deepEqual(steps, b.steps.map((st) => [st.commit.slice(0, 12), st.verdict, st.samples.length]));
			for (const v of ['good', 'bad'])
				assert.ok(await page.locator(`tr.step-row circle.dot.${v}`).count() > 0, v);
			assert.equal(await page.locator(`tr.step-row[data-verdict="skip"]`).count(),
				b.steps.filter((st) => st.verdict === 'skip').length);
			const fb = await page.textContent('#first-bad');
			assert.ok(fb.includes(bisect.shas[CULPRIT].slice(0, 12)) && fb.includes(XSS), fb);
			assert.match(fb, /confidence: \d+\.\d%/);
			// one level: no level headings; the culprit is an empty commit
			assert.equal(await page.locator('h3.level-heading').count(), 0);
			assert.equal(await page.textContent('#diffstat .diffstat-summary'), 'diffstat: 0 files changed, +0 \u22120 (an empty commit)');
			assert.equal(await page.locator('tr.diffstat-file').count(), 0);
			// the comparison: the verification's first bad commit vs its parent
			const tp = page.locator('tr.cmp-row[data-metric="page-fault.ops_per_sec"]');
			assert.equal(await tp.getAttribute('data-change'), 'regression');
			// the .config difference: the parent's build vs the culprit's, exactly what
			// the kernel's scripts/diffconfig printed for the two files
			const builds = await page.textContent('#config-diff .config-builds');
			assert.match(builds, new RegExp(`^parent ${bisect.shas[CULPRIT - 1].slice(0, 12)} .* job #\\d+ ` +
				`vs first bad ${bisect.shas[CULPRIT].slice(0, 12)} .* job #\\d+$`));
			assert.equal(await page.textContent('pre.config-diff'), DIFFCONFIG);
			assert.equal(await page.textContent('#config-summary'),
				'6 removed · 9 changed · 13 added (of 1100 / 1107 options; scripts/diffconfig)');
			const ops = await page.$$eval('pre.config-diff span', (ss) => ss.map((x) => x.className));
			assert.deepEqual([...new Set(ops)].map((c) => [c, ops.filter((o) => o === c).length]),
				[['cfg-removed', 6], ['cfg-changed', 9], ['cfg-added', 13]]);
			// the report as mailed: the text of the dry-run mail file, the culprit's
			// <script> subject in it as text, and no recipient address anywhere
			const mailText = await page.textContent('#report pre.report');
			assert.equal(mailText.endsWith('\n') ? mailText : mailText + '\n', mail.body);
			assert.ok(mailText.includes(XSS), mailText.slice(0, 400));
			assert.equal(await page.textContent('#report .mail-subject'), mail.subject);
			assert.equal(await page.textContent('#report .message-id'), mail.messageId);
			assert.equal(await page.getAttribute('#report .mail', 'data-state'), 'dry_run');
			assert.ok(!(await page.textContent('main')).includes(MAIL_CC));
			await page.locator('#config-diff').screenshot({ path: join(ART, 'bisect-real-config-diff.png') });
			await page.locator('#report').screenshot({ path: join(ART, 'bisect-real-report.png') });
			await shot('bisect-real');
		});

		await check('bisect page of real bisects that descended into a merge: steps by level under their headings, the first bad commit\'s diffstat', async () => {
			if (!mergeBisect) {
				console.log('  (this server has no bisects API: nothing to check)');
				return;
			}
			for (const kase of ['side', 'merge']) {
				const { id, c, bisect: b } = mergeBisect[kase];
				const s12 = (name) => c[name].slice(0, 12);
				const culprit = kase === 'side' ? MERGE_CULPRIT : 'M';
				// the overview's bisect list says it went into a merge
				await open('/', `overview-bisect-merge-${kase}`);
				assert.equal(await page.textContent(`#bisects tr.bisect-row:has(a[href="/bisects/${id}"]) .bisect-level`),
					' · level 1 · 1 merge descended into');
				await open(`/bisects/${id}`, `bisect-merge-${kase}`);
				assert.match(await page.textContent('h1'), new RegExp(`^Bisect #${id}: page-fault.ops_per_sec done`));
				assert.match(await page.textContent('#bisect-facts'), / · 1 merge descended into · found/);
				// one heading per level: the first-parent chain, then the merge's side branch
				assert.deepEqual(await page.$$eval('h3.level-heading', (hs) => hs.map((x) => x.textContent)), [
					`level 0: first-parent chain ${s12('c0')}..${s12('c8')} \u2014 9 commits`,
					`level 1: side branch of merge ${s12('M')} '${MERGE_SUBJECT}' \u2014 6 commits, good end = merge^1 ${s12('c6')}`]);
				// each level's steps under its heading, in the API's order; level 0 measured the
				// first-parent chain only, level 1 the side branch, the merge and merge^1
				const name = Object.fromEntries(Object.entries(c).map(([k, v]) => [v.slice(0, 12), k]));
				const shown = await page.$$eval('div.level', (ls) => ls.map((l) => [l.dataset.level,
					[...l.querySelectorAll('tr.step-row')].map((t) => [t.cells[0].textContent, t.cells[2].textContent.slice(0, 12),
						t.dataset.verdict, t.dataset.level])]));
				const want = [0, 1].map((lv) => [String(lv), b.steps.filter((st) => st.level === lv)
					.map((st) => [String(st.round), st.commit.slice(0, 12), st.verdict, String(lv)])]);
				assert.deepEqual(shown, want);
				const names = (lv) => new Set(want[lv][1].map((row) => name[row[1]]));
				for (const n of names(0))
					assert.match(n, /^(c\d|M)$/, `level 0 measured ${n}`);
				for (const n of names(1))
					assert.match(n, /^(s\d|M|c6)$/, `level 1 measured ${n}`);
				assert.ok(names(0).has('M') && [...names(1)].some((n) => n.startsWith('s')), JSON.stringify(shown));
				// what level 0 found, under its steps
				const res = await page.textContent('p.descent-result[data-level="0"]');
				assert.ok(res.startsWith(`first bad on level 0: merge ${s12('M')} · confidence `), res);
				assert.match(res, /verified against merge\^1 · runs \d+:\d+ · -1\d\.\d% · different · descended into its 6 side commits$/);
				// the first bad commit and what it touched against its first parent, as git's numstat says
				const fb = await page.textContent('#first-bad');
				const subject = kase === 'side' ? 'mm: fault around in 64k steps' : MERGE_SUBJECT;
				assert.ok(fb.includes(`first bad commit: ${s12(culprit)} ${subject}`), fb);
				assert.equal(await page.textContent('#diffstat .diffstat-summary'), 'diffstat: 4 files changed, +8 \u22122' +
					(kase === 'merge' ? ' (the merge against its first parent: what its side branch brought)' : ''));
				assert.deepEqual(await page.$$eval('tr.diffstat-file', (trs) => trs.map((t) => [...t.cells].map((x) => x.textContent))), [
					['Documentation/mm/fault.png', 'binary'], ['include/linux/mm.h', '+1', '\u22120'],
					['mm/fault_around.c', '+4', '\u22120'], ['mm/memory.c', '+3', '\u22122']]);
				assert.equal(await page.locator('#diffstat-more').count(), 0);
				await page.locator('section:has(> h2:text-is("Bisect"))').screenshot({ path: join(ART, `bisect-merge-${kase}-steps.png`) });
				await shot(`bisect-merge-${kase}`);
				if (kase !== 'side')
					continue;
				// the same page by the regression the bisect recorded when it ended
				assert.ok(b.regression_id, JSON.stringify(b).slice(0, 300));
				await open(`/regressions/${b.regression_id}`, 'regression-merge');
				assert.equal(await page.locator('h3.level-heading').count(), 2);
				assert.equal(await page.locator('tr.step-row').count(), b.steps.length);
				assert.equal(await page.textContent('#diffstat .diffstat-summary'), 'diffstat: 4 files changed, +8 \u22122');
				await shot('regression-merge');
			}
		});

		// The bisect-style page against the documented shapes of
		// GET/PATCH /api/v1/regressions/{id} and GET /api/v1/bisects/{id}, served
		// by the test while this server has no such endpoints; the comparison
		// table on the page comes from the real compare API over the seeded runs.
		await check('lists: /bisects every bisect newest first (state, arch, testcase, metric, first bad commit, link); an arch column on /regressions, /jobs and the overview; Regressions and Bisects in every page\'s nav', async () => {
			if (!bisect) {
				console.log('  (this server has no bisects API: nothing to check)');
				return;
			}
			const all = (await call('GET', '/api/v1/bisects?limit=1000')).json;
			assert.ok(all.length >= 2, JSON.stringify(all.map((b) => b.id)));
			await open('/bisects', 'bisects');
			assert.equal(await page.textContent('h1'), 'Bisects');
			const rowsOf = () => page.$$eval('#bisects tbody tr.bisect-row', (trs) => trs.map((t) => ({
				id: Number(t.dataset.id), href: t.querySelector('a').getAttribute('href'), state: t.cells[1].textContent,
				arch: t.querySelector('td.arch').textContent, testcase: t.querySelector('td.testcase').textContent,
				metric: t.cells[4].textContent, first: (t.querySelector('td.first-bad code.sha') || {}).title || '' })));
			const rows = await rowsOf();
			// every bisect, newest first
			assert.deepEqual(rows.map((r) => r.id), all.map((b) => b.id));
			assert.deepEqual(rows.map((r) => r.id), [...rows.map((r) => r.id)].sort((a, b) => b - a));
			const mine = rows.find((r) => r.id === bisect.id);
			assert.deepEqual(mine, { id: bisect.id, href: `/bisects/${bisect.id}`, state: 'done', arch: 'x86_64',
				testcase: 'page-fault nr_task=2', metric: 'page-fault.ops_per_sec', first: bisect.shas[bisect.culprit] });
			await shot('bisects');
			await page.selectOption('#bisect-state', 'cancelled');
			await page.waitForURL(/\/bisects\?state=cancelled/);
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.ok((await rowsOf()).every((r) => r.state === 'cancelled'));
			// the overview's bisects table has the arch too
			await open('/', 'overview-arch');
			assert.equal(await page.textContent(`#bisects tr.bisect-row[data-id="${bisect.id}"] td.arch`), 'x86_64');
			// /regressions: each row's arch is the record's (the API's, kernel names)
			const regsReply = (await call('GET', '/api/v1/regressions')).json;
			const regs = Array.isArray(regsReply) ? regsReply : regsReply.regressions;
			await open('/regressions', 'regressions-arch');
			const regRows = await page.$$eval('#regressions tr.regression-row', (trs) => trs.map((t) =>
				[t.cells[0].textContent, t.querySelector('td.arch').textContent]));
			assert.deepEqual(regRows, regs.map((r) => [`#${r.id}`, r.arch || '']));
			assert.ok(regRows.length && regRows.every(([, a]) => ['x86_64', 'arm64'].includes(a)), JSON.stringify(regRows));
			// /jobs: a bisect's kernel job says x86_64, a host job for a tbox_group '—'
			const jl = (await call('GET', '/api/v1/jobs')).json;
			const kernelJob = jl.find((j) => j.kconfig === 'x86_64-defconfig'), hostJob = jl.find((j) => j.kconfig === 'host');
			assert.ok(kernelJob && hostJob, 'a kernel job and a host job listed');
			await open('/jobs', 'jobs-arch');
			const archCell = (id) => page.textContent(`#jobs tr:has(a[href="/jobs/${id}"]) td.arch`);
			assert.equal(await archCell(kernelJob.id), 'x86_64');
			assert.equal(await archCell(hostJob.id), '—');
			// the nav of every page links both lists; the list's own entry is the active one
			for (const [path, active] of [['/', 'overview'], ['/jobs', 'jobs'], [`/bisects/${bisect.id}`, 'bisects'],
				['/regressions', 'regressions'], ['/requests', 'requests'], ['/bisects', 'bisects']]) {
				await open(path, `nav-${active}`);
				assert.deepEqual(await page.$$eval('nav a[data-nav="regressions"], nav a[data-nav="bisects"]', (as) =>
					as.map((a) => [a.textContent, a.getAttribute('href')])), [['Regressions', '/regressions'], ['Bisects', '/bisects']], path);
				assert.equal(await page.getAttribute('nav a.active', 'data-nav'), active, path);
			}
		});

		await check('bisect-style page of a finished bisect (regression and bisect served by the test): steps, first bad commit, comparison, report, triage', async () => {
			const tcs = (await call('GET', '/api/v1/testcases')).json;
			const setupId = tcs.find((t) => t.name === 'vm-scalability').setup_list
				.find((st) => st.params.nr_task === '100%').id;
			const api = mockApis(setupId);
			await page.route(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/, api.handle);
			try {
				await open('/', 'overview-regressions');
				const row = page.locator('#regressions tr.regression-row');
				assert.equal(await row.count(), 1);
				assert.match(await row.textContent(), /-15\.0%vm-scalability\.throughput/);
				assert.equal(await row.locator('td.regression').count(), 1);
				assert.match(await page.textContent('#bisects'), /done/);
				await shot('overview-regressions');
				await page.click('#regressions a[href="/regressions/1"]');
				await page.waitForURL('**/regressions/1');
				await page.waitForFunction(() => document.body.dataset.ready);
				timings.regression = Number(await page.evaluate(() => document.body.dataset.ready));
				assert.match(await page.textContent('h1'), /^Regression #1: vm-scalability.throughput -15.0%/);
				const range = await page.textContent('#range');
				assert.ok(range.includes(SUBJECTS[STEP - 1]) && range.includes(XSS), range);
				assert.match(range, /\[-16\.1%, -13\.9%\]/);
				// steps in order, with their samples as dots coloured by verdict
				const steps = await page.$$eval('tr.step-row', (trs) => trs.map((t) => [t.cells[0].textContent,
					t.cells[2].textContent.slice(0, 12), t.cells[5].textContent,
					t.querySelectorAll('circle.dot.' + t.cells[5].textContent).length]));
				assert.deepEqual(steps, api.bisect.steps.map((st) => [String(st.round), st.commit.slice(0, 12), st.verdict,
					st.verdict === 'skip' ? 0 : st.samples.length]));
				const fb = await page.textContent('#first-bad');
				assert.ok(fb.includes(SHAS[STEP].slice(0, 12)) && fb.includes(XSS), fb);
				assert.match(fb, /confidence: 99\.8%/);
				assert.equal(await page.textContent('#diffstat .diffstat-summary'), 'diffstat: 102 files changed, +2050 \u22127');
				assert.deepEqual(await page.$$eval('tr.diffstat-file', (trs) => trs.map((t) => [...t.cells].map((x) => x.textContent))),
					[['mm/<img src=x onerror=alert(5)>.c', '+2', '\u22122'], ['mm/memory.c', '+48', '\u22125']]);
				assert.equal(await page.textContent('#diffstat-more'), 'the first 2 of 102 files, by path');
				assert.equal(await page.locator('h3.level-heading').count(), 0);
				// the comparison (real API): first bad commit vs its parent
				const tp = page.locator('tr.cmp-row[data-metric="vm-scalability.throughput"]');
				assert.equal(await tp.getAttribute('data-change'), 'regression');
				// the report as mailed, newest first: the queued follow-up, then the sent text
				// a report nobody was subscribed to says so, then the queued follow-up, then the sent text
				assert.match(await page.textContent('#report .mail:nth-child(1) .mail-skipped'),
					/^skipped: no recipients range report of .* nobody is subscribed to this regression/);
				// a mail the server holds says why and that it goes out once that is set
				assert.match(await page.textContent('#report .mail[data-state="held"] .mail-skipped'),
					/^held: smtp_url not set range report of .* not mailed yet: the server holds mail while its configuration cannot send it/);
				const mails = await page.$$eval('#report .mail[data-state]:not([data-state="skipped"]):not([data-state="held"])', (ms) => ms.map((m) => [m.dataset.state,
					m.querySelector('.mail-subject').textContent, (m.querySelector('pre.report') || {}).textContent || null]));
				assert.deepEqual(mails, [['queued', '(not rendered yet)', null],
					['sent', api.report.mails[2].subject, api.report.mails[2].body]]);
				assert.match(await page.textContent('#report .mail:nth-child(2)'), /Queued: the mailer has not rendered this report yet\./);
				assert.equal(await page.textContent('#report .message-id'), api.report.mails[2].message_id);
				// identical builds say so, with the number of options
				assert.equal(await page.textContent('#config-identical'), 'identical .config (1100 options)');
				assert.equal(await page.locator('pre.config-diff').count(), 0);
				assert.match(await page.textContent('#config-diff .config-builds'),
					new RegExp(`^parent ${SHAS[STEP - 1].slice(0, 12)} .* job #41 vs first bad ${SHAS[STEP].slice(0, 12)} .* job #42$`));
				await shot('regression');
				// triage with an admin token: PATCH, then the page shows the new state
				await page.selectOption('#triage-state', 'confirmed');
				await page.fill('#triage-note', 'seen on <b>two</b> machines');
				await page.fill('#triage-token', TOK.admin);
				await page.click('#triage button');
				await page.waitForFunction(() => /confirmed/.test(document.querySelector('h1').textContent));
				assert.deepEqual(api.patches, [{ body: { state: 'confirmed', note: 'seen on <b>two</b> machines' },
					auth: 'Bearer ' + TOK.admin }]);
				const hist = await page.$$eval('#history li', (lis) => lis.map((l) => l.textContent));
				assert.equal(hist.length, 2);
				assert.match(hist[1], /new → confirmed by token:admin — seen on <b>two<\/b> machines/);
				assert.equal(await page.evaluate(() => localStorage.getItem('regtrack.token')), TOK.admin);
				// the series marks the regression as a change point, linked to its page
				await open(`/series?${new URLSearchParams({ testcase: 'vm-scalability', metric: 'vm-scalability.throughput' })}`, 'series-cp');
				const cp = page.locator('.change-points');
				assert.equal(await cp.count(), 1);
				// (the real series API may add the detector's own points beside it)
				assert.ok((await cp.textContent()).includes(`${SHAS[STEP].slice(0, 7)} -15.0% regression #1 confirmed`),
					await cp.textContent());
				assert.equal(await cp.locator(`a:text("${SHAS[STEP].slice(0, 7)}")`).getAttribute('href'), '/regressions/1');
				await shot('series-change-point');
				// the same bisect-style page by its bisect id
				await open('/bisects/1', 'bisect');
				assert.match(await page.textContent('h1'), /^Bisect #1: vm-scalability.throughput done/);
				assert.equal(await page.locator('tr.step-row').count(), api.bisect.steps.length);
				assert.equal(await page.textContent('#config-identical'), 'identical .config (1100 options)');
				// the skipped one (no recipients), the queued follow-up, the sent report, the held one
				assert.equal(await page.locator('#report .mail').count(), 4);
				await shot('bisect');
			} finally {
				await page.unroute(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/);
				await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			}
		});

		await check('first bad commit vs its parent of the same image as an earlier commit: the table compares the runs that stood for the parent, as the mail does', async () => {
			const tcs = (await call('GET', '/api/v1/testcases')).json;
			const setupId = tcs.find((t) => t.name === 'vm-scalability').setup_list
				.find((st) => st.params.nr_task === '100%').id;
			const api = mockApis(setupId);
			// the parent built SHAS[STEP - 2]'s kernel and ran nothing (the
			// table compared the parent's 0 runs, "need more runs")
			api.bisect.parent_stand_in = { sha: SHAS[STEP - 2], subject: SUBJECTS[STEP - 2] };
			const bases = [];
			const onReq = (req) => {
				const u = new URL(req.url());
				if (u.pathname === '/api/v1/compare')
					bases.push(u.searchParams.get('base'));
			};
			page.on('request', onReq);
			await page.route(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/, api.handle);
			try {
				for (const path of ['/bisects/1', '/regressions/1']) {
					bases.length = 0;
					await open(path, `stand-in-${path.split('/')[1]}`);
					assert.deepEqual(bases, [SHAS[STEP - 2]]);
					assert.equal(await page.textContent('#stand-in'),
						`${SHAS[STEP - 2].slice(0, 12)} ${SUBJECTS[STEP - 2]} stands for the parent ${SHAS[STEP - 1].slice(0, 12)}: the same kernel image`);
					const tp = page.locator('tr.cmp-row[data-metric="vm-scalability.throughput"]');
					assert.equal(await tp.getAttribute('data-change'), 'regression');
				}
			} finally {
				page.off('request', onReq);
				await page.unroute(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/);
			}
		});

		await check('regression page tells the story: the bisect\'s first bad commit at the top, the series with the culprit marked, one row per arch', async () => {
			const tcs = (await call('GET', '/api/v1/testcases')).json;
			const setupId = tcs.find((t) => t.name === 'vm-scalability').setup_list
				.find((st) => st.params.nr_task === '100%').id;
			const api = mockApis(setupId);
			// the detector's range ends two commits after the culprit the bisect found;
			// arm64 found the same change (its bisect: the same first bad commit)
			Object.assign(api.regression, {
				good: { sha: SHAS[STEP - 2], subject: SUBJECTS[STEP - 2] }, bad: { sha: SHAS[STEP + 2], subject: SUBJECTS[STEP + 2] },
				arch: 'x86_64', hl_pct: -15.2,
				bisect: { id: 1, state: 'done', outcome: 'found', confidence: 0.998, first_bad_commit: api.bisect.first_bad_commit,
					parent: { sha: SHAS[STEP - 1], subject: SUBJECTS[STEP - 1] }, profile_diff: '/api/v1/bisects/1/profile-diff' },
				also_seen: [{ arch: 'arm64', regression_id: 2, kind: 'regression', state: 'confirmed', hl_pct: -62.0,
					change_pct: -61.5, ci_pct: [-63.1, -60.9], p_value: 0.001, tbox_group: 'qemu-arm64-tcg-2c',
					kconfig: 'arm64-defconfig', bisect_id: 2, first_bad: { sha: SHAS[STEP], subject: XSS, source: 'bisect' },
					match: 'first_bad', url: '/regressions/2' }],
			});
			await page.route(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/, api.handle);
			try {
				await open('/regressions/1', 'regression-story');
				// answer first: the card right under the title is the bisect's first bad commit,
				// not the detection range's end
				assert.equal(await page.$eval('main > h1 + *', (e) => e.id), 'answer');
				assert.equal(await page.getAttribute('#answer', 'data-source'), 'bisect');
				assert.equal(await page.textContent('#answer-sha'), SHAS[STEP].slice(0, 12));
				assert.equal(await page.textContent('#answer-subject'), XSS);
				assert.equal(await page.textContent('#answer-author'), 'A U Thor');
				assert.equal(await page.textContent('#answer-diffstat'), '102 files changed, +2050 \u22127');
				assert.equal(await page.textContent('#answer-confidence'), 'confidence 99.8%');
				// then the arches, then the range (whose end is the detector's), then the chart
				const order = await page.$$eval('#answer, #arches, #range, #story-chart, #profile-diff, tr.cmp-row, #config-diff, #report',
					(els) => [...new Set(els.map((e) => e.id || e.className.split(' ')[0]))]);
				assert.deepEqual(order, ['answer', 'arches', 'range', 'story-chart', 'profile-diff', 'cmp-row', 'config-diff', 'report']);
				assert.ok((await page.textContent('#range')).includes(`range end ${SHAS[STEP + 2].slice(0, 12)}`));
				// one row per arch: this record, then arm64 with its link
				const rows = await page.$$eval('#arch-table tr.arch-row', (trs) => trs.map((t) => [...t.cells].map((c) => c.textContent)));
				assert.deepEqual(rows, [
					['x86_64', '-15.2%', '[-16.1%, -13.9%]', `${SHAS[STEP].slice(0, 12)} ${XSS} (bisect)`, '#1 (this page)'],
					['arm64', '-62.0%', '[-63.1%, -60.9%]', `${SHAS[STEP].slice(0, 12)} ${XSS} (bisect)`, '#2']]);
				assert.equal(await page.getAttribute('#arch-table tr[data-arch="arm64"] a', 'href'), '/regressions/2');
				// the series (the real API) around the culprit, drawn by chart.js: every seeded
				// commit fits the window; the culprit's line is there, in the bad colour
				const chart = page.locator('#story-chart');
				assert.equal(await chart.getAttribute('data-culprit'), SHAS[STEP]);
				assert.equal(await chart.getAttribute('data-culprit-index'), String(STEP));
				assert.equal(await chart.getAttribute('data-commits'), String(SHAS.length));
				assert.equal(await chart.getAttribute('data-points'), String(SHAS.length * RUNS));
				const px = await page.evaluate(() => {
					const el = document.getElementById('story-chart');
					const cv = el.querySelector('canvas');
					const x = Number(el.dataset.culpritX);
					const d = cv.getContext('2d').getImageData(x, Math.round(cv.height * 0.6), 1, 1).data;
					const bad = getComputedStyle(document.documentElement).getPropertyValue('--bad').trim();
					return { x, rgb: [d[0], d[1], d[2]], bad, width: cv.width };
				});
				assert.ok(px.x > 0 && px.x < px.width, JSON.stringify(px));
				assert.deepEqual(px.rgb, [0xc6, 0x28, 0x28], JSON.stringify(px));
				// the profile diff: flame.js when the dashboard has it, else a note
				const state = await page.getAttribute('#profile-diff', 'data-state');
				assert.ok(['drawn', 'none'].includes(state), state);
				if (state === 'none')
					assert.match(await page.textContent('#profile-diff'), /no profile diff yet/);
				// the bisect's own steps are still on the page, below the story
				assert.equal(await page.locator('tr.step-row').count(), api.bisect.steps.length);
				await shot('regression-story');
			} finally {
				await page.unroute(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/);
			}
		});

		await check('a verdict\'s size is the Hodges-Lehmann shift (hl_pct), not the means\' %change, when their signs differ', async () => {
			const tcs = (await call('GET', '/api/v1/testcases')).json;
			const setupId = tcs.find((t) => t.name === 'vm-scalability').setup_list
				.find((st) => st.params.nr_task === '100%').id;
			const api = mockApis(setupId);
			// an improvement by the HL shift whose means moved the other way (one outlier run)
			Object.assign(api.regression, { kind: 'improvement', hl_pct: 4.2, change_pct: -8.9, direction: 1 });
			await page.route(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/, api.handle);
			try {
				for (const path of ['/regressions', '/']) {
					await open(path, `hl-${path}`);
					const cell = page.locator('#regressions tr.regression-row td.improvement');
					assert.equal(await cell.count(), 1, path);
					assert.equal((await cell.textContent()).trim(), '+4.2%', path);
					assert.match(await cell.getAttribute('title'), /Hodges-Lehmann.*-8\.9%/, path);
				}
				await open('/regressions/1', 'hl-regression');
				const range = await page.textContent('#range');
				assert.match(range, /change \+4\.2% \(means -8\.9%\)/, range);
			} finally {
				await page.unroute(/\/api\/v1\/(regressions|bisects)(\/|\?|$)/);
			}
		});

		// --- the profile diff: flame graph and top changed symbols
		const flameFrames = (sel) => page.evaluate((s) => document.querySelector(`${s} .flame`).flame.frames(), sel);
		const rgb = (fill) => (/^rgb\((\d+),(\d+),(\d+)\)$/.exec(fill) || []).slice(1).map(Number);
		// the canvas pixel at a frame's top middle (below any label), as [r, g, b]
		const pixel = (sel, f) => page.evaluate(([s, x, y]) => {
			const c = document.querySelector(`${s} canvas.flame-canvas`);
			const dpr = c.width / c.getBoundingClientRect().width;
			return [...c.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data].slice(0, 3);
		}, [sel, f.x + f.w / 2, f.y + 1]);

		await check('flame graph: the folded -> tree merge (web/js/flame.js in the page)', async () => {
			await open('/', 'overview-flame-unit');
			const r = await page.evaluate(async () => {
				const { newTree, mergeFolded, delta, buildTree } = await import('/js/flame.js');
				const t = newTree();
				// unsorted, a CRLF line, a blank line, malformed lines, a shared prefix reused and left
				const text = 'a;b;c 3\na;b;c;e 1\r\na;bb 1\n\na;b 2\nno-count\na;b x\n 5\nz 4\n';
				mergeFolded(t, text, 'base');
				mergeFolded(t, 'a;b;c 6\na;q 2\n', 'head');
				const at = (...p) => {
					const id = t.find(p);
					return id < 0 ? null : [t.b[id], t.h[id], t.bs[id], t.hs[id]];
				};
				// slices: stopping at every deadline gives the same tree as one pass
				const lines = Array.from({ length: 100 }, (_, i) => `r;s${i % 7};t${i % 3} ${i + 1}`).join('\n');
				const one = newTree(), sliced = newTree();
				mergeFolded(one, lines, 'head');
				let pos = 0, calls = 0;
				while (pos < lines.length && calls < 1000) {
					pos = mergeFolded(sliced, lines, 'head', pos, 0);
					calls++;
				}
				const dump = (tr) => Array.from({ length: tr.n }, (_, i) => {
					const path = [];
					for (let a = i; a > 0; a = tr.parent[a])
						path.unshift(tr.nameOf(a));
					return `${path.join(';')}=${tr.h[i]}/${tr.hs[i]}`;
				}).sort().join(' ');
				// the page's own merging (where no worker starts): slices, the same tree
				const built = await buildTree(lines, '');
				const again = newTree();
				mergeFolded(again, lines, 'base');
				// GCC's clones are their function, as in the symbols table (perf_fold_sym_len)
				const cl = newTree();
				mergeFolded(cl, 'm;demo_delay.constprop.0 3\nm;x.part.1.cold 1\n', 'base');
				mergeFolded(cl, 'm;demo_delay 5\n', 'head');
				const clone = [cl.find(['m', 'demo_delay']), cl.find(['m', 'x']), cl.find(['m', 'demo_delay.constprop.0'])];
				const cloneAt = clone[0] < 0 ? null : [cl.b[clone[0]], cl.h[clone[0]]];
				const dumpB = (tr) => Array.from({ length: tr.n }, (_, i) => `${tr.nameOf(i)}:${tr.parent[i]}=${tr.b[i]}/${tr.bs[i]}`).join(' ');
				return { built: dumpB(built) === dumpB(again) && built.n === 30, root: at(), a: at('a'), b: at('a', 'b'), c: at('a', 'b', 'c'), e: at('a', 'b', 'c', 'e'), bb: at('a', 'bb'),
					z: at('z'), q: at('a', 'q'), bad: t.bad, base: t.base, head: t.head,
					dc: delta(t, t.find(['a', 'b', 'c'])), same: dump(one) === dump(sliced), calls, n: one.n,
					cloneAt, cloneX: clone[1] >= 0, cloneRaw: clone[2] };
			});
			assert.deepEqual(r.root, [11, 8, 0, 0]);
			assert.deepEqual(r.a, [7, 8, 0, 0]);
			assert.deepEqual(r.b, [6, 6, 2, 0]);
			assert.deepEqual(r.c, [4, 6, 3, 6]);
			assert.deepEqual(r.e, [1, 0, 1, 0]);
			assert.deepEqual(r.bb, [1, 0, 1, 0]);
			assert.deepEqual(r.z, [4, 0, 4, 0]);
			assert.deepEqual(r.q, [0, 2, 0, 2]);
			assert.equal(r.bad, 3); // "no-count", "a;b x", " 5"
			assert.deepEqual(r.base, { samples: 11, stacks: 5 });
			assert.deepEqual(r.head, { samples: 8, stacks: 2 });
			// c: 4/11 of the base, 6/8 of the head: +38.6 percentage points
			assert.ok(Math.abs(r.dc - 100 * (6 / 8 - 4 / 11)) < 1e-9, r.dc);
			assert.ok(r.same && r.calls > 5, JSON.stringify(r));
			assert.ok(r.built);
			assert.equal(r.n, 1 + 1 + 7 + 21);
			assert.deepEqual(r.cloneAt, [3, 5]);
			assert.ok(r.cloneX);
			assert.equal(r.cloneRaw, -1);
		});

		await check('profile diff page: do_mmap grew (red, head\'s width), handle_mm_fault shrank (blue), click zooms, search highlights, symbols table', async () => {
			const prof = await seedProfiles();
			const q = profQuery(PROF_BASE, PROF_HEAD);
			const real = await endpoint(`/api/v1/profile-diff?${q}`);
			let api = prof.reply;
			if (real) {
				// all the stacks need a token; the trimmed form is anyone's
				const anon = await call('GET', `/api/v1/profile-diff?${q}&folded=1`);
				assert.equal(anon.status, 401, anon.text);
				assert.deepEqual([anon.json.error.code, anon.json.error.detail], ['unauthorized', 'folded']);
				const top = await call('GET', `/api/v1/profile-diff?${q}&folded=top`);
				assert.equal(top.status, 200, top.text);
				assert.equal(top.json.folded.top, 2000);
				const r = await call('GET', `/api/v1/profile-diff?${q}&folded=1`, undefined, 'read');
				assert.equal(r.status, 200, r.text);
				// fewer stacks than the top: the public form is the whole text
				assert.deepEqual([top.json.folded.base, top.json.folded.head], [r.json.folded.base, r.json.folded.head]);
				api = r.json;
				// the server merged the same runs the test posted
				assert.deepEqual([api.base.runs, api.head.runs], [3, 3]);
				assert.deepEqual([api.base.samples, api.head.samples], [prof.reply.base.samples, prof.reply.head.samples]);
				// sorted by the size of the change: demo_delay (+33 points) first, the
				// mmap chain (+30 each) before handle_mm_fault (-25)
				const names = api.symbols.map((s) => s.symbol);
				assert.equal(names[0], 'demo_delay', JSON.stringify(names));
				assert.ok(names.includes('do_mmap') && names.includes('handle_mm_fault'), JSON.stringify(names));
				api.symbols.forEach((s, i) => assert.ok(i === 0 ||
					Math.abs(api.symbols[i - 1].children_change) >= Math.abs(s.children_change) - 1e-9, JSON.stringify(names)));
				const byName = Object.fromEntries(api.symbols.map((s) => [s.symbol, s]));
				assert.ok(Math.abs(byName.do_mmap.children_change - 30) < 1, byName.do_mmap.children_change);
				assert.ok(Math.abs(byName.handle_mm_fault.children_change + 25) < 1, byName.handle_mm_fault.children_change);
				// the event as sampled, and the work each run did (vm-scalability.throughput x 1 s)
				assert.equal(api.event, 'cpu-clock');
				assert.deepEqual(api.work, { metric: 'vm-scalability.throughput', per_work: true });
				assert.equal(api.significance.basis, 'per-work');
			} else {
				console.log('  NOTE: this server has no GET /api/v1/profile-diff: the page reads the diff the test computed from the posted documents');
				await page.route(/\/api\/v1\/profile-diff\?/, (route) => {
					const u = new URL(route.request().url());
					const mine = u.searchParams.get('base') === PROF_BASE && u.searchParams.get('head') === PROF_HEAD;
					return route.fulfill({ status: mine ? 200 : 404, contentType: 'application/json', body: JSON.stringify(mine
						? prof.reply : { error: { code: 'not_found', message: 'no profiled runs of base' } }) });
				});
			}
			try {
				// an anonymous visitor: the page asks for folded=top and draws it
				await page.evaluate(() => localStorage.removeItem('regtrack.token'));
				await open(`/profile-diff?${q}`, 'profile-diff');
				assert.equal(await page.getAttribute('#profile-diff', 'data-profile'), 'drawn');
				if (real)
					assert.equal(await page.getAttribute('#profile-diff', 'data-folded'), 'top');
				// fetched and merged off the page's thread
				assert.equal(await page.getAttribute('#profile-diff', 'data-merged'), 'worker');
				assert.match(await page.textContent('#profile-diff .profile-sides'),
					new RegExp(`head ${PROF_HEAD.slice(0, 12)} · 3 runs, ${api.head.samples} samples vs base ${PROF_BASE.slice(0, 12)} · 3 runs`));
				const W = Number(await page.evaluate(() => document.querySelector('#profile-diff canvas').getBoundingClientRect().width));
				let frames = await flameFrames('#profile-diff');
				const frame = (name) => frames.find((f) => f.name === name && !f.ancestor);
				// grew: red, as wide as the head's share; demo_delay (0 -> 33.3 %) is the
				// largest change, at full strength, do_mmap's +30 points a little lighter
				const mm = frame('do_mmap');
				assert.ok(mm, JSON.stringify(frames.map((f) => f.name)));
				const change = (prefix) => headShare(prof.stacks, prefix) - baseShare(prof.stacks, prefix);
				const max = change(`${MMAP};demo_delay`);
				assert.ok(Math.abs(max - 100 / 3) < 0.5, max);
				assert.deepEqual(rgb(frame('demo_delay').fill), [255, 0, 0]);
				const c = Math.round(210 * (1 - change(MMAP) / max));
				assert.ok(c > 10 && c < 40, c);
				assert.deepEqual(rgb(mm.fill), [255, c, c]);
				assert.deepEqual(await pixel('#profile-diff', mm), [255, c, c]);
				assert.ok(Math.abs(mm.w - W * headShare(prof.stacks, MMAP) / 100) < 1, `${mm.w} of ${W}`);
				assert.ok(Math.abs(headShare(prof.stacks, MMAP) - 50) < 1);
				// shrank: blue, lighter for the smaller change (-25 points vs +30)
				const pf = frame('handle_mm_fault');
				const [r, g, b] = rgb(pf.fill);
				assert.deepEqual([r, g, b], [...Array(2).fill(Math.round(210 * (1 + change(FAULT) / max))), 255]);
				assert.ok(r > 30 && r < 80, pf.fill);
				assert.deepEqual(await pixel('#profile-diff', pf), [r, g, b]);
				assert.ok(Math.abs(pf.w - W * headShare(prof.stacks, FAULT) / 100) < 1, `${pf.w} of ${W}`);
				// the comm: 100 % on both sides, no change: grey
				assert.equal(frame('small-allocs').fill, 'rgb(221,221,221)');
				// mmap_region (20 % -> 16.7 %) a light blue
				assert.equal(rgb(frame('mmap_region').fill)[2], 255);
				assert.ok(rgb(frame('mmap_region').fill)[0] > 150);
				await page.locator('#profile-diff').screenshot({ path: join(ART, 'profile-diff.png') });
				// click on do_mmap: it fills the width, its children split it by the head's samples
				const box = await page.locator('#profile-diff canvas').boundingBox();
				await page.mouse.click(box.x + mm.x + mm.w / 2, box.y + mm.y + mm.h / 2);
				assert.equal(await page.getAttribute('#profile-diff canvas', 'data-zoom'), 'do_mmap');
				frames = await flameFrames('#profile-diff');
				assert.ok(Math.abs(frame('do_mmap').w - W) < 0.01);
				const dd = headShare(prof.stacks, `${MMAP};demo_delay`) / headShare(prof.stacks, MMAP);
				assert.ok(Math.abs(frame('demo_delay').w - W * dd) < 1, `${frame('demo_delay').w} vs ${W * dd}`);
				assert.equal(frame('handle_mm_fault'), undefined);
				// its ancestors stay, at full width, grey
				assert.deepEqual(frames.filter((f) => f.ancestor).map((f) => [f.name, f.w]),
					['all', ...MMAP.split(';').slice(0, -1)].map((n) => [n, W]));
				await page.click('#profile-diff .flame-reset');
				assert.equal(await page.getAttribute('#profile-diff canvas', 'data-zoom'), '');
				// search: every frame whose name has "mmap" is magenta, no other; the share of the outermost matches
				await page.fill('#profile-diff .flame-search', 'mmap');
				frames = await flameFrames('#profile-diff');
				for (const f of frames.filter((x) => !x.ancestor))
					assert.equal(f.fill === 'rgb(230,0,230)', f.name.includes('mmap'), `${f.name} ${f.fill}`);
				assert.deepEqual(await pixel('#profile-diff', frame('ksys_mmap_pgoff')), [230, 0, 230]);
				const share = headShare(prof.stacks, MMAP.split(';').slice(0, 4).join(';'));
				assert.equal(await page.textContent('#profile-diff .flame-match'), `matched ${share.toFixed(2)}% of the head's samples`);
				await page.locator('#profile-diff').screenshot({ path: join(ART, 'profile-diff-search.png') });
				await page.fill('#profile-diff .flame-search', '');
				// the table: the API's symbols in its order, both sides' children and self %, the marker where significant
				const rows = await page.$$eval('#profile-diff table.profile-symbols tbody tr', (trs) => trs.map((t) =>
					[...t.cells].map((c) => c.textContent)));
				assert.equal(rows.length, Math.min(api.symbols.length, 30));
				// per work (the server's reply): samples per unit of work beside the shares
				const pw = Boolean(api.work && api.work.per_work);
				const num = (v) => (v === null || v === undefined ? '—' : String(Number(v.toPrecision(4))));
				api.symbols.slice(0, rows.length).forEach((s, i) => {
					assert.equal(rows[i][0], s.symbol);
					assert.equal(rows[i][1], `${s.base_children_pct.toFixed(2)}%`);
					assert.equal(rows[i][2], `${s.head_children_pct.toFixed(2)}%`);
					assert.equal(rows[i][3], `${s.children_change > 0 ? '+' : ''}${s.children_change.toFixed(2)}`);
					assert.equal(rows[i][5], `${s.head_self_pct.toFixed(2)}%`);
					if (pw) {
						assert.equal(rows[i][7], num(s.base_children_per_work));
						assert.equal(rows[i][8], num(s.head_children_per_work));
					}
					assert.equal(rows[i][pw ? 11 : 8], s.significant ? '★' : '');
				});
				if (real) {
					assert.equal(await page.textContent('#profile-diff .profile-event'),
						'sampled: cpu-clock (the perf-profile.*.cycles-pp.* metrics keep LKP\'s name); per work: per unit of vm-scalability.throughput × runtime, significance from it');
					assert.equal(await page.textContent('#profile-diff table.profile-symbols thead th:nth-child(8)'), 'base per work');
				}
				// a symbol in the table searches the graph for it
				await page.click('#profile-diff table.profile-symbols a.symbol >> text="handle_mm_fault"');
				assert.equal(await page.inputValue('#profile-diff .flame-search'), 'handle_mm_fault');
				frames = await flameFrames('#profile-diff');
				assert.equal(frame('handle_mm_fault').fill, 'rgb(230,0,230)');
				// commits without profiled runs
				await open(`/profile-diff?${profQuery(SHAS[0], SHAS[1])}`, 'profile-diff-empty');
				assert.equal(await page.getAttribute('#profile-diff', 'data-profile'), 'empty');
				assert.equal(await page.textContent('#profile-diff p.empty'), 'no profiled runs yet');
			} finally {
				if (!real)
					await page.unroute(/\/api\/v1\/profile-diff\?/);
			}
		});

		await check('profile diff page of commits profiled on x86_64 and arm64: one setup drawn, the other linked', async () => {
			// the two arches' stacks were merged into one graph
			const params = { test: 'small-allocs', nr_task: 'arch' };
			const arm = { hostname: 'lkp-web-arm', arch: 'aarch64', tbox_group: 'qemu-arm64', nr_cpus: 2, memory_mb: 4096, cpu_model: 'Neoverse-N1' };
			for (const [sha, day] of [[PROF_BASE, 1], [PROF_HEAD, 2]])
				for (let k = 0; k < 3; k++)
					for (const a of ['x86_64', 'arm64']) {
						const stacks = a === 'x86_64' ? [['main;x86_work', 50 + k]] : [['main;arm_work', 40 + k], ['main;el0_svc', 10]];
						const d = profiledDoc(sha, `mm: profiled ${day}`, day, stacks);
						d.params = params;
						if (a === 'arm64')
							Object.assign(d, { kconfig: 'arm64-defconfig', machine: arm });
						const r = await call('POST', '/api/v1/results', d, 'submit');
						assert.equal(r.status, 201, r.text);
					}
			const q = new URLSearchParams({ base: PROF_BASE, head: PROF_HEAD, testcase: 'vm-scalability',
				params: JSON.stringify(params) });
			const r = await call('GET', `/api/v1/profile-diff?${q}`);
			assert.equal(r.status, 400, r.text);
			assert.equal(r.json.error.detail, 'setup');
			await open(`/profile-diff?${q}`, 'profile-diff-arches');
			const picks = await page.$$eval('#setup-pick .setup', (es) => es.map((e) => [e.tagName, e.dataset.setup, e.textContent]));
			assert.equal(picks.length, 2, JSON.stringify(picks));
			assert.deepEqual(picks.map((p) => p[0]), ['B', 'A']);
			assert.ok(picks[0][2].includes('x86_64-defconfig') && picks[1][2].includes('arm64-defconfig'), JSON.stringify(picks));
			assert.equal(await page.getAttribute('#profile-diff', 'data-profile'), 'drawn');
			let names = (await flameFrames('#profile-diff')).map((f) => f.name);
			assert.ok(names.includes('x86_work') && !names.includes('arm_work'), JSON.stringify(names));
			// the other setup's link draws its own graph
			await page.click('#setup-pick a.setup');
			await page.waitForURL((u) => u.searchParams.get('setup') === picks[1][1]);
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.equal(await page.getAttribute('#profile-diff', 'data-profile'), 'drawn');
			names = (await flameFrames('#profile-diff')).map((f) => f.name);
			assert.ok(names.includes('arm_work') && !names.includes('x86_work'), JSON.stringify(names));
			assert.equal(await page.locator('#setup-pick b.setup').getAttribute('data-setup'), picks[1][1]);
		});

		await check('profile diff page with a token: all the stacks (folded=1)', async () => {
			if (!(await endpoint(`/api/v1/profile-diff?${profQuery(PROF_BASE, PROF_HEAD)}`))) {
				console.log('  (this server has no GET /api/v1/profile-diff: nothing to check)');
				return;
			}
			await page.evaluate((t) => localStorage.setItem('regtrack.token', t), TOK.read);
			try {
				await open(`/profile-diff?${profQuery(PROF_BASE, PROF_HEAD)}`, 'profile-diff-token');
				assert.equal(await page.getAttribute('#profile-diff', 'data-profile'), 'drawn');
				assert.equal(await page.getAttribute('#profile-diff', 'data-folded'), 'all');
			} finally {
				await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			}
		});

		await check('bisect page: the profile diff of the first bad commit vs its parent', async () => {
			if (!bisect) {
				console.log('  (this server has no bisects API: nothing to check)');
				return;
			}
			const r = await call('GET', `/api/v1/bisects/${bisect.id}/profile-diff?folded=1`, undefined, 'read');
			await open(`/bisects/${bisect.id}`, 'bisect-profile');
			const state = await page.getAttribute('#profile-diff', 'data-profile');
			if (r.status === 200 && r.json && r.json.folded && r.json.folded.head) {
				// the verification round ran profiled: the fake worker's stacks, do_mmap grown
				assert.equal(state, 'drawn');
				const frames = await flameFrames('#profile-diff');
				const mm = frames.find((f) => f.name === 'do_mmap' && !f.ancestor);
				assert.ok(mm && rgb(mm.fill)[0] === 255 && rgb(mm.fill)[1] < 100, JSON.stringify(mm));
				assert.equal(await page.textContent('#profile-diff table.profile-symbols tbody tr td'), r.json.symbols[0].symbol);
				await page.locator('section:has(#profile-diff)').screenshot({ path: join(ART, 'bisect-profile.png') });
			} else {
				console.log(`  the server answers GET /api/v1/bisects/${bisect.id}/profile-diff with ${r.status}: the page says so`);
				assert.ok(r.status === 404 || (r.status === 200 && !(r.json.symbols || []).length), r.text.slice(0, 300));
				assert.equal(state, 'empty');
				assert.equal(await page.textContent('#profile-diff p.empty'), 'no profiled runs yet');
			}
		});

		await check('tracking: /trees shows polls, heads, git\'s error and the plan\'s jobs; /plans and /plans/NAME the matrix and the pushes; the overview and /metrics the same numbers', async () => {
			if (!tracking)
				return;
			const [base, head1, head2] = tracking.heads;
			await open('/trees', 'trees');
			const card = '#tree-tracked';
			assert.equal(await page.textContent(`${card} .poll-every`), 'when asked (POST …/poll)');
			assert.equal(await page.textContent(`${card} .polls`), '3');
			assert.match(await page.textContent(`${card} .last-poll`), /^\d+ (s|min \d+ s) ago · took \d+ ms$/);
			assert.equal(await page.locator(`${card} .poll-error`).count(), 0);
			assert.equal(await page.getAttribute(`${card} .branch-row .head code.sha`, 'title'), head2);
			// 2 setups (the arch and the tbox_group) x 2 tested commits (baseline, push 1's head)
			const planRow = await page.$$eval(`${card} .plan-row td`, (tds) => tds.map((t) => t.textContent));
			assert.deepEqual(planRow.slice(0, 7), ['web-track', '4', '0', '0', '0', '0', '0']);
			assert.match(await page.textContent('#tree-gone .poll-error'), /does not exist/);
			assert.match(await page.textContent('#tree-gone .last-poll'), /failed ×1/);
			await shot('trees');

			await open('/plans', 'plans');
			const row = await page.$$eval('#plans tr[data-plan="web-track"] td', (tds) => tds.map((t) => t.textContent));
			assert.deepEqual(row.slice(0, 6), ['web-track', 'tracked', 'master', '2',
				'each new head · touching mm/ · at most 20 per push', '3 × icount']);
			assert.equal(row[6], '4');
			await page.click('#plans a[href="/plans/web-track"]');
			await page.waitForURL('**/plans/web-track');
			await page.waitForFunction(() => document.body.dataset.ready);
			assert.equal(await page.textContent('h1'), 'Plan web-track');
			assert.deepEqual(await page.$$eval('#matrix tbody tr td', (tds) => tds.map((t) => t.textContent)),
				['will-it-scale mode=process', '●', '●']);
			const pushes = await page.$$eval('#pushes tbody tr', (trs) => trs.map((t) => ({
				tested: [...t.querySelectorAll('.tested li')].map((li) => `${li.querySelector('code').title} ${li.querySelector('.badge').textContent}`),
				skipped: [...t.querySelectorAll('.skipped li')].map((li) => `${li.querySelector('code').title} ${li.querySelector('.badge').textContent}`),
				commits: t.cells[3].textContent, queued: t.querySelector('.jobs-queued').textContent })));
			assert.deepEqual(pushes, [
				{ tested: [], skipped: [`${head2} paths`], commits: '2', queued: '0' },
				{ tested: [`${head1} head`], skipped: [], commits: '3', queued: '2' },
				{ tested: [`${base} baseline`], skipped: [], commits: '0', queued: '2' }]);
			assert.deepEqual(await page.$$eval('#plan-jobs td', (tds) => tds.map((t) => t.textContent)),
				['4', '0', '0', '0', '0', '0']);
			await shot('plan');

			await open('/', 'overview-tracking');
			assert.deepEqual(await page.$$eval('#tracking tr[data-tree="tracked"] td', (tds) => tds.map((t) => t.textContent))
				.then((c) => [c[0], c[1], c[3], c[4], c[5], c[6], c[7]]), ['tracked', '1', 'web-track', '4', '0', '0', '0']);
			assert.match(await page.textContent('#tracking tr[data-tree="gone"]'), /failed ×1/);

			const metrics = await (await fetch(URLBASE + '/metrics')).text();
			assert.match(metrics, /^regtrack_queue_depth_tracking\{tbox_group="lkp-track-web"\} 2$/m);
			assert.match(metrics, /^regtrack_queue_depth_tracking\{tbox_group="arch:x86_64"\} 2$/m);
			assert.match(metrics, /^regtrack_tree_polls_total\{tree="tracked"\} 3$/m);
			assert.match(metrics, /^regtrack_tree_poll_failures\{tree="gone"\} 1$/m);
			assert.match(metrics, /^regtrack_tree_poll_duration_seconds\{tree="tracked"\} [0-9.]+$/m);
			assert.match(metrics, /^# TYPE regtrack_queue_depth gauge$/m);
		});

		await check('regression page: "bisect now" for an admin starts a bisect linked to the record', async () => {
			if (!(await endpoint('/api/v1/regressions'))) {
				console.log('  (this server has no regressions API: nothing to check)');
				return;
			}
			const reg = await detectedRegression();
			if ((await call('GET', `/api/v1/regressions/${reg.id}`)).json.bisect_id) {
				console.log('  (the record has a bisect already: nothing to check)');
				return;
			}
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			await open(`/regressions/${reg.id}`, 'regression-bisect-now-anon');
			assert.equal(await page.locator('#bisect-now').count(), 0);
			assert.match(await page.textContent('section:has(> h2:text-is("Bisect"))'), /Set an admin token to bisect it now\./);
			await page.evaluate((t) => localStorage.setItem('regtrack.token', t), TOK.admin);
			await open(`/regressions/${reg.id}`, 'regression-bisect-now');
			await page.click('#bisect-now');
			await page.waitForFunction(() => !document.querySelector('#bisect-now') ||
				document.querySelector('#bisect-now-status .error'));
			assert.equal(await page.locator('#bisect-now-status .error').count(), 0);
			const after = (await call('GET', `/api/v1/regressions/${reg.id}`)).json;
			assert.ok(after.bisect_id, JSON.stringify(after));
			const b = (await call('GET', `/api/v1/bisects/${after.bisect_id}`)).json;
			assert.equal(b.regression_id, reg.id);
			assert.equal(await page.locator('#bisect-now').count(), 0);
			assert.doesNotMatch(await page.textContent('section:has(> h2:text-is("Bisect"))'), /Not bisected yet/);
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
		});

		await check('requests: the list; one request with x86_64 and arm64 side by side, every run a dot per side, the LKP table, no profile diff yet; a running one with its jobs\' phases', async () => {
			// seeded here, after the overview and machines checks that count the machines
			const requests = await seedRequests(await bisect);
			assert.ok(requests, 'no requests API');
			await open('/requests', 'requests');
			const rows = page.locator('#requests tr.request-row');
			assert.equal(await rows.count(), 2);
			const done = page.locator(`#requests tr.request-row[data-id="${requests.done}"]`);
			assert.match(await done.textContent(), /done.*regression.*demo/);
			// every row's p and verdict on screen, not cut off by its card: one target above
			// the other in a 1280-wide window, side by side in a 1920-wide one
			const cutOff = () => page.$$eval('tr.lkp-row', (trs) => trs.flatMap((t) => {
				const card = t.closest('.card').getBoundingClientRect();
				return [...t.cells].slice(-2).map((c) => c.getBoundingClientRect())
					.filter((r) => r.right > Math.min(card.right, window.innerWidth) + 0.5 || r.width < 10)
					.map((r) => `${t.dataset.metric}: ${r.left}..${r.right} of ${card.right}`);
			}));
			for (const width of [1280, 1920]) {
				await page.setViewportSize({ width, height: 900 });
				await open(`/requests/${requests.done}`, `request-${width}`);
				assert.equal(await page.locator('tr.lkp-row').count(), 2);
				assert.deepEqual(await cutOff(), [], `${width}-wide`);
				const x = await page.locator('#target-x86_64').boundingBox(), a = await page.locator('#target-arm64').boundingBox();
				assert.ok(x && a, 'both target columns');
				if (width === 1920) {
					assert.equal(Math.round(x.y), Math.round(a.y), 'side by side');
					assert.ok(a.x > x.x + x.width - 1, 'arm64 right of x86_64');
				} else {
					assert.ok(a.y > x.y + x.height - 1, 'arm64 below x86_64');
				}
				await shot(`request-${width}`);
			}
			await page.setViewportSize({ width: 1400, height: 900 });
			await open(`/requests/${requests.done}`, 'request');
			for (const t of ['x86_64', 'arm64']) {
				assert.equal(await page.locator(`#target-${t} circle.dot-base`).count(), 6, t);
				assert.equal(await page.locator(`#target-${t} circle.dot-head`).count(), 6, t);
				assert.match((await page.textContent(`#profile-diff-${t}`)).trim(), /^no profile(d runs yet| diff)/);
			}
			const up = page.locator('#target-x86_64 tr.lkp-row.improvement');
			assert.equal(await up.count(), 1);
			assert.match(await up.textContent(), /\+[78]\.\d%.*page-fault\.ops_per_sec.*6 \/ 6/);
			const down = page.locator('#target-arm64 tr.lkp-row.regression');
			assert.equal(await down.count(), 1);
			assert.match(await down.textContent(), /-[56]\.\d%.*page-fault\.ops_per_sec/);
			assert.match(await page.textContent('#progress-base'), /12 \/ 12 runs/);
			assert.match(await page.textContent('#reproduce'), /regtrack test --tree demo/);
			await shot('request');
			await open(`/requests/${requests.running}`, 'request-running');
			assert.match(await page.textContent('h1'), /running/);
			assert.match(await page.textContent('#progress-base'), /0 \/ 4 runs.*0 \/ 4 jobs/);
			const jobs = page.locator('#request-jobs tr.request-job');
			assert.equal(await jobs.count(), 8);
			assert.equal((await jobs.first().locator('td.phase').textContent()).trim(), 'build');
			assert.match((await page.textContent('#profile-diff-x86_64')).trim(), /^no profile(d runs yet| diff)/);
			await shot('request-running');
			// a request of a head commit has no mbox; one of a patch links its mbox, byte for byte
			assert.equal(await page.locator('#mbox').count(), 0);
			const mbox = 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n' +
				'From: Zoë Dev <dev@example.org>\nDate: Tue, 1 Dec 2026 10:00:00 +0000\n' +
				'Subject: [PATCH] mm: a patch on the page\n\n---\n' +
				'diff --git a/mm.c b/mm.c\n--- a/mm.c\n+++ b/mm.c\n@@ -1 +1,2 @@\n int x;\n+int y;\n';
			const patched = await submitRequest({ tree: 'demo', base: (await bisect).shas[0], patches: mbox,
				testcases: [{ testcase: 'page-fault', params: { nr_task: '2' } }], targets: ['x86_64'], repeat: 2 });
			let r = await call('POST', `/api/v1/requests/${patched}/cancel`, undefined, 'submit');
			assert.equal(r.status, 200, r.text);
			// the series is not public: no link without a token, 401 for the URL
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			await open(`/requests/${patched}`, 'request-patched');
			assert.equal(await page.locator('#mbox').count(), 0);
			const href = `/api/v1/requests/${patched}/mbox`;
			assert.equal((await call('GET', href)).status, 401);
			r = await call('GET', href, undefined, 'read');
			assert.equal(r.status, 200, r.text);
			assert.equal(r.text, mbox);
			// with a token the link shows it, fetched with the token
			await page.evaluate((t) => localStorage.setItem('regtrack.token', t), TOK.read);
			await open(`/requests/${patched}`, 'request-patched');
			assert.equal(await page.getAttribute('#mbox', 'href'), href);
			await page.click('#mbox');
			await page.waitForSelector('#mbox-text');
			assert.equal(await page.textContent('#mbox-text'), mbox);
			await page.evaluate(() => localStorage.removeItem('regtrack.token'));
			// its jobs' logs (they build the series) are not public either
			const job = (await call('GET', `/api/v1/requests/${patched}`, undefined, 'read')).json.jobs[0].id;
			await open(`/jobs/${job}`, 'request-job');
			assert.match(await page.textContent('main'), /The log of an A\/B request's job needs a token/);
		});

		await check('unknown page says so', async () => {
			await page.goto(URLBASE + '/no/such/page');
			await page.waitForSelector('h1');
			assert.equal(await page.textContent('h1'), 'Not found');
		});

		await check(`large series: ${bigPoints} points render`, async () => {
			const q = new URLSearchParams({ testcase: 'will-it-scale', metric: 'will-it-scale.per_process_ops' });
			const ms = await open(`/series?${q}`, 'series-large');
			const n = Number(await page.getAttribute('.chart', 'data-points'));
			assert.equal(n, bigPoints);
			const draw = await page.getAttribute('.chart', 'data-draw-ms');
			console.log(`  series of ${n} points: page ready ${ms} ms after navigation, chart drawn in ${draw} ms`);
			await shot('series-large');
		});

		await check('compare: a row of an icount setup decided by its A/A spread shows the spread, not q', async () => {
			// as tests/integration/test_aa_spread.py: 4 commits x 2 runs within 0.04 %, then 3 runs a side, +5 %
			const runs = [[1000.0, 1000.4], [1001.0, 1001.2], [999.0, 999.3], [1000.5, 1000.6],
				[1000.0, 1000.2, 1000.1], [1050.0, 1050.3, 1050.1]];
			const csha = (i) => `${hex(0xe0 + i)}${'fedcba9876543210'.repeat(3)}`.slice(0, 40);
			for (let i = 0; i < runs.length; i++) {
				for (const v of runs[i]) {
					const d = doc(0, { test: 'small-allocs', measure: 'icount' }, { 'will-it-scale.per_process_ops': [v] });
					d.testcase = 'icount-web';
					d.commit = csha(i);
					d.commit_time = `2025-06-0${1 + i}T12:00:00Z`;
					d.commit_subject = `icount: commit ${i}`;
					const r = await call('POST', '/api/v1/results', d, 'submit');
					assert.ok(r.status === 201 || r.status === 200, `POST results: ${r.status} ${r.text}`);
				}
			}
			await open(`/compare?base=${csha(4)}&head=${csha(5)}`, 'compare-by-spread');
			const tr = page.locator('tr.cmp-row[data-metric="will-it-scale.per_process_ops"]');
			assert.equal(await tr.getAttribute('data-verdict'), 'different');
			assert.equal(await tr.locator('.badge').textContent(), 'improvement');
			const td = tr.locator('td.by-spread');
			// 0.4 / 1000.2 = 0.03999 %, of the history's 8 runs (the compared commits' own left out)
			assert.equal(await td.textContent(), 'by A/A spread ±0.04 %');
			assert.match(await td.getAttribute('title'),
				/^icount setup: decided by the measured A\/A spread of 8 runs, not the rank test/);
			assert.ok(!(await tr.textContent()).includes('q —'));
		});

		await check('series: a link to a setup stored in an older spelling of its machine shape charts that setup, the one spelling\'s listed', async () => {
			const old = { accel: 'tcg', pin: 'true', test: 'small-allocs', vcpus: '2' };
			const post = async (i, v) => {
				const d = doc(i, old, { 'will-it-scale.per_process_ops': [v] });
				d.testcase = 'spelling-web';
				const r = await call('POST', '/api/v1/results', d, 'submit');
				assert.equal(r.status, 201, r.text);
			};
			// a setup as the server stored it before it wrote the one spelling, made so by hand
			await post(0, 100);
			await post(1, 101);
			psql(`UPDATE setups SET params = '${JSON.stringify(old)}', params_key = '${JSON.stringify(old)}'
				WHERE testcase_id = (SELECT id FROM testcases WHERE name = 'spelling-web')`);
			// the same spelling posted now: the one spelling's setup
			for (const [i, v] of [[0, 200], [1, 201], [2, 202]])
				await post(i, v);
			const q = { testcase: 'spelling-web', metric: 'will-it-scale.per_process_ops' };
			// the link the pages build for the older setup: its params as stored
			await open(`/series?${new URLSearchParams({ ...q, params: JSON.stringify(old) })}`, 'series-spelling');
			assert.equal(await page.locator('.series-block').count(), 1);
			assert.equal(await page.textContent('.series-block p.muted'), '2 runs over 2 commits');
			const picked = await page.inputValue('#pick-setup');
			assert.equal(await page.locator(`#pick-setup option[value="${picked}"]`).count(), 1);
			const also = page.locator('section:has(h2:text("The same machine shape in another spelling")) li a');
			assert.equal(await also.count(), 1);
			// that link opens the one spelling's setup alone
			await open(await also.getAttribute('href'), 'series-spelling-one');
			assert.equal(await page.locator('.series-block').count(), 1);
			assert.equal(await page.textContent('.series-block p.muted'), '3 runs over 3 commits');
			assert.notEqual(await page.inputValue('#pick-setup'), picked);
			assert.equal(await page.locator('section:has(h2:text("The same machine shape in another spelling"))').count(), 0);
		});

		// One run of vals[i] at commit csha(i) of testcase (a minute apart from start, subject
		// subject(i)), then the series query and its detection once it covers every commit.
		const seriesDetected = async (testcase, params, vals, csha, start, subject) => {
			for (let i = 0; i < vals.length; i++) {
				const d = doc(0, params, { 'vm-scalability.throughput': [vals[i]] });
				d.testcase = testcase;
				d.commit = csha(i);
				d.commit_time = new Date(start + i * 60000).toISOString().replace('.000', '');
				d.commit_subject = subject(i);
				const r = await call('POST', '/api/v1/results', d, 'submit');
				assert.ok(r.status === 201 || r.status === 200, `POST results: ${r.status} ${r.text}`);
			}
			const q = new URLSearchParams({ testcase, metric: 'vm-scalability.throughput' });
			let d = null;
			for (const t0 = Date.now(); Date.now() - t0 < 60000; await new Promise((res) => setTimeout(res, 200))) {
				const r = await call('GET', `/api/v1/series?${q}`);
				d = r.json && r.json.series.length ? r.json.series[0].detection : null;
				if (d && d.n_commits === vals.length)
					break;
			}
			assert.ok(d && d.n_commits === vals.length, `no detection of the ${vals.length} commits: ${JSON.stringify(d)}`);
			return { q, d };
		};

		await check('series: "why (not) flagged" says where the history raised a candidate\'s noise sigma', async () => {
			// a balance of deposits that drain away, one run each of 64 commits (the sawtooth of
			// tests/integration/test_detect_explain.py, from a local LCG): the first window has no
			// history, and its own neighbouring means move 1.9 times what its model allowed
			let st = 1;
			const r01 = () => {
				st = (st * 1103515245 + 12345) % 2147483648;
				return st / 2147483648;
			};
			const vals = [];
			let level = 7.3;
			while (vals.length < 64) {
				const period = 25 + Math.floor(r01() * 11);
				level += 0.8 + 0.4 * r01();
				for (let i = 0; i < period && vals.length < 64; i++) {
					if (r01() < 0.3)
						level -= 0.08 * r01();
					vals.push(Math.round(level * 100) / 100);
				}
				level = 7.2 + 0.2 * r01();
			}
			const csha = (i) => `${hex(0x100 + i)}${'0123456789abcdef'.repeat(3)}`.slice(0, 40);
			const { q, d } = await seriesDetected('sawtooth-web', { test: 'deposits' }, vals, csha,
				Date.UTC(2025, 0, 1), (i) => `balance: day ${i}`);
			const raised = d.candidates.filter((c) => c.noise_raised > 1 && !c.kept);
			assert.ok(raised.length, JSON.stringify(d.candidates));
			await open(`/series?${q}`, 'series-why-raised');
			await page.click('.why-flagged summary');
			const rows = await page.$$eval('.why-row', (trs) => trs.map((t) => [...t.cells].map((c) => c.textContent)));
			assert.equal(rows.length, d.candidates.length);
			d.candidates.forEach((c, i) => {
				const mark = c.noise_raised > 1 ? ` (σ ×${c.noise_raised.toFixed(2)})` : '';
				assert.equal(rows[i][6], `${c.effect.toFixed(1)} σ${mark}`);
			});
			// the seeded one: the split at day 30, p 0.018 over a sigma raised 1.9 times
			const best = d.candidates.slice().sort((a, b) => a.p_value - b.p_value)[0];
			assert.equal(best.commit, csha(30));
			assert.equal(best.noise_raised.toFixed(2), '1.91');
			const row = page.locator('.why-row').nth(d.candidates.indexOf(best));
			assert.equal(await row.locator('td').nth(6).textContent(), `${best.effect.toFixed(1)} σ (σ ×1.91)`);
			assert.match(await row.locator('.raised').getAttribute('title'),
				/^noise sigma raised 1\.9\d times: the history moves more than its noise model allowed/);
			assert.match(await page.textContent('.why-flagged summary'),
				/was dropped: p above p_max \(over σ ×1\.91: the history moves more than its noise model allowed\)$/);
			await shot('series-why-raised');
		});

		await check('series: "why (not) flagged" names a window read net of a cycle in its history', async () => {
			// TCPD's seat belts, one run a month: a yearly cycle, the law's -17 % at 169 found in
			// the window [128, 192) only when read net of the cycle (lib/stats/detect.h 2c)
			const belts = JSON.parse(readFileSync(join(here, '..', 'fixtures', 'realcpd', 'tcpd', 'seatbelts.json'), 'utf8')).values;
			const csha = (i) => `${hex(0x400 + i)}${'fedcba9876543210'.repeat(3)}`.slice(0, 40);
			const { q, d } = await seriesDetected('cycle-web', { test: 'belts' }, belts, csha,
				Date.UTC(2025, 1, 1), (i) => `month ${i}`);
			await open(`/series?${q}`, 'series-why-cycle');
			await page.click('.why-flagged summary');
			const rows = await page.$$eval('.why-row', (trs) => trs.map((t) => [...t.cells].map((c) => c.textContent)));
			assert.deepEqual(rows.map((r) => r[1]), d.candidates.map((c) => (c.stage === 'final' ?
				`final estimate${c.cycle ? ` (p net of a ${c.cycle}-commit cycle)` : ''}` :
				`window (${[c.excursion ? 'excursion' : null, c.cycle ? `net of a ${c.cycle}-commit cycle` : null].filter(Boolean).join(', ')})`
					.replace(' ()', ''))));
			const final = d.candidates.findIndex((c) => c.kept && c.stage === 'final');
			assert.equal(d.candidates[final].commit, csha(169));
			assert.equal(rows[final][1], 'final estimate (p net of a 12-commit cycle)');
			const step = d.candidates.findIndex((c) => c.kept && c.stage === 'window');
			assert.equal(d.candidates[step].commit, csha(168));
			assert.equal(rows[step][1], 'window (net of a 12-commit cycle)');
			assert.equal(rows[step][7], 'kept');
			assert.match(await page.textContent('.why-flagged summary'), /^Why \(not\) flagged: flagged: \w{7} \(-17\.7\d? ?%/);
			await shot('series-why-cycle');
		});

		await check('no dialog fired, no injected element, no page error', async () => {
			assert.deepEqual(dialogs, []);
			assert.deepEqual(pageErrors, []);
			assert.deepEqual(consoleErrors, []);
			await open(`/compare?base=${SHAS[STEP - 1]}&head=${SHAS[STEP]}`, 'compare-xss');
			assert.equal(await page.locator('img[src="x"]').count(), 0);
			assert.equal(await page.locator('main script').count(), 0);
			assert.equal(await page.getByText('<script>alert(1)</script>', { exact: false }).count() >= 1, true);
		});
	} finally {
		await ctx.close().catch(() => {});
		srv.proc.kill('SIGTERM');
		rmSync(profile, { recursive: true, force: true });
	}
	console.log('page load (navigation start to data rendered, ms): ' +
		Object.entries(timings).map(([k, v]) => `${k} ${v}`).join(', '));
	const failed = results.filter((r) => r[1]).length;
	console.log(`web: ${results.length - failed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => {
	console.error(e);
	process.exit(1);
});
