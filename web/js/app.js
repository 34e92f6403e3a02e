// The router: the server answers every page path (/series, /compare,
// /regressions/3, …) with index.html; this module picks the page module
// from location.pathname and lets it render into <main id="app">.
// A new first segment here gets its line in server/http/static.c's is_app_page().
import { h, replace, errorBox } from './dom.js';
import { getToken, setToken, ApiError } from './api.js';

const routes = [
	{ re: /^\/$/, page: 'overview', nav: 'overview' },
	{ re: /^\/series\/?$/, page: 'series', nav: 'series' },
	{ re: /^\/compare\/?$/, page: 'compare', nav: 'compare' },
	{ re: /^\/regressions\/?$/, page: 'regressions', nav: 'regressions' },
	{ re: /^\/regressions\/(\d+)\/?$/, page: 'bisect', nav: 'regressions', kind: 'regression' },
	{ re: /^\/bisects\/?$/, page: 'bisects', nav: 'bisects' },
	{ re: /^\/bisects\/(\d+)\/?$/, page: 'bisect', nav: 'bisects', kind: 'bisect' },
	{ re: /^\/jobs\/?$/, page: 'jobs', nav: 'jobs' },
	{ re: /^\/jobs\/(\d+)\/?$/, page: 'job', nav: 'jobs' },
	{ re: /^\/machines\/?$/, page: 'machines', nav: 'machines' },
	{ re: /^\/profile-diff\/?$/, page: 'profile', nav: 'compare' },
	{ re: /^\/trees\/?$/, page: 'trees', nav: 'tracking' },
	{ re: /^\/plans\/?$/, page: 'plans', nav: 'tracking' },
	{ re: /^\/plans\/([^/]+)\/?$/, page: 'plans', nav: 'tracking' },
	{ re: /^\/requests\/?$/, page: 'requests', nav: 'requests' },
	{ re: /^\/requests\/(\d+)\/?$/, page: 'requests', nav: 'requests' },
	{ re: /^\/quality\/?$/, page: 'quality', nav: 'quality' },
	{ re: /^\/inbox\/?$/, page: 'inbox', nav: 'inbox' },
];

function tokenPanel() {
	const panel = document.getElementById('token-panel');
	const btn = document.getElementById('token-button');
	const label = () => {
		btn.textContent = getToken() ? 'token ✓' : 'token';
	};
	label();
	btn.addEventListener('click', () => {
		if (!panel.hidden) {
			panel.hidden = true;
			return;
		}
		const input = h('input', {
			type: 'password', size: 48, placeholder: 'Bearer token (kept in this browser only)',
			value: getToken(), autocomplete: 'off', id: 'token-input',
		});
		replace(panel, h('form', {
			onsubmit: (ev) => {
				ev.preventDefault();
				setToken(input.value.trim());
				label();
				panel.hidden = true;
				location.reload();
			},
		}, 'API token: ', input, ' ', h('button', { type: 'submit' }, 'save'), ' ',
		h('button', {
			type: 'button', onclick: () => {
				setToken('');
				label();
				panel.hidden = true;
			},
		}, 'forget')));
		panel.hidden = false;
		input.focus();
	});
}

async function main() {
	const root = document.getElementById('app');
	const path = location.pathname;
	const route = routes.find((r) => r.re.test(path));
	tokenPanel();
	if (!route) {
		document.title = 'not found · regtrack';
		replace(root, h('h1', null, 'Not found'),
			h('p', null, 'There is no page at ', h('code', null, path), '. ',
				h('a', { href: '/' }, 'Overview')));
		return;
	}
	for (const a of document.querySelectorAll('nav a'))
		a.classList.toggle('active', a.dataset.nav === route.nav);
	const m = route.re.exec(path);
	const t0 = performance.now();
	try {
		const mod = await import(`./pages/${route.page}.js`);
		await mod.render(root, {
			id: m[1] ? Number(m[1]) : null,
			name: m[1] ? decodeURIComponent(m[1]) : null,
			kind: route.kind,
			query: new URLSearchParams(location.search),
		});
	} catch (e) {
		if (!(e instanceof ApiError))
			console.error(e); /* a bug of the page, not an answer of the server */
		replace(root, errorBox(e));
	}
	// the browser tests read this: time from navigation start to data rendered
	document.body.dataset.ready = String(Math.round(performance.now()));
	document.body.dataset.renderMs = String(Math.round(performance.now() - t0));
}

main();
